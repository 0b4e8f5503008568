#pragma once
/// Progress of the long steps before a run's first trial (checking a suite's
/// variants, making the plan): a huge grid once printed nothing for 90 s
/// (issue 41). While a PhaseProgress lives, a thread of its own prints a
/// line at least every configured number of seconds: what it does, how far
/// it is, and for how long. Off until configure() turns it on (the CLI's
/// run, with --progress-s), so library callers and workers print nothing.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

namespace devparity {

class PhaseProgress {
 public:
  /// Lines at least every `every_s` seconds to `out` (0: none).
  static void configure(double every_s, std::ostream* out);

  /// A step of `total` units of `unit` ("variant-inputs checked"), named by
  /// `what` ("loading cases/x.json, case huge").
  PhaseProgress(std::string what, uint64_t total, std::string unit);
  ~PhaseProgress();
  PhaseProgress(const PhaseProgress&) = delete;
  PhaseProgress& operator=(const PhaseProgress&) = delete;

  /// `n` more units done (any thread).
  void advance(uint64_t n = 1);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace devparity
