#!/usr/bin/env bash
# Bounded libFuzzer runs: 60 s over gobin's parsers of untrusted binaries: ELF,
# buildinfo, pclntab, frames, DWARF layouts, globals, probe sites; 30 s over `gotraced
# report` on trace bytes; 20 s over the pprof label-set reader on target memory images
# (scripts/fuzz.sh).
# Longer runs: make fuzz.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
FUZZ_BUILD="$GOTRACED_BUILD/../$(basename "$GOTRACED_BUILD")-fuzz" bash "$GOTRACED_ROOT/scripts/fuzz.sh" smoke "${GOTRACED_FUZZ_SECONDS:-60}"
# `gotraced report` on trace bytes of both formats (report/trace_reader.h), 30 s.
FUZZ_BUILD="$GOTRACED_BUILD/../$(basename "$GOTRACED_BUILD")-fuzz" bash "$GOTRACED_ROOT/scripts/fuzz.sh" smoke "${GOTRACED_REPORT_FUZZ_SECONDS:-30}" report
# The pprof label-set reader (daemon/procmem/label_set.h) and its text, both Go layouts, 20 s.
FUZZ_BUILD="$GOTRACED_BUILD/../$(basename "$GOTRACED_BUILD")-fuzz" bash "$GOTRACED_ROOT/scripts/fuzz.sh" smoke "${GOTRACED_LABELS_FUZZ_SECONDS:-20}" labels
