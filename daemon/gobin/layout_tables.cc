#include "daemon/gobin/layout_tables.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace gotraced::gobin {
namespace {

// One generated row. Fields are keyed by FieldSpec::name so that adding a field to the
// spec table makes it "absent" in old rows (and the drift test asks for regeneration)
// instead of silently shifting columns.
struct TableRow {
  const char *go_version;
  int major, minor;
  std::vector<std::pair<const char *, int32_t>> sizes;           // DWARF struct name -> size
  std::vector<std::tuple<const char *, int32_t, int32_t>> fields;  // spec name, offset, size
  std::vector<std::pair<const char *, int64_t>> constants;
  std::vector<const char *> wait_reasons, block_reasons, stop_reasons, stw_reasons;
};

const std::vector<TableRow> &Rows() {
  static const std::vector<TableRow> rows = {
#include "daemon/gobin/layout_tables.inc"
  };
  return rows;
}

RuntimeLayout FromRow(const TableRow &r) {
  RuntimeLayout l;
  l.source = LayoutSource::kTable;
  l.go_version = r.go_version;
  for (auto s : kRuntimeStructs)
    for (const auto &[name, size] : r.sizes)
      if (std::string_view(name) == RuntimeStructDwarfName(s)) RuntimeStructSize(l, s) = size;
  for (const auto &spec : RuntimeFieldSpecs())
    for (const auto &[name, off, size] : r.fields)
      if (std::string_view(name) == spec.name) spec.get(l) = FieldLoc{off, size};
  for (const auto &[k, v] : r.constants) l.constants.emplace_back(k, v);
  std::sort(l.constants.begin(), l.constants.end());
  for (auto s : r.wait_reasons) l.wait_reason_strings.emplace_back(s);
  for (auto s : r.block_reasons) l.trace_block_reason_strings.emplace_back(s);
  for (auto s : r.stop_reasons) l.trace_go_stop_reason_strings.emplace_back(s);
  for (auto s : r.stw_reasons) l.stw_reason_strings.emplace_back(s);
  return l;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string StringList(const std::vector<std::string> &v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Quote(v[i]);
  return out + "}";
}

}  // namespace

std::optional<RuntimeLayout> LayoutFromTable(const GoVersion &v) {
  if (!v.known()) return std::nullopt;
  for (const auto &r : Rows())
    if (r.major == v.major && r.minor == v.minor) return FromRow(r);
  return std::nullopt;
}

std::vector<std::string> LayoutTableVersions() {
  std::vector<std::string> out;
  for (const auto &r : Rows()) out.emplace_back(r.go_version);
  return out;
}

std::string FormatLayoutTableRow(const RuntimeLayout &l) {
  GoVersion v = GoVersion::Parse(l.go_version);
  std::string out = fmt::format("{{\n  {}, {}, {},\n  {{", Quote(l.go_version), v.major, v.minor);
  bool first = true;
  for (auto s : kRuntimeStructs) {
    out += fmt::format("{}{{\"{}\", {}}}", first ? "" : ", ", RuntimeStructDwarfName(s), RuntimeStructSize(l, s));
    first = false;
  }
  out += "},\n  {\n";
  for (const auto &spec : RuntimeFieldSpecs()) {
    const FieldLoc &f = FieldOf(l, spec);
    if (f.present()) out += fmt::format("    {{\"{}\", {}, {}}},\n", spec.name, f.offset, f.size);
  }
  out += "  },\n  {\n";
  for (const auto &[k, val] : l.constants) out += fmt::format("    {{\"{}\", {}}},\n", k, val);
  out += "  },\n";
  out += "  " + StringList(l.wait_reason_strings) + ",\n";
  out += "  " + StringList(l.trace_block_reason_strings) + ",\n";
  out += "  " + StringList(l.trace_go_stop_reason_strings) + ",\n";
  out += "  " + StringList(l.stw_reason_strings) + ",\n";
  out += "},\n";
  return out;
}

}  // namespace gotraced::gobin
