#!/usr/bin/env bash
# Memory soak (issue 30): the daemon's RSS, sampled every 10 s, over a long full-detail
# recording of the HTTP bench server (bench/http) at 2,000 requests/s with a new
# connection per request, once per trace format: the server built with Go 1.19 (written
# as "go 1.19 trace"), Go 1.21 ("go 1.21 trace") and the machine's Go (the v2 format);
# then `gotraced serve` at level full on the Go 1.19 server. Fails when RSS (less the BPF
# ring's mapped pages) grows more than --bound-mb after the first minute.
#   scripts/bench-soak.sh [BUILD] [--seconds S] [--serve-seconds S] [--rate R]
#                         [--only go1.19|go1.21|go1.26|serve] [--bound-mb M] [--json FILE] [--smoke]
# Defaults: 600 s per format, 1,800 s of serve, 2,000 requests/s, 2 MB (~70 min in all).
# --smoke: go1.19 only, 12 s at 500 requests/s, RSS every 2 s (that the bench runs, not
# its figures: suite 55; the short soak of `make test` is suite 56).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
seconds=600 serve_seconds=1800 only= json= args=()
while (($#)); do
  case $1 in
    --smoke) seconds=12 only=go1.19 args+=(--rate 500 --sample 2 --warm 4 --bound-mb 64); shift ;;
    --seconds) seconds=$2; shift 2 ;;
    --serve-seconds) serve_seconds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false}
[[ -x $build/cli/gotraced ]] || { echo "bench-soak: $build/cli/gotraced is not built (cmake --build $build)" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
bin=$build/bench/http
mkdir -p "$bin"
(cd "$root/bench/http/client" && GOTOOLCHAIN=local go build -o "$bin/client" .)
# shellcheck source=../tests/lib/suite.sh
source "$root/tests/lib/suite.sh"  # go_for: each toolchain as the suites find it
for label in go1.19 go1.21 go1.26; do
  g=$(go_for "$label")
  $g version >/dev/null 2>&1 || { echo "bench-soak: $label ($g) is not installed" >&2; exit 1; }
  (cd "$root/bench/http/server" && $g build -o "$bin/server-$label" .)
done
soak=(python3 "$root/bench/soak/soak.py" --gotraced "$build/cli/gotraced" --client "$bin/client"
  --tracecheck "$build/tools/tracecheck" "${args[@]}")
rc=0
for label in go1.19 go1.21 go1.26; do
  [[ -z $only || $only == "$label" ]] || continue
  "${soak[@]}" --seconds "$seconds" --server "$label=$bin/server-$label" ${json:+--json "$json.$label"} || rc=1
done
if [[ -z $only || $only == serve ]]; then
  "${soak[@]}" --serve --seconds "$serve_seconds" --server "go1.19=$bin/server-go1.19" ${json:+--json "$json.serve"} || rc=1
fi
exit $rc
