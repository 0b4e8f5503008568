#pragma once
/// Failures grouped by cause, so that one bug met on four devices and two
/// inputs reads as one problem with its eight trials under it (the console,
/// the HTML page and the JUnit text all group the same way).
///
/// The cause of a failing (fail or error) trial: the line that made the
/// offending tensor, named by its first error finding that has one
/// (Note [Root cause]), the same line on every device whatever the finding's
/// kind there; for findings without a line, the first one's kind, op and
/// message with the trial's device named generically; without findings, its
/// deciding check, subject and device class (cpu, meta, vdev, cuda).

#include "harness/model/results.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// One cause and the trials it failed.
struct FailureGroup {
  std::string key;                  ///< the cause's identity
  std::string summary;              ///< one line: what went wrong, and where in the source
  std::string pattern;              ///< the summary with "<device>" where a trial's device was named
  Status status = Status::kFail;    ///< fail, or error when every trial in it errored
  std::vector<std::string> ids;     ///< the trials, in the order they finished
  std::vector<std::string> devices; ///< the devices they ran on, in first-seen order
  std::vector<std::string> cases;   ///< the cases, in first-seen order

  /// "1 problem in 8 trials on cpu, meta, vdev:0, vdev:1" without the "1 problem" part:
  /// "8 trials on cpu, meta, vdev:0, vdev:1".
  std::string where() const;
};

/// Failures as they arrive, grouped by cause in first-seen order.
class FailureGroups {
 public:
  /// Files a failing trial under its cause; returns the group's index and
  /// whether the cause is new. Passing and skipped trials are ignored
  /// (returns {npos, false}).
  std::pair<size_t, bool> add(const TrialResult& result);
  const std::vector<FailureGroup>& groups() const { return groups_; }
  /// The index of the group a failing trial was filed under.
  std::optional<size_t> problem_of(const std::string& id) const;
  size_t trials() const { return trials_; }
  /// "2 problems in 9 trials" (or "1 problem in 8 trials").
  std::string headline() const;

 private:
  std::vector<FailureGroup> groups_;
  std::map<std::string, size_t> problem_of_;
  size_t trials_ = 0;
};

/// The failures among `results`, grouped.
FailureGroups group_failures(const std::vector<TrialResult>& results);

}  // namespace devparity
