#!/usr/bin/env bash
# Builds the shim's encoder fuzzer: bash native-shim/fuzz/build.sh MPICC OUTDIR  →  OUTDIR/encoder-fuzz
# clang with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, through the MPI's own compiler wrapper
# (OMPI_CC / MPICH_CC tell it to use clang) so that mpi.h and the MPI library are that MPI's. Only the fuzzer
# needs clang: the shim itself (native-shim/build.sh) builds with the MPI's usual compiler.
# Exit status 2 with one line when clang or its libFuzzer runtime is missing.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: native-shim/fuzz/build.sh MPICC OUTDIR (e.g. mpicc.openmpi native-shim/build/fuzz-openmpi)" >&2
  exit 2
fi
mpicc=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz/build.sh: clang is not installed; install it (apt-get install clang libclang-rt-dev) to build the encoder fuzzer" >&2
  exit 2
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
  clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
  echo "fuzz/build.sh: clang has no libFuzzer runtime; install it (apt-get install libclang-rt-dev)" >&2
  exit 2
fi
bin="$out/encoder-fuzz"
if [ -f "$bin" ] && [ -z "$(find "$here/spec" "$here/gen" "$here/src" "$here/fuzz" -newer "$bin" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out/gen"
node "$here/gen/generate.mjs" "$out/gen"
# Every source of the shim (the encoder and what it calls: the ring, the sender and its WebSocket framing,
# call-site interning, the clock, the spill, TLS, control texts), not the generated wrappers: the fuzzer makes
# no MPI call.
srcs=("$here"/src/*.c)
flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
  -std=gnu11 -pthread -DMSC_FUZZ -DMSC_SENDER_BATCH=64 -Wno-unused-command-line-argument -I "$here/src" -I "$here/mcrt" -I "$out/gen")
OMPI_CC=clang MPICH_CC=clang "$mpicc" "${flags[@]}" "$here/fuzz/encoder-fuzz.c" "${srcs[@]}" \
  "$out/gen/msc_tables.c" -ldl -o "$bin.tmp"
mv -f "$bin.tmp" "$bin"
