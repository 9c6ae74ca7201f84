// FileSink under write failures: a full disk is simulated with RLIMIT_FSIZE (a write past
// the limit is cut short, then fails with EFBIG, as one past the end of a full disk does
// with ENOSPC), so the failure falls at an exact byte: in the header, inside a
// generation, at a generation's start. Whatever the point, the file holds the header
// and whole generations only, or does not exist.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "encoder/sink.h"
#include "tests/unit/common/test_dir.h"

namespace gotraced::encoder {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes Filled(std::size_t n, std::uint8_t v) { return Bytes(n, v); }

Bytes ReadFile(const std::string &path) {
  Bytes b;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return b;
  b.resize(1 << 20);
  b.resize(std::fread(b.data(), 1, b.size(), f));
  std::fclose(f);
  return b;
}

bool Exists(const std::string &path) { return ::access(path.c_str(), F_OK) == 0; }

Bytes Cat(std::initializer_list<const Bytes *> parts) {
  Bytes out;
  for (const Bytes *p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// A file size limit for the scope (SIGXFSZ ignored, so the write fails with EFBIG).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old_);
    Set(bytes);
  }
  void Set(rlim_t bytes) {
    rlimit r = old_;
    r.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &old_); }

 private:
  rlimit old_{};
};

// Each test writes in a directory of its own: ctest runs the cases as processes side by
// side, and a path they shared (TempDir()/file_sink_test.trace) let one case's file
// count in another's.
class FileSinkTest : public ::testing::Test {
 protected:
  testutil::TestDir dir;
  std::string path = dir.File("file_sink_test.trace");
  const Bytes header = Filled(16, 'h');
  const Bytes g1 = Filled(1000, 1), g2 = Filled(3000, 2), g3 = Filled(500, 3);
};

TEST(ContinuationPathTest, NumberGoesBeforeTheExtension) {
  EXPECT_EQ(ContinuationPath("dir/t.trace", 2), "dir/t.2.trace");
  EXPECT_EQ(ContinuationPath("t.out", 1), "t.1.out");
  EXPECT_EQ(ContinuationPath("dir.d/t", 1), "dir.d/t.1");
  EXPECT_EQ(ContinuationPath(".hidden", 1), ".hidden.1");
}

TEST_F(FileSinkTest, NoErrorWritesHeaderAndGenerations) {
  {
    FileSink s(path);
    s.WriteHeader(header);
    EXPECT_EQ(ReadFile(path).size(), 0u);  // the header waits for the first generation
    s.WriteGeneration(1, g1);
    s.WriteGeneration(2, g2);
    s.Close();
    EXPECT_EQ(s.error(), "");
    EXPECT_EQ(s.generations_written(), 2u);
    EXPECT_EQ(s.generations_lost(), 0u);
    EXPECT_EQ(s.good_bytes(), header.size() + g1.size() + g2.size());
  }
  EXPECT_EQ(ReadFile(path), Cat({&header, &g1, &g2}));
}

TEST_F(FileSinkTest, FullAtTheHeaderLeavesNoFile) {
  FileSizeLimit limit(8);  // not even the header fits
  FileSink s(path);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  s.WriteGeneration(2, g2);
  s.Close();
  EXPECT_TRUE(s.stopped());
  EXPECT_NE(s.error().find("(8 of the 1016 bytes of generation 1 and the header written)"), std::string::npos)
      << s.error();
  EXPECT_EQ(s.generations_written(), 0u);
  EXPECT_EQ(s.generations_lost(), 2u);
  EXPECT_TRUE(s.files().empty());
  EXPECT_FALSE(Exists(path));  // an empty file is no trace
}

TEST_F(FileSinkTest, FullMidGenerationCutsBackToWholeGenerations) {
  FileSizeLimit limit(16 + 1000 + 1234);  // inside generation 2
  FileSink s(path);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  s.WriteGeneration(2, g2);
  s.WriteGeneration(3, g3);  // kStop: not even tried
  s.Close();
  EXPECT_TRUE(s.stopped());
  EXPECT_NE(s.error().find("(1234 of the 3000 bytes of generation 2 written)"), std::string::npos) << s.error();
  EXPECT_EQ(s.generations_written(), 1u);
  EXPECT_EQ(s.generations_lost(), 2u);
  EXPECT_EQ(ReadFile(path), Cat({&header, &g1}));
}

TEST_F(FileSinkTest, FullExactlyAtAGenerationStart) {
  FileSizeLimit limit(16 + 1000);
  FileSink s(path);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  s.WriteGeneration(2, g2);
  s.Close();
  EXPECT_NE(s.error().find("(0 of the 3000 bytes of generation 2 written)"), std::string::npos) << s.error();
  EXPECT_EQ(ReadFile(path), Cat({&header, &g1}));
}

TEST_F(FileSinkTest, DropGoesOnInAContinuationFileWhenThereIsRoomAgain) {
  FileSizeLimit limit(16 + 1000 + 10);
  FileSink s(path, WriteErrorPolicy::kDrop);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  EXPECT_EQ(s.last_file(), 0);
  s.WriteGeneration(2, g2);  // fails: lost
  EXPECT_EQ(s.last_file(), -1);
  EXPECT_FALSE(s.stopped());
  s.WriteGeneration(3, g3);  // a new file: header and generation 3 fit in the limit (per file)
  s.Close();
  EXPECT_EQ(ReadFile(path), Cat({&header, &g1}));
  EXPECT_EQ(ReadFile(ContinuationPath(path, 1)), Cat({&header, &g3}));
  ASSERT_EQ(s.files().size(), 2u);
  EXPECT_EQ(s.files()[1].first_gen, 3u);
  EXPECT_EQ(s.generations_written(), 2u);
  EXPECT_EQ(s.generations_lost(), 1u);
}

TEST_F(FileSinkTest, DropRetriesTheSameContinuationUntilAWriteSucceeds) {
  FileSizeLimit limit(16 + 1000 + 10);
  FileSink s(path, WriteErrorPolicy::kDrop);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  s.WriteGeneration(2, g2);  // lost
  s.WriteGeneration(3, g2);  // lost again: the continuation file is removed
  EXPECT_FALSE(Exists(ContinuationPath(path, 1)));
  limit.Set(RLIM_INFINITY);
  s.WriteGeneration(4, g3);
  s.Close();
  EXPECT_EQ(ReadFile(ContinuationPath(path, 1)), Cat({&header, &g3}));
  EXPECT_EQ(s.generations_lost(), 2u);
  EXPECT_EQ(s.write_errors(), 2u);
}

TEST_F(FileSinkTest, RemovedFileIsAnErrorAndItsGenerationsAreLost) {
  FileSink s(path);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  s.WriteGeneration(2, g2);
  std::remove(path.c_str());
  s.WriteGeneration(3, g3);
  s.Close();
  EXPECT_TRUE(s.stopped());
  EXPECT_NE(s.error().find("was removed while being written: the 2 generation(s) in it are lost"), std::string::npos)
      << s.error();
  EXPECT_EQ(s.generations_written(), 0u);
  EXPECT_EQ(s.generations_lost(), 3u);
  EXPECT_FALSE(Exists(path));
}

TEST_F(FileSinkTest, RemovedFileWithDropGoesOnInAContinuationFile) {
  FileSink s(path, WriteErrorPolicy::kDrop);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  std::remove(path.c_str());
  s.WriteGeneration(2, g2);
  s.Close();
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.generations_lost(), 1u);  // generation 1, gone with its file
  EXPECT_EQ(s.generations_written(), 1u);
  EXPECT_EQ(ReadFile(ContinuationPath(path, 1)), Cat({&header, &g2}));
  ASSERT_EQ(s.files().size(), 2u);
  EXPECT_TRUE(s.files()[0].removed);
}

TEST_F(FileSinkTest, RemovedFileNoticedAtClose) {
  FileSink s(path);
  s.WriteHeader(header);
  s.WriteGeneration(1, g1);
  std::remove(path.c_str());
  s.Close();
  EXPECT_NE(s.error(), "");
  EXPECT_EQ(s.generations_lost(), 1u);
}

}  // namespace
}  // namespace gotraced::encoder
