#!/usr/bin/env bash
# Runs native-shim/test/checks.c in each mode under one MPI with the sink and checks what every rank's stream
# held: the FINDING check ids and how many COMM records. Exit status 1 when one differs from the expected.
#   bash native-shim/test/run-checks.sh openmpi|mpich
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mpi=${1:-openmpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/native-shim/build.sh" "mpicc.$mpi" "$root/native-shim/build/$mpi" || exit 1
"mpicc.$mpi" -g -O0 -Wno-stringop-overflow -o "$tmp/checks" "$here/checks.c" || exit 1
extra=()
[ "$mpi" = openmpi ] && extra=(--allow-run-as-root --oversubscribe -x LD_PRELOAD -x MPISCOPE_URL -x MPISCOPE_TOKEN)
# mode → expected per rank: the sorted findings, then the number of COMM records (3 = world, self, + 1 new)
expect=(
  "persistent send-buffer-modified@MPI_Waitall 2"
  "vector-data send-buffer-modified@MPI_Waitall 2"
  "vector-gap - 2"
  "subarray send-buffer-modified@MPI_Waitall 2"
  "small send-buffer-modified@MPI_Wait 2"
  "idup - 3"
  "bsend-fits - 2"
)
failed=0
for line in "${expect[@]}"; do
  read -r mode want_findings want_comms <<<"$line"
  node "$here/sink.mjs" --ranks 2 --token t --timeout 60 >"$tmp/sink.log" 2>&1 &
  sink=$!
  for _ in $(seq 400); do grep -q listening "$tmp/sink.log" && break; sleep 0.05; done
  port=$(awk '/listening/ {print $2}' "$tmp/sink.log")
  LD_PRELOAD="$root/native-shim/build/$mpi/libmpiscope.so" MPISCOPE_URL="ws://127.0.0.1:$port/" MPISCOPE_TOKEN=t \
    timeout 60 "mpirun.$mpi" "${extra[@]}" -np 2 "$tmp/checks" "$mode" >"$tmp/run.log" 2>&1
  rc=$?
  wait "$sink"
  got=$(node -e '
    const out = [];
    for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
      if (!l.startsWith("{")) continue;
      const s = JSON.parse(l);
      out.push(`${[...s.findings].sort().join(",") || "-"} ${s.kinds.COMM ?? 0}${s.errors.length ? " errors" : ""}`);
    }
    console.log(out.sort().join(" | "));' "$tmp/sink.log")
  want="$want_findings $want_comms | $want_findings $want_comms"
  if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
    echo "ok   $mpi $mode: $got"
  else
    echo "FAIL $mpi $mode: mpirun exit $rc, got '$got', want '$want'"
    failed=1
  fi
done
exit $failed
