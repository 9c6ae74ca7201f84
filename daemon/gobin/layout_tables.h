// The fallback RuntimeLayout for binaries without DWARF (-ldflags=-w, -s): one row per
// Go major version (1.19, 1.21, 1.22, 1.23, 1.26, 1.27 on amd64), generated from the
// DWARF and data of a program built with each toolchain by
// tests/gobin-layouts/gen_layouts.sh (tool: gotraced-layoutgen, which uses
// LayoutFromDwarf and ReadRuntimeStringTable, i.e. the same code as the live path).
// The rows live in layout_tables.inc; tests/suites/31-gobin-layouts.sh regenerates them
// from every toolchain on the machine and fails on any drift.
//
// Version semantics: Go changes runtime struct layouts only in major releases, so a
// go1.22.N binary uses the go1.22 row whatever N was used to generate it. A version with
// no row (1.20, 1.24, 1.25, 1.28 ...) gets no table: we fail closed rather than guess
// (pitfall 7); DWARF is then required.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

// The row for v's major version (source = kTable, go_version = the generating
// toolchain), or nullopt.
std::optional<RuntimeLayout> LayoutFromTable(const GoVersion &v);

// "go1.19.8", "go1.21.13", ... : the toolchains the rows were generated from.
std::vector<std::string> LayoutTableVersions();

// One row as C++ source for layout_tables.inc (the generator's output format).
std::string FormatLayoutTableRow(const RuntimeLayout &l);

}  // namespace gotraced::gobin
