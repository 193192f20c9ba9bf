#!/usr/bin/env bash
# Native smoke test, run by hand: builds the shim for each installed MPI, runs a 2-rank program with the
# shim preloaded against native-shim/test/sink.mjs, and checks that every rank delivered a well-formed
# stream ending in END. Usage: bash native-shim/test/run-smoke.sh [openmpi|mpich ...] [-- PROGRAM.c]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpis=()
prog="$here/smoke.c"
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then prog=$2; break; fi
  mpis+=("$1"); shift
done
[ ${#mpis[@]} -gt 0 ] || mpis=(openmpi mpich)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${sink:-}" ] && kill "$sink" 2>/dev/null || true' EXIT
status=0
for mpi in "${mpis[@]}"; do
  bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi"
  "mpicc.$mpi" -g -O0 -o "$tmp/prog-$mpi" "$prog"
  node "$here/sink.mjs" --ranks 2 --token smoke-token --timeout 60 >"$tmp/sink-$mpi.log" 2>&1 &
  sink=$!
  for _ in $(seq 100); do grep -q listening "$tmp/sink-$mpi.log" && break; sleep 0.05; done
  port=$(awk '/listening/ {print $2}' "$tmp/sink-$mpi.log")
  extra=()
  [ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN)
  LD_PRELOAD="$root/native-shim/build/$mpi/libmpiscope.so" MPISCOPE_URL="ws://127.0.0.1:$port/" \
    MPISCOPE_TOKEN=smoke-token timeout 60 "mpirun.$mpi" "${extra[@]}" -np 2 "$tmp/prog-$mpi" || status=1
  wait "$sink" || status=1
  sink=
  echo "== $mpi"; cat "$tmp/sink-$mpi.log"
done
exit $status
