#include "harness/model/run_listener.h"

#include <exception>

namespace devparity {

void ListenerList::add(std::unique_ptr<RunListener> listener) {
  if (!listener) return;
  listeners_.push_back(listener.get());
  owned_.push_back(std::move(listener));
}

void ListenerList::on_run_start(const RunInfo& info) {
  for (auto& l : listeners_) l->on_run_start(info);
}

void ListenerList::on_case_start(const CaseInfo& info) {
  for (auto& l : listeners_) l->on_case_start(info);
}

void ListenerList::on_trial_start(const std::string& id) {
  for (auto& l : listeners_) l->on_trial_start(id);
}

void ListenerList::on_trial_end(const TrialResult& result) {
  for (auto it = listeners_.rbegin(); it != listeners_.rend(); ++it) (*it)->on_trial_end(result);
}

void ListenerList::on_case_end(const CaseInfo& info, const StatusCounts& counts) {
  for (auto it = listeners_.rbegin(); it != listeners_.rend(); ++it) (*it)->on_case_end(info, counts);
}

void ListenerList::on_run_end(const RunSummary& summary) {
  // Every reporter gets to write its file, even when one before it threw
  // (a JUnit path that cannot be written must not cost the JSON report);
  // the first exception is rethrown afterwards.
  std::exception_ptr first;
  for (auto it = listeners_.rbegin(); it != listeners_.rend(); ++it) {
    try {
      (*it)->on_run_end(summary);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace devparity
