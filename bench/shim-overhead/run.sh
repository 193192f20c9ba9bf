#!/usr/bin/env bash
# Shim overhead: the same 2-rank microbenchmark without the shim, with the shim preloaded but no analyzer
# (MPISCOPE_URL unset: pass-through), and with the shim recording to a running sink. Prints ns per
# iteration and the ratio against the run without the shim.  Usage: bash bench/shim-overhead/run.sh [openmpi|mpich] [ITERS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi=${1:-openmpi}
iters=${2:-20000}
tmp=$(mktemp -d)
sink=
trap 'rm -rf "$tmp"; [ -n "$sink" ] && kill "$sink" 2>/dev/null || true' EXIT
bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi"
"mpicc.$mpi" -O2 -o "$tmp/pingpong" "$here/pingpong.c"
lib="$root/native-shim/build/$mpi/libmpiscope.so"
extra=()
[ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN)

run() { timeout 300 "mpirun.$mpi" "${extra[@]}" -np 2 "$tmp/pingpong" "$iters"; }

LD_PRELOAD= MPISCOPE_URL= MPISCOPE_TOKEN= run >"$tmp/base"
LD_PRELOAD="$lib" MPISCOPE_URL= MPISCOPE_TOKEN= run >"$tmp/off"
node "$root/native-shim/test/sink.mjs" --ranks 2 --token bench --timeout 300 --quiet --count-only >"$tmp/sink.log" 2>&1 &
sink=$!
for _ in $(seq 100); do grep -q listening "$tmp/sink.log" && break; sleep 0.05; done
port=$(awk '/listening/ {print $2}' "$tmp/sink.log")
LD_PRELOAD="$lib" MPISCOPE_URL="ws://127.0.0.1:$port/" MPISCOPE_TOKEN=bench run >"$tmp/on"
wait "$sink" || true
sink=

echo "shim overhead, $mpi, 2 ranks, $iters iterations, best of 5 (ns per iteration)"
printf '%-22s %10s %10s %8s %10s %8s %14s\n' kernel base passthru ratio recording ratio "ns/call added"
join <(sort "$tmp/base") <(sort "$tmp/off") | join - <(sort "$tmp/on") | while read -r name base calls off _ on _; do
  awk -v n="$name" -v b="$base" -v o="$off" -v r="$on" -v c="$calls" \
    'BEGIN { printf "%-22s %10.1f %10.1f %8.2f %10.1f %8.2f %14.1f\n", n, b, o, o / b, r, r / b, (r - b) / c }'
done
grep summary "$tmp/sink.log" || true
