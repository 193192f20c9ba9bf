#!/usr/bin/env bash
# TopoMPI's claim, measured on the emulated cluster: MPI_Allgather by recursive doubling or Bruck over a
# numbering that keeps the heavy last steps inside hosts (native-tools/lib-topo-allgather.so) against the
# same algorithm over MPI's own numbering (MPISCOPE_TOPO_ORDER=identity) and against Open MPI's own
# MPI_Allgather. Two emulated hosts (network namespaces, test/cluster/hosts.sh) with two ranks each in the
# launcher's block placement; the links between hosts are shaped to RATE (tbf on each host's egress) while
# ranks on one host talk through shared memory, as nodes of a cluster do. Prints, per algorithm and block
# size, the slowest rank's time per call (median of REPEAT runs) and the bytes per call each numbering sent
# across hosts (all ranks together). Numbers, not a test.
#   sudo bash bench/topo-allgather/run.sh [--rate 100mbit] [--repeat 3]     (after `node scripts/build.mjs`)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/bench/topo-allgather"
rate=100mbit
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
  --rate) rate=${2:?--rate needs a value like 100mbit}; shift 2 ;;
  --repeat) repeat=${2:?--repeat needs a count}; shift 2 ;;
  *) echo "bench/topo-allgather: unknown argument '$1' (--rate R, --repeat N)" >&2; exit 2 ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "bench/topo-allgather: --repeat must be a positive count, not '$repeat'" >&2; exit 2; }
[[ $rate =~ ^[0-9]+(k|m|g)?bit$ ]] || { echo "bench/topo-allgather: --rate must look like 100mbit, not '$rate'" >&2; exit 2; }
if [ "$(id -u)" != 0 ]; then
  echo "bench/topo-allgather: the emulated hosts are network namespaces, which need root; run it with sudo" >&2
  exit 2
fi
if ! why=$(bash "$root/test/cluster/hosts.sh" check 2>&1); then
  echo "bench/topo-allgather: network namespaces do not work here: $why" >&2
  exit 2
fi
[ -f "$root/dist/cli.js" ] || { echo "bench/topo-allgather: dist/cli.js is missing; run \`node scripts/build.mjs\` first" >&2; exit 2; }

lib=$(node "$root/bin/mpiscope.js" map --library --mpi openmpi | head -1)
work=$(mktemp -d /tmp/mpiscope-topo-XXXXXX)
run="mps$$xtopo"
cleanup() { bash "$root/test/cluster/hosts.sh" down "$run" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
mpicc.openmpi -O2 -o "$work/allgather-time" "$here/allgather-time.c"
bash "$root/test/cluster/hosts.sh" up "$run" 3 >/dev/null
for h in node1 node2; do
  ip netns exec "$run-$h" tc qdisc replace dev eth0 root tbf rate "$rate" burst 64kb latency 100ms
done

export MPS_CLUSTER_RUN=$run OMPI_MCA_plm_rsh_agent="$root/test/cluster/agent.sh" OMPI_MCA_btl=tcp,self,vader \
  OMPI_MCA_btl_tcp_if_include=198.18.0.0/15 OMPI_MCA_oob_tcp_if_include=198.18.0.0/15

# One run: prints "SECONDS CROSS_BYTES" (the bytes all ranks sent to other hosts; - for MPI's own).
one() { # algo order block reps
  local algo=$1 order=$2 block=$3 reps=$4 out
  out=$(bash "$root/test/cluster/hosts.sh" exec "$run" node0 mpirun.openmpi --allow-run-as-root \
    --host node1:2,node2:2 -np 4 -x LD_PRELOAD="$lib" -x MPISCOPE_TOPO_ALLGATHER="$algo" \
    -x MPISCOPE_TOPO_ORDER="$order" -x MPISCOPE_TOPO_VERBOSE=1 "$work/allgather-time" "$block" "$reps" 2>&1)
  if ! grep -q '^seconds per call' <<<"$out"; then
    echo "bench/topo-allgather: a run failed ($algo, $order, $block B):" >&2
    echo "$out" >&2
    exit 1
  fi
  local secs cross
  secs=$(awk '/^seconds per call/ {print $4}' <<<"$out")
  # The library counts every call, the two warm-up calls too: bytes per call.
  cross=$(awk -v calls=$((reps + 2)) '/sent [0-9]+ bytes to other hosts/ {s += $5; n++} END {print (n ? s / calls : "-")}' <<<"$out")
  echo "$secs $cross"
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf 'TopoMPI-style MPI_Allgather, Open MPI, 2 emulated hosts x 2 ranks (block placement), links between hosts %s\n' "$rate"
printf '%-19s %9s %14s %14s %14s %8s %18s\n' algorithm block "MPI's own" identity topology ratio "bytes across"
for algo in recursive-doubling bruck; do
  for block in 262144 1048576; do
    reps=$((block > 262144 ? 3 : 5))
    declare -A t=() c=()
    for order in own identity topology; do
      samples=()
      for _ in $(seq "$repeat"); do
        if [ "$order" = own ]; then r=$(one off identity "$block" "$reps"); else r=$(one "$algo" "$order" "$block" "$reps"); fi
        samples+=("${r% *}")
        c[$order]=${r#* }
      done
      t[$order]=$(printf '%s\n' "${samples[@]}" | median)
    done
    ratio=$(awk -v a="${t[topology]}" -v b="${t[identity]}" 'BEGIN {printf "%.2f", a / b}')
    printf '%-19s %7d B %11.2f ms %11.2f ms %11.2f ms %7sx %8s → %s\n' "$algo" "$block" \
      "$(awk -v s="${t[own]}" 'BEGIN {print s * 1e3}')" "$(awk -v s="${t[identity]}" 'BEGIN {print s * 1e3}')" \
      "$(awk -v s="${t[topology]}" 'BEGIN {print s * 1e3}')" "$ratio" "${c[identity]}" "${c[topology]}"
    unset t c
  done
done
echo "ratio: topology / identity time per call (below 1: the host-aware numbering is faster); bytes across: per call, all ranks, identity → topology"
