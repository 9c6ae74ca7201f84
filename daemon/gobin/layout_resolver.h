// ResolveRuntimeLayout: the one call the rest of the daemon makes to learn struct
// offsets for a binary. Order: the binary's DWARF; else the generated table of its Go
// major version. String tables (waitReasonStrings ...) come from the binary's data when
// .symtab names them, else from the table. When both DWARF and a table row exist they
// are compared and any difference is reported in `notes` (a plausibility check; DWARF
// wins).
#pragma once

#include <string>
#include <vector>

#include "daemon/gobin/result.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

class ElfFile;
struct GoVersion;

// Errors: "no runtime layout for go1.20.3: no DWARF in the binary (built with -w?) and
// no table for go1.20 (tables: go1.19.8, go1.21.13, ...)". `notes` gets one line per
// fact worth showing in `inspect` ("waitReasonStrings: from binary (47)" ...).
Result<RuntimeLayout> ResolveRuntimeLayout(const ElfFile &elf, const GoVersion &version,
                                           std::vector<std::string> *notes = nullptr);

}  // namespace gotraced::gobin
