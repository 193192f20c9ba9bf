#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up (both MPIs and the real applications when root), static
# checks, then the tiers: unit, native, cluster and Slurm, e2e, and the real applications.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-mpich --with-apps || exit $?

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
step unit timeout 900 node --test --test-force-exit dist/test/unit/
step native timeout 2400 node --test --test-force-exit --test-concurrency=1 dist/test/native/
# Hosts as network namespaces and a private single-node Slurm (test/cluster, test/slurm): they need root,
# and say why they skip without it.
step cluster timeout 1500 node --test --test-force-exit --test-concurrency=1 dist/test/cluster/
step e2e timeout 900 bash scripts/test-e2e.sh
# Real MPI applications from Debian (LAMMPS, NWChem, HPC Challenge), bare and under mpiscope.
step apps timeout 900 node --test --test-force-exit --test-concurrency=1 dist/test/apps/
exit $status
