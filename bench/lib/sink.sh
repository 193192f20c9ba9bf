# with_sink RANKS COMMAND...: runs COMMAND with the shim recording into a fresh native-shim/test/sink.mjs that
# only counts bytes and expects RANKS connections (MPISCOPE_URL and MPISCOPE_TOKEN point at it; anything else
# the shim reads, such as MPISCOPE_RING_RECORDS or MPISCOPE_SPILL, comes from the caller's environment).
# Sourced by the bench scripts, which define $root (the checkout), $tmp (a scratch folder) and `sink=` with a
# trap that kills "$sink" on exit.
with_sink() {
  local ranks=$1
  shift
  # Emptied here, not only by the redirection below: that one runs in the background child, and the wait for
  # "listening" could otherwise read the previous sink's port from the old log (a rank then found no one there).
  : >"$tmp/sink.log"
  node "$root/native-shim/test/sink.mjs" --ranks "$ranks" --token bench --timeout 600 --quiet --count-only \
    >"$tmp/sink.log" 2>&1 &
  sink=$!
  for _ in $(seq 600); do grep -q listening "$tmp/sink.log" && break; sleep 0.05; done
  local port
  port=$(awk '/listening/ {print $2}' "$tmp/sink.log")
  MPISCOPE_URL="ws://127.0.0.1:$port/" MPISCOPE_TOKEN=bench MPISCOPE_CONNECT_TIMEOUT_MS=30000 "$@"
  # A rank that never connected would keep the sink waiting for its whole timeout: 30 s at most after the job.
  for _ in $(seq 300); do kill -0 "$sink" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$sink" 2>/dev/null; then
    echo "bench: a rank never reached the sink (its numbers are pass-through ones)" >&2
    kill "$sink"
  fi
  wait "$sink" || echo "bench: the sink reported a problem: $(tail -1 "$tmp/sink.log")" >&2
  sink=
}
