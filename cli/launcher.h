#pragma once
// Launch mode: start a program so that not one instruction of it runs before gotraced
// has attached. The child asks to be traced and execs; the kernel stops it right after
// exec with SIGTRAP (its image mapped, the Go runtime not yet started). The parent
// attaches its probes, then detaches ptrace and lets it run. ptrace is used for that
// one stop only; nothing is written to the target.
#include <sys/types.h>

#include <string>
#include <vector>

namespace gotraced::cli {

class Launcher {
 public:
  // Forks and execs argv (PATH lookup like execvp). On success the child is stopped
  // after exec. On failure returns false with *error ("no such program: ...").
  bool Start(const std::vector<std::string> &argv, std::string *error);
  // Lets the stopped child run.
  bool Resume(std::string *error);
  // Non-blocking: true once the child has exited (exit_code() is then valid).
  bool Exited();
  // Blocks until the child exits.
  void Wait();
  // Forwards a signal to the child.
  void Signal(int sig);
  // Shell-style: the exit status, or 128+signal if killed by a signal.
  int exit_code() const { return exit_code_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = 0;
  void Record(int status);
};

}  // namespace gotraced::cli
