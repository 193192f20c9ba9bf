#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up (both MPIs and the real applications when root), static
# checks, then the tiers: unit, native, cluster and Slurm, e2e, and the real applications.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-mpich --with-apps || exit $?

# The e2e tier's tools (code-server, which compiles native addons, and Node 24 from npm: 247 s of a
# clean-clone run, mostly waiting on the registry and the compiler) install in the background while the
# other tiers run; the e2e step waits for them and shows their log. If this install fails, the e2e
# script's own (idempotent) call tries again in the open and fails with its reason.
tools_log=$(mktemp "${TMPDIR:-/tmp}/mpiscope-e2e-tools.XXXXXX")
# In a session of its own, so that its whole group (npm, node-gyp's compilers) can be ended at once.
setsid bash scripts/install-e2e-tools.sh >"$tools_log" 2>&1 </dev/null &
tools_pid=$!
# Ctrl-C or a failure of this script must not leave an npm install behind.
trap '[ -n "$tools_pid" ] && kill -- -"$tools_pid" 2>/dev/null; rm -f "$tools_log"' EXIT
e2e_tools() {
  local rc=0
  printf '\n== e2e tools (installed in the background since the start)\n'
  wait "$tools_pid" || rc=$?
  tools_pid=
  cat "$tools_log"
  [ "$rc" = 0 ] || printf 'e2e tools: the background install exited with %s; the e2e script tries again\n' "$rc"
}

status=0
step() {
  local name=$1; shift
  printf '\n== %s\n' "$name"
  local t0=$SECONDS
  if "$@"; then printf '== %s: ok (%ss)\n' "$name" $((SECONDS - t0)); else
    printf '== %s: FAILED (%ss)\n' "$name" $((SECONDS - t0)); status=1
  fi
}
step typecheck npx tsc -b
step lint npx eslint .
step format npx prettier --check .
# Each tier has an outer time limit, and --test-force-exit ends a test file that leaves a handle open, so
# that a stuck test fails the run instead of hanging CI.
step unit timeout 900 node --test --test-force-exit --import ./scripts/test-report-blocking.mjs dist/test/unit/
step native timeout 2400 node --test --test-force-exit --import ./scripts/test-report-blocking.mjs --test-concurrency=1 dist/test/native/
# Hosts as network namespaces and a private single-node Slurm (test/cluster, test/slurm): they need root,
# and say why they skip without it.
step cluster timeout 1500 node --test --test-force-exit --import ./scripts/test-report-blocking.mjs --test-concurrency=1 dist/test/cluster/
e2e_tools
step e2e timeout 900 bash scripts/test-e2e.sh
# Real MPI applications from Debian (LAMMPS, NWChem, HPC Challenge), bare and under mpiscope.
step apps timeout 900 node --test --test-force-exit --import ./scripts/test-report-blocking.mjs --test-concurrency=1 dist/test/apps/
exit $status
