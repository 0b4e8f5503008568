#include "harness/run/perturbation_verdict.h"

#include "harness/vdev/cuda_arithmetic.h"
#include "harness/vdev/mode.h"
#include "harness/vdev/perturb.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace devparity {
namespace {

// A failed check about values: placement and the run itself are not numerics'.
bool value_check_failed(const CheckOutcome& c) {
  return c.status == Status::kFail && c.name != "run" && c.name != "placement";
}

bool values_failed(const TrialResult& row) {
  return std::any_of(row.checks.begin(), row.checks.end(), value_check_failed);
}

// The session's mode with `only` as its switches.
vdev::Mode only_switches(std::vector<std::string> only) {
  auto m = vdev::mode();
  m.perturb = std::move(only);
  return m;
}

// Whether the trial's values fail with `switches` alone on (none: vdev's own arithmetic).
bool fails_with(std::vector<std::string> switches, GroupRun& group, const Trial& trial, bool on_reference_device,
                const CheckDispatch& dispatch) {
  const vdev::ModeScope only(only_switches(std::move(switches)));
  Execution scratch;
  const auto& again = group.run(trial, scratch);
  auto row = group.result_for(trial);
  const CheckDispatch quiet{dispatch.registry, dispatch.placement, nullptr};  // no artifacts of its own
  quiet.run(group, trial, again, on_reference_device, row);
  return values_failed(row);
}

std::string moved_words(const nlohmann::json& moved) {
  std::vector<std::string> words;
  for (const auto& [name, calls] : moved.items()) {
    words.push_back(fmt::format("{} in {} op call{}", name, calls.get<int64_t>(), calls.get<int64_t>() == 1 ? "" : "s"));
  }
  return fmt::format("{}", fmt::join(words, ", "));
}

}  // namespace

void judge_cuda_arithmetic(const Execution& mine, TrialResult& row) {
  if (mine.cuda_moved.empty()) return;
  row.cuda_arithmetic = nlohmann::json(mine.cuda_moved);
  if (!values_failed(row)) return;
  const auto words = vdev::cuda_arithmetic::moved_words(mine.cuda_moved);
  for (auto& c : row.checks) {
    if (value_check_failed(c)) c.message += fmt::format(" [CUDA's arithmetic on vdev moved values: {}]", words);
  }
}

void judge_perturbation(GroupRun& group, const Trial& trial, const Execution& mine, bool on_reference_device,
                        const CheckDispatch& dispatch, TrialResult& row) {
  if (mine.perturbation.empty()) return;
  auto moved = nlohmann::json::object();
  for (const auto& [name, calls] : mine.perturbed) {
    if (calls > 0) moved[name] = calls;
  }
  row.perturbed = {{"switches", mine.perturbation}, {"moved", moved}};
  if (moved.empty() || !values_failed(row)) return;
  // Under CUDA's arithmetic (Note [CUDA's arithmetic on vdev]) the trial may
  // fail with no switch at all: then no switch is to blame.
  const bool fails_anyway =
      vdev::cuda_arithmetic::enabled() && fails_with({}, group, trial, on_reference_device, dispatch);
  std::vector<std::string> blamed;
  for (const auto& [name, calls] : moved.items()) {
    if (fails_anyway) break;
    if (moved.size() == 1 || fails_with({name}, group, trial, on_reference_device, dispatch)) blamed.push_back(name);
  }
  row.perturbed["blamed"] = blamed;
  const auto why = fails_anyway    ? std::string("it fails without any switch, under CUDA's arithmetic on vdev")
                   : blamed.empty() ? std::string("no switch alone fails it, their combination does")
                                    : fmt::format("it fails under {} alone", fmt::join(blamed, ", "));
  for (auto& c : row.checks) {
    if (!value_check_failed(c)) continue;
    c.message += fmt::format(" [vdev's perturbed numerics moved values: {}; {}]", moved_words(moved), why);
  }
}

}  // namespace devparity
