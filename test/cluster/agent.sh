#!/usr/bin/env bash
# The launcher agent of the cluster tier: what ssh is to a real cluster. Open MPI runs it as its
# plm_rsh_agent and MPICH's hydra as its -launcher-exec, both as `agent [ssh options] HOST COMMAND...`.
# Instead of logging in, it enters HOST's network and UTS namespaces (hosts.sh exec) and runs COMMAND
# there the way sshd would: joined into one string for a shell, in the home folder, with a fresh login
# environment — none of the launcher's variables — so that what a rank sees (MPISCOPE_URL, the token,
# LD_PRELOAD) can only have come through the launcher (-x, -genv), as on a real cluster.
# The run's name comes from MPS_CLUSTER_RUN in the launcher's environment; MPS_CLUSTER_BIND=SRC:DST there
# makes every host it enters see folder SRC at DST.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=${MPS_CLUSTER_RUN:?the launcher agent needs MPS_CLUSTER_RUN (the run of hosts.sh up)}

# ssh options that take a value, then the ones that don't (hydra passes -x, Open MPI none).
while [ $# -gt 0 ]; do
  case "$1" in
    -[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "agent: usage: agent [options] HOST COMMAND..." >&2; exit 255; }
host=$1
shift
# ssh joins its arguments with spaces and gives the string to the remote shell.
command="$*"
MPS_HOST_BIND=${MPS_CLUSTER_BIND:-} exec bash "$here/hosts.sh" exec "$run" "$host" \
  env -i HOME="${HOME:-/root}" USER="$(id -un)" LOGNAME="$(id -un)" SHELL=/bin/bash \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c 'cd && exec /bin/bash -c "$0"' "$command"
