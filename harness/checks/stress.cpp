// stress: runs the subject from several threads at once on the trial's
// device, on several distinct images, and requires every output to equal the
// same image's single-threaded output byte for byte. It catches state shared
// between calls (a scratch buffer, a cached tensor, a global encoder) and, on
// GPUs, work read before it finished (pytorch/vision#9060: encode_jpeg from a
// thread pool gave corrupt files on 4096x4096 frames). Opt-in per case: it
// costs threads x iterations extra runs.

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/checks/registry.h"
#include "harness/device/device_kinds.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace devparity {
namespace {

struct Settings {
  int threads = 4;
  int iterations = 2;
  int images = 0;  // 0: as many as threads
  std::vector<int64_t> shape;  // empty: the trial's input shape

  static Settings read(const nlohmann::json& setting) {
    Settings s;
    if (!setting.is_object()) return s;
    ObjectReader r(setting);
    s.threads = static_cast<int>(r.integer("threads", 4, 2, 64));
    s.iterations = static_cast<int>(r.integer("iterations", 2, 1, 1000));
    s.images = static_cast<int>(r.integer("images", 0, 0, 64));
    if (r.get("shape") != nullptr) s.shape = r.integers("shape", 4, 1, 65535);
    r.finish();
    return s;
  }
};

// Every thread waits here until all have arrived, so that they really overlap.
class StartLine {
 public:
  explicit StartLine(int n) : waiting_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0) {
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int waiting_;
};

struct Mismatch {
  int thread = 0, iteration = 0, image = 0;
  std::string what;
};

std::string first_difference(const at::Tensor& got, const at::Tensor& want) {
  if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type()) {
    return fmt::format("shape [{}] {} against [{}] {}", fmt::join(got.sizes(), ","), dtype_name(got.scalar_type()),
                       fmt::join(want.sizes(), ","), dtype_name(want.scalar_type()));
  }
  const auto differs = at::ne(got.reshape({-1}), want.reshape({-1}));
  const int64_t count = differs.sum().item<int64_t>();
  const int64_t first = differs.to(at::kByte).argmax().item<int64_t>();
  return fmt::format("{} of {} element(s) differ; first at flat index {}", count, got.numel(), first);
}

// Distinct images, parameters sampled for their shape, and each one's
// single-threaded output: what every concurrent run must reproduce.
struct Workload {
  const Transform* subject = nullptr;
  c10::Device device = c10::Device(c10::kCPU);
  nlohmann::json params;
  std::vector<at::Tensor> inputs, expected;
  std::vector<int64_t> shape;
  ExecuteOptions options;
  double single_threaded_ms = 0.0;
};

Workload prepare(const TrialReplay& replay, const Settings& s, const c10::Device& device, c10::ScalarType dtype) {
  Workload w;
  w.subject = &replay.subject;
  w.device = device;
  const auto source = s.shape.empty() ? replay.input_source.with_shape(replay.input.sizes().vec())
                                       : replay.input_source.with_shape(s.shape);
  const int images = s.images > 0 ? s.images : s.threads;
  auto gen = at::make_generator<at::CPUGeneratorImpl>(replay.seed);
  const auto probe = source->make(dtype, replay.seed);
  w.shape = probe.sizes().vec();
  w.params = replay.subject.sample(replay.given, probe.sizes(), gen);
  // The process's generators are shared: concurrent calls cannot each
  // start them from a seed.
  w.options.replay_draws = false;
  w.options.autocast = replay.autocast;  // autocast is per thread: each run sets its own
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < images; ++i) {
    w.inputs.push_back(source->make(dtype, replay.seed + 1000003ULL * static_cast<uint64_t>(i + 1)));
    w.expected.push_back(execute_or_throw(*w.subject, w.inputs.back(), w.params, device, w.options));
  }
  w.single_threaded_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return w;
}

// What the threads saw.
struct ConcurrentRuns {
  std::vector<Mismatch> mismatches;
  std::vector<std::string> errors;
  int64_t runs = 0;
  double ms = 0.0;
};

ConcurrentRuns run_concurrently(const Workload& w, const Settings& s) {
  const int images = static_cast<int>(w.inputs.size());
  std::mutex mutex;
  ConcurrentRuns out;
  std::atomic<int64_t> runs{0};
  StartLine start(s.threads);
  std::vector<std::thread> pool;
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < s.threads; ++t) {
    pool.emplace_back([&, t] {
      std::shared_ptr<void> stream;
      try {
        if (const auto use = device_kind(w.device.type()).use_pool_stream) stream = use(w.device.index());
      } catch (...) {
      }
      start.arrive_and_wait();
      for (int it = 0; it < s.iterations; ++it) {
        const int image = (t + it) % images;
        try {
          const auto got = execute_or_throw(*w.subject, w.inputs[static_cast<size_t>(image)], w.params, w.device,
                                            w.options);
          ++runs;
          const auto& want = w.expected[static_cast<size_t>(image)];
          if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type() || !at::equal(got, want)) {
            std::lock_guard<std::mutex> lock(mutex);
            out.mismatches.push_back({t, it, image, first_difference(got, want)});
          }
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(mutex);
          out.errors.push_back(fmt::format("thread {} iteration {}: {}", t, it, torch_message(e)));
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  out.runs = runs.load();
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

nlohmann::json stats_of(const Workload& w, const Settings& s, const ConcurrentRuns& c) {
  auto listed = nlohmann::json::array();
  for (size_t i = 0; i < c.mismatches.size() && i < 10; ++i) {
    const auto& m = c.mismatches[i];
    listed.push_back({{"thread", m.thread}, {"iteration", m.iteration}, {"image", m.image}, {"difference", m.what}});
  }
  return {{"threads", s.threads},
          {"iterations", s.iterations},
          {"images", w.inputs.size()},
          {"shape", w.shape},
          {"runs", c.runs},
          {"mismatches", c.mismatches.size()},
          {"run_errors", c.errors},
          {"first_mismatches", listed},
          {"single_threaded_ms", w.single_threaded_ms},
          {"concurrent_ms", c.ms}};
}

class StressCheck final : public Check {
 public:
  std::string name() const override { return "stress"; }

  std::string description() const override {
    return "the subject from several threads at once gives every image the bytes of its "
           "single-threaded run (opt-in: {\"threads\", \"iterations\", \"images\", \"shape\"})";
  }

  void validate_setting(const nlohmann::json& setting) const override { Settings::read(setting); }

  bool compares_outputs() const override { return false; }
  bool applies_to(const TransformInfo&) const override { return true; }
  bool on_by_default() const override { return false; }

  CheckOutcome run(const CheckContext& ctx) const override {
    CheckOutcome out;
    out.name = name();
    const auto s = Settings::read(ctx.setting);
    if (!ctx.target.has_values()) {
      out.status = Status::kSkip;
      out.message = "meta has no values to compare";
      return out;
    }
    if (!ctx.output().defined()) {
      out.status = Status::kSkip;
      out.message = "the subject did not run";
      return out;
    }
    const auto w = prepare(ctx.replay_for("stress"), s, *ctx.target.device, ctx.dtype);
    const auto c = run_concurrently(w, s);
    out.stats = stats_of(w, s, c);
    out.describe = fmt::format("{} threads x {} iterations on {} distinct {} images reproduce the "
                               "single-threaded outputs exactly",
                               s.threads, s.iterations, w.inputs.size(), fmt::join(w.shape, "x"));
    if (!c.mismatches.empty() || !c.errors.empty()) {
      const auto& m = c.mismatches.empty() ? Mismatch{} : c.mismatches[0];
      out.status = Status::kFail;
      out.message = !c.mismatches.empty()
                        ? fmt::format("{}: {} of {} concurrent run(s) differ from the single-threaded "
                                      "output; first: thread {} iteration {} image {}: {}",
                                      ctx.result.id, c.mismatches.size(), s.threads * s.iterations, m.thread,
                                      m.iteration, m.image, m.what)
                        : fmt::format("{}: {} concurrent run(s) failed; first: {}", ctx.result.id, c.errors.size(),
                                      c.errors[0]);
      return out;
    }
    out.status = Status::kPass;
    out.message = fmt::format("{} concurrent runs on {} thread(s) matched the single-threaded outputs", c.runs,
                              s.threads);
    return out;
  }
};

}  // namespace

void register_stress_check(CheckRegistry& registry) { registry.add(std::make_unique<StressCheck>()); }

}  // namespace devparity
