#!/usr/bin/env bash
# HTTP server bench: bench/http/server built with the machine's Go (1.26) and Go 1.19,
# then a real program no one here wrote: Debian trixie's caddy (2.6.2, built with go1.24.4;
# scripts/fetch-debian-go.sh unpacks it) as `caddy respond`, without the runtime/trace
# mode (it has no in-process tracer),
# driven at a fixed rate on loopback by bench/http/client (open loop), with no tracing,
# with the in-process runtime/trace and under gotraced --pid, in one run: achieved rate,
# p50/p99 latency, the server's CPU, the daemon's CPU per event and its RSS (table per Go).
#   scripts/bench-http.sh [BUILD] [--smoke] [--rate R] [--seconds S] [--reps N] [--json FILE]
#                         [--levels | --kernel-view | --labels | --modes none,gotraced,...]
# --kernel-view: gotraced also with --no-kernel-view, and what the kernel view adds.
# --labels: the server's four routes (three wait inside the handler) in every mode, and
# labelling every request (pprof.Do) untraced, under gotraced --no-labels and gotraced:
# what the labels logs add, and each labelled run's report by route (issue 34).
# --smoke: go1.26 and caddy, 500 requests/s, 1 s window (that the bench runs, not its figures).
# Also, per Go: the cost by source (events per request; per event the uprobe hits, their
# trap (measured here by gotraced-uprobe-cost) and BPF time, the tracepoint runs and their
# BPF time) and the maximum throughput with 32 keep-alive connections sending back to back
# (--closed N; 0 = off). And per mode (every level with --levels): the server's CPU per
# request and what the mode adds per request and per syscall of the server (its syscalls
# counted untraced by perf stat), what another process's syscall pays (a getppid loop,
# bench/host's gotraced-getppid-ns, as bench-sampling.sh runs it) and the daemon's CPU.
# Exits non-zero if a measurement could not be taken or a trace does not parse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
smoke=0
args=()
while (($#)); do
  case $1 in
    --smoke) smoke=1; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false}
[[ -x $build/cli/gotraced ]] || { echo "bench-http: $build/cli/gotraced is not built (cmake --build $build)" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
bin=$build/bench/http
mkdir -p "$bin"
(cd "$root/bench/http/client" && GOTOOLCHAIN=local go build -o "$bin/client" .)
servers=()
# BENCH_HTTP_GOS (space-separated LABEL=GO) replaces the Go builds of the server, e.g.
# "go1.26=go go1.23=/usr/lib/go-1.23/bin/go"; BENCH_HTTP_CADDY=0 leaves caddy out.
read -r -a gos <<<"${BENCH_HTTP_GOS:-go1.26=go go1.19=/usr/lib/go-1.19/bin/go}"
((smoke)) && gos=("go1.26=go")
for g in "${gos[@]}"; do
  label=${g%%=*} gobin=${g#*=}
  if ! command -v "$gobin" >/dev/null; then echo "bench-http: $label ($gobin) is not installed" >&2; exit 1; fi
  (cd "$root/bench/http/server" && GOTOOLCHAIN=local "$gobin" build -o "$bin/server-$label" .)
  servers+=(--server "$label=$bin/server-$label")
done
if ((smoke)); then args=(--rate 500 --seconds 1 --warmup 1 --closed 4 "${args[@]}"); else args=(--closed 32 "${args[@]}"); fi
bash "$root/tests/fidelity/build-targets.sh" "$build/fidelity/targets" go1.26 >/dev/null
upcost=$build/bench/overhead/gotraced-uprobe-cost
[[ -x $upcost ]] || { echo "bench-http: $upcost is not built (cmake --build $build)" >&2; exit 1; }
args=(--uprobe-cost "$upcost" --uprobe-target "$build/fidelity/targets/go1.26/fidelity" "${args[@]}")
getppid=$build/bench/host/gotraced-getppid-ns
[[ -x $getppid ]] || { echo "bench-http: $getppid is not built (cmake --build $build)" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench-http: perf is not installed (linux-perf)" >&2; exit 1; }
bench=(python3 "$root/bench/http/http_bench.py" --gotraced "$build/cli/gotraced" --tracecheck "$build/tools/tracecheck"
  --client "$bin/client" --getppid "$getppid" --syscall-rate)
"${bench[@]}" "${servers[@]}" "${args[@]}"
[[ ${BENCH_HTTP_CADDY:-1} == 0 ]] && exit 0
caddy=${GOTRACED_GO_CACHE:-/var/cache/gotraced-go}/caddy
[[ -x $caddy ]] || { echo "bench-http: $caddy is missing (scripts/install-deps.sh fetches it)" >&2; exit 1; }
caddy_modes=gotraced
for x in "${args[@]}"; do
  case $x in # the preset's modes but runtime/trace (http_bench.py LEVEL_MODES, KERNEL_VIEW_MODES)
    --levels) caddy_modes=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import http_bench as h
print(",".join(m for m in h.LEVEL_MODES if m not in ("none", "runtime/trace")))' "$root/bench/http") ;;
    --kernel-view) caddy_modes=gotraced,gotraced:no-kernel-view ;;
  esac
done
"${bench[@]}" --server "caddy-$("$caddy" version | cut -d' ' -f1)-go1.24=$caddy" "${args[@]}" --modes "$caddy_modes"
