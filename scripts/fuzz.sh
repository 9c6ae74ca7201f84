#!/usr/bin/env bash
# Fuzzes gobin (ELF, buildinfo, pclntab, frames, DWARF layouts, globals, probe sites)
# with libFuzzer + ASan on a memory image, or (TARGET report) `gotraced report` on trace
# bytes of both formats (seeds: runtime/trace files of Go 1.26, 1.21, 1.19 and their
# truncations), or (TARGET labels) the pprof label-set reader on a target memory image
# (seeds: label sets of both runtime/pprof layouts, tests/fuzz/labels_seeds.py).
#   bash scripts/fuzz.sh [smoke|long] [SECONDS] [gobin|report|labels]
#     smoke  60 s in total (what `make test` runs through tests/suites/35-fuzz.sh)
#     long   30 min unless SECONDS is given (`make fuzz`)
# Build dir: $FUZZ_BUILD (default build-fuzz, clang, -DGOTRACED_FUZZ=ON). The corpus
# grows in $FUZZ_BUILD/fuzz-corpus; crashes/timeouts land in $FUZZ_BUILD/fuzz-artifacts/
# and make this script exit non-zero with the input's path.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-smoke}
case $mode in
  smoke) secs=${2:-60} ;;
  long) secs=${2:-1800} ;;
  *) echo "usage: $0 [smoke|long] [SECONDS] [gobin|report|labels]" >&2; exit 2 ;;
esac
what=${3:-gobin}
[[ $what == gobin || $what == report || $what == labels ]] ||
  { echo "usage: $0 [smoke|long] [SECONDS] [gobin|report|labels]" >&2; exit 2; }
fb=$(realpath -m -- "${FUZZ_BUILD:-build-fuzz}")  # absolute: the report seeds are built from another directory
command -v clang++ >/dev/null || { echo "fuzz: clang++ not installed (scripts/install-deps.sh)" >&2; exit 1; }
if [[ ! -f $fb/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$fb" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOTRACED_FUZZ=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" >/dev/null
fi
if ! cmake --build "$fb" -j 2 --target "${what}_fuzz" >"$fb/fuzz-build.log" 2>&1; then
  tail -n 30 "$fb/fuzz-build.log" >&2; echo "fuzz: build failed ($fb/fuzz-build.log)" >&2; exit 1
fi
fuzzer=$fb/tests/fuzz/${what}_fuzz
# run_seeded NAME TIMEOUT_S RSS_MB MAX_LEN: the fuzzer on $corpus and $seeds for $secs,
# crashes into $artifacts; exits the script (0, or 1 with the inputs' paths).
run_seeded() {
  set +e
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$fuzzer" -max_total_time="$secs" -timeout="$2" -rss_limit_mb="$3" \
    -max_len="$4" -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$seeds" 2>"$fb/$1-fuzz.log"
  rc=$?
  set -e
  tail -n 20 "$fb/$1-fuzz.log" | grep -E 'stat::|Done|ERROR|SUMMARY|crash|timeout' || true
  if ((rc != 0)); then
    echo "fuzz: FAILED (rc=$rc): see $fb/$1-fuzz.log; inputs in $artifacts:" >&2
    ls -la "$artifacts" >&2
    exit 1
  fi
  echo "fuzz: no crash, no hang, no out-of-bounds read in ${secs}s"
  exit 0
}
if [[ $what == labels ]]; then
  seeds=$fb/labels-fuzz-seeds corpus=$fb/labels-fuzz-corpus artifacts=$fb/labels-fuzz-artifacts/
  rm -rf "$seeds"; mkdir -p "$seeds" "$corpus" "$artifacts"
  python3 tests/fuzz/labels_seeds.py "$seeds"
  echo "fuzz: labels $mode for ${secs}s, $(ls "$seeds" | wc -l) seeds, corpus $corpus"
  run_seeded labels 10 2048 16384
fi
if [[ $what == report ]]; then
  # Seeds: small traces runtime/trace wrote (tests/report/target -mode gc) in the go1.26,
  # go1.21 and go1.19 formats, whole and cut.
  seeds=$fb/report-fuzz-seeds corpus=$fb/report-fuzz-corpus artifacts=$fb/report-fuzz-artifacts/
  rm -rf "$seeds"; mkdir -p "$seeds" "$corpus" "$artifacts"
  source tests/lib/suite.sh
  for v in 1.26 1.21 1.19; do
    g=$(go_for $v)
    (cd tests/report/target && GOFLAGS=-buildvcs=false $g build -o "$seeds/target" .) >&2 || continue
    "$seeds/target" -mode gc -trace "$seeds/go$v.trace" -out /dev/null >&2 || continue
    head -c 4096 "$seeds/go$v.trace" >"$seeds/go$v-4k"
    head -c 65536 "$seeds/go$v.trace" >"$seeds/go$v-64k"
    rm -f "$seeds/target"
  done
  ls "$seeds"/* >/dev/null 2>&1 || { echo "fuzz: no trace seeds" >&2; exit 1; }
  echo "fuzz: report $mode for ${secs}s, $(ls "$seeds" | wc -l) seeds, corpus $corpus"
  run_seeded report 30 4096 65536
fi

# Seeds: real binaries of a few Go versions (stripped: smaller, faster to mutate; one
# unstripped for DWARF and .symtab) and truncations of them.
targets=${GOTRACED_BUILD:-$fb}/gobin-targets
bash tests/gobin-layouts/build_targets.sh "$targets" >&2
seeds=$fb/fuzz-seeds corpus=$fb/fuzz-corpus artifacts=$fb/fuzz-artifacts/
rm -rf "$seeds"; mkdir -p "$seeds" "$corpus" "$artifacts"
n=0
for v in go1.19 go1.22 go1.26 go1.27; do
  for m in stripped pie-stripped; do
    f=$targets/$v/$m
    [[ -f $f ]] || continue
    cp "$f" "$seeds/$v-$m"; n=$((n+1))
    size=$(stat -c %s "$f")
    head -c $((size / 2)) "$f" > "$seeds/$v-$m-half"
    head -c 65536 "$f" > "$seeds/$v-$m-64k"
  done
done
[[ -f $targets/go1.23/plain ]] && cp "$targets/go1.23/plain" "$seeds/go1.23-plain"
((n)) || { echo "fuzz: no Go target binaries to seed from" >&2; exit 1; }
max_len=$(stat -c %s "$seeds"/* | sort -n | tail -1)
echo "fuzz: $mode for ${secs}s, $(ls "$seeds" | wc -l) seeds (max $max_len B), corpus $corpus"
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$fuzzer" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
  -max_len="$max_len" -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$seeds" 2>"$fb/fuzz.log"
rc=$?
set -e
tail -n 20 "$fb/fuzz.log" | grep -E 'stat::|Done|ERROR|SUMMARY|crash|timeout' || true
if ((rc != 0)); then
  echo "fuzz: FAILED (rc=$rc): see $fb/fuzz.log; inputs in $artifacts:" >&2
  ls -la "$artifacts" >&2
  grep -E 'ERROR|SUMMARY' "$fb/fuzz.log" | head -5 >&2
  exit 1
fi
echo "fuzz: no crash, no hang, no out-of-bounds read in ${secs}s"
