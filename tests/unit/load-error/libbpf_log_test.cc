#include "daemon/capture/libbpf_log.h"

#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "daemon/capture/load_error.h"
#include "daemon/probes/privileges.h"
#include "hello.skel.h"

namespace gotraced::capture {
namespace {

// Installed before any capture exists (static initialisation), like libbpf's default
// printer: what a capture must keep handing messages to.
std::string g_printed;
libbpf_print_fn_t g_default = nullptr;
int Recorder(enum libbpf_print_level level, const char *format, va_list args) {
  char buf[1 << 16];
  va_list copy;
  va_copy(copy, args);
  std::vsnprintf(buf, sizeof buf, format, copy);
  va_end(copy);
  g_printed += buf;
  return g_default ? g_default(level, format, args) : 0;
}
const bool g_installed = [] {
  g_default = libbpf_set_print(Recorder);
  return true;
}();

TEST(LibbpfLog, ParsesProgramAndKeepsTheLastLines) {
  LibbpfLogCapture cap(3);
  cap.Feed("libbpf: map 'events': created successfully, fd=4\n");
  cap.Feed("libbpf: prog 'gt_casgstatus': BPF program load failed: Permission denied\n");
  cap.Feed("libbpf: prog 'gt_casgstatus': -- BEGIN PROG LOAD LOG --\n"
           "0: (bf) r6 = r1\n"
           "1: (85) call bpf_get_current_pid_tgid#14\n"
           "\n"
           "2: (79) r2 = *(u64 *)(r10 -8)\n"
           "R2 min value is negative, either use unsigned or 'var &= const'\n"
           "processed 4521 insns (limit 1000000) max_states_per_insn 4\n"
           "-- END PROG LOAD LOG --\n");
  cap.Feed("libbpf: prog 'gt_casgstatus': failed to load: -13\n");
  cap.Feed("libbpf: failed to load object 'gotrace_bpf'\n");
  EXPECT_EQ(cap.failed_program(), "gt_casgstatus");
  EXPECT_EQ(cap.log_tail(), (std::vector<std::string>{"2: (79) r2 = *(u64 *)(r10 -8)",
                                                      "R2 min value is negative, either use unsigned or 'var &= const'",
                                                      "processed 4521 insns (limit 1000000) max_states_per_insn 4"}));
}

TEST(LibbpfLog, NothingToSayWhenNoProgramFailed) {
  LibbpfLogCapture cap;
  cap.Feed("libbpf: Error in bpf_create_map_xattr(events):Operation not permitted(-1). Retrying without BTF.\n");
  cap.Feed("libbpf: prog 'gt_call': failed to attach to uprobe: Invalid argument\n");
  EXPECT_EQ(cap.failed_program(), "");
  EXPECT_TRUE(cap.log_tail().empty());
}

TEST(LibbpfLog, TheFirstRefusedProgramWins) {
  LibbpfLogCapture cap;
  cap.Feed("libbpf: prog 'gt_a': BPF program load failed: Invalid argument\n");
  cap.Feed("libbpf: prog 'gt_a': -- BEGIN PROG LOAD LOG --\nreason a\n-- END PROG LOAD LOG --\n");
  cap.Feed("libbpf: prog 'gt_b': BPF program load failed: Invalid argument\n");
  cap.Feed("libbpf: prog 'gt_b': -- BEGIN PROG LOAD LOG --\nreason b\n-- END PROG LOAD LOG --\n");
  EXPECT_EQ(cap.failed_program(), "gt_a");
  EXPECT_EQ(cap.log_tail(), std::vector<std::string>{"reason a"});
}

// A real refusal through libbpf and the kernel, with no BPF source changed: the self-test
// program's ring buffer turned into an array map, which the verifier will not pass to
// bpf_ringbuf_reserve (verifier.c check_map_func_compatibility: "cannot pass map_type 2
// into func bpf_ringbuf_reserve"). Proves libbpf's message format is the one parsed and
// that libbpf's messages still reach the print function that was there before.
TEST(LibbpfLog, RealVerifierRefusal) {
  ASSERT_TRUE(g_installed);
  if (!probes::CurrentPrivileges().can_load())
    GTEST_SKIP() << "needs CAP_SYS_ADMIN or CAP_BPF + CAP_PERFMON (root) to load a BPF program";
  hello *skel = hello__open();
  ASSERT_NE(skel, nullptr);
  ASSERT_EQ(bpf_map__set_type(skel->maps.events, BPF_MAP_TYPE_ARRAY), 0);
  ASSERT_EQ(bpf_map__set_key_size(skel->maps.events, 4), 0);
  ASSERT_EQ(bpf_map__set_value_size(skel->maps.events, 8), 0);
  ASSERT_EQ(bpf_map__set_max_entries(skel->maps.events, 1), 0);
  int err = 0;
  std::string program;
  std::vector<std::string> tail;
  {
    LibbpfLogCapture cap;
    err = hello__load(skel);
    program = cap.failed_program();
    tail = cap.log_tail();
  }
  hello__destroy(skel);
  ASSERT_NE(err, 0);
  EXPECT_EQ(program, "hello_exec");
  ASSERT_FALSE(tail.empty());
  std::string all;
  for (const auto &l : tail) all += l + "\n";
  EXPECT_NE(all.find("into func bpf_ringbuf_reserve"), std::string::npos) << all;
  EXPECT_LE(tail.size(), 15u);
  EXPECT_NE(g_printed.find("-- BEGIN PROG LOAD LOG --"), std::string::npos) << g_printed;

  LoadFailure f;
  f.err = -err;
  f.privileged = true;
  f.program = program;
  f.log_tail = tail;
  std::string m = ExplainLoadFailure(f, {"loading the BPF self-test", ReportVersions(""), ""});
  EXPECT_NE(m.find("verifier refused program hello_exec"), std::string::npos) << m;
}

}  // namespace
}  // namespace gotraced::capture
