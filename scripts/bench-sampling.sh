#!/usr/bin/env bash
# Serve's default against the untraced server with the load running throughout, the
# syscall tracepoints, the syscall sampler and sched_switch side by side (issue 28 parts 1-2;
# bench/sampling/alternate.py): the HTTP bench server built with Go 1.26 and 1.19, and two
# real servers from Debian's archive that no one here wrote: bookworm's prometheus
# (2.42, go1.19.8; scripts/install-deps.sh) and trixie's caddy (2.6.2, go1.24.4;
# scripts/fetch-debian-go.sh), at 3,000 requests/s.
#   scripts/bench-sampling.sh [BUILD] [--smoke] [--rate R] [--seconds S] [--reps N]
#                             [--paths tracepoint,sample,switch] [--bpf-stats] [--syscall-rate]
#   scripts/bench-sampling.sh [BUILD] --paired [--smoke] [--rate R] [--seconds S] [--windows W]
# --paired: twins instead (bench/sampling/paired.py): two instances of each server under
# their own clients, `gotraced serve`'s default watching one and then the other, the cost
# against the other twin in the same window (what one server's windows cannot show on a
# shared machine).
# A bystander's getppid after every window when bench/host is built (gotraced-getppid-ns).
# --smoke: the go1.26 bench server only, 500 requests/s, 2 s windows, 1 rep (that the bench
# runs, not its figures: tests/suites/55-bench-smoke.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
smoke=0 paired=0 args=()
for a in "$@"; do
  case $a in --smoke) smoke=1 ;; --paired) paired=1 ;; *) args+=("$a") ;; esac
done
bench=$root/bench/sampling/alternate.py
((paired)) && bench=$root/bench/sampling/paired.py
export GOFLAGS=${GOFLAGS:--buildvcs=false}
[[ -x $build/cli/gotraced ]] || { echo "bench-sampling: $build/cli/gotraced is not built" >&2; exit 1; }
bin=$build/bench/http
mkdir -p "$bin"
(cd "$root/bench/http/client" && GOTOOLCHAIN=local go build -o "$bin/client" .)
(cd "$root/bench/http/server" && GOTOOLCHAIN=local go build -o "$bin/server-go1.26" .)
(cd "$root/bench/http/server" && GOTOOLCHAIN=local /usr/lib/go-1.19/bin/go build -o "$bin/server-go1.19" .)
servers=(--server "http-go1.26=$bin/server-go1.26 -addr 127.0.0.1:{port}"
  --server "http-go1.19=$bin/server-go1.19 -addr 127.0.0.1:{port}")
if ((smoke && paired)); then
  exec python3 "$bench" --gotraced "$build/cli/gotraced" --client "$bin/client" \
    --server "http-go1.26=$bin/server-go1.26 -addr 127.0.0.1:{port}" --rate 500 --seconds 2 --windows 1 --warmup 1
fi
if ((smoke)); then
  exec python3 "$root/bench/sampling/alternate.py" --gotraced "$build/cli/gotraced" --client "$bin/client" \
    --server "http-go1.26=$bin/server-go1.26 -addr 127.0.0.1:{port}" --rate 500 --seconds 2 --reps 1
fi
prom=$(command -v prometheus || true)
[[ -n $prom ]] || { echo "bench-sampling: prometheus is not installed (scripts/install-deps.sh)" >&2; exit 1; }
printf 'global:\n  scrape_interval: 15s\n' >"$bin/prometheus.yml"
servers+=(--server "prometheus-go1.19=$prom --config.file=$bin/prometheus.yml --storage.tsdb.path={dir}/data --web.listen-address=127.0.0.1:{port}@/-/healthy")
caddy=${GOTRACED_GO_CACHE:-/var/cache/gotraced-go}/caddy
[[ -x $caddy ]] || { echo "bench-sampling: $caddy is missing (scripts/fetch-debian-go.sh)" >&2; exit 1; }
servers+=(--server "caddy-go1.24=$caddy respond --listen 127.0.0.1:{port} --body {\"id\":1}")
by=()
((paired)) || [[ ! -x $build/bench/host/gotraced-getppid-ns ]] || by=(--getppid "$build/bench/host/gotraced-getppid-ns")
python3 "$bench" --gotraced "$build/cli/gotraced" --client "$bin/client" "${servers[@]}" \
  ${by[@]+"${by[@]}"} ${args[@]+"${args[@]}"}
