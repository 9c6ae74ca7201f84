#!/usr/bin/env bash
# `gotraced report` against Go's own reader (x/exp/trace: tests/tracecheck/cmd/traceread,
# which reads every event and nothing more) on the same files: CPU time (perf stat
# task-clock: the machine's load does not stretch it as it does wall time), wall time and
# peak RSS, median of REPS interleaved runs, every run printed with the 1-minute load
# average it started at. The report is run through gotraced-report, its lean entry point
# (cli/report_main.cc: the report's libraries, not the daemon's); `gotraced report` is the
# same code after ~2-3 ms more of dynamic loading.
#   scripts/bench-report.sh [BUILD] [--smoke] [--reps N] [--big-mb MB] [--http-seconds S]
# Files: the demo's recording (make demo's program, 3 s, --pid); a full-detail recording of
# the HTTP bench server (bench/http, go1.26, 3,000 requests/s for S seconds, default 60);
# a big one (default 1024 MB) tiled from the HTTP recording's generations
# (bench/report/tile_trace.py): Go's reader rejects a tiled file (its goroutine and P
# statuses do not carry across the seams), so on it the report is timed alone and Go's
# reader's cost is the HTTP file's per byte, scaled (said so in the table); and one of the
# same size both readers read, written by runtime/trace itself (bench/report/gentrace: a
# synthetic workload of channel ping-pong, short goroutines, syscalls, sleeps and GC),
# made once into $BUILD/bench/report/cache/ and kept there.
# --smoke: 5 s HTTP recording, 64 MB big file, 1 rep.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
reps=3 big_mb=1024 http_s=60
while (($#)); do
  case $1 in
    --smoke) reps=1 big_mb=64 http_s=5; shift ;;
    --reps) reps=$2; shift 2 ;;
    --big-mb) big_mb=$2; shift 2 ;;
    --http-seconds) http_s=$2; shift 2 ;;
    *) echo "bench-report: unknown argument $1" >&2; exit 2 ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false} GOTOOLCHAIN=local
gt=$build/cli/gotraced gr=$build/cli/gotraced-report out=$build/bench/report
for x in "$gt" "$gr"; do [[ -x $x ]] || { echo "bench-report: $x is not built" >&2; exit 1; }; done
command -v perf >/dev/null || { echo "bench-report: perf is not installed (linux-perf)" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build" >/dev/null
mkdir -p "$out"

# The files.
DEMO_OUT=$out/demo bash "$root/scripts/demo.sh" "$build" >"$out/demo.log" 2>&1
(cd "$root/bench/http/server" && go build -o "$out/server" .) && (cd "$root/bench/http/client" && go build -o "$out/client" .)
"$out/server" >"$out/server.out" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$out/server.out" && break; sleep 0.1; done
addr=$(awk '/listening/ {print $2}' "$out/server.out")
"$out/client" -url "http://$addr/" -rate 3000 -duration "$((http_s + 2))s" >"$out/client.log" 2>&1 &
cpid=$!
sleep 1
"$gt" -q --pid "$spid" --out "$out/http.trace" --duration "${http_s}s" 2>"$out/http.record.log"
wait $cpid || true
kill $spid; wait $spid 2>/dev/null || true
trap - EXIT
python3 "$root/bench/report/tile_trace.py" "$out/http.trace" "$out/big.trace" "$big_mb" >/dev/null
mkdir -p "$out/cache"
gen=$out/cache/gentrace-${big_mb}MB.trace
if [[ ! -s $gen ]]; then
  (cd "$root/bench/report/gentrace" && go build -o "$out/gentrace" .)
  "$out/gentrace" "$gen.tmp" "$big_mb" >/dev/null && mv "$gen.tmp" "$gen"
fi

# run TOOL FILE: "cpu_ms wall_s rss_kb load" of one run (load: the 1-minute load average
# when it started).
run() {
  local cmd
  if [[ $1 == report ]]; then cmd=("$gr" --json "$2"); else cmd=("$build/tools/traceread" "$2"); fi
  local cpu wall rss load
  load=$(cut -d' ' -f1 /proc/loadavg)
  cpu=$(perf stat -x, -e task-clock -o "$out/perf.txt" /usr/bin/time -f "%e %M" -o "$out/time.txt" "${cmd[@]}" >/dev/null 2>"$out/run.err" \
    && awk -F, '/task-clock/ {printf "%.0f", $1}' "$out/perf.txt") || { echo "fail"; return; }
  read -r wall rss <"$out/time.txt"
  echo "$cpu $wall $rss $load"
}
mb() { awk -v k="$1" 'BEGIN {if (k ~ /^[0-9]+$/) printf "%d", k / 1024; else printf "-"}'; }  # KB -> MB
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-7s %9s | %-32s | %-32s | %s\n' file MB "gotraced-report: CPU ms, wall s, RSS MB" "x/exp/trace: CPU ms, wall s, RSS MB" "CPU ratio, load average of the runs"
for f in demo http big gen; do
  file=$out/$f.trace
  [[ $f == demo ]] && file=$out/demo/demo.trace
  [[ $f == gen ]] && file=$gen
  bytes=$(stat -c %s "$file") mb=$(( $(stat -c %s "$file") >> 20 ))
  rr=() xr=()
  for ((i = 0; i < reps; i++)); do
    rr+=("$(run report "$file")")
    [[ $f == big ]] || xr+=("$(run traceread "$file")")
  done
  for ((i = 0; i < reps; i++)); do
    read -r c w r l <<<"${rr[i]}"
    line=$(printf '  %-5s run %d: report %6s ms %6s s %6s MB (load %s)' "$f" $((i + 1)) "$c" "$w" "$(mb "$r")" "$l")
    if [[ $f == big ]]; then
      echo "$line | x/exp: rejects a tiled file"
    else
      read -r c w r l <<<"${xr[i]}"
      printf '%s | x/exp %6s ms %6s s %6s MB (load %s)\n' "$line" "$c" "$w" "$(mb "$r")" "$l"
    fi
  done
  rc=$(printf '%s\n' "${rr[@]}" | awk '{print $1}' | median); rw=$(printf '%s\n' "${rr[@]}" | awk '{print $2}' | median)
  rm=$(printf '%s\n' "${rr[@]}" | awk '{print $3}' | median)
  if [[ $f == big ]]; then
    # by bytes, not whole MB: a 14.9 MB file counted as 14 overstated it by 6%
    xc=$(awk -v c="$http_xc" -v m="$http_bytes" -v b="$bytes" 'BEGIN {printf "%.0f", c / (m > 0 ? m : 1) * b}')
    xw="-" xm="-"
    note="(x/exp scaled from http)"
  else
    xc=$(printf '%s\n' "${xr[@]}" | awk '{print $1}' | median); xw=$(printf '%s\n' "${xr[@]}" | awk '{print $2}' | median)
    xm=$(printf '%s\n' "${xr[@]}" | awk '{print $3}' | median)
    note=""
  fi
  [[ $f == http ]] && http_xc=$xc http_bytes=$bytes
  printf '%-7s %9s | %8s %8s %8s         | %8s %8s %8s         | %s %s\n' "$f" "$mb" "$rc" "$rw" "$((rm / 1024))" \
    "$xc" "$xw" "$([[ $xm == - ]] && echo - || echo $((xm / 1024)))" \
    "$(awk -v a="$xc" -v b="$rc" 'BEGIN {printf "%.2fx", a / (b > 0 ? b : 1)}')" \
    "load $(printf '%s\n' "${rr[@]}" "${xr[@]}" | awk 'NF >= 4 {print $4}' | sort -n | sed -n '1p;$p' | paste -sd- -) $note"
done
