# Sourced by bin/* and .ci/run: makes sure `java` and `mvn` use a JDK >= 21.
# Keeps JAVA_HOME when it already points at one; otherwise picks the newest JDK >= 21 under /usr/lib/jvm.
java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | cut -d. -f1; }

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME/bin/java")" -ge 21 ]; then
  :
elif command -v java >/dev/null && [ "$(java_major "$(command -v java)")" -ge 21 ]; then
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
