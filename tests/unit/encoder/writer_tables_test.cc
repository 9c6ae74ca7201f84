// String and stack tables: interning, per-generation reset and re-emission, truncation.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"

namespace gotraced::encoder {
namespace {

TEST(WriterTables, StringsInternPerGeneration) {
  MemorySink sink;
  TraceWriter w(sink);
  StringId a = w.InternString("chan receive");
  StringId b = w.InternString("select");
  EXPECT_EQ(w.InternString("chan receive"), a);
  EXPECT_EQ(a.value, 1u);
  EXPECT_EQ(b.value, 2u);
  EXPECT_EQ(w.InternString(""), kEmptyString);
  w.GoBlock(1, 1000, "select", kNoStack);  // text args intern under the hood
  w.EndGeneration();
  // New generation: ids restart at 1, in first-use order.
  EXPECT_EQ(w.InternString("select").value, 1u);
  EXPECT_EQ(w.InternString("chan receive").value, 2u);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  ASSERT_EQ(t.generations.size(), 2u);
  EXPECT_EQ(t.generations[0].strings.at(1), "chan receive");
  EXPECT_EQ(t.generations[0].strings.at(2), "select");
  EXPECT_EQ(t.generations[1].strings.at(1), "select");
  EXPECT_EQ(t.generations[1].strings.at(2), "chan receive");
  EXPECT_EQ(t.generations[0].strings.size(), 2u);  // "" is never written
}

TEST(WriterTables, LongStringsAreTruncatedLikeTheRuntime) {
  MemorySink sink;
  TraceWriter w(sink);
  std::string head(1000, 'h'), tail(1000, 't');
  std::string long_str = head + tail;  // 2000 bytes
  StringId s = w.InternString(long_str);
  // Same first 1024 bytes -> same (truncated) string.
  EXPECT_EQ(w.InternString(long_str.substr(0, 1024) + "different tail"), s);
  Frame f[] = {{0x1000, long_str, long_str, 7}};
  w.InternStack(f);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  const auto &g = t.generations[0];
  // runtime/tracestring.go writeString: first 1024 bytes.
  EXPECT_EQ(g.strings.at(s.value), long_str.substr(0, 1024));
  // runtime/tracestack.go makeTraceFrame: func/file keep the last 1024 bytes.
  const auto &frame = g.stacks.at(1).at(0);
  EXPECT_EQ(g.strings.at(frame.func), long_str.substr(2000 - 1024));
  EXPECT_EQ(frame.func, frame.file);
  for (const auto &[id, str] : g.strings) EXPECT_LE(str.size(), 1024u);
}

TEST(WriterTables, StacksInternByFramesAndReset) {
  MemorySink sink;
  TraceWriter w(sink);
  Frame a[] = {{0x10, "main.f", "/m.go", 3}, {0x20, "main.main", "/m.go", 9}};
  Frame b[] = {{0x10, "main.f", "/m.go", 4}, {0x20, "main.main", "/m.go", 9}};  // other line
  Frame c[] = {{0x10, "main.g", "/m.go", 3}, {0x20, "main.main", "/m.go", 9}};  // other func
  StackId sa = w.InternStack(a);
  EXPECT_EQ(sa.value, 1u);
  EXPECT_EQ(w.InternStack(a), sa);
  StackId sb = w.InternStack(b), sc = w.InternStack(c);
  EXPECT_NE(sb, sa);
  EXPECT_NE(sc, sa);
  EXPECT_NE(sc, sb);
  EXPECT_EQ(w.InternStack({}), kNoStack);
  w.EndGeneration();
  EXPECT_EQ(w.InternStack(c).value, 1u);  // table restarted
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  const auto &g0 = t.generations[0];
  ASSERT_EQ(g0.stacks.size(), 3u);
  const auto &fa = g0.stacks.at(sa.value);
  ASSERT_EQ(fa.size(), 2u);  // leaf first, as given
  EXPECT_EQ(fa[0].pc, 0x10u);
  EXPECT_EQ(g0.strings.at(fa[0].func), "main.f");
  EXPECT_EQ(g0.strings.at(fa[0].file), "/m.go");
  EXPECT_EQ(fa[0].line, 3u);
  EXPECT_EQ(fa[1].pc, 0x20u);
  // Generation 2 re-emits what it uses, with its own ids.
  const auto &g1 = t.generations[1];
  ASSERT_EQ(g1.stacks.size(), 1u);
  EXPECT_EQ(g1.strings.at(g1.stacks.at(1)[0].func), "main.g");
}

TEST(WriterTables, StacksKeepAtMost128Frames) {
  MemorySink sink;
  TraceWriter w(sink);
  std::vector<Frame> frames;
  for (int i = 0; i < 300; ++i) frames.push_back({std::uint64_t(0x1000 + i), "f", "x.go", std::uint64_t(i)});
  StackId s = w.InternStack(frames);
  // The same first 128 frames are the same stack.
  EXPECT_EQ(w.InternStack(std::span<const Frame>(frames).first(128)), s);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  const auto &st = t.generations[0].stacks.at(s.value);
  ASSERT_EQ(st.size(), 128u);
  EXPECT_EQ(st[0].pc, 0x1000u);  // leaf-most frames are the ones kept
  EXPECT_EQ(st[127].line, 127u);
}

TEST(WriterTables, PcStacksResolveOncePerGeneration) {
  MemorySink sink;
  TraceWriter w(sink);
  int calls = 0;
  std::vector<std::string> names;  // owns the resolved names
  auto resolve = [&](std::span<const std::uint64_t> pcs, std::vector<Frame> &out) {
    ++calls;
    for (std::uint64_t pc : pcs) {
      // Pretend pc 0x30 holds an inlined call: two logical frames.
      if (pc == 0x30) out.push_back({0x31, "main.inlined", "/m.go", 1});
      out.push_back({pc, "main.fn", "/m.go", pc});
    }
  };
  std::uint64_t p1[] = {0x30, 0x40}, p2[] = {0x40};
  StackId a = w.InternStackPcs(p1, resolve);
  EXPECT_EQ(w.InternStackPcs(p1, resolve), a);
  StackId b = w.InternStackPcs(p2, resolve);
  EXPECT_NE(a, b);
  EXPECT_EQ(calls, 2);
  w.EndGeneration();
  EXPECT_EQ(w.InternStackPcs(p1, resolve).value, 1u);
  EXPECT_EQ(calls, 3);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.generations[0].stacks.at(a.value).size(), 3u);
}

TEST(WriterTables, ManyDistinctEntriesSplitIntoBatches) {
  MemorySink sink;
  TraceWriter w(sink);
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("pkg.function_with_a_long_name_" + std::to_string(i));
  for (int i = 0; i < 5000; ++i) {
    Frame f[] = {{std::uint64_t(0x1000 + i), names[i], "/src/file.go", std::uint64_t(i)},
                 {0x10, "main.main", "/src/main.go", 1}};
    EXPECT_EQ(w.InternStack(f).value, std::uint64_t(i + 1));
  }
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  const auto &g = t.generations[0];
  EXPECT_EQ(g.stacks.size(), 5000u);
  EXPECT_EQ(g.strings.size(), 5003u);
  int string_batches = 0, stack_batches = 0;
  for (const auto &b : g.batches) {
    string_batches += b.kind == BatchKind::kStrings;
    stack_batches += b.kind == BatchKind::kStacks;
    EXPECT_LE(b.data_len, 64u << 10);
  }
  EXPECT_GT(string_batches, 1);
  EXPECT_GT(stack_batches, 1);
}

}  // namespace
}  // namespace gotraced::encoder
