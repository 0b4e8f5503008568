#include "harness/run/worker_process.h"

#include "harness/run/worker_protocol.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace devparity {

WorkerProcess::WorkerProcess(const WorkerLaunch& launch) {
  int results[2], output[2];
  if (pipe2(results, O_CLOEXEC) != 0) throw std::runtime_error(std::string("--isolate: pipe: ") + std::strerror(errno));
  if (pipe2(output, O_CLOEXEC) != 0) {
    close(results[0]), close(results[1]);
    throw std::runtime_error(std::string("--isolate: pipe: ") + std::strerror(errno));
  }
  auto args = launch.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) {
    for (int fd : {results[0], results[1], output[0], output[1]}) close(fd);
    throw std::runtime_error(std::string("--isolate: fork: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    setpgid(0, 0);
    dup2(results[1], 3);
    dup2(output[1], 1);
    dup2(output[1], 2);
    setenv(kWorkerFdVariable, "3", 1);
    if (launch.memory_limit_mb > 0) {
      // The data limit bounds what the worker allocates (heap and private
      // writable mappings); an address-space limit would also count the
      // libraries it maps, which for a CUDA LibTorch exceed a few GiB before
      // main() runs, and the address space CUDA reserves.
      const rlim_t bytes = static_cast<rlim_t>(launch.memory_limit_mb) * 1024 * 1024;
      rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(results[1]);
  close(output[1]);
  results_fd_ = results[0];
  output_fd_ = output[0];
}

void WorkerProcess::kill_group() const {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

int WorkerProcess::wait() const {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault";
    case SIGABRT: return "SIGABRT, an abort";
    case SIGBUS: return "SIGBUS, a bus error";
    case SIGFPE: return "SIGFPE, an arithmetic fault";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGKILL: return "SIGKILL (killed; the kernel's out-of-memory killer does this)";
    case SIGTERM: return "SIGTERM";
    default: return fmt::format("signal {} ({})", sig, strsignal(sig));
  }
}

void OutputTail::add(const char* data, size_t n) {
  partial_.append(data, n);
  size_t start = 0;
  for (auto nl = partial_.find('\n'); nl != std::string::npos; nl = partial_.find('\n', start)) {
    push(partial_.substr(start, nl - start));
    start = nl + 1;
  }
  partial_.erase(0, start);
  if (partial_.size() > 4096) {
    std::string line;
    line.swap(partial_);
    push(std::move(line));
  }
}

std::string OutputTail::text() const {
  std::string out;
  for (const auto& l : lines_) out += (out.empty() ? "" : " | ") + l;
  if (!partial_.empty()) out += (out.empty() ? "" : " | ") + partial_;
  return out;
}

void OutputTail::push(std::string line) {
  if (line.empty()) return;
  if (line.size() > 300) line = line.substr(0, 297) + "...";
  lines_.push_back(std::move(line));
  if (lines_.size() > 8) lines_.pop_front();
}

}  // namespace devparity
