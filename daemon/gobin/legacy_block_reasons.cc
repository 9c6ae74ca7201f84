#include "daemon/gobin/legacy_block_reasons.h"

#include "daemon/gobin/buildinfo.h"

namespace gotraced::gobin {

std::vector<std::string> LegacyBlockReasonStrings(const GoVersion &version) {
  if (version.major != 1 || version.minor > 21) return {};
  // Legacy event types (runtime/trace.go of go1.19 and go1.21, identical numbering)
  // and the strings internal/trace/tracev1.go (go1.26) converts them to.
  constexpr int kEvGoStop = 16, kEvGoSleep = 19, kEvGoBlock = 20, kEvGoBlockSend = 22, kEvGoBlockRecv = 23,
                kEvGoBlockSelect = 24, kEvGoBlockSync = 25, kEvGoBlockCond = 26, kEvGoBlockNet = 27,
                kEvGoBlockGC = 42, kEvCount = 50;
  // Types that are not block events never reach gopark; they read "unspecified", as an
  // out-of-range reason does in the decoder.
  std::vector<std::string> s(kEvCount, "unspecified");
  s[kEvGoStop] = "forever";  // traceBlockForever (select{}, a nil channel)
  s[kEvGoSleep] = "sleep";
  s[kEvGoBlock] = "";  // traceBlockGeneric, GCSweep, SystemGoroutine, Preempted, UntilGCEnds ...
  s[kEvGoBlockSend] = "chan send";
  s[kEvGoBlockRecv] = "chan receive";
  s[kEvGoBlockSelect] = "select";
  s[kEvGoBlockSync] = "sync";
  s[kEvGoBlockCond] = "sync.(*Cond).Wait";
  s[kEvGoBlockNet] = "network";
  s[kEvGoBlockGC] = "GC mark assist wait for work";
  return s;
}

}  // namespace gotraced::gobin
