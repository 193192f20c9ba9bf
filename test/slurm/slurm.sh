#!/usr/bin/env bash
# A real single-node Slurm for the slurm tier, from Debian's slurm-wlm and munge, living entirely in one
# folder: its own munge key and munged on a private socket, a slurm.conf written here (one node = this
# machine's hostname, no cgroups, root as SlurmUser, free ports), slurmctld and slurmd with pid files.
#
#   slurm.sh up DIR     start it (DIR must be empty or absent); prints `export SLURM_CONF=…` lines to eval
#   slurm.sh down DIR   stop what DIR's pid files name and that still runs from DIR; idempotent
#   slurm.sh check      exit 0 when it can run here, else print why and exit 1
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

stop_pidfile() { # stop the process of a pid file if it is still the one DIR started
  local file=$1 dir=$2 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  if grep -qF "$dir" "/proc/$pid/cmdline" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

down() {
  local dir
  dir=$(cd "$1" 2>/dev/null && pwd) || return 0
  stop_pidfile "$dir/slurmd.pid" "$dir"
  stop_pidfile "$dir/slurmctld.pid" "$dir"
  stop_pidfile "$dir/munged.pid" "$dir"
}

wait_for() { # wait_for SECONDS what command...
  local secs=$1 what=$2
  shift 2
  for _ in $(seq 1 $((secs * 10))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

up() {
  local dir=$1 node cpus ctld_port slurmd_port
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  # munged checks that nobody else can write where its socket and key are.
  chmod 700 "$dir" "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
    die "munged did not start: $(tail -3 "$dir/munged.log" 2>/dev/null)"

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
  slurmctld -i || die "slurmctld did not start: $(tail -5 "$dir/slurmctld.log" 2>/dev/null)"
  slurmd -N "$node" || die "slurmd did not start: $(tail -5 "$dir/slurmd.log" 2>/dev/null)"
  wait_for 30 "the node" sh -c "sinfo -h -N -o %t | grep -Eq '^(idle|mix|alloc)'" ||
    die "the node did not become idle: $(sinfo -N 2>&1 | tail -2); slurmd.log: $(tail -3 "$dir/slurmd.log")"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

cmd=${1:-}
shift || true
case "$cmd" in
  up) [ $# = 1 ] || die "usage: slurm.sh up DIR"; check >/dev/null || die "$(check)"; up "$1" ;;
  down) [ $# = 1 ] || die "usage: slurm.sh down DIR"; down "$1" ;;
  check) check ;;
  *) die "usage: slurm.sh up|down|check …" ;;
esac
