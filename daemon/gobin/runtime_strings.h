// The runtime's string tables as the binary holds them: runtime.waitReasonStrings
// (runtime2.go), runtime.traceBlockReasonStrings and runtime.traceGoStopReasonStrings
// (trace2runtime.go in 1.22, traceruntime.go 1.23+). Each is a `[...]string` array in
// .data: N string headers {ptr, len} pointing into .rodata. In a PIE the ptr words are 0
// on disk and come from R_X86_64_RELATIVE / RELR relocations (ElfFile::ReadPointer).
//
// Found through .symtab (the symbol's size gives N). A stripped binary has no symbol:
// callers fall back to the per-version table (layout_tables.h), which was generated from
// these same arrays of each toolchain.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::gobin {

class ElfFile;

// Reads `count` Go string headers at `vaddr`. nullopt when any header or string is not
// file-backed, or a length is implausible (> 4096): a corrupt or non-string array.
std::optional<std::vector<std::string>> ReadGoStringArray(const ElfFile &elf, uint64_t vaddr, uint64_t count);

// The array named `symbol` ("runtime.waitReasonStrings") via .symtab; nullopt when the
// symbol is absent or unreadable.
std::optional<std::vector<std::string>> ReadRuntimeStringTable(const ElfFile &elf, std::string_view symbol);

}  // namespace gotraced::gobin
