#pragma once
/// Random parameters, drawn on the CPU from a seeded generator with the same
/// torch::rand calls, in the same order and shapes, as Kornia's generators
/// make on torch's global generator: equal seeds give equal parameters
/// (torch.manual_seed(s) and at::make_generator<CPUGeneratorImpl>(s) start the
/// same Mersenne Twister).

#include "harness/subject/transform.h"

#include <ATen/core/Generator.h>
#include <nlohmann/json_fwd.hpp>

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

/// A per-sample value, drawn when absent (Note [Explicit values]). Declared
/// once: its name, documented form and meaning give its doc; the gate knows
/// it by the declaration; read() takes numbers in [min, max]. Values of other
/// shapes (pairs, permutations) are read by their transform under `name`.
struct PerSample {
  const char* name;
  const char* type;  ///< the documented form: "[number per sample]"
  const char* meaning;
  double min = 0.0, max = 0.0;

  bool given(ObjectReader& reader) const;
  /// One number per sample, or one for all (repeated), each in [min, max].
  /// Absent: nullopt. Throws FieldError at the field.
  std::optional<std::vector<double>> read(ObjectReader& reader, int64_t batch) const;
  ParamDoc doc() const;  ///< default "drawn"
};

/// The docs of `values`, in order.
std::vector<ParamDoc> docs(std::initializer_list<const PerSample*> values);

/// The gate of a transform with explicit per-sample values: the "apply"
/// field (one bool per sample) when given; else all true when any of
/// `explicit_values` is given (explicit values stand for the gate); else
/// gate(). Throws FieldError at "apply".
std::vector<bool> read_gate(ObjectReader& reader, int64_t batch, at::Generator& generator, double p,
                            bool same_on_batch, std::initializer_list<const PerSample*> explicit_values);

/// A per-channel value declared once (erasing's value, a warp's fill): a
/// number (one for all channels) or a non-empty list, each in [lo, hi]; its
/// name, documented form, default and meaning give its doc.
struct PerChannel {
  const char* name;
  const char* type;         ///< the documented form: "number or [per channel]"
  const char* default_text; ///< JSON text of the default: "0", "null"
  double lo, hi;
  const char* meaning;

  /// The values as given; absent or null: nullopt. Throws FieldError at the field.
  std::optional<std::vector<double>> read(ObjectReader& reader) const;
  /// One value per channel of `channels`: a single one (or `fallback`, when
  /// absent) repeated. Throws FieldError at the field when a list's length
  /// is not the channel count.
  std::vector<double> read_for(ObjectReader& reader, int64_t channels, double fallback) const;
  ParamDoc doc() const;
};

/// A range parameter: a number x means (x, x); [lo, hi] needs lo <= hi; both
/// within [min, max]. Absent: `fallback`. Throws FieldError at the field.
std::pair<double, double> read_range(ObjectReader& reader, const std::string& key,
                                     std::pair<double, double> fallback, double min, double max);

/// A draw range declared once: its name, default, bounds and meaning give
/// its reading (read_range), its written value and its parameter's doc.
struct DrawRange {
  const char* name;
  std::pair<double, double> fallback;
  double min, max;
  const char* meaning;
  /// The documented type where the bounds read badly as numbers ("(0, 1]"); null: from them.
  const char* type = nullptr;

  std::pair<double, double> read(ObjectReader& reader) const;
  void write(nlohmann::json& out, std::pair<double, double> value) const;
  ParamDoc doc() const;
};

/// A seed drawn when absent (a random field's, conv2d's weights'): the
/// report gives it, so a case can pin it to replay a trial.
struct DrawnSeed {
  const char* name;
  const char* of;  ///< what it seeds, for the doc: "the field"

  /// The given seed (an integer in [0, 2^53]) or a fresh draw_seed().
  uint64_t read(ObjectReader& reader, at::Generator& generator) const;
  ParamDoc doc() const;
};

/// The seed of a random field (elastic's displacements, noise, plasma).
inline const DrawnSeed kFieldSeed{"seed", "the field"};

/// Kornia's random prologue, shared by the random transforms that gate per
/// sample: p, same_on_batch (where the transform takes it) and the gate
/// (read_gate), read in this order, which is the order they draw in.
struct RandomGate {
  double p = 0.5;
  bool same_on_batch = false;
  std::vector<bool> apply;

  /// `explicit_values`: the transform's per-sample values, which stand for
  /// the gate when given. Without `with_same`, same_on_batch is not read.
  static RandomGate read(ObjectReader& reader, int64_t batch, at::Generator& generator,
                         std::initializer_list<const PerSample*> explicit_values, bool with_same = true);
  /// "p", "same_on_batch" (with_same) and "apply".
  void write(nlohmann::json& out, bool with_same = true) const;
  /// The parameters above, documented; `apply_meaning` in the transform's words.
  static std::vector<ParamDoc> docs(bool with_same, const std::string& apply_meaning);
};

}  // namespace random_draws
}  // namespace devparity
