# Sourced by bin/run-local, bin/run-executor and bin/bench, after bin/jdk.sh.

# build_if_changed JAR MODULE [NEEDED_MODULE...]
# Builds JAR (`mvn -pl MODULE -am package -DskipTests`: tests are compiled, for the test jars modules depend on, but
# not run) unless it is up to date: MODULE and the NEEDED_MODULEs (those it needs at run time, per the poms: keep
# the callers' lists in step with them) are its inputs, with their pom.xml and src/main/, the root pom.xml and
# .mvn/. When the build fails, the calling script exits: an old jar
# never runs as if it were the new one.
#
# After its own build, this records every input's path and mtime as they were when the build started, in
# MODULE/target/bin-build-inputs: any difference (an edit, even one made during the build; a new, deleted or renamed
# file) rebuilds, from clean when an input is gone. A jar newer than that record was built by something else
# (bin/test, mvn by hand): it is kept unless an input is newer than it.
build_if_changed() {
  local jar=$1 module=$2
  shift
  local record="$module/target/bin-build-inputs" inputs m
  local -a _build_paths=(pom.xml .mvn) # read by the helpers below
  for m in "$@"; do _build_paths+=("$m/pom.xml" "$m/src/main"); done
  _build_up_to_date "$jar" "$record" && return 0

  if ! command -v mvn >/dev/null; then
    echo "ERROR: $jar needs a build, and that needs Maven 3.8.6+ (apt-get install maven)." >&2
    exit 1
  fi
  {
    # Two scripts started together (several bin/run-executor) would otherwise build into the same target/ at once.
    # The lock is on this file: unlike anything in target/, `mvn clean` cannot delete it while it is held.
    if command -v flock >/dev/null && ! flock -n 9; then
      echo "Waiting for another bin/ script's build..." >&2
      flock 9
    fi
    if _build_up_to_date "$jar" "$record"; then return 0; fi
    inputs="$(_build_inputs)"
    local goals=(package)
    # Maven leaves the target/ copy of a deleted resource (and may leave classes of a deleted source) in the jar.
    if [ -f "$record" ] && [ -n "$(_build_gone "$record" "$inputs")" ]; then
      goals=(clean package)
    fi
    # Until the build succeeds, a record that matches nothing: an interrupted or failed build is retried next time.
    mkdir -p "$module/target"
    echo "(a build started $(date -u +%FT%TZ) and has not succeeded)" >"$record"
    echo "Building $module/ and what it needs (${*:2}), tests skipped: a few minutes the first time..." >&2
    local opts="${MAVEN_OPTS:-} -Djansi.noreset=true" # else `mvn -q` prints colour resets even with -B
    # Maven's own Guava calls sun.misc.Unsafe, which JDK 24+ warn about; JDK 21-22 do not know the option.
    if [ "$JAVA_MAJOR" -ge 24 ]; then opts="$opts --sun-misc-unsafe-memory-access=allow"; fi
    if ! MAVEN_OPTS="$opts" mvn -B -q -ntp -pl "$module" -am "${goals[@]}" -DskipTests >&2 \
      || [ ! -f "$jar" ]; then
      echo "ERROR: building $module/ failed (see above); not starting anything." >&2
      exit 1
    fi
    printf '%s\n' "$inputs" >"$record"
  } 9<bin/lib.sh
}

# Editors' swap and backup files are not inputs.
_build_find() {
  local p existing=()
  for p in "${_build_paths[@]}"; do [ -e "$p" ] && existing+=("$p"); done
  find "${existing[@]}" -type f ! -name '.*' ! -name '*~' ! -name '#*#' "$@"
}

_build_inputs() { _build_find -printf '%p %T@\n' | LC_ALL=C sort; }

_build_gone() { # RECORD INPUTS: the recorded paths that are no longer inputs
  LC_ALL=C comm -23 <(cut -d' ' -f1 "$1" | LC_ALL=C sort) <(cut -d' ' -f1 <<<"$2" | LC_ALL=C sort)
}

_build_up_to_date() { # JAR RECORD
  [ -f "$1" ] || return 1
  if [ -f "$2" ] && [ ! "$1" -nt "$2" ]; then
    [ "$(_build_inputs)" = "$(cat "$2")" ]
  else
    [ -z "$(_build_find -newer "$1" -print -quit)" ]
  fi
}
