#!/usr/bin/env bash
# Property test of encoder/: randomized but consistent scheduler scenarios (several Ms,
# Ps, many goroutines, every timed event kind, several generations) are encoded in each
# trace version (go1.22, 1.23, 1.25, 1.26) by scenario_gen; Go's own parser
# (tests/tracecheck, x/exp/trace) must accept every file and report exactly the counts
# the generator expected. Negative scenarios (missing status, wrong sequence number,
# new goroutine by status after the first generation, v26 without its end marker)
# must be rejected, which proves the check can fail.
#   env: GOTRACED_BUILD (build dir), GOTRACED_ROOT; ENCODER_PROPERTY_SEEDS to override.
set -euo pipefail
root=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${GOTRACED_BUILD:-$root/build}
gen=$build/tests/unit/encoder/scenario_gen
dump=$build/encoder/gotraced-trace-dump
for exe in "$gen" "$dump"; do
  [[ -x $exe ]] || { echo "FAIL: $exe not built (cmake --build $build)"; exit 1; }
done
bash "$root/scripts/build-tools.sh" "$build"
tc=$build/tools/tracecheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

versions=(22 23 25 26)
# Fixed seeds keep failures reproducible; one seed from the clock widens coverage over
# runs and is printed so a failure can be replayed with ENCODER_PROPERTY_SEEDS.
seeds=${ENCODER_PROPERTY_SEEDS:-"1 2 3 4 5 6 $(( $(date +%s) % 100000 ))"}
fail=0
declare -A missing_count=()
nseeds=0

echo "-- positive scenarios (seeds: $seeds)"
for seed in $seeds; do
  nseeds=$((nseeds + 1))
  for v in "${versions[@]}"; do
    base=$work/s$seed-v$v
    "$gen" run --seed "$seed" --version "$v" --out "$base.trace" --expect "$base.want.json" --verbose | tee "$base.log"
    while read -r k; do
      [[ -n $k ]] && missing_count[$v:$k]=$(( ${missing_count[$v:$k]:-0} + 1 ))
    done < <(sed -n 's/^  not emitted: //p' "$base.log" | tr ',' '\n')
    if ! "$tc" "$base.trace" > "$base.got.json" 2> "$base.err"; then
      echo "  FAIL seed=$seed go1.$v: tracecheck rejected the trace:"; head -c 2000 "$base.err"; echo
      fail=1; continue
    fi
    if ! "$gen" compare "$base.want.json" "$base.got.json"; then
      echo "  FAIL seed=$seed go1.$v: counts differ (replay: $gen run --seed $seed --version $v --out x.trace --expect x.json)"
      fail=1
    fi
  done
done

# Every timed event kind of each version must appear in at least one scenario.
for key in "${!missing_count[@]}"; do
  if (( missing_count[$key] == nseeds )); then
    echo "FAIL: event kind ${key#*:} never emitted for go1.${key%%:*} in $nseeds seeds"
    fail=1
  fi
done

echo "-- large scenario: per-M batches split at 64 KiB, read back by the parser"
for v in 22 26; do
  base=$work/big-v$v
  "$gen" run --seed 7 --version "$v" --gens 2 --steps 150000 --out "$base.trace" --expect "$base.want.json"
  if ! "$tc" "$base.trace" > "$base.got.json" 2> "$base.err"; then
    echo "  FAIL go1.$v large: tracecheck rejected:"; head -c 2000 "$base.err"; echo; fail=1; continue
  fi
  "$gen" compare "$base.want.json" "$base.got.json" || fail=1
  full=$("$dump" --no-events --no-tables "$base.trace" | grep -c 'events, ' || true)
  big=$("$dump" --no-events --no-tables "$base.trace" | awk '/events, / { sub("len=", "", $4); if ($4 > 60000) n++ } END { print n + 0 }')
  echo "  go1.$v: $full event batches, $big of them over 60000 bytes"
  if (( big == 0 )); then echo "  FAIL: no batch reached the 64 KiB split"; fail=1; fi
done

echo "-- negative scenarios: the parser must reject each"
negatives=(
  "missing-status:22 23 25 26"
  "wrong-seq:22 23 25 26"
  "new-goroutine-status:22 23 25 26"
  "missing-eog:26"
)
for entry in "${negatives[@]}"; do
  kind=${entry%%:*}
  for v in ${entry#*:}; do
    base=$work/neg-$kind-v$v
    "$gen" run --seed 3 --version "$v" --break "$kind" --out "$base.trace" > /dev/null
    if "$tc" "$base.trace" > /dev/null 2> "$base.err"; then
      echo "  FAIL $kind go1.$v: tracecheck accepted a broken trace"; fail=1
    else
      echo "  $kind go1.$v rejected: $(head -n 1 "$base.err" | cut -c1-150)"
    fi
  done
done
# Control: the unbroken seed-3 scenario is accepted, so the rejections above come from
# the breakage and not from the scenario.
"$gen" run --seed 3 --version 26 --out "$work/ctl.trace" > /dev/null
if ! "$tc" "$work/ctl.trace" > /dev/null 2> "$work/ctl.err"; then
  echo "  FAIL control: unbroken seed 3 rejected: $(head -n 1 "$work/ctl.err")"; fail=1
fi

# The legacy writer (go1.19, go1.21: encoder/legacy_writer.h) fuzzed the same way: the same
# random scenarios written through it must be read by Go 1.19's own parser (go1.19 files)
# and Go 1.21's (both), by Go 1.26's go tool trace and by x/exp/trace's parser, as the
# whole file and as the dump a flight recorder hands out when its oldest generation is the
# 2nd or 3rd (restart prelude + rebased generations, encoder/legacy_rebase.h). The expected
# counts are v2's and not compared; a file cut in half must be rejected (the check can fail).
GO119=/usr/lib/go-1.19/bin/go GO121=/usr/lib/go-1.21/bin/go
legacy_read() {  # FILE VERSION: every reader accepts FILE, else prints why and fails
  local f=$1 v=$2 g
  local gos=("$GO121")
  [[ $v == 19 ]] && gos=("$GO119" "$GO121")
  for g in "${gos[@]}"; do
    if ! "$g" tool trace -d "$f" > /dev/null 2> "$f.err"; then
      echo "  FAIL $(basename "$f"): $($g version | cut -d' ' -f3): $(grep -v Parsing "$f.err" | head -n1)"; return 1
    fi
  done
  if ! go tool trace -d=parsed "$f" > /dev/null 2> "$f.err"; then
    echo "  FAIL $(basename "$f"): go1.26 go tool trace: $(head -n1 "$f.err")"; return 1
  fi
  # --no-validate: x/exp/trace's parser only. tracecheck's own semantic checks flag what
  # the v1 converter makes of a cgo callback's goroutine (GoCreate + GoInSyscall, as
  # runtime/proc.go oneNewExtraM writes it: "leaves Undetermined but was Runnable"), in
  # the runtime's own legacy traces too (see bench's use of --no-validate, 25fa776).
  if ! "$tc" --no-validate "$f" > /dev/null 2> "$f.err"; then
    echo "  FAIL $(basename "$f"): tracecheck: $(head -n1 "$f.err")"; return 1
  fi
}
echo "-- legacy writer (go1.19, go1.21): the same scenarios through Go 1.19's / 1.21's parser"
if [[ ! -x $GO119 || ! -x $GO121 ]]; then
  echo "  FAIL: $GO119 or $GO121 missing (scripts/install-deps.sh)"; fail=1
else
  nleg=0
  # Three fixed seeds and the clock's (each file is read by up to four readers).
  read -r -a all_seeds <<<"$seeds"
  leg_seeds="${all_seeds[*]:0:3} ${all_seeds[*]: -1}"
  for seed in $leg_seeds; do
    for v in 19 21; do
      for from in 1 2 3; do
        base=$work/leg-s$seed-v$v-g$from
        if ! "$gen" run --seed "$seed" --version "$v" --from-gen "$from" --out "$base.trace" > "$base.log" 2>&1; then
          echo "  FAIL seed=$seed go1.$v from generation $from: $(tail -n1 "$base.log")"; fail=1; continue
        fi
        legacy_read "$base.trace" "$v" || fail=1
        nleg=$((nleg + 1))
      done
    done
  done
  base=$work/leg-big
  "$gen" run --seed 7 --version 21 --gens 2 --steps 150000 --out "$base.trace" > /dev/null
  legacy_read "$base.trace" 21 || fail=1
  echo "  $((nleg + 1)) legacy files read by every reader"
  # Cut in half and followed by an event type the format does not have (63).
  { head -c $(( $(stat -c %s "$work/leg-s3-v21-g1.trace") / 2 )) "$work/leg-s3-v21-g1.trace"; printf '\077'; } > "$work/leg-cut.trace"
  if "$GO121" tool trace -d "$work/leg-cut.trace" > /dev/null 2>&1; then
    echo "  FAIL: Go 1.21 accepted a legacy trace cut in half"; fail=1
  else
    echo "  cut in half: rejected by Go 1.21"
  fi
fi

if (( fail )); then echo "encoder property suite: FAILED"; exit 1; fi
echo "encoder property suite: ok"
