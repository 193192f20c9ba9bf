#!/usr/bin/env bash
# Builds mpiscope's own MPI programs (net-test, coll-bench) and the preloadable lib-topo-allgather.so for one MPI:
#   bash native-tools/build.sh MPICC OUTDIR  →  OUTDIR/net-test, OUTDIR/coll-bench, OUTDIR/lib-topo-allgather.so
# Like native-shim/build.sh: compiled with that MPI's compiler wrapper, so they run under its launcher;
# nothing is done when every program is newer than its source and was built with the same MPICC.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: build.sh MPICC OUTDIR (e.g. build.sh mpicc.openmpi native-tools/build/openmpi)" >&2
  exit 2
fi
mpicc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v "$mpicc" >/dev/null 2>&1; then
  echo "build.sh: MPI compiler '$mpicc' not found; install that MPI or pass another mpicc" >&2
  exit 2
fi
mkdir -p "$out"
stamp="$out/.mpicc"
same=0
[ "$(cat "$stamp" 2>/dev/null)" = "$mpicc" ] && same=1
for src in "$here"/*.c; do
  name=$(basename "$src" .c)
  bin="$out/$name"
  shared=()
  # lib-*.c are libraries to preload (LD_PRELOAD), not programs.
  case $name in lib-*) bin="$out/$name.so" shared=(-shared -fPIC) ;; esac
  if [ $same = 1 ] && [ -f "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$here/build.sh" ]; then continue; fi
  tmp="$bin.tmp.$$"
  trap 'rm -f "$tmp"' EXIT
  "$mpicc" -O2 -g -std=gnu11 -Wall -Wextra "${shared[@]}" "$src" -o "$tmp" -lm
  mv -f "$tmp" "$bin"
done
echo "$mpicc" >"$stamp"
