#pragma once
/// Random parameters, drawn on the CPU from a seeded generator with the same
/// torch::rand calls, in the same order and shapes, as Kornia's generators
/// make on torch's global generator: equal seeds give equal parameters
/// (torch.manual_seed(s) and at::make_generator<CPUGeneratorImpl>(s) start the
/// same Mersenne Twister).

#include <ATen/core/Generator.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

class ObjectReader;

namespace random_draws {

/// `batch` values of U(low, high) in float32, as torch's Uniform.rsample:
/// low + rand(batch) * (high - low). With same_on_batch, one draw repeated.
std::vector<float> uniform(at::Generator& generator, int64_t batch, float low, float high,
                           bool same_on_batch);


/// Kornia's per-sample gate: p == 1 gives all true and p == 0 all false
/// without drawing; otherwise rand(batch) < p (rand(1) repeated with
/// same_on_batch).
std::vector<bool> gate(at::Generator& generator, int64_t batch, double p, bool same_on_batch);

/// The gate of a transform with explicit per-sample values: the "apply"
/// field (one bool per sample) when given; else all true when any of
/// `explicit_keys` is given (explicit values stand for the gate); else
/// gate(). Throws FieldError at "apply".
std::vector<bool> read_gate(ObjectReader& reader, int64_t batch, at::Generator& generator, double p,
                            bool same_on_batch, std::initializer_list<const char*> explicit_keys);

/// A per-channel parameter: a number (one for all channels) or a non-empty
/// list, each in [lo, hi]. Absent or null: nullopt. The caller matches the
/// list against the channel count.
std::optional<std::vector<double>> read_per_channel(ObjectReader& reader, const std::string& key, double lo,
                                                    double hi);

/// A range parameter: a number x means (x, x); [lo, hi] needs lo <= hi; both
/// within [min, max]. Absent: `fallback`. Throws FieldError at the field.
std::pair<double, double> read_range(ObjectReader& reader, const std::string& key,
                                     std::pair<double, double> fallback, double min, double max);

/// An explicit per-sample list: one number per sample (or one for all, which
/// is repeated), each in [min, max]. Absent: nullopt.
std::optional<std::vector<double>> read_per_sample(ObjectReader& reader, const std::string& key,
                                                   int64_t batch, double min, double max);

}  // namespace random_draws
}  // namespace devparity
