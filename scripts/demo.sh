#!/usr/bin/env bash
# make demo: build the bundled demo Go program, start it, attach gotraced with --pid,
# record a few seconds, check the trace with Go's own parser, print where it is.
set -euo pipefail
BUILD=$(realpath "${1:-build}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${DEMO_OUT:-$ROOT/out}
mkdir -p "$OUT"
GOTRACED=$BUILD/cli/gotraced

echo "== building the demo Go program"
(cd "$ROOT/demo/app" && go build -o "$OUT/demo-app" .)
bash "$ROOT/scripts/build-tools.sh" "$BUILD" >/dev/null

"$OUT/demo-app" -duration 30s >"$OUT/demo-app.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 0.5

echo "== recording pid $pid for 3s"
"$GOTRACED" --pid "$pid" --out "$OUT/demo.trace" --duration 3s
kill -INT $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
trap - EXIT

echo "== checking the trace with Go's parser (golang.org/x/exp/trace)"
"$BUILD/tools/tracecheck" "$OUT/demo.trace" >"$OUT/demo.summary.json"
python3 - "$OUT/demo.summary.json" <<'PY'
import json,sys
s=json.load(open(sys.argv[1]))
print(f"parsed ok: {s.get('events')} events, {s.get('goroutines')} goroutines, {s.get('procs')} procs, version {s.get('version')}")
PY
if go tool trace -d=parsed "$OUT/demo.trace" >/dev/null 2>"$OUT/demo.gotooltrace.err"; then
  echo "go tool trace ($(go version | cut -d' ' -f3)) reads it too"
else
  echo "go tool trace could not read the trace:" >&2; tail -5 "$OUT/demo.gotooltrace.err" >&2; exit 1
fi
echo
echo "trace written to: $OUT/demo.trace"
echo "open it with:     go tool trace $OUT/demo.trace"
