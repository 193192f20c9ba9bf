#!/usr/bin/env bash
# Builds the shim for one MPI: bash native-shim/build.sh MPICC OUTDIR  →  OUTDIR/libmpiscope.so
# With a third argument `memcheck`: OUTDIR/libmpiscope-memcheck.so, the same shim compiled with -DMSC_MEMCHECK
# (src/msc_memcheck.c: it publishes the memory pending operations own to the runtime of programs built with
# `mpiscope cc`; the default library has none of that code on its path).
# Generates the wrappers from the spec, then compiles everything with that MPI's compiler wrapper (so the
# library links exactly what mpicc links). Does nothing when OUTDIR/libmpiscope.so is newer than every input
# and was built with the same MPICC; safe to run concurrently for different OUTDIRs.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ] || { [ $# -eq 3 ] && [ "$3" != memcheck ]; }; then
  echo "usage: build.sh MPICC OUTDIR [memcheck] (e.g. build.sh mpicc.openmpi native-shim/build/openmpi)" >&2
  exit 2
fi
mpicc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! command -v "$mpicc" >/dev/null 2>&1; then
  echo "build.sh: MPI compiler '$mpicc' not found; install that MPI or pass another mpicc" >&2
  exit 2
fi
mkdir -p "$out/gen"
lib="$out/libmpiscope.so"
stamp="$out/.mpicc"
variant=()
if [ $# -eq 3 ]; then
  lib="$out/libmpiscope-memcheck.so"
  stamp="$out/.mpicc-memcheck"
  variant=(-DMSC_MEMCHECK -I "$here/mcrt")
fi

if [ -f "$lib" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$mpicc" ] &&
  [ -z "$(find "$here/spec" "$here/gen" "$here/src" "$here/build.sh" "$here/mcrt" -newer "$lib" -print -quit)" ]; then
  exit 0
fi

node "$here/gen/generate.mjs" "$out/gen"
tmp="$lib.tmp.$$"
trap 'rm -f "$tmp"' EXIT
"$mpicc" -O2 -g -fPIC -shared -pthread -fvisibility=hidden -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
  "${variant[@]}" -I "$here/src" -I "$out/gen" "$here"/src/*.c "$out"/gen/*.c -o "$tmp"
mv -f "$tmp" "$lib"
echo "$mpicc" >"$stamp"
