#!/usr/bin/env bash
# Shim overhead, per MPI call, for each MPI: the same programs without the shim (base), with the shim
# preloaded but no analyzer (MPISCOPE_URL unset: pass-through), and with the shim recording to a sink that
# only counts bytes (recording). Two measures:
#   ns/call  wall time, best of 5 repetitions. Noisy on a loaded 2-core machine: read the ratios loosely.
#   Ir/call  instructions of the application thread per call under valgrind --tool=callgrind: deterministic,
#            the shim's own cost without the noise (the sender thread's work is not in it).
# Kernels: percall.c on one rank talking to itself (no peer to wait for), pingpong.c on two ranks (wall time
# only). While recording, the ring is made large enough (MPISCOPE_RING_RECORDS) to hold a whole kernel, so
# that the time is the shim's and not the time of waiting for the sink to catch up with a loop that does
# nothing but call MPI (that rate is the sender's and the analyzer's, measured by bench/end-to-end).
# Usage: bash bench/shim-overhead/run.sh [openmpi|mpich|all] [ITERS]
# SHIM_LIB=/path/libmpiscope.so compares another build of the shim (the same for every MPI asked for).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
which=${1:-all}
iters=${2:-20000}
cg_iters=${CG_ITERS:-2000}
# While recording, a ring that holds a whole kernel (see above).
ring=$((1 << 23))
mpis=(openmpi mpich)
[ "$which" = all ] || mpis=("$which")
tmp=$(mktemp -d)
sink=
trap 'rm -rf "$tmp"; if [ -n "$sink" ]; then kill "$sink" 2>/dev/null || true; fi' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Set (empty: the defaults) so that mpirun.openmpi's -x finds them in every mode.
export MPISCOPE_TOKEN= MPISCOPE_RING_RECORDS= MPISCOPE_CLOCK= MPISCOPE_CONNECT_TIMEOUT_MS=
have_cg=1
command -v valgrind >/dev/null 2>&1 && [ -f /usr/include/valgrind/callgrind.h ] || have_cg=0

# with_sink RANKS COMMAND...
# shellcheck source=../lib/sink.sh
. "$root/bench/lib/sink.sh"

# Instructions per call of each kernel from callgrind's per-kernel dumps: "NAME IR_PER_CALL".
callgrind_counts() {
  local out=$1 calls_file=$2
  for f in "$out".*; do
    local name total
    name=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
    total=$(sed -n 's/^totals: //p' "$f")
    [ -n "$name" ] || continue
    local i
    i=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/cg.iters")
    awk -v n="$name" -v t="$total" -v i="${i:-$cg_iters}" '$1 == n { printf "%s %.1f\n", n, t / i / $3 }' "$calls_file"
  done
}

for mpi in "${mpis[@]}"; do
  command -v "mpicc.$mpi" >/dev/null 2>&1 || { echo "bench: mpicc.$mpi not installed, skipped" >&2; continue; }
  bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi"
  lib=${SHIM_LIB:-$root/native-shim/build/$mpi/libmpiscope.so}
  "mpicc.$mpi" -O2 -g -Wno-stringop-overflow -o "$tmp/percall" "$here/percall.c"
  "mpicc.$mpi" -O2 -Wno-stringop-overflow -o "$tmp/pingpong" "$here/pingpong.c"
  extra=()
  [ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN
    -x MPISCOPE_RING_RECORDS -x MPISCOPE_CLOCK -x MPISCOPE_CONNECT_TIMEOUT_MS)
  mpirun=(timeout 300 "mpirun.$mpi" "${extra[@]}")

  for mode in base off on; do
    case $mode in
    base) pre=(env LD_PRELOAD=) ;;
    *) pre=(env LD_PRELOAD="$lib") ;;
    esac
    if [ "$mode" = on ]; then
      MPISCOPE_RING_RECORDS=$ring with_sink 1 "${pre[@]}" "${mpirun[@]}" -np 1 "$tmp/percall" "$iters" >"$tmp/$mode.t"
      MPISCOPE_RING_RECORDS=$ring with_sink 2 "${pre[@]}" "${mpirun[@]}" -np 2 "$tmp/pingpong" "$((iters / 10))" \
        >>"$tmp/$mode.t"
    else
      MPISCOPE_URL= "${pre[@]}" "${mpirun[@]}" -np 1 "$tmp/percall" "$iters" >"$tmp/$mode.t"
      MPISCOPE_URL= "${pre[@]}" "${mpirun[@]}" -np 2 "$tmp/pingpong" "$((iters / 10))" >>"$tmp/$mode.t"
    fi
    : >"$tmp/$mode.cg"
    if [ $have_cg = 1 ]; then
      rm -f "$tmp/cg".*
      cg=(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg.%p")
      # Under valgrind the TSC calibration is too slow to pass its own check: forced, so that the counts are
      # those of the clock a real run uses.
      export MPISCOPE_CLOCK=tsc
      # Preloaded by valgrind's own LD_PRELOAD handling: the variable reaches the program, not valgrind.
      vpre=()
      [ "$mode" = base ] || vpre=(env LD_PRELOAD="$lib")
      if [ "$mode" = on ]; then
        MPISCOPE_RING_RECORDS=$ring with_sink 1 "${mpirun[@]}" -np 1 "${vpre[@]}" "${cg[@]}" "$tmp/percall" \
          --callgrind "$cg_iters" >"$tmp/cg.iters" 2>"$tmp/cg.log"
      else
        MPISCOPE_URL= "${mpirun[@]}" -np 1 "${vpre[@]}" "${cg[@]}" "$tmp/percall" --callgrind "$cg_iters" \
          >"$tmp/cg.iters" 2>"$tmp/cg.log"
      fi
      callgrind_counts "$(ls "$tmp"/cg.* | grep -E 'cg\.[0-9]+$' | head -1)" "$tmp/$mode.t" >"$tmp/$mode.cg"
      export MPISCOPE_CLOCK=
    fi
  done

  echo
  echo "shim overhead, $mpi: ns per MPI call (best of 5, $iters iterations) and callgrind instructions per call"
  # The last two columns: the application thread's CPU time per call, bare and recorded (percall only; see
  # percall.c: the wall time of a loaded machine includes the time the thread was preempted).
  printf '%-22s %5s | %8s %8s %6s %8s %6s | %8s %8s %8s %8s | %8s %8s\n' kernel calls base passthru ratio record \
    ratio "Ir base" "Ir pass" "Ir rec" "Ir added" "cpu base" "cpu rec"
  while read -r name ns calls cpu; do
    b=$ns
    o=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/off.t")
    r=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/on.t")
    cb=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/base.cg")
    co=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/off.cg")
    cr=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/on.cg")
    rc=$(awk -v n="$name" '$1 == n { print $4 }' "$tmp/on.t")
    awk -v n="$name" -v c="$calls" -v b="$b" -v o="${o:-0}" -v r="${r:-0}" -v cb="${cb:--}" -v co="${co:--}" \
      -v cr="${cr:--}" -v bc="${cpu:--}" -v rc="${rc:--}" 'BEGIN {
        added = (cb == "-" || cr == "-") ? "-" : sprintf("%.1f", cr - cb)
        cpu_b = bc == "-" ? "-" : sprintf("%.1f", bc / c)
        cpu_r = rc == "-" ? "-" : sprintf("%.1f", rc / c)
        printf "%-22s %5d | %8.1f %8.1f %6.2f %8.1f %6.2f | %8s %8s %8s %8s | %8s %8s\n", n, c, b / c, o / c, o / b,
          r / c, r / b, cb, co, cr, added, cpu_b, cpu_r }'
  done <"$tmp/base.t"
done
