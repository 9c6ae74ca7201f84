// The exit code a command's callback leaves for main() (commands.h): its own file so
// gotraced and gotraced-report (report_main.cc) share it.
#include "cli/commands.h"

namespace gotraced::cli {
namespace {
int g_exit_code = 0;
}  // namespace

void SetExitCode(int code) { g_exit_code = code; }
int ExitCode() { return g_exit_code; }

}  // namespace gotraced::cli
