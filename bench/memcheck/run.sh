#!/usr/bin/env bash
# The memcheck mode's slowdown on a 2-D halo exchange (halo.c: point-to-point) and a 1-D one through passive-target
# puts into a window (halo-rma.c: every load and store of the grid is window memory the mode watches), for each
# MPI, in one run. Four ways of running
# the same source, each NREP times, median of the iteration loop's seconds (the slowest rank's, printed by the
# program itself, so mpiscope's start-up and report are not in it):
#   plain      mpicc -O2, mpirun, no mpiscope
#   default    the same binary under `mpiscope run` (the default mode)
#   built      mpiscope cc -O2 (instrumented), mpirun, no mpiscope: the runtime's cost when nothing is owned
#   memcheck   the instrumented binary under `mpiscope run` (the memcheck mode)
# Ratios are against plain and against default. Wall time on a shared 2-core machine: read them loosely.
# Usage: bash bench/memcheck/run.sh [openmpi|mpich|all] [N] [ITERS] [NP] [NREP] [KERNELS (default "halo halo-rma")]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
which=${1:-all}
n=${2:-256}
iters=${3:-200}
np=${4:-2}
nrep=${5:-3}
read -r -a kernels <<<"${6:-halo halo-rma}"
mpis=(openmpi mpich)
[ "$which" = all ] || mpis=("$which")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cli="$root/dist/cli.js"
[ -f "$cli" ] || { echo "bench: build first (node scripts/build.mjs)" >&2; exit 2; }

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
loop_time() { awk '/^loop / {print $2}'; }

for mpi in "${mpis[@]}"; do
  command -v "mpicc.$mpi" >/dev/null 2>&1 || { echo "bench: mpicc.$mpi not installed, skipped" >&2; continue; }
  launcher=(mpirun.$mpi -np "$np")
  [ "$mpi" = openmpi ] && launcher+=(--oversubscribe)
  for kernel in "${kernels[@]}"; do
    # GCC 12 warns -Wstringop-overflow about MPICH's MPI_STATUSES_IGNORE: a known false positive (test/programs/README.md).
    "mpicc.$mpi" -O2 -Wno-stringop-overflow -o "$tmp/plain-$kernel-$mpi" "$here/$kernel.c"
    MPISCOPE_MPI=$mpi node "$cli" cc -O2 -Wno-stringop-overflow -o "$tmp/mc-$kernel-$mpi" "$here/$kernel.c"
    declare -A times=()
    for rep in $(seq "$nrep"); do
      times[plain]+="$("${launcher[@]}" "$tmp/plain-$kernel-$mpi" "$n" "$iters" | loop_time) "
      times[default]+="$( (node "$cli" run --mpirun "mpirun.$mpi" -np "$np" -- "$tmp/plain-$kernel-$mpi" "$n" "$iters" 2>/dev/null || true) | loop_time) "
      times[built]+="$("${launcher[@]}" "$tmp/mc-$kernel-$mpi" "$n" "$iters" | loop_time) "
      out=$(node "$cli" run --mpirun "mpirun.$mpi" -np "$np" --memcheck -- "$tmp/mc-$kernel-$mpi" "$n" "$iters" 2>&1 || true)
      times[memcheck]+="$(echo "$out" | loop_time) "
      # The kernel is correct: a finding in the memcheck mode is a false positive, and the numbers would lie.
      if ! echo "$out" | grep -q "^no findings"; then
        echo "bench: the memcheck mode reported something on $kernel.c ($mpi):" >&2
        echo "$out" | tail -20 >&2
      fi
    done
    med() { echo "${times[$1]}" | tr ' ' '\n' | grep -v '^$' | median; }
    p=$(med plain) d=$(med default) b=$(med built) m=$(med memcheck)
    echo "== $mpi: $kernel ${n}x${n} per rank, $np ranks, $iters iterations, median of $nrep"
    printf '%-10s %10s %12s %12s\n' mode "loop s" "vs plain" "vs default"
    for k in plain default built memcheck; do
      v=$(med "$k")
      printf '%-10s %10.4f %11.2fx %11.2fx\n' "$k" "$v" "$(echo "$v / $p" | bc -l)" "$(echo "$v / $d" | bc -l)"
    done
    unset times
  done
done
