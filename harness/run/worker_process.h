#pragma once
/// A worker process: started by fork + exec in its own process group, with
/// its results on descriptor 3 and its stdout and stderr on a second pipe;
/// killed as a group; its exit described in words.

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace devparity {

/// How a worker is started.
struct WorkerLaunch {
  std::vector<std::string> argv;  ///< executable first
  int64_t memory_limit_mb = 0;    ///< RLIMIT_DATA (what it allocates); 0: none
};

class WorkerProcess {
 public:
  /// Starts it; throws std::runtime_error when the pipes or fork fail (an
  /// exec failure is the exit status 127).
  explicit WorkerProcess(const WorkerLaunch& launch);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  /// The parent's ends; the reader closes them.
  int results_fd() const { return results_fd_; }
  int output_fd() const { return output_fd_; }

  /// SIGKILL to the whole process group (the worker and what it started).
  void kill_group() const;
  /// Waits for it to end; the raw wait status.
  int wait() const;

 private:
  pid_t pid_ = -1;
  int results_fd_ = -1;
  int output_fd_ = -1;
};

/// "SIGSEGV, a segmentation fault", "signal 7 (Bus error)", ...
std::string signal_name(int sig);

/// Keeps the last lines written to a stream (a worker's output), each cut
/// to 300 characters, for the error a failed worker's trials carry.
class OutputTail {
 public:
  void add(const char* data, size_t n);
  /// The kept lines joined by " | ".
  std::string text() const;

 private:
  void push(std::string line);
  std::deque<std::string> lines_;
  std::string partial_;
};

}  // namespace devparity
