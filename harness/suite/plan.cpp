#include "harness/suite/plan.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/interrupt.h"
#include "harness/base/phase_progress.h"
#include "harness/base/rng.h"
#include "harness/base/text.h"
#include "harness/model/results.h"
#include "harness/subject/transform_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace devparity {

int64_t Plan::trial_count() const {
  int64_t n = 0;
  for (const auto& g : groups) n += static_cast<int64_t>(g.trials.size());
  return n;
}

std::string trial_id(const std::string& case_name, const std::string& subject,
                     const std::string& variant, c10::ScalarType dtype, const std::string& device,
                     const std::string& input) {
  return fmt::format("{}/{}{}/{}/{}/{}", case_name, subject,
                     variant.empty() ? "" : "[" + variant + "]", dtype_name(dtype), device, input);
}

Plan make_plan(const std::vector<Suite>& suites, const PlanOptions& options,
               const DeviceInventory& inventory) {
  Plan plan;
  std::map<std::string, std::string> seen;  // id -> suite
  int64_t position = 0;
  if (options.shard_count < 1 || options.shard_index < 0 || options.shard_index >= options.shard_count) {
    throw UsageError(fmt::format("shard {}/{}: expected I/N with 0 <= I < N", options.shard_index,
                                 options.shard_count));
  }
  for (const auto& suite : suites) {
    for (const auto& spec : suite.cases) {
      const Transform* subject = &spec.subject_transform();
      const Transform* reference = spec.reference.subject.empty()
                                       ? subject
                                       : TransformRegistry::global().find(spec.reference.subject);
      const uint64_t base = options.seed ? *options.seed : spec.seed.value_or(0);
      const auto reference_device = resolve_device(spec.reference.device, inventory);
      std::vector<std::string> allowed;  // the case's device names; empty keeps all
      for (const auto& token : spec.devices) {
        for (const auto& t : parse_device_list(token, inventory)) allowed.push_back(t.name);
      }
      const auto variants = case_variants(spec);
      PhaseProgress progress(fmt::format("making the plan, case {}", spec.name), variants.size() * spec.inputs.size(),
                             "variant-inputs");
      for (const auto& [variant, given] : variants) {
        if (interrupt::signal() != 0) return Plan{};  // nothing runs; the report says so
        progress.advance(spec.inputs.size());
        for (const auto& input : spec.inputs) {
          for (auto dtype : spec.dtypes) {
            if (options.dtypes && std::find(options.dtypes->begin(), options.dtypes->end(),
                                            dtype) == options.dtypes->end()) {
              continue;
            }
            TrialGroup group;
            group.spec = &spec;
            group.subject = subject;
            group.reference_subject = reference;
            group.given = given;
            group.reference_given = given;
            for (const auto& item : spec.reference.params.items()) {
              group.reference_given[item.key()] = item.value();
            }
            group.variant = variant;
            group.input = input;
            group.dtype = dtype;
            // The same input for every variant and dtype of a case; parameters
            // drawn per group.
            // 53 bits, so that the seed survives JSON readers that use doubles.
            group.seed = derive_seed(base, spec.name + "/" + input.label()) & ((uint64_t{1} << 53) - 1);
            group.reference_device = reference_device;
            for (const auto& target : options.devices) {
              if (!allowed.empty() &&
                  std::find(allowed.begin(), allowed.end(), target.name) == allowed.end()) {
                continue;
              }
              const auto id = trial_id(spec.name, spec.subject, variant, dtype, target.name,
                                       input.label());
              if (!filter_match(options.filter, id)) continue;
              const auto [it, inserted] = seen.emplace(id, suite.path);
              if (!inserted) {
                throw UsageError(fmt::format("result id '{}' is produced by both {} and {}; "
                                             "rename one of the cases",
                                             id, it->second, suite.path));
              }
              group.trials.push_back({id, target});
            }
            if (group.trials.empty()) continue;
            // Note [Shards]: position in the unsharded plan, so the same
            // command line on N machines partitions it exactly.
            if (position++ % options.shard_count == options.shard_index) {
              plan.groups.push_back(std::move(group));
            }
          }
        }
      }
    }
  }
  return plan;
}

TrialResult result_of(const TrialGroup& group, const Trial& trial) {
  TrialResult r;
  r.id = trial.id;
  r.suite = group.spec->suite;
  r.case_name = group.spec->name;
  r.subject = group.spec->subject;
  r.variant = group.variant;
  r.dtype = dtype_name(group.dtype);
  r.device = trial.target.name;
  r.resolved_device = trial.target.available() ? trial.target.resolved_name() : "";
  r.reference_device = group.reference_device.name;
  r.reference_subject = group.reference_subject->info().name;
  r.input = group.input.label();
  r.shape = group.input.shape;
  r.seed = group.seed;
  r.params = group.given;
  if (group.spec->autocast) r.autocast = dtype_name(*group.spec->autocast);
  return r;
}

}  // namespace devparity
