#include "harness/core/runner.h"

#include "harness/checks/registry.h"
#include "harness/core/capabilities.h"
#include "harness/core/cuda_support.h"
#include "harness/core/dtype.h"
#include "harness/core/error.h"
#include "harness/core/input.h"
#include "harness/core/interrupt.h"
#include "harness/core/isolation.h"
#include "harness/core/replayed_draws.h"
#include "harness/core/rng.h"
#include "harness/report/report_file.h"
#include "harness/trace/tracer.h"
#include "harness/transforms/state.h"
#include "harness/transforms/transform.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <regex>
#include <set>

namespace devparity {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kRunDescribe = "the subject runs on the device and returns a tensor";

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One run of a subject on one device.
struct Execution {
  bool ran = false;
  at::Tensor output;  // on the CPU, or the meta tensor itself
  c10::Device output_device{c10::DeviceType::CPU};
  ClassifiedError error;
  double duration_ms = 0.0;
  bool traced = false;
  std::vector<Finding> findings;
  int64_t ops_traced = 0;
  std::vector<DeviceDraw> device_draws;  // random ops that drew on the device itself
};

// Registered state that did not follow the subject to `device`.
void check_state(const TransformState& state, const c10::Device& device, const char* when,
                 FindingSet& out) {
  for (const auto& [name, tensor] : state.tensors()) {
    if (!tensor.defined() || tensor.device() == device) continue;
    Finding f;
    f.kind = finding_kind::kStateOffDevice;
    f.message = fmt::format("registered state '{}' is on {} {} {}", name, device_label(tensor.device()),
                            when, device_label(device));
    f.device = device_label(tensor.device());
    f.shape = tensor.sizes().vec();
    f.dtype = dtype_name(tensor.scalar_type());
    out.add(f);
  }
}

Finding mismatch_finding(const ClassifiedError& err, const Finding& failed_op) {
  Finding f;
  f.kind = finding_kind::kDeviceMismatchError;
  f.op = err.op;
  f.scopes = failed_op.scopes;
  f.message = err.message;
  // The message quotes the interpreter's traceback: its line is the source,
  // so that the two agree; the tracer's otherwise.
  f.source = err.source.empty() ? failed_op.source : err.source;
  // The tracer saw the failing op's tensors; LibTorch's wordings do not all
  // name both devices.
  f.device = failed_op.device;
  static const std::regex devices(R"(two devices, ([^ ]+) and ([^ !]+))");
  std::smatch m;
  if (f.device.empty() && std::regex_search(err.message, m, devices)) {
    f.device = m.str(1) + " and " + m.str(2);
  }
  return f;
}

Execution execute(const Transform& subject, const at::Tensor& input, const nlohmann::json& params,
                  const c10::Device& device, bool trace, const std::string& layout, uint64_t seed) {
  Execution e;
  e.traced = trace;
  FindingSet found;
  std::unique_ptr<Tracer> tracer;
  // The tracer covers apply() only: the runner's own copies are not the subject's.
  auto stop_tracing = [&] {
    if (!tracer) return;
    found.merge(tracer->findings());
    e.ops_traced = tracer->ops_traced();
    e.device_draws = tracer->device_draws();
    tracer.reset();
  };
  const auto* stateful = dynamic_cast<const StatefulTransform*>(&subject);
  try {
    std::unique_ptr<TransformState> state;
    if (stateful != nullptr) {
      state = stateful->make_state(params, input.scalar_type());
      state->to(device);
      check_state(*state, device, "after the move to", found);
      std::vector<Finding> audited;
      state->audit(device, audited);
      found.merge(audited);
    }
    // A copy even on the CPU: a subject that writes into its input (in place)
    // must not change the next device's.
    const auto x = apply_layout(input.to(device, input.scalar_type(), /*non_blocking=*/false, /*copy=*/true),
                                layout);
    if (trace) {
      // Note [Device data and host data]: the input and the registered state.
      TraceSeeds seeds;
      seeds.device_data.push_back(x);
      if (state) state->seed_trace(seeds);
      tracer = std::make_unique<Tracer>(device, std::move(seeds));
    }
    const auto start = Clock::now();
    at::Tensor y;
    {
      const ReplayedDraws draws(derive_seed(seed, "draws"), device);  // Note [Replayed draws]
      y = stateful != nullptr ? stateful->apply(x, params, *state) : subject.apply(x, params);
    }
    if (device.is_cuda()) cuda::synchronize(device.index());
    e.duration_ms = ms_since(start);
    if (tracer) tracer->returned(y);
    stop_tracing();
    if (state) check_state(*state, device, "after apply on", found);
    if (!y.defined()) throw std::runtime_error("the subject returned an undefined tensor");
    e.output_device = y.device();
    if (y.device() != device) {
      Finding f;
      f.kind = finding_kind::kWrongDeviceOutput;
      f.message = fmt::format("the subject returned its result on {}; the target is {}",
                              device_label(y.device()), device_label(device));
      f.device = device_label(y.device());
      f.shape = y.sizes().vec();
      f.dtype = dtype_name(y.scalar_type());
      found.add(f);
    }
    e.output = y.device().type() == c10::DeviceType::Meta ? y : y.to(at::kCPU);
    e.ran = true;
  } catch (const std::exception& ex) {
    e.error = classify_exception(ex);
    if (tracer && e.error.op.empty()) e.error.op = tracer->failed_op().op;
    if (e.error.kind == FailureKind::kDeviceMismatch) {
      found.add(mismatch_finding(e.error, tracer ? tracer->failed_op() : Finding{}));
    }
    if (e.error.kind == FailureKind::kUnsupported && !e.error.op.empty()) {
      Capabilities::global().record_unsupported(device.type(), e.error.op);
    }
    stop_tracing();
  }
  e.findings = found.items();
  return e;
}

CheckOutcome run_outcome(const Execution& e, const DeviceTarget& target, bool on_reference_device,
                         const Execution* subject_on_reference, const std::string& reference_name) {
  if (!e.ran) {
    return failed_run_verdict(e.error, target, on_reference_device,
                              subject_on_reference != nullptr && subject_on_reference->ran,
                              reference_name);
  }
  CheckOutcome c;
  c.name = "run";
  c.describe = kRunDescribe;
  c.status = Status::kPass;
  c.message = fmt::format("ran on {} in {:.3f} ms", target.resolved_name(), e.duration_ms);
  c.stats = {{"duration_ms", e.duration_ms},
             {"output_shape", e.output.sizes().vec()},
             {"output_dtype", dtype_name(e.output.scalar_type())},
             {"output_device", device_label(e.output_device)}};
  return c;
}

}  // namespace

CheckOutcome failed_run_verdict(const ClassifiedError& err, const DeviceTarget& target,
                                bool on_reference_device, bool subject_runs_on_reference,
                                const std::string& reference_name) {
  CheckOutcome c;
  c.name = "run";
  c.describe = kRunDescribe;
  const auto device = target.resolved_name();
  c.stats = {{"error_kind", failure_kind_name(err.kind)}};
  if (!err.op.empty()) c.stats["op"] = err.op;
  switch (err.kind) {
    case FailureKind::kUnsupported:
      if (!target.has_values()) {
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on meta{}: {}", err.op.empty() ? "" : " (" + err.op + ")",
                                err.message);
      } else if (target.simulated()) {
        // The simulator's gap, not the subject's: vdev runs the CPU's kernels.
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on the simulated {}{}: {}", device,
                                err.op.empty() ? "" : " (" + err.op + ")", err.message);
      } else if (!on_reference_device && subject_runs_on_reference) {
        // A kernel one device has and another lacks is a parity failure
        // (pytorch/vision#7671: antialiased bilinear fails on CUDA only).
        c.status = Status::kFail;
        c.message = fmt::format("{} runs it but {} does not: {}", reference_name, device, err.message);
      } else {
        c.status = Status::kSkip;
        c.message = fmt::format("unsupported on {}: {}", device, err.message);
      }
      break;
    case FailureKind::kDeviceMismatch:
      // The placement check carries the device_mismatch_error finding.
      c.status = Status::kFail;
      c.message = fmt::format("device mismatch{}: {}", err.op.empty() ? "" : " in " + err.op,
                              err.message);
      break;
    case FailureKind::kOutOfMemory:
      c.status = Status::kError;
      if (err.requested_bytes >= 0) c.stats["requested_bytes"] = err.requested_bytes;
      c.message = err.requested_bytes >= 0
                      ? fmt::format("out of memory on {}: an allocation of {} bytes ({:.2f} GiB) failed: {}",
                                    device, err.requested_bytes,
                                    static_cast<double>(err.requested_bytes) / 1073741824.0, err.message)
                      : fmt::format("out of memory on {}: {}", device, err.message);
      break;
    case FailureKind::kDeviceError:
      c.status = Status::kError;
      c.message = fmt::format("device error on {}: {}", device, err.message);
      break;
    case FailureKind::kException:
      c.status = Status::kFail;
      c.message = fmt::format("threw on {}: {}", device, err.message);
      break;
  }
  return c;
}

Runner::Runner(RunListener& listener, RunnerOptions options)
    : Runner(listener, std::move(options), CheckRegistry::global()) {}

Runner::Runner(RunListener& listener, RunnerOptions options, const CheckRegistry& checks)
    : listener_(listener), options_(std::move(options)), checks_(checks) {}

RunSummary Runner::run(const Plan& plan, RunInfo info) {
  const auto run_start = Clock::now();
  info.planned_trials = plan.trial_count();
  listener_.on_run_start(info);
  const bool trace = options_.placement != "off";

  std::map<const CaseSpec*, int64_t> planned;
  for (const auto& g : plan.groups) planned[g.spec] += static_cast<int64_t>(g.trials.size());

  RunSummary summary;
  std::map<std::string, std::set<std::string>> baseline_failures;
  std::map<std::string, Status> statuses;  // with a baseline, for "fixed"
  std::map<std::string, std::string> poisoned;  // resolved device -> the trial that broke it
  if (options_.baseline) {
    baseline_failures = failing_checks(*options_.baseline);
    summary.baseline = BaselineSummary{options_.baseline_path, {}, {}, {}};
  }
  const CaseSpec* current = nullptr;
  CaseInfo case_info;
  StatusCounts case_counts;
  auto end_case = [&] {
    if (current != nullptr) listener_.on_case_end(case_info, case_counts);
  };
  // Note [In-process timeout]: a watchdog ends the run when a trial runs
  // past the limit. The stuck thread cannot be stopped, so the watchdog
  // reports the trial, lets every reporter write its file and exits.
  std::mutex watch_mutex;
  std::condition_variable watch_wake;
  struct Running {
    bool active = false;
    size_t group = 0, trial = 0;
    Clock::time_point since;
  } running;
  bool watch_stop = false;
  std::thread watchdog;
  auto finish_locked = [&](TrialResult& r) {
    if (summary.baseline) {
      statuses[r.id] = r.status;
      if (r.status == Status::kFail || r.status == Status::kError) {
        const auto it = baseline_failures.find(r.id);
        bool known = it != baseline_failures.end();
        for (const auto& c : r.checks) {
          if (known && c.status == r.status) known = it->second.count(c.name) != 0;
        }
        r.baseline = known ? "known" : "new";
      }
    }
    summary.add(r);
    case_counts.add(r.status);
    listener_.on_trial_end(r);
  };
  if (options_.timeout_s > 0 && options_.isolate == nullptr) {
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lock(watch_mutex);
      const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
      while (!watch_stop) {
        watch_wake.wait_for(lock, std::chrono::milliseconds(100));
        if (watch_stop || !running.active || Clock::now() - running.since < limit) continue;
        const auto& id = plan.groups[running.group].trials[running.trial].id;
        auto r = unfinished_trial(plan, running.group, running.trial,
                                  fmt::format("timeout: the trial ran past --timeout-s {:g} s in this process; "
                                              "the run stopped here (--isolate kills only the trial and goes on)",
                                              options_.timeout_s));
        finish_locked(r);
        listener_.on_case_end(case_info, case_counts);
        summary.stopped_because = fmt::format("{} ran past --timeout-s {:g} s; the results are those finished before",
                                              id, options_.timeout_s);
        summary.duration_s = std::chrono::duration<double>(Clock::now() - run_start).count();
        try {
          listener_.on_run_end(summary);
        } catch (...) {
        }
        std::fflush(nullptr);
        std::_Exit(summary.exit_code());
      }
    });
  }
  struct JoinWatchdog {
    std::thread& t;
    std::mutex& m;
    std::condition_variable& cv;
    bool& stop;
    ~JoinWatchdog() {
      {
        std::lock_guard<std::mutex> lock(m);
        stop = true;
      }
      cv.notify_all();
      if (t.joinable()) t.join();
    }
  } join_watchdog{watchdog, watch_mutex, watch_wake, watch_stop};

  // Every finished result, from this process or a worker, goes through here.
  auto finish = [&](TrialResult& r) {
    std::lock_guard<std::mutex> lock(watch_mutex);
    running.active = false;
    finish_locked(r);
  };


  for (size_t group_index = 0; group_index < plan.groups.size(); ++group_index) {
    if (interrupt::signal() != 0) break;
    const auto& group = plan.groups[group_index];
    const auto& spec = *group.spec;
    if (group.spec != current) {
      end_case();
      current = group.spec;
      case_info = {spec.suite, spec.name, spec.subject, spec.description, planned[current]};
      case_counts = {};
      listener_.on_case_start(case_info);
    }

    if (options_.isolate != nullptr) {
      // Note [Workers]: a worker per trial, or per case (its first group
      // runs them all).
      auto emit = [&](TrialResult& r) {
        listener_.on_trial_start(r.id);
        finish(r);
      };
      if (options_.isolate_unit == "case") {
        if (group_index > 0 && plan.groups[group_index - 1].spec == group.spec) continue;
        std::vector<WorkerItem> items;
        for (size_t g = group_index; g < plan.groups.size() && plan.groups[g].spec == group.spec; ++g) {
          items.push_back({g, -1});
        }
        options_.isolate->run(plan, items, emit);
      } else {
        for (size_t t = 0; t < group.trials.size() && interrupt::signal() == 0; ++t) {
          options_.isolate->run(plan, {{group_index, static_cast<int>(t)}}, emit);
        }
      }
      continue;
    }

    const auto& subject = *group.subject;
    const auto& ref_subject = *group.reference_subject;
    const auto& ref_target = group.reference_device;
    const bool compare_ref_row = group.compares_reference_row();

    // Input and parameters: made once on the CPU, replayed on every device.
    at::Tensor input;
    nlohmann::json params, ref_params;
    std::string setup_error;
    try {
      input = make_input(group.input, group.dtype, group.seed);
      auto gen = at::make_generator<at::CPUGeneratorImpl>(group.seed);
      params = subject.sample(group.given, input.sizes(), gen);
      auto ref_gen = at::make_generator<at::CPUGeneratorImpl>(group.seed);
      ref_params = ref_subject.sample(group.reference_given, input.sizes(), ref_gen);
    } catch (const std::exception& e) {
      setup_error = torch_message(e);
    }

    // Lazily: the reference output, and the subject's own run on the
    // reference device (the same run unless the case names another reference).
    Execution reference, own_on_reference;
    bool reference_done = false, own_done = false;
    auto reference_execution = [&]() -> const Execution* {
      if (!setup_error.empty() || !ref_target.available()) return nullptr;
      if (!reference_done) {
        reference = execute(ref_subject, input, ref_params, *ref_target.device, trace, group.input.layout,
                            group.seed);
        reference_done = true;
      }
      return &reference;
    };
    auto subject_on_reference = [&]() -> const Execution* {
      if (!compare_ref_row) return reference_execution();
      if (!setup_error.empty() || !ref_target.available()) return nullptr;
      if (!own_done) {
        own_on_reference = execute(subject, input, params, *ref_target.device, trace, group.input.layout,
                                   group.seed);
        own_done = true;
      }
      return &own_on_reference;
    };
    const std::string ref_label = ref_target.resolved_name();

    for (const auto& trial : group.trials) {
      if (interrupt::signal() != 0) break;
      listener_.on_trial_start(trial.id);
      {
        std::lock_guard<std::mutex> lock(watch_mutex);
        running = {true, group_index, static_cast<size_t>(&trial - group.trials.data()), Clock::now()};
      }
      TrialResult r;
      r.id = trial.id;
      r.suite = spec.suite;
      r.case_name = spec.name;
      r.subject = spec.subject;
      r.variant = group.variant;
      r.dtype = dtype_name(group.dtype);
      r.device = trial.target.name;
      r.resolved_device = trial.target.available() ? trial.target.resolved_name() : "";
      r.reference_device = ref_target.name;
      r.reference_subject = ref_subject.info().name;
      r.input = group.input.label();
      r.shape = group.input.shape;
      r.seed = group.seed;
      r.params = params.is_null() ? group.given : params;
      if (compare_ref_row) r.reference_params = ref_params.is_null() ? group.reference_given : ref_params;

      const auto poison = trial.target.available() ? poisoned.find(trial.target.resolved_name()) : poisoned.end();
      if (!setup_error.empty() || !trial.target.available() || poison != poisoned.end()) {
        std::string why = setup_error.empty() ? trial.target.absent_reason
                                              : "could not prepare the trial: " + setup_error;
        if (poison != poisoned.end()) {
          why = fmt::format("device poisoned: a device error in {} left {}'s context unusable in this "
                            "process (run with --isolate to keep going on it)",
                            poison->second, poison->first);
        }
        const auto status = setup_error.empty() && poison == poisoned.end() ? Status::kSkip : Status::kError;
        r.checks.push_back(CheckOutcome::verdict("run", status, why));
        for (const auto& [name, setting] : spec.checks) {
          r.checks.push_back(CheckOutcome::verdict(name, Status::kSkip, why));
        }
      } else {
        const bool on_reference_device = trial.target.device == ref_target.device;
        // The reference row needs no comparison with itself.
        const bool is_reference_row = on_reference_device && !compare_ref_row;
        const Execution* ref = reference_execution();
        Execution own;
        const Execution* mine = nullptr;
        if (on_reference_device) {
          mine = subject_on_reference();
        } else {
          own = execute(subject, input, params, *trial.target.device, trace, group.input.layout, group.seed);
          mine = &own;
        }
        r.duration_ms = mine->duration_ms;
        // Note [Poisoned devices]: after a CUDA error the context is unusable
        // for the rest of the process; later trials there say so instead of
        // failing in confusing ways.
        if (!mine->ran && mine->error.kind == FailureKind::kDeviceError && trial.target.device->is_cuda()) {
          poisoned.emplace(trial.target.resolved_name(), r.id);
        }
        auto run = run_outcome(*mine, trial.target, on_reference_device, subject_on_reference(),
                               ref_label);
        if (is_reference_row && mine->ran) run.message += " (reference output for this group)";
        r.checks.push_back(run);

        static const at::Tensor kNone;
        // The virtual device runs the CPU kernels: against the same
        // computation on the CPU its output is exact.
        const bool expect_exact = !compare_ref_row &&
                                  trial.target.device->type() == c10::DeviceType::PrivateUse1 &&
                                  ref_target.device->type() == c10::DeviceType::CPU;
        for (const auto& [name, case_setting] : spec.checks) {
          const Check* check = checks_.find(name);
          if (check != nullptr && check->compares_outputs() && is_reference_row &&
              !check->runs_on_reference_row()) {
            continue;
          }
          CheckOutcome c;
          c.name = name;
          if (check == nullptr) {
            c.status = Status::kError;
            c.message = "no check called '" + name + "' is registered";
          } else if (check->compares_outputs() && !mine->ran) {
            c.status = Status::kSkip;
            c.message = "no output to check: the subject did not run";
          } else if (check->compares_outputs() && ref == nullptr && !is_reference_row) {
            c.status = Status::kSkip;
            c.message = ref_target.available()
                            ? "no reference output"
                            : fmt::format("reference device {} is absent: {}", ref_target.name,
                                          ref_target.absent_reason);
          } else if (check->compares_outputs() && !is_reference_row && !ref->ran) {
            c.status = Status::kSkip;
            c.message = fmt::format("no reference output: {} on {} did not run ({})",
                                    ref_subject.info().name, ref_label, ref->error.message);
          } else {
            // --placement strict overrides every case's placement setting.
            const nlohmann::json setting = name == "placement" && options_.placement == "strict"
                                               ? nlohmann::json{{"mode", "strict"}}
                                               : case_setting;
            try {
              CheckContext ctx{r,
                               trial.target,
                               group.dtype,
                               ref != nullptr && ref->ran ? ref->output : kNone,
                               mine->ran ? mine->output : kNone,
                               mine->output_device,
                               setting,
                               mine->traced ? &mine->findings : nullptr,
                               mine->ops_traced,
                               expect_exact};
              ctx.subject = &subject;
              ctx.params = &params;
              ctx.input = &input;
              ctx.reference_subject = &ref_subject;
              ctx.reference_params = &ref_params;
              ctx.reference_device = ref_target.device;
              ctx.is_reference_row = is_reference_row;
              ctx.trace = trace;
              ctx.given = &group.given;
              ctx.input_recipe = &group.input;
              ctx.seed = group.seed;
              ctx.artifacts = options_.artifacts;
              ctx.device_draws = mine->traced ? &mine->device_draws : nullptr;
              c = check->run(ctx);
              c.name = name;
            } catch (const std::exception& e) {
              c.status = Status::kError;
              c.message = "the check failed: " + torch_message(e);
            }
          }
          r.checks.push_back(std::move(c));
        }
      }
      r.finalize();
      finish(r);
    }
  }
  end_case();
  for (const auto& [id, checks] : baseline_failures) {
    const auto it = statuses.find(id);
    if (it != statuses.end() && it->second == Status::kPass) summary.baseline->fixed.push_back(id);
  }
  summary.interrupted_by = interrupt::signal();
  summary.duration_s = std::chrono::duration<double>(Clock::now() - run_start).count();
  summary.unsupported_ops = Capabilities::global().to_json();
  listener_.on_run_end(summary);
  return summary;
}

}  // namespace devparity
