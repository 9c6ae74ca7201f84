// gotraced-trace-dump FILE [--no-events] [--no-tables]: list a Go trace file as the
// encoder's event table reads it. Exit status 1 if the file does not decode.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "encoder/trace_decoder.h"
#include "encoder/trace_dump.h"

int main(int argc, char **argv) {
  gotraced::encoder::DumpOptions opt;
  const char *path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-events") == 0) opt.events = false;
    else if (std::strcmp(argv[i], "--no-tables") == 0) opt.tables = false;
    else path = argv[i];
  }
  if (!path) {
    std::fprintf(stderr, "usage: %s FILE [--no-events] [--no-tables]\n", argv[0]);
    return 2;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path);
    return 2;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::fputs(gotraced::encoder::DumpTrace(bytes, opt).c_str(), stdout);
  return gotraced::encoder::DecodeTrace(bytes).ok() ? 0 : 1;
}
