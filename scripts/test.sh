#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up (both MPIs when root), static checks, then the three tiers.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-mpich || exit $?

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
step unit node --test dist/test/unit/
step native node --test --test-concurrency=1 dist/test/native/
step e2e bash scripts/test-e2e.sh
exit $status
