#!/usr/bin/env bash
# The main job on the bundled example: set up, build examples/deadlock/ring.c, check it under mpiscope.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit $?
mpicc -g -O0 -o examples/deadlock/ring examples/deadlock/ring.c || { echo "mpiscope demo: could not compile examples/deadlock/ring.c with mpicc" >&2; exit 2; }
echo "\$ mpiscope run -np 3 examples/deadlock/ring"
node bin/mpiscope.js run -np 3 examples/deadlock/ring
rc=$?
# The example deadlocks on purpose: status 1 (errors found) is the expected outcome here.
if [ $rc = 1 ]; then echo "(mpiscope exited 1: it found errors, as this example intends)"; exit 0; fi
exit $rc
