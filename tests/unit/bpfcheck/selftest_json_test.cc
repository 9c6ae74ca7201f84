// `gotraced selftest --json` (bpf_selftest.cc FormatSelftestJson): the keys that
// tests/kernels/judge_guest.py and table.py read, null for a verifier figure the kernel
// did not print, and text that is not UTF-8 (a verifier log line, a kernel's uname).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon/bpfcheck/bpf_selftest.h"

namespace gotraced {
namespace {

SelftestReport Sample() {
  SelftestReport r{.kernel = "6.18.0-\xff", .versions = "libbpf 1.1", .target = "go1.26", .privileged = true};
  r.features.push_back({.id = "ringbuf", .name = "BPF ring buffer", .since = "5.8",
                        .state = capture::KernelFeature::State::kPresent, .detail = "probed"});
  r.features.push_back({.id = "perf_cpu", .name = "CPU clock", .since = "4.9", .cpu_hz_only = true,
                        .state = capture::KernelFeature::State::kUnknown});
  bpfcheck::ProgramCheck ok{.object = "gotrace", .name = "gt_switch", .section = "uprobe", .loaded = true};
  ok.stats.processed_insns = 4321;
  ok.stats.verification_usec = 250;
  ok.stats.subprog_depths = {64, 32};
  ok.subprog_names = {"gt_switch", "gt_emit"};
  ok.combined_stack = 96;
  ok.combined_from_call_graph = true;
  ok.deepest_chain = {0, 1};
  bpfcheck::ProgramCheck refused{.object = "exec_watch", .name = "on_exec", .section = "tp_btf/sched_process_exec",
                                 .err = 13, .error = "permission denied"};
  refused.log_tail = {"R1 invalid mem access 'scalar'", "bad byte \xc3("};
  r.programs = {ok, refused};
  r.attach_ran = true;
  return r;
}

TEST(SelftestJson, KeysAndValues) {
  const std::string text = FormatSelftestJson(Sample());
  ASSERT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);  // strict: throws on invalid UTF-8
  EXPECT_EQ(j["versions"], "libbpf 1.1");
  EXPECT_EQ(j["privileged"], true);
  ASSERT_EQ(j["features"].size(), 2u);
  EXPECT_EQ(j["features"][0]["state"], "present");
  EXPECT_EQ(j["features"][0]["needed_for"], "recording");
  EXPECT_EQ(j["features"][1]["needed_for"], "--cpu-hz");
  EXPECT_EQ(j["features"][1]["state"], "unknown");
  const auto &p = j["programs"][0];
  EXPECT_EQ(p["uprobe"], true);
  EXPECT_EQ(p["processed_insns"], 4321);
  EXPECT_EQ(p["insn_limit"], 1000000);  // not printed: the kernel's limit
  EXPECT_DOUBLE_EQ(p["percent_of_limit"].get<double>(), 0.43);  // two decimals, as before
  EXPECT_EQ(p["verification_usec"], 250);
  EXPECT_EQ(p["stack_depths"], nlohmann::json::parse("[64,32]"));
  EXPECT_EQ(p["max_subprog_stack"], 64);
  EXPECT_EQ(p["subprogs"], nlohmann::json::parse(R"(["gt_switch","gt_emit"])"));
  EXPECT_EQ(p["combined_stack"], 96);
  EXPECT_EQ(p["deepest_chain"], nlohmann::json::parse("[0,1]"));
  const auto &q = j["programs"][1];
  EXPECT_EQ(q["loaded"], false);
  EXPECT_EQ(q["errno"], 13);
  EXPECT_TRUE(q["processed_insns"].is_null());  // the kernel printed no stats line
  EXPECT_TRUE(q["verification_usec"].is_null());
  EXPECT_EQ(j["attach"], nlohmann::json::parse(R"({"ran":true,"error":""})"));
  EXPECT_EQ(j["exit"], 2);  // a program was refused on a kernel with every feature (ExitCode)
  EXPECT_NE(j["problem"].get<std::string>().find("on_exec"), std::string::npos);
}

TEST(SelftestJson, BytesThatAreNotUtf8AreReplaced) {
  const auto j = nlohmann::json::parse(FormatSelftestJson(Sample()));
  EXPECT_EQ(j["kernel"], "6.18.0-\xEF\xBF\xBD");
  EXPECT_EQ(j["programs"][1]["log_tail"][1], "bad byte \xEF\xBF\xBD(");
}

}  // namespace
}  // namespace gotraced
