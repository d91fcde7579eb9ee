# Sourced by bin/* and .ci/run: makes sure `java` and `mvn` use a JDK >= 21, and sets JAVA_MAJOR (e.g. 25).
# Keeps JAVA_HOME when it already points at one; otherwise picks the newest JDK >= 21 under /usr/lib/jvm.
# Reads the JDK's `release` file when it has one: starting a JVM per candidate costs ~0.4 s each.
java_major() {
  local home
  home="$(dirname "$(dirname "$(readlink -f "$1")")")"
  if [ -f "$home/release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release"
  else
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1
  fi
}

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME/bin/java")" -ge 21 ] 2>/dev/null; then
  :
elif command -v java >/dev/null && [ "$(java_major "$(command -v java)")" -ge 21 ] 2>/dev/null; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
else
  best=""; best_major=0
  for j in /usr/lib/jvm/*/bin/java /opt/java/*/bin/java; do
    [ -x "$j" ] || continue
    m="$(java_major "$j")"
    if [ -n "$m" ] && [ "$m" -ge 21 ] && [ "$m" -gt "$best_major" ]; then best="$j"; best_major="$m"; fi
  done
  if [ -z "$best" ]; then
    echo "ERROR: Punctual needs a JDK 21 or newer; none found (default java: $(java -version 2>&1 | head -1))." >&2
    echo "       Install one (e.g. Temurin 21+) and set JAVA_HOME to it." >&2
    exit 1
  fi
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$best")")")"
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
JAVA_MAJOR="$(java_major "$JAVA_HOME/bin/java")"
