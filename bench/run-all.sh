#!/usr/bin/env bash
# Every benchmark row of issue 12's table that has a benchmark, one after the other, each side by side with
# the same program without mpiscope in the same run (ratios printed). Numbers, not tests: nothing here fails
# on a slow result. Wall times are noisy on a shared 2-core machine; the callgrind counts of the shim are not.
#   bash bench/run-all.sh            (after `node scripts/build.mjs`)
# Rows and where they come from:
#   decode + engine events per second               bench/engine-throughput/run.mjs
#   end-to-end many-calls wall time, both MPIs      bench/end-to-end/run.mjs
#   shim cost per call (Comm_rank, Irecv+Isend+Waitall) and the message-size sweep
#                                                   bench/shim-overhead/run.sh
#   8-byte ping-pong per round trip, both MPIs; records lost, wall-time ratio and analyzer memory under the
#   Isend/Irecv/Waitall stress at 8/16/32 ranks     bench/ring-stress/run.mjs
#   analyzer memory over time (flat in run length)  bench/memory-curve/run.mjs
# LAMMPS (the real-applications rows) has no benchmark in this folder yet.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
if [ ! -f dist/cli.js ]; then
  echo "bench/run-all: dist/cli.js is missing; run \`node scripts/build.mjs\` first" >&2
  exit 2
fi
section() { printf '\n==== %s\n' "$*"; }

section "decode + engine throughput (bench/engine-throughput)"
timeout 1800 node bench/engine-throughput/run.mjs || echo "(engine-throughput failed: $?)"

for flavor in openmpi mpich; do
  section "end-to-end many-calls, $flavor (bench/end-to-end)"
  timeout 1800 node bench/end-to-end/run.mjs --flavor "$flavor" || echo "(end-to-end $flavor failed: $?)"
done

section "shim cost per call and message-size sweep (bench/shim-overhead)"
timeout 3600 bash bench/shim-overhead/run.sh all 20000 2>&1 | grep -v 'Warning: could not find environment variable' ||
  echo "(shim-overhead failed)"

section "ping-pong end to end; records lost, wall time and analyzer memory under stress (bench/ring-stress)"
timeout 5400 node bench/ring-stress/run.mjs --flavor all --ranks 8,16,32 || echo "(ring-stress failed: $?)"

section "analyzer memory over time: synthetic stream and MPI stress (bench/memory-curve)"
timeout 1800 node bench/memory-curve/run.mjs all --minutes 2 || echo "(memory-curve failed: $?)"
