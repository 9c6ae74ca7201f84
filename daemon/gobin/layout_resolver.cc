#include "daemon/gobin/layout_resolver.h"

#include <fmt/format.h>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/dwarf_layout.h"
#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/layout_cache.h"
#include "daemon/gobin/layout_tables.h"
#include "daemon/gobin/legacy_block_reasons.h"
#include "daemon/gobin/runtime_strings.h"

namespace gotraced::gobin {

namespace {

void Note(std::vector<std::string> *notes, std::string s) {
  if (notes) notes->push_back(std::move(s));
}

// Replaces `dst` with the binary's own copy of the array when .symtab names it.
void StringsFromBinary(const ElfFile &elf, const char *symbol, std::vector<std::string> *dst,
                       std::vector<std::string> *notes) {
  auto got = ReadRuntimeStringTable(elf, symbol);
  if (got) {
    if (!dst->empty() && *dst != *got)
      Note(notes, fmt::format("{}: binary's copy differs from the table; using the binary's", symbol));
    *dst = std::move(*got);
    Note(notes, fmt::format("{}: from the binary ({} entries)", symbol, dst->size()));
  } else if (!dst->empty()) {
    Note(notes, fmt::format("{}: from the table ({} entries)", symbol, dst->size()));
  }
}

}  // namespace

Result<RuntimeLayout> ResolveRuntimeLayout(const ElfFile &elf, const GoVersion &version,
                                           std::vector<std::string> *notes) {
  std::optional<RuntimeLayout> table = LayoutFromTable(version);
  // The DWARF's layout, from the cache when an earlier binary of the same toolchain was
  // read (layout_cache.h: libdw's inflating of .debug_* was most of the analysis).
  const std::string cache_key = DwarfLayoutCacheKey(elf);
  std::optional<RuntimeLayout> cached = LoadCachedDwarfLayout(cache_key);
  Result<RuntimeLayout> dwarf = cached ? Result<RuntimeLayout>(std::move(*cached)) : LayoutFromDwarf(elf);
  if (!cached && dwarf) StoreCachedDwarfLayout(cache_key, *dwarf);
  RuntimeLayout l;
  if (dwarf) {
    l = std::move(*dwarf);
    Note(notes, cached ? "struct offsets: from the binary's toolchain's DWARF layout, cached (layout_cache.h)"
                       : "struct offsets: from the binary's DWARF");
    if (table) {
      auto diff = DiffLayouts(l, *table);
      // String tables are not in DWARF: compare only fields, sizes and constants here.
      std::erase_if(diff, [](const std::string &d) { return d.find("Strings") != std::string::npos; });
      if (diff.empty())
        Note(notes, fmt::format("DWARF agrees with the {} table", table->go_version));
      else
        for (auto &d : diff) Note(notes, fmt::format("DWARF differs from the {} table: {}", table->go_version, d));
      l.wait_reason_strings = table->wait_reason_strings;
      l.trace_block_reason_strings = table->trace_block_reason_strings;
      l.trace_go_stop_reason_strings = table->trace_go_stop_reason_strings;
      l.stw_reason_strings = table->stw_reason_strings;
    }
  } else if (table) {
    Note(notes, fmt::format("struct offsets: from the {} table ({})", table->go_version, dwarf.error()));
    l = std::move(*table);
  } else {
    std::string versions;
    for (auto &v : LayoutTableVersions()) versions += (versions.empty() ? "" : ", ") + v;
    return Error{fmt::format("no runtime layout for go{}.{}: {}, and no table for go{}.{} (tables: {})",
                             version.major, version.minor, dwarf.error(), version.major, version.minor,
                             versions)};
  }
  if (l.go_version.empty()) l.go_version = fmt::format("go{}.{}.{}", version.major, version.minor, version.patch);
  StringsFromBinary(elf, "runtime.waitReasonStrings", &l.wait_reason_strings, notes);
  StringsFromBinary(elf, "runtime.traceBlockReasonStrings", &l.trace_block_reason_strings, notes);
  // Go <= 1.21: gopark's reason is a legacy trace event type (legacy_block_reasons.h).
  if (l.trace_block_reason_strings.empty()) l.trace_block_reason_strings = LegacyBlockReasonStrings(version);
  StringsFromBinary(elf, "runtime.traceGoStopReasonStrings", &l.trace_go_stop_reason_strings, notes);
  StringsFromBinary(elf, "runtime.stwReasonStrings", &l.stw_reason_strings, notes);
  std::string missing;
  if (!l.Complete(&missing)) Note(notes, "MISSING required fields: " + missing);
  return l;
}

}  // namespace gotraced::gobin
