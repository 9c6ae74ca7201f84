// A directory that belongs to one test: nothing two tests running at once (ctest -j, or
// two build trees on one machine) could share. ctest runs every GoogleTest case as its own
// process, so a fixed name under /tmp (or ::testing::TempDir()) is written by several
// cases at the same time; a TestDir's name holds the test's name, the pid and a mkdtemp
// suffix instead.
#pragma once

#include <string>

namespace gotraced::testutil {

// <tmp>/gotraced-<Suite>.<Test>-<pid>-XXXXXX (<tmp>: $TMPDIR, else /tmp), made by the
// constructor; the destructor removes it with its content, unless the test has failed:
// then it stays, and its path is printed, for a look at what the test wrote.
class TestDir {
 public:
  TestDir();
  ~TestDir();
  TestDir(const TestDir &) = delete;
  TestDir &operator=(const TestDir &) = delete;

  const std::string &path() const { return path_; }
  std::string File(const std::string &name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The directory of this test process, made on first use and removed at exit (kept when a
// test failed): for helpers that write files the test reads after they return
// (RunTracecheck's traces).
const TestDir &ProcessTestDir();

}  // namespace gotraced::testutil
