#!/usr/bin/env bash
# A real single-node Slurm for the slurm tier, from Debian's slurm-wlm and munge, living entirely in one
# folder: its own munge key and munged on a private socket, a slurm.conf written here (one node = this
# machine's hostname, no cgroups, root as SlurmUser, free ports), slurmctld and slurmd with pid files.
#
#   slurm.sh up DIR [OWNER]  start it (DIR must be empty or absent); prints `export SLURM_CONF=…`. OWNER is the
#                            pid of the process that will call down (default: the caller); on failure up
#                            stops what it started
#   slurm.sh down DIR        stop the daemons that run from DIR; idempotent
#   slurm.sh sweep           stop the daemons of earlier runs whose owner is gone (a crashed test)
#   slurm.sh check           exit 0 when it can run here, else print why and exit 1
set -euo pipefail

die() { printf 'slurm.sh: %s\n' "$*" >&2; exit 1; }

check() {
  [ "$(id -u)" = 0 ] || { echo "a private Slurm runs its daemons as root (SlurmUser=root); not root"; return 1; }
  local c
  for c in munged mungekey slurmctld slurmd srun sinfo; do
    command -v "$c" >/dev/null || { echo "$c is not installed (apt-get install slurm-wlm munge)"; return 1; }
  done
}

# A TCP port nobody listens on, from the high range, different from the ones in $*.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 30000))
    case " $* " in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  die "no free port found"
}

# The folder a daemon of ours runs from: slurmctld and slurmd know it from SLURM_CONF in their
# environment, munged from its --pid-file argument. Empty for any other process.
home_of() {
  local pid=$1 conf
  # The process may be gone or a zombie by now (its /proc files unreadable): then it is nobody's.
  conf=$({ tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | sed -n 's/^SLURM_CONF=\(.*\)\/slurm\.conf$/\1/p') || true
  [ -n "$conf" ] || conf=$({ tr '\0' '\n' <"/proc/$pid/cmdline"; } 2>/dev/null | sed -n 's/^--pid-file=\(.*\)\/munged\.pid$/\1/p') || true
  printf '%s' "$conf"
}

stop() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Our daemons (by the folder they run from) among the slurmctld, slurmd and munged processes of the machine.
daemons_of() { # daemons_of MATCH: MATCH is a folder, or "orphans" for folders whose owner is gone
  local pid home owner
  for pid in $(pgrep -x slurmd; pgrep -x slurmctld; pgrep -x munged); do
    home=$(home_of "$pid")
    [ -n "$home" ] || continue
    if [ "$1" = orphans ]; then
      if [ -e "$home" ]; then
        [ -f "$home/owner" ] || continue # a folder slurm.sh did not make: not ours
        owner=$(cat "$home/owner" 2>/dev/null) || continue
        kill -0 "$owner" 2>/dev/null && continue # its owner still runs
      else
        [[ $home == */mpiscope-slurm-* ]] || continue # folder gone: ours only by the tests' naming
      fi
    elif [ "$home" != "$1" ]; then
      continue
    fi
    echo "$pid"
  done
}

down() {
  local dir pid
  dir=$(cd "$1" 2>/dev/null && pwd) || return 0
  # slurmd first, so that it does not try to reach a controller that is gone.
  for pid in $(daemons_of "$dir"); do stop "$pid"; done
  rm -f "$dir"/*.pid
}

sweep() {
  local pid
  for pid in $(daemons_of orphans); do stop "$pid"; done
}

wait_for() { # wait_for SECONDS command...: until the command succeeds, by the clock (each try bounded)
  local deadline=$((SECONDS + $1))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    timeout 5 "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

step() { printf '%s %s\n' "$(date -u +%T.%N | cut -c1-12)" "$*" >>"$dir/up.log"; }

up() {
  local dir=$1 owner=$2 node cpus ctld_port slurmd_port
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  echo "$owner" >"$dir/owner"
  # Whatever fails below, nothing started stays behind.
  trap 'down "$dir"' EXIT
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  # munged checks that nobody else can write where its socket and key are; clients need to reach the socket.
  chmod 755 "$dir" "$dir/munge"
  step "munge key"
  mungekey --create --keyfile="$dir/munge/munge.key" </dev/null >>"$dir/up.log" 2>&1
  step "munged"
  # The daemons get no stdio of the caller: a daemon holding the caller's pipe open would keep a test that
  # reads this script's output waiting.
  munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
    </dev/null >>"$dir/up.log" 2>&1 || die "munged did not start: $(tail -n 3 "$dir/munged.log" 2>/dev/null)"

  node=$(hostname)
  # The node says more CPUs than the machine has (config_overrides lets slurmd accept it), so that tests
  # can run more tasks than cores, as mpirun --oversubscribe does.
  cpus=8
  ctld_port=$(free_port)
  slurmd_port=$(free_port "$ctld_port")
  cat >"$dir/slurm.conf" <<EOF
# Written by test/slurm/slurm.sh for one test run; everything lives in $dir.
ClusterName=mpiscope
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=5
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=30 State=UP OverSubscribe=YES
EOF
  export SLURM_CONF="$dir/slurm.conf"
  step "slurmctld on port $ctld_port"
  slurmctld -i </dev/null >>"$dir/up.log" 2>&1 || die "slurmctld did not start: $(tail -n 5 "$dir/slurmctld.log" 2>/dev/null)"
  # slurmd registers with the controller as it starts: start it once the controller answers, so that the
  # registration does not depend on how slurmd retries against a controller still starting.
  step "waiting for slurmctld"
  wait_for 30 sh -c "scontrol ping | grep -q UP" ||
    die "slurmctld does not answer within 30 s: $(tail -n 5 "$dir/slurmctld.log")"
  step "slurmd on port $slurmd_port"
  slurmd -N "$node" </dev/null >>"$dir/up.log" 2>&1 || die "slurmd did not start: $(tail -n 5 "$dir/slurmd.log" 2>/dev/null)"
  step "waiting for the node"
  wait_for 30 sh -c "sinfo -h -N -o %t | grep -Eq '^(idle|mix|alloc)'" ||
    die "the node did not become idle within 30 s: $(timeout 5 sinfo -N 2>&1 | tail -n 2); slurmctld.log: $(tail -n 3 "$dir/slurmctld.log"); slurmd.log: $(tail -n 3 "$dir/slurmd.log")"
  step "ready"
  trap - EXIT
  echo "export SLURM_CONF=$dir/slurm.conf"
}

cmd=${1:-}
shift || true
case "$cmd" in
  up)
    [ $# = 1 ] || [ $# = 2 ] || die "usage: slurm.sh up DIR [OWNER]"
    check >/dev/null || die "$(check)"
    sweep
    up "$1" "${2:-$PPID}"
    ;;
  down) [ $# = 1 ] || die "usage: slurm.sh down DIR"; down "$1" ;;
  sweep) sweep ;;
  check) check ;;
  *) die "usage: slurm.sh up|down|sweep|check …" ;;
esac
