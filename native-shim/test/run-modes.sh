#!/usr/bin/env bash
# Runs native-shim/test/modes.c in each mode under one MPI with the sink, and prints what the sink saw:
#   bash native-shim/test/run-modes.sh openmpi|mpich [MODE...]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi=${1:-openmpi}
shift || true
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(finalize crash exit abort badcount modified)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi" || exit 1
"mpicc.$mpi" -g -O0 -o "$tmp/modes" "$here/modes.c" || exit 1
extra=()
[ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN)
for mode in "${modes[@]}"; do
  node "$here/sink.mjs" --ranks 2 --token t --timeout 30 ${SINK_ARGS:-} >"$tmp/sink.log" 2>&1 &
  sink=$!
  for _ in $(seq 100); do grep -q listening "$tmp/sink.log" && break; sleep 0.05; done
  port=$(awk '/listening/ {print $2}' "$tmp/sink.log")
  start=$(date +%s.%N)
  LD_PRELOAD="$root/native-shim/build/$mpi/libmpiscope.so" MPISCOPE_URL="ws://127.0.0.1:$port/" MPISCOPE_TOKEN=t \
    timeout 30 "mpirun.$mpi" "${extra[@]}" -np 2 "$tmp/modes" "$mode" >"$tmp/run.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  # Ranks killed by mpirun (after another rank's abort or crash) may never close cleanly: give the sink a moment.
  for _ in $(seq 40); do kill -0 "$sink" 2>/dev/null || break; sleep 0.05; done
  kill "$sink" 2>/dev/null; wait "$sink" 2>/dev/null
  printf '== %s %s: mpirun exit %s in %.1fs\n' "$mpi" "$mode" "$rc" "$(echo "$end - $start" | bc)"
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
    for (const l of lines) {
      if (!l.startsWith("{")) { if (l.trim()) console.log("  " + l); continue; }
      const s = JSON.parse(l);
      console.log(`  rank ${s.hello?.rank} records=${s.records} end=${JSON.stringify(s.end)} findings=${s.kinds.FINDING ?? 0} errors=${JSON.stringify(s.errors)} texts=${JSON.stringify(s.texts)}`);
    }' "$tmp/sink.log"
done
