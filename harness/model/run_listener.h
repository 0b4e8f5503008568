#pragma once
/// Runner events, in firing order (googletest's TestEventListener pattern).
/// Reporters are listeners; so are progress displays and test recorders.

#include "harness/model/results.h"

#include <memory>
#include <vector>

namespace devparity {

/// Receives the runner's events. Every method has a no-op default
/// (googletest's EmptyTestEventListener folded in).
class RunListener {
 public:
  virtual ~RunListener() = default;
  /// Once, before the first trial: tool, run options, environment, plan size.
  virtual void on_run_start(const RunInfo& info) {}
  /// Before the first trial of a case.
  virtual void on_case_start(const CaseInfo& info) {}
  /// Before a trial runs.
  virtual void on_trial_start(const std::string& id) {}
  /// After a trial's checks, with its final result.
  virtual void on_trial_end(const TrialResult& result) {}
  /// After the last trial of a case, with the case's totals.
  virtual void on_case_end(const CaseInfo& info, const StatusCounts& counts) {}
  /// Once, after the last trial (also after an interrupted run), with totals.
  virtual void on_run_end(const RunSummary& summary) {}
};

/// Fans events out: start events in order, end events in reverse
/// (googletest's TestEventRepeater), so the first listener sees the last word.
class ListenerList final : public RunListener {
 public:
  /// Adds a listener; the list owns it.
  void add(std::unique_ptr<RunListener> listener);
  /// Adds a listener the caller keeps alive while the list is used.
  void add(RunListener& listener) { listeners_.push_back(&listener); }
  /// Number of listeners.
  size_t size() const { return listeners_.size(); }

  void on_run_start(const RunInfo& info) override;
  void on_case_start(const CaseInfo& info) override;
  void on_trial_start(const std::string& id) override;
  void on_trial_end(const TrialResult& result) override;
  void on_case_end(const CaseInfo& info, const StatusCounts& counts) override;
  void on_run_end(const RunSummary& summary) override;

 private:
  std::vector<std::unique_ptr<RunListener>> owned_;
  std::vector<RunListener*> listeners_;
};

}  // namespace devparity
