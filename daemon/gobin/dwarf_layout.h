// LayoutFromDwarf: RuntimeLayout from the binary's own DWARF, with libdw (DWARF 4 as Go
// <= 1.24 writes it, DWARF 5 from Go 1.25 on; SHF_COMPRESSED and .zdebug_* sections are
// decompressed by libelf).
//
// What Go's linker emits (cmd/link/internal/ld/dwarf.go): one DW_TAG_structure_type per
// runtime type, named with its package path ("runtime.g"), members with a constant
// DW_AT_data_member_location; package-level constants as DW_TAG_constant
// ("runtime._Grunning", "runtime.waitReasonChanReceive") with DW_AT_const_value.
// Only top-level DIEs of each unit are visited, and only runtime.* names are kept, so
// a large binary costs one pass over .debug_info and little memory.
//
// The string tables (waitReasonStrings ...) are data, not DWARF: runtime_strings.h.
#pragma once

#include <span>

#include "daemon/gobin/result.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

class ElfFile;

// Errors: "no DWARF (.debug_info absent: built with -ldflags=-w?)",
// "DWARF: <libdw message>", "DWARF has no runtime.g type".
// The result has source = kDwarf; missing optional fields stay absent.
Result<RuntimeLayout> LayoutFromDwarf(const ElfFile &elf);

}  // namespace gotraced::gobin
