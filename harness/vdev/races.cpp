// The race detector (Note [Race detector] in vdev/async.h): per block of
// memory, the last write and the reads since, each with its actor's clock
// component; a new access races an earlier one of another actor that it
// does not happen after, when either writes and their byte spans meet.

#include "harness/vdev/runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <unordered_set>

namespace devparity::vdev::runtime {
namespace {

constexpr size_t kKeptPerBlock = 64;

struct Found {
  uint64_t session;
  async::Race race;
};

std::mutex g_races_mutex;
std::map<uintptr_t, std::vector<Access>> g_accesses;  // by block base
std::vector<Found> g_found;
std::atomic<async::SiteProvider> g_site{nullptr};

bool meet(const Span& a, const Span& b) { return a.lo < b.hi && b.lo < a.hi; }

bool happens_before(const Access& earlier, const Clock& clock) {
  const auto a = static_cast<size_t>(earlier.actor);
  return a < clock.size() && clock[a] >= earlier.seq;
}

// The same race (ops, streams, sites) is reported once per session.
bool seen(uint64_t session, const async::Race& r) {
  for (const auto& f : g_found) {
    if (f.session == session && f.race.earlier.op == r.earlier.op && f.race.later.op == r.later.op &&
        f.race.earlier.stream == r.earlier.stream && f.race.later.stream == r.later.stream &&
        f.race.earlier.site == r.earlier.site && f.race.later.site == r.later.site) {
      return true;
    }
  }
  return false;
}

void add_locked(async::Race race) {
  const auto session = current_session();
  if (!seen(session, race)) g_found.push_back({session, std::move(race)});
}

// Note [Names the detector keeps]
// Every span of every queued op is an access the detector keeps (its op and
// its source line) and a use of its block (its op and its stream): copied as
// strings, two mallocs and two frees each, a fifth of what the asynchronous
// device added to a small op. The names are few (ops, streams, lines of
// code), so each is kept once for the process and accesses hold pointers.
std::mutex g_names_mutex;

}  // namespace

Name intern(const std::string& text) {
  static auto* names = new std::unordered_set<std::string>();  // (never destroyed: workers may name late)
  const std::lock_guard<std::mutex> lock(g_names_mutex);
  return &*names->insert(text).first;
}

Name current_site() {
  const auto provider = g_site.load();
  return intern(provider == nullptr ? std::string() : provider());
}

void check_access(Access access, const Clock& clock, bool) {
  if (access.span.hi == access.span.lo) return;
  const auto base = block_base(access.span.lo);
  // The earlier accesses this one races; named (streams, memory) only when there are any: this
  // runs for every span of every queued op.
  std::vector<Access> racing;
  {
    const std::lock_guard<std::mutex> lock(g_races_mutex);
    // Kept by block, so that a lookup sees every earlier access of it.
    auto& kept = g_accesses[base];
    std::vector<const Access*> unordered;
    for (const auto& e : kept) {
      if (e.actor == access.actor || !(e.span.write || access.span.write) || !meet(e.span, access.span)) continue;
      if (!happens_before(e, clock)) unordered.push_back(&e);
    }
    for (const auto* e : unordered) {
      // The allocation is the stream's first claim on the block: named only
      // when none of that stream's own work on it races too (Note [Allocation
      // is an access]).
      const bool claimed = *e->op == kAllocation && std::any_of(unordered.begin(), unordered.end(), [&](const Access* o) {
                             return o->actor == e->actor && *o->op != kAllocation;
                           });
      if (!claimed) racing.push_back(*e);
    }
    // A write supersedes what happened before it on the bytes it covers.
    if (access.span.write) {
      kept.erase(std::remove_if(kept.begin(), kept.end(),
                                [&](const Access& r) {
                                  return r.span.lo >= access.span.lo && r.span.hi <= access.span.hi &&
                                         (r.actor == access.actor || happens_before(r, clock));
                                }),
                 kept.end());
    }
    if (racing.empty()) {
      kept.push_back(std::move(access));  // (the common case: nothing left to name)
    } else {
      kept.push_back(access);
    }
    if (kept.size() > kKeptPerBlock) kept.erase(kept.begin());
  }
  if (racing.empty()) return;
  // Outside the lock, as before it: naming takes the scheduler's and the memory's locks.
  const auto stream = actor_label(access.actor);
  bool pinned = false;
  const auto memory = describe_memory(access.span.lo, &pinned);
  for (const auto& e : racing) {
    async::Race race;
    race.earlier = {*e.op, actor_label(e.actor), *e.site, e.span.write};
    race.later = {*access.op, stream, *access.site, access.span.write};
    race.memory = memory.empty() ? std::string("device memory") : memory;
    add_race(std::move(race));
  }
}

void note_allocation(uintptr_t base, size_t bytes, Actor actor, uint64_t seq, Name site) {
  if (bytes == 0) return;
  static const Name allocation = intern(kAllocation);
  Access access{actor, seq, Span{base, base + bytes, /*write=*/true}, allocation, site};
  const std::lock_guard<std::mutex> lock(g_races_mutex);
  g_accesses[base] = {std::move(access)};
}

void forget_accesses(uintptr_t base) {
  const std::lock_guard<std::mutex> lock(g_races_mutex);
  g_accesses.erase(base);
}

void add_race(async::Race race) {
  const std::lock_guard<std::mutex> lock(g_races_mutex);
  add_locked(std::move(race));
}

std::vector<async::Race> take_races(uint64_t session) {
  const std::lock_guard<std::mutex> lock(g_races_mutex);
  std::vector<async::Race> out;
  std::vector<Found> rest;
  for (auto& f : g_found) {
    // Races found off any session's thread (the worker's frees) go to the next to ask.
    if (f.session == session || f.session == 0) {
      out.push_back(std::move(f.race));
    } else {
      rest.push_back(std::move(f));
    }
  }
  g_found = std::move(rest);
  return out;
}

void drop_all_races() {
  const std::lock_guard<std::mutex> lock(g_races_mutex);
  g_found.clear();
  g_accesses.clear();
}

void set_site_provider_fn(async::SiteProvider provider) { g_site.store(provider); }

}  // namespace devparity::vdev::runtime
