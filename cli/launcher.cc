#include "cli/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gotraced::cli {

bool Launcher::Start(const std::vector<std::string> &argv, std::string *error) {
  if (argv.empty()) {
    *error = "no program given after --";
    return false;
  }
  // A pipe with O_CLOEXEC tells the parent whether exec failed, and with which errno.
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char *> cargv;
  for (const auto &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    close(errpipe[0]);
    // Restore default dispositions the parent may have changed.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) {
      int e = errno;
      (void)!write(errpipe[1], &e, sizeof e);
      _exit(127);
    }
    execvp(cargv[0], cargv.data());
    int e = errno;
    (void)!write(errpipe[1], &e, sizeof e);
    _exit(127);
  }
  close(errpipe[1]);
  pid_ = pid;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) {
    *error = std::string("waitpid: ") + std::strerror(errno);
    close(errpipe[0]);
    return false;
  }
  int child_errno = 0;
  ssize_t n = read(errpipe[0], &child_errno, sizeof child_errno);
  close(errpipe[0]);
  if (n == sizeof child_errno || !WIFSTOPPED(status)) {
    if (!WIFSTOPPED(status)) Record(status);
    else Wait();
    *error = "cannot run " + argv[0] + ": " + (child_errno ? std::strerror(child_errno) : "exited before exec");
    return false;
  }
  return true;
}

bool Launcher::Resume(std::string *error) {
  if (ptrace(PTRACE_DETACH, pid_, nullptr, nullptr) != 0) {
    *error = std::string("ptrace detach: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void Launcher::Record(int status) {
  exited_ = true;
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) exit_code_ = 128 + WTERMSIG(status);
}

bool Launcher::Exited() {
  if (exited_) return true;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_ && (WIFEXITED(status) || WIFSIGNALED(status))) Record(status);
  return exited_;
}

void Launcher::Wait() {
  while (!exited_) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      exited_ = true;
      exit_code_ = 1;
      return;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) Record(status);
  }
}

void Launcher::Signal(int sig) {
  if (pid_ > 0 && !exited_) kill(pid_, sig);
}

}  // namespace gotraced::cli
