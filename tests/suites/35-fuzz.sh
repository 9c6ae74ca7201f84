#!/usr/bin/env bash
# Bounded libFuzzer run (60 s) over gobin's parsers of untrusted binaries: ELF,
# buildinfo, pclntab, frames, DWARF layouts, globals, probe sites (scripts/fuzz.sh).
# Longer runs: make fuzz.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
FUZZ_BUILD="$GOTRACED_BUILD/../$(basename "$GOTRACED_BUILD")-fuzz" bash "$GOTRACED_ROOT/scripts/fuzz.sh" smoke "${GOTRACED_FUZZ_SECONDS:-60}"
