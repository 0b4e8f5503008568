#pragma once
/// The source lines of forward ops, for the backward work autograd records
/// on its own threads (internal to trace/, Note [Backward lines]).

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace devparity::tracing {

// Note [Backward lines]: the lines of the top-level ops that recorded
// autograd work, by forward thread, in increasing sequence numbers. A run of
// ops on one line keeps its first entry alone (the lookup takes the last
// entry at or before a number, so the run's later ones add nothing), and
// each line is held once: a backward test runs a thousand ops a call.
class ForwardLines {
 public:
  void add(uint64_t thread, int64_t seq, std::string line) {
    auto& entries = by_thread_[thread];
    if (entries.empty() || entries.back().first <= seq) {
      if (!entries.empty() && *entries.back().second == line) return;
      entries.emplace_back(seq, intern(std::move(line)));
      return;
    }
    const auto it = std::lower_bound(entries.begin(), entries.end(), seq,
                                     [](const Entry& e, int64_t value) { return e.first < value; });
    if (it != entries.end() && it->first == seq) {
      it->second = intern(std::move(line));
    } else {
      entries.insert(it, {seq, intern(std::move(line))});
    }
  }

  /// The line of the last op recorded at or before `seq` on `thread`; null if none.
  const std::string* at(uint64_t thread, int64_t seq) const {
    const auto found = by_thread_.find(thread);
    if (found == by_thread_.end()) return nullptr;
    const auto& entries = found->second;
    const auto it = std::upper_bound(entries.begin(), entries.end(), seq,
                                     [](int64_t value, const Entry& e) { return value < e.first; });
    return it == entries.begin() ? nullptr : std::prev(it)->second;
  }

 private:
  using Entry = std::pair<int64_t, const std::string*>;
  const std::string* intern(std::string line) { return &*lines_.insert(std::move(line)).first; }

  std::unordered_map<uint64_t, std::vector<Entry>> by_thread_;
  std::unordered_set<std::string> lines_;  // node-based: the pointers stay valid
};

}  // namespace devparity::tracing
