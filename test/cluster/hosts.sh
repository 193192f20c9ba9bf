#!/usr/bin/env bash
# Emulated hosts for the cluster tier: network namespaces on this machine, each a "host" with its own
# address from 198.18.0.0/15 (the benchmarking range, never a real network) and its own /etc/hosts, all
# joined by veth pairs to a bridge inside a "switch" namespace. Nothing is added to the root namespace
# (no interface, no route), so nothing a test does can leave this machine.
#
#   hosts.sh up RUN N        create hosts node0..node{N-1} for the run RUN (idempotent: RUN is torn down first)
#   hosts.sh down RUN        remove everything of RUN (its processes, namespaces, /etc/netns files); idempotent
#   hosts.sh sweep           remove what runs whose owner process is gone left behind (a crashed test)
#   hosts.sh exec RUN HOST CMD...   run CMD on HOST (its namespace, its own hostname), environment kept;
#                            with MPS_HOST_BIND=SRC:DST, HOST sees folder SRC at DST (a file system that
#                            differs between hosts, e.g. a binary at a path the analyzer's host has not)
#   hosts.sh slow RUN HOST   make HOST's link slow both ways: netem delay when the kernel has it, else a tbf
#                            rate limit; prints which
#   hosts.sh check           exit 0 when network namespaces work here, else print why and exit 1
#
# RUN is "mps<PID>" (PID = the process that owns the run, so that sweep can tell live runs from dead ones)
# optionally followed by "x<anything>". Host k is 198.18.0.(k+1)/24 on its eth0. The analyzer-only
# address 198.18.1.1/32 sits on node0's loopback; every host except the last has a route to it through
# node0, so the last host is the one "that cannot reach the analyzer" when the analyzer listens there.
set -euo pipefail

die() { printf 'hosts.sh: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "network namespaces need root"

valid_run() { [[ $1 =~ ^mps[0-9]+(x[a-z0-9]+)?$ ]] || die "bad run name '$1' (mps<PID>[x<tag>])"; }

ns_of() { printf '%s-%s' "$1" "$2"; } # run host -> namespace name

run_namespaces() { ip netns list | awk '{print $1}' | grep -E "^$1-" || true; }

down() {
  local run=$1 ns pids
  valid_run "$run"
  for ns in $(run_namespaces "$run"); do
    # Processes still inside (an orted or hydra proxy whose launcher died): they are this run's, end them.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    ip netns delete "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  rm -rf /etc/netns/"$run"-* 2>/dev/null || true
}

up() {
  local run=$1 n=$2 k ns sw hostsfile
  valid_run "$run"
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 200 ] || die "need 2..200 hosts, not '$n'"
  down "$run"
  # Whatever fails below, nothing of the run stays behind.
  trap 'down "$run"' EXIT
  sw=$(ns_of "$run" sw)
  ip netns add "$sw"
  ip -n "$sw" link set lo up
  ip -n "$sw" link add br0 type bridge
  ip -n "$sw" link set br0 up
  hostsfile=$(mktemp)
  printf '127.0.0.1\tlocalhost\n' >"$hostsfile"
  for ((k = 0; k < n; k++)); do printf '198.18.0.%d\tnode%d\n' $((k + 1)) "$k" >>"$hostsfile"; done
  for ((k = 0; k < n; k++)); do
    ns=$(ns_of "$run" "node$k")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # The pair is created inside the switch namespace and one end moved to the host, so that the root
    # namespace never holds an interface of the test, even for a moment.
    ip -n "$sw" link add "p$k" type veth peer name eth0 netns "$ns"
    ip -n "$sw" link set "p$k" master br0 up
    ip -n "$ns" addr add "198.18.0.$((k + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    mkdir -p "/etc/netns/$ns"
    cp "$hostsfile" "/etc/netns/$ns/hosts"
    printf 'node%d\n' "$k" >"/etc/netns/$ns/hostname"
  done
  rm -f "$hostsfile"
  ip -n "$(ns_of "$run" node0)" addr add 198.18.1.1/32 dev lo
  for ((k = 1; k < n - 1; k++)); do
    ip -n "$(ns_of "$run" "node$k")" route add 198.18.1.1/32 via 198.18.0.1
  done
  trap - EXIT
}

sweep() {
  local ns pid run
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^mps[0-9]+(x[a-z0-9]+)?-' || true); do
    run=${ns%%-*}
    pid=${run#mps}
    pid=${pid%%x*}
    kill -0 "$pid" 2>/dev/null || down "$run"
  done
  for ns in /etc/netns/mps[0-9]*; do
    [ -e "$ns" ] || continue
    ip netns list | awk '{print $1}' | grep -qx "$(basename "$ns")" || rm -rf "$ns"
  done
}

# Enter HOST: its network namespace (ip netns exec also bind-mounts its /etc/hosts) and a UTS namespace of
# its own with its hostname, so that MPI sees a different host; the file system stays shared.
enter() {
  local run=$1 host=$2
  shift 2
  valid_run "$run"
  [[ $host =~ ^node[0-9]+$ ]] || die "no such host '$host' (node0, node1, …)"
  local ns
  ns=$(ns_of "$run" "$host")
  [ -d "/etc/netns/$ns" ] || die "host $host of run $run is not up"
  # ip netns exec runs CMD in a mount namespace of its own (a slave of the machine's), so a bind mount made
  # there is seen by HOST only.
  local bind=${MPS_HOST_BIND:-}
  unset MPS_HOST_BIND
  exec ip netns exec "$ns" unshare --uts -- /bin/sh -c '
    if [ -n "$1" ]; then mount --bind "${1%%:*}" "${1#*:}" || exit 126; fi
    hostname "$0" && shift && exec "$@"' "$host" "$bind" "$@"
}

slow() {
  local run=$1 host=$2 k ns sw
  valid_run "$run"
  k=${host#node}
  ns=$(ns_of "$run" "$host")
  sw=$(ns_of "$run" sw)
  if ip netns exec "$ns" tc qdisc replace dev eth0 root netem delay 50ms rate 8mbit 2>/dev/null; then
    ip netns exec "$sw" tc qdisc replace dev "p$k" root netem delay 50ms rate 8mbit
    echo "netem: 50 ms each way, 8 Mbit/s"
  else
    # This kernel has no sch_netem (CONFIG_NET_SCH_NETEM unset): a token bucket at 512 kbit/s with a small
    # burst queues every packet behind the previous ones, so the link is both slow and late under load.
    ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate 512kbit burst 1600 latency 500ms
    ip netns exec "$sw" tc qdisc replace dev "p$k" root tbf rate 512kbit burst 1600 latency 500ms
    echo "tbf: 512 kbit/s, burst 1600 B (no netem in this kernel)"
  fi
}

check() {
  local probe="mps$$xcheck"
  if ! command -v ip >/dev/null || ! command -v unshare >/dev/null; then
    echo "ip (iproute2) or unshare (util-linux) is not installed"
    return 1
  fi
  if ! err=$(ip netns add "$probe-a" 2>&1); then
    echo "ip netns add failed: $err"
    return 1
  fi
  if ! err=$(ip -n "$probe-a" link add vprobe0 type veth peer name vprobe1 2>&1); then
    ip netns delete "$probe-a"
    echo "veth pairs cannot be created: $err"
    return 1
  fi
  if ! err=$(ip -n "$probe-a" link add vprobe2 type bridge 2>&1); then
    ip netns delete "$probe-a"
    echo "bridges cannot be created: $err"
    return 1
  fi
  if ! err=$(ip netns exec "$probe-a" unshare --uts -- true 2>&1); then
    ip netns delete "$probe-a"
    echo "UTS namespaces cannot be created: $err"
    return 1
  fi
  ip netns delete "$probe-a"
}

cmd=${1:-}
shift || true
case "$cmd" in
  up) [ $# = 2 ] || die "usage: hosts.sh up RUN N"; up "$@" ;;
  down) [ $# = 1 ] || die "usage: hosts.sh down RUN"; down "$1" ;;
  sweep) sweep ;;
  exec) [ $# -ge 3 ] || die "usage: hosts.sh exec RUN HOST CMD..."; enter "$@" ;;
  slow) [ $# = 2 ] || die "usage: hosts.sh slow RUN HOST"; slow "$@" ;;
  check) check ;;
  *) die "usage: hosts.sh up|down|sweep|exec|slow|check …" ;;
esac
