#!/usr/bin/env bash
# Local Neo4j 5.26 Community for `execkg build` and the Neo4j tests of
# engine/graph: an embedded database with Bolt on 127.0.0.1, auth disabled,
# started from the Java launcher in tools/neo4j (see tools/neo4j/README.md).
#
#   bash scripts/neo4j.sh build    # compile the launcher (first run downloads ~125 MB from Maven Central)
#   bash scripts/neo4j.sh start    # build if needed, start in the background, wait until Bolt answers
#   bash scripts/neo4j.sh status   # exit 0 when running, 3 when not
#   bash scripts/neo4j.sh stop     # SIGTERM, wait for the clean shutdown
#
# Settings (environment): NEO4J_PORT (7687), NEO4J_RUN_DIR (tools/neo4j/run),
# NEO4J_DATA_DIR ($NEO4J_RUN_DIR/data), NEO4J_HEAP (512m), NEO4J_PAGECACHE (128m),
# NEO4J_START_TIMEOUT (180 s), NEO4J_STOP_TIMEOUT (60 s), NEO4J_JAVA_OPTS (extra JVM flags).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOL=$ROOT/tools/neo4j
RUN=${NEO4J_RUN_DIR:-$TOOL/run}
PORT=${NEO4J_PORT:-7687}
DATA=${NEO4J_DATA_DIR:-$RUN/data}
HEAP=${NEO4J_HEAP:-512m}
PAGECACHE=${NEO4J_PAGECACHE:-128m}
START_TIMEOUT=${NEO4J_START_TIMEOUT:-180}
STOP_TIMEOUT=${NEO4J_STOP_TIMEOUT:-60}
PIDFILE=$RUN/neo4j.pid
LOG=$RUN/neo4j.log
JAR=$TOOL/target/execkg-neo4j.jar
MAIN=org.executablekg.neo4j.Launcher

die() { echo "neo4j.sh: $*" >&2; exit 1; }

log_tail() {
  if [[ -f $LOG ]]; then
    echo "--- last 40 lines of $LOG ---" >&2
    tail -n 40 "$LOG" >&2
    echo "--- (Neo4j's own log: $DATA/logs/debug.log) ---" >&2
  fi
}

# our_pid prints the PID from the PID file when that process is alive and is
# our launcher (a stale file whose PID was reused by something else is ignored).
our_pid() {
  [[ -f $PIDFILE ]] || return 1
  local pid
  pid=$(<"$PIDFILE")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN" || return 1
  echo "$pid"
}

# bolt_answers performs the Bolt handshake (magic 0x6060B017, then a 5.x
# version proposal) and succeeds when the server agrees on a version.
bolt_answers() {
  local reply
  reply=$(timeout 3 bash -c '
    exec 3<>/dev/tcp/127.0.0.1/'"$PORT"' || exit 1
    printf "\x60\x60\xb0\x17\x00\x08\x08\x05\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    head -c 4 <&3 | od -An -tx1 | tr -d " \n"
  ' 2>/dev/null) || return 1
  [[ -n $reply && $reply != 00000000 ]]
}

rss_mib() { awk '/VmRSS/ {printf "%d", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }

cmd_build() {
  command -v java >/dev/null || die "java not found: install a JDK 17 or 21 (Neo4j 5.26 needs one of them)"
  command -v mvn >/dev/null || die "mvn not found: install Maven 3.8+"
  local newest
  newest=$(find "$TOOL/pom.xml" "$TOOL/src" -type f -newer "$JAR" 2>/dev/null | head -n 1 || true)
  if [[ -f $JAR && -d $TOOL/target/lib && -z $newest ]]; then
    return 0
  fi
  echo "neo4j.sh: building the launcher (tools/neo4j) ..." >&2
  mkdir -p "$RUN"
  # Offline first so a machine without network works after the first build.
  if ! (cd "$TOOL" && mvn -B -q -o package >"$RUN/build.log" 2>&1); then
    (cd "$TOOL" && mvn -B -q package >"$RUN/build.log" 2>&1) || {
      tail -n 40 "$RUN/build.log" >&2
      die "maven build of tools/neo4j failed (full log: $RUN/build.log); the first build needs Maven Central"
    }
  fi
  rm -f "$RUN/build.log"
}

cmd_start() {
  local pid
  if pid=$(our_pid); then
    echo "neo4j.sh: already running (pid $pid) on bolt://127.0.0.1:$PORT"
    return 0
  fi
  if bolt_answers; then
    die "port $PORT already answers Bolt but not from our launcher: stop that server or set NEO4J_PORT"
  fi
  cmd_build
  mkdir -p "$RUN" "$DATA"
  rm -f "$PIDFILE"
  local t0 t1
  t0=$(date +%s.%N)
  # $! is the java process itself, so the PID file names the JVM that
  # SIGTERM must reach. Serial GC: a small heap on few cores; C2 stays on
  # (C1 only starts 1 s faster but made the Neo4j test suite 40% slower).
  nohup java -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseSerialGC ${NEO4J_JAVA_OPTS:-} \
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    -cp "$JAR:$TOOL/target/lib/*" "$MAIN" \
    --data "$DATA" --port "$PORT" --pagecache "$PAGECACHE" >"$LOG" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PIDFILE"
  local deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDFILE"
      log_tail
      die "Neo4j exited during start-up (see the log above)"
    fi
    if grep -q "execkg-neo4j: ready" "$LOG" 2>/dev/null && bolt_answers; then
      t1=$(date +%s.%N)
      printf 'neo4j.sh: ready on bolt://127.0.0.1:%s (pid %s, start-up %.1f s, RSS %s MiB, data %s)\n' \
        "$PORT" "$pid" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(rss_mib "$pid")" "$DATA"
      echo "export NEO4J_URI=bolt://127.0.0.1:$PORT"
      return 0
    fi
    sleep 0.5
  done
  log_tail
  kill -TERM "$pid" 2>/dev/null || true
  rm -f "$PIDFILE"
  die "Bolt did not answer on 127.0.0.1:$PORT within ${START_TIMEOUT}s (raise NEO4J_START_TIMEOUT on a slow machine)"
}

cmd_stop() {
  local pid
  if ! pid=$(our_pid); then
    rm -f "$PIDFILE"
    echo "neo4j.sh: not running"
    return 0
  fi
  kill -TERM "$pid"
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "neo4j.sh: pid $pid did not stop within ${STOP_TIMEOUT}s; sending SIGKILL (the next start runs recovery)" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.5
  done
  rm -f "$PIDFILE"
  echo "neo4j.sh: stopped (pid $pid)"
}

cmd_status() {
  local pid
  if pid=$(our_pid); then
    local bolt=no
    bolt_answers && bolt=yes
    echo "neo4j.sh: running (pid $pid, port $PORT, Bolt answers: $bolt, RSS $(rss_mib "$pid") MiB, data $DATA)"
    return 0
  fi
  echo "neo4j.sh: not running"
  return 3
}

case "${1:-}" in
  build) cmd_build; echo "neo4j.sh: launcher built ($JAR)" ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: bash scripts/neo4j.sh start|stop|status|build" >&2; exit 2 ;;
esac
