#!/usr/bin/env bash
# Runs corpus programs (test/programs/*.c) under the shim and the sink, one MPI, and prints per program:
# mpirun's exit status, how each rank's stream ended, and the shim's FINDING records. A by-hand check that
# correct programs give no shim finding and invalid ones give the expected one.
#   bash native-shim/test/run-corpus.sh openmpi|mpich [GLOB]     (GLOB defaults to '*')
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi=${1:-openmpi}
glob=${2:-*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi" || exit 1
extra=()
[ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN)
for src in "$root"/test/programs/$glob.c; do
  name=$(basename "$src" .c)
  ranks=$(sed -n 's/^ \* ranks: *\([0-9]*\).*/\1/p' "$src" | head -1)
  args=$(sed -n 's/^ \* args: *//p' "$src" | head -1)
  "mpicc.$mpi" -g -O0 -o "$tmp/prog" "$src" 2>/dev/null || { echo "$name: does not compile"; continue; }
  node "$here/sink.mjs" --ranks "$ranks" --token t --timeout 15 >"$tmp/sink.log" 2>&1 &
  sink=$!
  for _ in $(seq 100); do grep -q listening "$tmp/sink.log" && break; sleep 0.05; done
  port=$(awk '/listening/ {print $2}' "$tmp/sink.log")
  # shellcheck disable=SC2086
  LD_PRELOAD="$root/native-shim/build/$mpi/libmpiscope.so" MPISCOPE_URL="ws://127.0.0.1:$port/" MPISCOPE_TOKEN=t \
    timeout 8 "mpirun.$mpi" "${extra[@]}" -np "$ranks" "$tmp/prog" $args >"$tmp/run.log" 2>&1
  rc=$?
  for _ in $(seq 60); do kill -0 "$sink" 2>/dev/null || break; sleep 0.05; done
  kill "$sink" 2>/dev/null
  wait "$sink" 2>/dev/null
  node -e '
    const [log, name, rc] = process.argv.slice(1);
    const ss = require("fs").readFileSync(log, "utf8").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    const ends = ss.map((s) => s.end ? s.end.how : "-").join("");
    const f = [...new Set(ss.flatMap((s) => s.findings))].join(",");
    const bad = ss.filter((s) => s.errors.some((e) => e !== "closed without END")).length;
    console.log(`${name.padEnd(40)} rc=${rc.padEnd(4)} ends=${ends.padEnd(5)} ${bad ? "MALFORMED " : ""}${f}`);
  ' "$tmp/sink.log" "$name" "$rc"
done
