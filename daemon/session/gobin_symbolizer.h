// GobinSymbolizer: the model's Symbolizer (and the decoder's function-name lookup) on top
// of daemon/gobin, for one process: runtime PCs -> link-time PCs (minus the load bias)
// -> inline-expanded frames, with the runtime's PC reported back (plus the bias), as the
// in-process tracer writes runtime.Frame.PC of the running process.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "daemon/gobin/go_binary.h"
#include "daemon/model/symbolizer.h"

namespace gotraced::session {

class GobinSymbolizer final : public model::Symbolizer {
 public:
  GobinSymbolizer(const gobin::GoBinary &bin, std::uint64_t load_bias) : bin_(bin), bias_(load_bias) {}

  void Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) override;
  void StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) override;
  // Function names at a return address, innermost inlined frame first (cached).
  void FuncChain(std::uint64_t pc, std::vector<std::string_view> &names);

 private:
  const gobin::GoBinary &bin_;
  std::uint64_t bias_;
  std::unordered_map<std::uint64_t, std::vector<std::string_view>> chains_;
};

}  // namespace gotraced::session
