#!/usr/bin/env bash
# Runtime layout drift: rebuilds tests/gobin-layouts/prog with every Go toolchain on the
# machine (cached under $GOTRACED_BUILD/gobin-targets), extracts each one's runtime
# layout, constants and string tables from its DWARF and data with gobin's own code
# (gotraced-layoutgen), and fails when they differ from the checked-in
# daemon/gobin/layout_tables.inc. Fix: bash tests/gobin-layouts/gen_layouts.sh BUILD,
# review the diff, commit. Also checks every gopark call site's (waitReason,
# traceBlockReason) pair against daemon/gobin/wait_reasons.cc.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
gen="$GOTRACED_BUILD/tests/gobin-layouts/gotraced-layoutgen"
if [[ ! -x $gen ]]; then echo "31-gobin-layouts: $gen not built" >&2; exit 1; fi
targets="$GOTRACED_BUILD/gobin-targets"
bash "$GOTRACED_ROOT/tests/gobin-layouts/build_targets.sh" "$targets"
args=()
for v in go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27; do
  if [[ -x $targets/$v/plain ]]; then args+=("$targets/$v/plain=$(cat "$targets/$v/.goroot")")
  else echo "skip $v: no target binary (toolchain missing, see above)"; fi
done
((${#args[@]})) || { echo "31-gobin-layouts: no Go toolchain found" >&2; exit 1; }
rc=0
"$gen" check "${args[@]}" || rc=1
# Block reasons: every gopark call site of every toolchain agrees with wait_reasons.cc.
for v in go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27; do
  [[ -f $targets/$v/.goroot ]] || continue
  echo "gopark call sites of $v:"
  bash "$GOTRACED_ROOT/tests/gobin-layouts/gopark_sites.sh" "$(cat "$targets/$v/.goroot")" | "$gen" parkcheck | grep -v '^variable' || rc=1
done
exit $rc
