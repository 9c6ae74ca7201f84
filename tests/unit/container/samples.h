// Reads a file of samples/ (real formats, names made up).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace gotraced::container::testing {

inline constexpr const char *kId = "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708";

inline std::string Sample(const std::string &name) {
  std::ifstream in(std::string(SAMPLES_DIR) + "/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gotraced::container::testing
