#!/usr/bin/env bash
# Regenerates daemon/gobin/layout_tables.inc from the DWARF and data of
# tests/gobin-layouts/prog built with every Go toolchain on the machine.
#   bash tests/gobin-layouts/gen_layouts.sh [BUILD_DIR]      (default: build)
# The build dir must have gotraced-layoutgen built. Review the diff before committing:
# a change means the runtime layout of that Go version differs from what we ship.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
gen="$build/tests/gobin-layouts/gotraced-layoutgen"
[[ -x $gen ]] || { echo "gen_layouts: $gen not built (cmake --build $build --target gotraced-layoutgen)" >&2; exit 1; }
targets="$build/gobin-targets"
bash "$root/tests/gobin-layouts/build_targets.sh" "$targets"
bins=()
for v in go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27; do
  if [[ -x $targets/$v/plain ]]; then bins+=("$targets/$v/plain=$(cat "$targets/$v/.goroot")")
  else echo "gen_layouts: no $v binary: its row is dropped" >&2; fi
done
"$gen" emit "${bins[@]}" > "$root/daemon/gobin/layout_tables.inc.new"
mv "$root/daemon/gobin/layout_tables.inc.new" "$root/daemon/gobin/layout_tables.inc"
echo "wrote daemon/gobin/layout_tables.inc (${#bins[@]} versions)"
