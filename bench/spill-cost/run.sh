#!/usr/bin/env bash
# What the spill's history costs the sender thread (issue 10): with `mpiscope run --trace` the session sets
# MPISCOPE_SPILL, and the shim's sender then copies every frame it sends into a 4 MiB history ring
# (native-shim/src/msc_spill.c), so that frames lost in flight when the analyzer dies can be spilled.
#
#   bash bench/spill-cost/run.sh [openmpi|mpich|all] [ITERS]
#
# Runs bench/shim-overhead/percall.c (one rank, every kernel) recording into native-shim/test/sink.mjs twice,
# the same way but for MPISCOPE_SPILL (unset, then set to a path nothing is written to unless the analyzer
# dies), and prints, each as "with the history / without":
#   - callgrind instructions of the sender thread over the whole run (deterministic: the number to compare),
#     per record sent, and their ratio;
#   - the process's CPU time (user + sys, both threads; median of 5) and the kernel loop's wall time (median
#     of 5), and their ratios (noisy on a shared machine).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
which=${1:-all}
iters=${2:-20000}
cg_iters=${CG_ITERS:-2000}
mpis=(openmpi mpich)
[ "$which" = all ] || mpis=("$which")
tmp=$(mktemp -d)
sink=
trap 'rm -rf "$tmp"; if [ -n "$sink" ]; then kill "$sink" 2>/dev/null || true; fi' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPISCOPE_TOKEN= MPISCOPE_RING_RECORDS= MPISCOPE_CLOCK= MPISCOPE_SPILL= GLIBC_TUNABLES=${GLIBC_TUNABLES:-}
command -v valgrind >/dev/null 2>&1 || { echo "bench: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

# with_sink RANKS COMMAND... (the shim's default ring: the sender's work as a real run has it)
# shellcheck source=../lib/sink.sh
. "$root/bench/lib/sink.sh"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for mpi in "${mpis[@]}"; do
  command -v "mpicc.$mpi" >/dev/null 2>&1 || { echo "bench: mpicc.$mpi not installed, skipped" >&2; continue; }
  bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi"
  lib=${SHIM_LIB:-$root/native-shim/build/$mpi/libmpiscope.so}
  "mpicc.$mpi" -O2 -g -Wno-stringop-overflow -o "$tmp/percall" "$root/bench/shim-overhead/percall.c"
  extra=()
  [ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN
    -x MPISCOPE_CONNECT_TIMEOUT_MS -x MPISCOPE_SPILL -x MPISCOPE_CLOCK -x GLIBC_TUNABLES)
  mpirun=(timeout 600 "mpirun.$mpi" "${extra[@]}")
  declare -A ir cpu wall records
  for mode in nohist hist; do
    spill=
    [ "$mode" = hist ] && spill="$tmp/never-written"
    # callgrind, every thread of the rank from its start; the sender thread is the one that is not the first.
    rm -f "$tmp"/cg.*
    # glibc's memcpy copies large blocks with `rep movsb`, which callgrind counts as one instruction per byte
    # (a 64 KiB frame: 65,536 "instructions", against ~2,000 vector moves without it): the tunable makes it use
    # its vector loop, so that copies count what they cost and the two modes compare fairly.
    GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=2147483647 MPISCOPE_SPILL=$spill MPISCOPE_CLOCK=tsc with_sink 1 "${mpirun[@]}" -np 1 env LD_PRELOAD="$lib" \
      valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.%p" \
      "$tmp/percall" "$cg_iters" >/dev/null 2>"$tmp/cg.log"
    # The thread files are cg.PID-NN; the application's main thread is -01, the sender the one whose
    # instructions include msc_spill_keep or the frame sender (the heaviest of the others).
    best=0
    for f in "$tmp"/cg.*-*; do
      [ "$(basename "$f")" = "$(basename "$f" | sed 's/-01$//')" ] || continue
      t=$(sed -n 's/^totals: //p' "$f" | awk '{print $1}')
      [ "${t:-0}" -gt "$best" ] && best=$t
    done
    ir[$mode]=$best
    records[$mode]=$(awk '/frames|records/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' \
      "$tmp/sink.log")
    : >"$tmp/cpu" && : >"$tmp/wall"
    for _ in 1 2 3 4 5; do
      MPISCOPE_SPILL=$spill with_sink 1 /usr/bin/time -f '%U %S' -o "$tmp/time" "${mpirun[@]}" -np 1 \
        env LD_PRELOAD="$lib" "$tmp/percall" "$iters" >"$tmp/out"
      awk '{ print $1 + $2 }' "$tmp/time" >>"$tmp/cpu"
      # percall prints "kernel ns calls": the sum of the kernels' times is the loop's wall time.
      awk '{ s += $2 } END { print s }' "$tmp/out" >>"$tmp/wall"
    done
    cpu[$mode]=$(median <"$tmp/cpu")
    wall[$mode]=$(median <"$tmp/wall")
  done
  echo
  echo "spill history cost, $mpi (percall, $cg_iters iterations under callgrind, $iters timed; with / without)"
  awk -v a="${ir[hist]}" -v b="${ir[nohist]}" -v r="${records[hist]:-0}" 'BEGIN {
    printf "  sender thread instructions: %d / %d = %.3f", a, b, a / b
    if (r > 0) printf " (%.1f more per record of %d)", (a - b) / r, r
    printf "\n" }'
  awk -v a="${cpu[hist]}" -v b="${cpu[nohist]}" 'BEGIN { printf "  process CPU time (s, median of 5): %.3f / %.3f = %.3f\n", a, b, a / b }'
  awk -v a="${wall[hist]}" -v b="${wall[nohist]}" 'BEGIN { printf "  kernel loop wall (ns, median of 5): %.0f / %.0f = %.3f\n", a, b, a / b }'
done
