#include "bench/encoder/replay.h"

#include <algorithm>

namespace gotraced::bench {
using namespace encoder;

Replay MakeReplay(const DecodedTrace &trace, std::uint64_t tick_ns) {
  Replay r;
  r.version = trace.version;
  for (const auto &g : trace.generations) {
    ReplayGeneration &out = r.generations.emplace_back();
    out.strings.resize(g.strings.empty() ? 1 : g.strings.rbegin()->first + 1);
    for (const auto &[id, str] : g.strings) out.strings[id] = str;
    out.stacks.resize(g.stacks.empty() ? 1 : g.stacks.rbegin()->first + 1);
    for (const auto &[id, frames] : g.stacks) {
      ReplayStack &s = out.stacks[id];
      for (const auto &f : frames) {
        s.pcs.push_back(f.pc);
        auto text = [&](std::uint64_t sid) -> std::string_view {
          return sid < out.strings.size() ? std::string_view(out.strings[sid]) : std::string_view();
        };
        s.frames.push_back(Frame{f.pc, text(f.func), text(f.file), f.line});
      }
    }
    for (const auto &b : g.batches)
      for (const auto &e : b.events) {
        ReplayEvent re{e.type, e.nargs, b.m, e.time * tick_ns, {}};
        for (int i = 0; i < e.nargs; ++i) re.args[i] = e.args[i];
        out.events.push_back(re);
      }
    for (const auto &e : g.cpu_samples) {
      ReplayEvent re{EventType::kCPUSample, 4, 0, e.time * tick_ns, {e.args[0], e.args[1], e.args[2], e.args[3]}};
      out.cpu_samples.push_back(re);
    }
    r.events += out.events.size() + out.cpu_samples.size();
  }
  return r;
}

std::uint64_t RunReplay(const Replay &r, TraceWriter &w, bool intern_per_event) {
  std::uint64_t failed = 0;
  // Table ids are dense (1..n), so the remap is a vector.
  std::vector<std::uint64_t> str_ids, stack_ids;
  for (std::size_t gi = 0; gi < r.generations.size(); ++gi) {
    const ReplayGeneration &g = r.generations[gi];
    auto resolve = [&](std::span<const std::uint64_t> pcs, std::vector<Frame> &out) {
      // The replay knows each pc list's frames; a recorder would symbolize here.
      for (const auto &s : g.stacks)
        if (std::equal(s.pcs.begin(), s.pcs.end(), pcs.begin(), pcs.end())) {
          out.insert(out.end(), s.frames.begin(), s.frames.end());
          return;
        }
    };
    if (!intern_per_event) {
      str_ids.assign(g.strings.size(), 0);
      stack_ids.assign(g.stacks.size(), 0);
      for (std::size_t id = 1; id < g.strings.size(); ++id) str_ids[id] = w.InternString(g.strings[id]).value;
      for (std::size_t id = 1; id < g.stacks.size(); ++id) stack_ids[id] = w.InternStack(g.stacks[id].frames).value;
    }
    std::uint64_t args[kMaxTimedEventArgs - 1];
    for (const ReplayEvent &e : g.events) {
      const EventSpec &spec = SpecOf(e.type);
      for (int i = 0; i < e.nargs; ++i) {
        std::uint64_t v = e.args[i];
        if (v != 0 && spec.IsStringArg(i + 1)) {
          v = intern_per_event ? w.InternString(g.strings[v]).value : str_ids[v];
        } else if (v != 0 && spec.IsStackArg(i + 1)) {
          v = intern_per_event ? w.InternStackPcs(g.stacks[v].pcs, resolve).value : stack_ids[v];
        }
        args[i] = v;
      }
      failed += w.Emit(e.type, e.m, e.ts_ns, std::span<const std::uint64_t>(args, e.nargs)) != EmitStatus::kOk;
    }
    for (const ReplayEvent &e : g.cpu_samples) {
      std::uint64_t st = e.args[3];
      if (st) st = intern_per_event ? w.InternStackPcs(g.stacks[st].pcs, resolve).value : stack_ids[st];
      failed += w.CPUSample(e.ts_ns, e.args[0], e.args[1], e.args[2], StackId{st}) != EmitStatus::kOk;
    }
    w.EndGeneration();
  }
  return failed;
}

Replay SyntheticReplay(std::uint64_t events) {
  Replay r;
  ReplayGeneration &g = r.generations.emplace_back();
  g.strings = {"", "chan receive", "runtime.Gosched", "main.worker", "/src/main.go", "runtime.chanrecv1",
               "/go/src/runtime/chan.go"};
  g.stacks.resize(9);
  for (std::uint64_t s = 1; s <= 8; ++s) {
    ReplayStack &st = g.stacks[s];
    st.pcs = {0x400000 + s * 0x100, 0x401000, 0x402000};
    st.frames = {{st.pcs[0], g.strings[5], g.strings[6], 100 + s},
                 {st.pcs[1], g.strings[3], g.strings[4], 20},
                 {st.pcs[2], g.strings[3], g.strings[4], 30}};
  }
  using E = EventType;
  std::uint64_t t = 1'000'000'000;
  for (std::uint64_t i = 0; g.events.size() < events; ++i) {
    MId m = 100 + i % 4;
    GId gid = 10 + i % 32;
    t += 200 + (i * 7919) % 1500;
    auto add = [&](E type, std::initializer_list<std::uint64_t> a) {
      ReplayEvent e{type, static_cast<std::uint8_t>(a.size()), m, t, {}};
      int k = 0;
      for (auto v : a) e.args[k++] = v;
      g.events.push_back(e);
      t += 64;
    };
    add(E::kGoStart, {gid, i + 1});
    add(E::kGoUnblock, {gid + 1, i + 1, 1 + i % 8});
    if (i % 3 == 0) {
      add(E::kGoSyscallBegin, {i + 1, 1 + (i + 3) % 8});
      add(E::kGoSyscallEnd, {});
    }
    if (i % 5 == 0) add(E::kHeapAlloc, {4'000'000 + i * 64});
    add(E::kGoBlock, {1, 1 + i % 8});
  }
  r.events = g.events.size();
  return r;
}

}  // namespace gotraced::bench
