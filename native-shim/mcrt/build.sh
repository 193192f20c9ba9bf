#!/usr/bin/env bash
# Builds the memcheck runtime: bash native-shim/mcrt/build.sh OUTDIR  →  OUTDIR/libmpiscope-mcrt.so, and
# OUTDIR/libtsan.so, a link to it: the compiler wrapper puts OUTDIR first on the library path, so gcc's
# -fsanitize=thread link step (which asks for -ltsan) takes this runtime instead of ThreadSanitizer's. The
# runtime has no MPI in it, so one build serves every MPI. Does nothing when the library is newer than its sources.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: build.sh OUTDIR (e.g. build.sh native-shim/build/mcrt)" >&2
  exit 2
fi
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib="$out/libmpiscope-mcrt.so"
mkdir -p "$out"
if [ -f "$lib" ] && [ -L "$out/libtsan.so" ] && [ -z "$(find "$here" -newer "$lib" -print -quit)" ]; then
  exit 0
fi
tmp="$lib.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# -O2 and no instrumentation of its own; the soname is what instrumented programs record as NEEDED (and what
# `mpiscope run` looks for to turn the memcheck mode on).
cc -O2 -g -fPIC -shared -pthread -fvisibility=hidden -std=gnu11 -Wall -Wextra \
  -Wl,-soname,libmpiscope-mcrt.so "$here/msc_mcrt.c" -o "$tmp"
mv -f "$tmp" "$lib"
ln -sfn libmpiscope-mcrt.so "$out/libtsan.so"
