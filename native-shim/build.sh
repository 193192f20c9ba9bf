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
objs="$out/obj.$$"
trap 'rm -rf "$tmp" "$objs"' EXIT
mkdir -p "$objs"
# One compiler per source file, as many at once as there are cores: the generated wrappers of the whole MPI API
# (C and Fortran) are most of the work, and one compiler would take them one after the other.
jobs=$(nproc 2>/dev/null || echo 2)
# The memcheck variant's define reaches the inner shell as a plain variable (an array cannot be exported); the
# runtime's header directory is always on the include path, and only the memcheck build includes the header.
variant_flags=""
[ ${#variant[@]} -gt 0 ] && variant_flags="-DMSC_MEMCHECK"
mcrt_inc="$here/mcrt"
export mpicc here out objs variant_flags mcrt_inc
# shellcheck disable=SC2016 # expanded by the inner shell
if ! printf '%s\0' "$out"/gen/*.c "$here"/src/*.c | xargs -0 -n 1 -P "$jobs" sh -c \
  '"$mpicc" -O2 -g -fPIC -pthread -fvisibility=hidden -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
     $variant_flags -I "$mcrt_inc" -I "$here/src" -I "$out/gen" -c "$1" -o "$objs/$(basename "$1" .c).o"' sh; then
  echo "build.sh: compiling the shim with $mpicc failed" >&2
  exit 1
fi
"$mpicc" -shared -pthread -fvisibility=hidden "$objs"/*.o -o "$tmp"
mv -f "$tmp" "$lib"
echo "$mpicc" >"$stamp"
