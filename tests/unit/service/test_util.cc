#include "tests/unit/service/test_util.h"

#include <stdlib.h>

#include <filesystem>

namespace gotraced::service::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  char tmpl[] = "/tmp/gotraced-service-test-XXXXXX";
  const char *p = mkdtemp(tmpl);
  path = p ? p : "/tmp";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (path != "/tmp") fs::remove_all(path, ec);
}

}  // namespace gotraced::service::testing
