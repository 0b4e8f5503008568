#include "harness/run/worker_main.h"

#include "harness/base/error.h"
#include "harness/model/run_listener.h"
#include "harness/run/runner.h"
#include "harness/run/worker_protocol.h"
#include "harness/suite/plan.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace devparity {
namespace {

// Each result as a line on the descriptor the parent gave.
class WorkerListener final : public RunListener {
 public:
  explicit WorkerListener(int fd) : fd_(fd) {}
  void on_trial_end(const TrialResult& result) override { write_line(worker_result_line(result)); }
  void write_line(const std::string& line) {
    size_t done = 0;
    while (done < line.size()) {
      const auto n = ::write(fd_, line.data() + done, line.size() - done);
      if (n <= 0) throw std::runtime_error("worker: the parent stopped reading");
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

}  // namespace

void serve_worker(const Plan& selected, const RunnerOptions& options) {
  const char* fd = std::getenv(kWorkerFdVariable);
  if (fd == nullptr) throw UsageError("--worker is internal to --isolate");
  WorkerListener listener(std::atoi(fd));
  listener.write_line(worker_ready_line());  // Note [Worker start]
  Runner(listener, options).run(selected, RunInfo{});
}

}  // namespace devparity
