// Decoding of ring-buffer samples (daemon/capture/record_view.h): size checks, kinds,
// stack tails, descriptions.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "daemon/capture/record_view.h"

namespace gotraced::capture {
namespace {

std::vector<uint8_t> GStatus(uint16_t nframes, size_t reserve_frames, bool has_stack = true) {
  std::vector<uint8_t> b(sizeof(gt_gstatus_record) + (has_stack ? sizeof(gt_stack_tail) + reserve_frames * 8 : 0));
  auto *r = reinterpret_cast<gt_gstatus_record *>(b.data());
  r->h.ts_ns = 1234567890123;
  r->h.tgid = 42;
  r->h.tid = 43;
  r->h.kind = GT_REC_GSTATUS;
  r->h.seq = 9;
  r->gp = 0xc000001000;
  r->goid = 18;
  r->oldval = 2;
  r->newval = 4;
  r->ctx.m_id = 3;
  r->ctx.p_id = 1;
  r->has_stack = has_stack;
  if (has_stack) {
    auto *t = reinterpret_cast<gt_stack_tail *>(b.data() + sizeof(gt_gstatus_record));
    t->nframes = nframes;
    t->source = GT_STACK_SCHED;
    auto *pcs = reinterpret_cast<uint64_t *>(t + 1);
    for (uint16_t i = 0; i < nframes && i < reserve_frames; i++) pcs[i] = 0x401000 + i;
  }
  return b;
}

TEST(RecordView, GStatusWithStack) {
  auto b = GStatus(3, 16);
  RecordView v(b.data(), b.size());
  ASSERT_TRUE(v.valid());
  EXPECT_EQ(v.kind(), GT_REC_GSTATUS);
  ASSERT_NE(v.gstatus(), nullptr);
  EXPECT_EQ(v.call(), nullptr);
  EXPECT_EQ(v.gstatus()->goid, 18u);
  EXPECT_EQ(v.go_ctx(), &v.gstatus()->ctx);
  ASSERT_NE(v.stack_tail(), nullptr);
  auto st = v.stack();
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0], 0x401000u);
  EXPECT_EQ(st[2], 0x401002u);
  std::string d = v.Describe();
  EXPECT_NE(d.find("GSTATUS"), std::string::npos) << d;
  EXPECT_NE(d.find("goid=18"), std::string::npos) << d;
  EXPECT_NE(d.find("sched 3"), std::string::npos) << d;
}

TEST(RecordView, WithoutStack) {
  auto b = GStatus(0, 0, false);
  RecordView v(b.data(), b.size());
  ASSERT_TRUE(v.valid());
  EXPECT_EQ(v.stack_tail(), nullptr);
  EXPECT_TRUE(v.stack().empty());
}

TEST(RecordView, RejectsShortSamples) {
  auto b = GStatus(20, 16);  // claims more frames than the sample holds
  EXPECT_FALSE(RecordView(b.data(), b.size()).valid());
  auto c = GStatus(3, 16);
  EXPECT_FALSE(RecordView(c.data(), sizeof(gt_gstatus_record) + 4).valid());  // tail cut
  EXPECT_FALSE(RecordView(c.data(), sizeof(gt_record_header) - 1).valid());
  EXPECT_FALSE(RecordView(c.data(), sizeof(gt_gstatus_record) - 1).valid());
  EXPECT_FALSE(RecordView(nullptr, 0).valid());
  auto d = GStatus(GT_MAX_FRAMES + 1, GT_MAX_FRAMES + 1);
  EXPECT_FALSE(RecordView(d.data(), d.size()).valid());
}

TEST(RecordView, UnknownKind) {
  std::vector<uint8_t> b(64, 0);
  reinterpret_cast<gt_record_header *>(b.data())->kind = 200;
  RecordView v(b.data(), b.size());
  EXPECT_FALSE(v.valid());
  EXPECT_STREQ(RecordKindName(200), "?");
  EXPECT_EQ(RecordBodySize(200), 0u);
}

TEST(RecordView, OtherKinds) {
  for (uint16_t k : {GT_REC_SCHED_SWITCH, GT_REC_SYS_ENTER, GT_REC_SYS_EXIT, GT_REC_TASK_EXIT, GT_REC_EXEC,
                     GT_REC_TASK_NEW, GT_REC_HELLO, GT_REC_CALL}) {
    std::vector<uint8_t> b(RecordBodySize(k), 0);
    reinterpret_cast<gt_record_header *>(b.data())->kind = k;
    RecordView v(b.data(), b.size());
    ASSERT_TRUE(v.valid()) << RecordKindName(k);
    EXPECT_EQ(v.sched_switch() != nullptr, k == GT_REC_SCHED_SWITCH);
    EXPECT_EQ(v.syscall() != nullptr, k == GT_REC_SYS_ENTER || k == GT_REC_SYS_EXIT);
    EXPECT_EQ(v.task() != nullptr, k == GT_REC_TASK_EXIT || k == GT_REC_EXEC || k == GT_REC_TASK_NEW);
    EXPECT_EQ(v.hello() != nullptr, k == GT_REC_HELLO);
    EXPECT_EQ(v.call() != nullptr, k == GT_REC_CALL);
    EXPECT_EQ(v.go_ctx() != nullptr, k == GT_REC_CALL);
    EXPECT_FALSE(v.Describe().empty());
  }
}

TEST(RecordLayout, FixedSizes) {
  // The BPF side and the daemon share these structs; sizes are part of the wire.
  EXPECT_EQ(sizeof(gt_record_header), 24u);
  EXPECT_EQ(sizeof(gt_go_ctx), 88u);
  EXPECT_EQ(sizeof(gt_stack_tail), 24u);
  EXPECT_EQ(offsetof(gt_gstatus_record, ctx), 24u);
  EXPECT_EQ(offsetof(gt_call_record, ctx), 24u);
  EXPECT_EQ(sizeof(gt_gstatus_record) % 8, 0u);
  EXPECT_EQ(sizeof(gt_call_record) % 8, 0u);
}

}  // namespace
}  // namespace gotraced::capture
