#include "tests/unit/common/test_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace gotraced::testutil {
namespace {

namespace fs = std::filesystem;

// "Suite.Test" of the running test ("process" outside one), cut so that a Unix socket
// path inside the directory stays under sun_path's 108 bytes; '/' of parameterized
// names becomes '_'.
std::string TestName() {
  const ::testing::TestInfo *t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = t ? std::string(t->test_suite_name()) + "." + t->name() : "process";
  for (char &c : name)
    if (c == '/') c = '_';
  return name.substr(0, 48);
}

bool Failed() {
  const ::testing::UnitTest *u = ::testing::UnitTest::GetInstance();
  const ::testing::TestInfo *t = u->current_test_info();
  return t ? t->result()->Failed() : u->Failed();
}

}  // namespace

TestDir::TestDir() {
  std::string tmpl = (fs::temp_directory_path() / ("gotraced-" + TestName() + "-" + std::to_string(getpid()) + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
  path_ = tmpl;
}

TestDir::~TestDir() {
  if (Failed()) {
    std::cerr << "test failed: its files are kept in " << path_ << "\n";
    return;
  }
  std::error_code ec;
  fs::remove_all(path_, ec);
}

const TestDir &ProcessTestDir() {
  // Destroyed at exit, after the last test: UnitTest's instance is never deleted, so
  // Failed() can still ask it then.
  static const std::unique_ptr<TestDir> dir = std::make_unique<TestDir>();
  return *dir;
}

}  // namespace gotraced::testutil
