// The debug dumper names events and arguments from the event table.
#include <gtest/gtest.h>

#include "encoder/trace_dump.h"
#include "encoder/trace_writer.h"

namespace gotraced::encoder {
namespace {

TEST(TraceDump, ListsEventsWithArgumentNamesAndStrings) {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint64_t> gens;
  CallbackSink sink([&](std::uint64_t gen, std::span<const std::uint8_t> b) {
    gens.push_back(gen);
    bytes.insert(bytes.end(), b.begin(), b.end());
  });
  WriterOptions o;
  o.tick_divisor = 1;
  TraceWriter w(sink, o);
  Frame f[] = {{0x401000, "main.main", "/src/main.go", 7}};
  StackId s = w.InternStack(f);
  w.ProcStatusEvent(7, 10, 0, ProcStatus::kRunning);
  w.GoCreate(7, 11, 2, s, kNoStack);
  w.GoBlock(7, 12, "select", s);
  w.Close();
  EXPECT_EQ(gens, (std::vector<std::uint64_t>{0, 1}));  // header, then generation 1
  std::string d = DumpTrace(bytes);
  EXPECT_NE(d.find("header: go 1.26 trace"), std::string::npos) << d;
  EXPECT_NE(d.find("t=10 ProcStatus p=0 pstatus=1"), std::string::npos) << d;
  EXPECT_NE(d.find("t=11 GoCreate new_g=2 new_stack=1 stack=0"), std::string::npos) << d;
  EXPECT_NE(d.find("GoBlock reason_string=3(\"select\") stack=1"), std::string::npos) << d;
  EXPECT_NE(d.find("0x401000 main.main /src/main.go:7"), std::string::npos) << d;
  EXPECT_NE(d.find("EndOfGeneration"), std::string::npos) << d;
  EXPECT_EQ(d.find("error:"), std::string::npos) << d;
  // A truncated file is reported, not crashed on.
  bytes.resize(bytes.size() - 5);
  EXPECT_NE(DumpTrace(bytes).find("error:"), std::string::npos);
}

}  // namespace
}  // namespace gotraced::encoder
