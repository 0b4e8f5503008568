#include "harness/base/compare.h"

#include "harness/base/dtype.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace devparity {
namespace {

int64_t ordered_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof(i));
  return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : i;
}

__int128 ordered_bits(double d) {
  int64_t i;
  std::memcpy(&i, &d, sizeof(i));
  return i < 0 ? static_cast<__int128>(INT64_MIN) - i : i;
}

template <typename T>
uint64_t ulp_distance(T a, T b) {
  const auto d = static_cast<__int128>(ordered_bits(a)) - static_cast<__int128>(ordered_bits(b));
  const __int128 m = d < 0 ? -d : d;
  return m > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(m);
}

// Geometry of the pixel grid: planes x height x width, channels collapsed.
struct Grid {
  int64_t planes = 0, channels = 1, height = 1, width = 1;
  bool image = false;
};

Grid grid_of(const at::Tensor& t) {
  Grid g;
  const auto sizes = t.sizes();
  if (sizes.size() < 2) return g;
  g.image = true;
  g.width = sizes[sizes.size() - 1];
  g.height = sizes[sizes.size() - 2];
  g.channels = sizes.size() >= 3 ? sizes[sizes.size() - 3] : 1;
  g.planes = g.height * g.width * g.channels == 0 ? 0 : t.numel() / (g.height * g.width * g.channels);
  return g;
}

SpatialStats spatial(const std::vector<uint8_t>& pixel_mask, const Grid& g) {
  SpatialStats s;
  if (!g.image) {
    s.pattern = "n/a";
    return s;
  }
  const int64_t plane_size = g.height * g.width;
  std::vector<uint8_t> seen(pixel_mask.size(), 0);
  std::deque<int64_t> queue;
  for (int64_t p = 0; p < static_cast<int64_t>(pixel_mask.size()); ++p) {
    if (!pixel_mask[p] || seen[p]) continue;
    // Breadth-first over the 8-connected component of p.
    int64_t size = 0;
    seen[p] = 1;
    queue.push_back(p);
    const int64_t base = (p / plane_size) * plane_size;
    while (!queue.empty()) {
      const int64_t q = queue.front();
      queue.pop_front();
      ++size;
      const int64_t y = (q - base) / g.width, x = (q - base) % g.width;
      for (int64_t dy = -1; dy <= 1; ++dy) {
        for (int64_t dx = -1; dx <= 1; ++dx) {
          const int64_t ny = y + dy, nx = x + dx;
          if ((dy == 0 && dx == 0) || ny < 0 || nx < 0 || ny >= g.height || nx >= g.width) continue;
          const int64_t r = base + ny * g.width + nx;
          if (pixel_mask[r] && !seen[r]) {
            seen[r] = 1;
            queue.push_back(r);
          }
        }
      }
    }
    s.pixels += size;
    if (size == 1) {
      ++s.isolated;
    } else {
      ++s.clusters;
      s.largest_cluster = std::max(s.largest_cluster, size);
    }
  }
  if (s.pixels == 0) s.pattern = "none";
  else if (s.clusters == 0) s.pattern = "isolated";
  else if (s.largest_cluster <= kSpeckPixels) s.pattern = "scattered";
  else s.pattern = "clustered";
  return s;
}

std::vector<int64_t> unravel(int64_t flat, c10::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return index;
}

int bucket_of(int64_t diff) {
  if (diff < 4) return static_cast<int>(diff);
  int b = 2;
  while ((int64_t{1} << b) <= diff) ++b;
  return b;  // 4-7 -> 3, 8-15 -> 4, ..., 128-255 -> 8
}

std::pair<int64_t, int64_t> bucket_range(int b) {
  if (b < 4) return {b, b};
  return {int64_t{1} << (b - 1), (int64_t{1} << b) - 1};
}

// Running totals over the element pairs of one comparison.
template <typename T>
class PairTotals {
 public:
  static constexpr bool kFloating = std::is_floating_point<T>::value;

  PairTotals(const Tolerance& tol, CompareStats& s, const Unrounded* unrounded) : tol_(tol), s_(s) {
    if (unrounded == nullptr) return;
    if (!kFloating && unrounded->known() && unrounded->values.numel() == s.numel) {
      unrounded_ = unrounded;
      unrounded_values_ = unrounded->values.data_ptr<double>();
      s.ties_judged = true;
      if (unrounded->direct.defined() && unrounded->direct.numel() == s.numel) {
        direct_values_ = unrounded->direct.data_ptr<double>();
        s.intermediate_judged = true;
      }
    }
    if (unrounded->ambiguous.defined() && unrounded->ambiguous.numel() == s.numel) {
      ambiguous_ = unrounded->ambiguous.data_ptr<bool>();
      s.sampling_ties_judged = true;
    }
  }

  // Element i; sets whether it differs and whether it is outside the tolerance.
  void add(T ref, T out, int64_t i, bool& differs, bool& bad) {
    differs = bad = false;
    if constexpr (kFloating) {
      const int64_t beyond = s_.beyond_outlier_bound;
      add_floating(ref, out, i, differs, bad);
      if (differs && at_sampling_tie(i)) {
        bad = false;
        s_.beyond_outlier_bound = beyond;
      }
    } else {
      const int64_t d64 = std::llabs(static_cast<int64_t>(out) - static_cast<int64_t>(ref));
      const int b = bucket_of(d64);
      if (static_cast<int>(histogram_.size()) <= b) histogram_.resize(b + 1, 0);
      ++histogram_[b];
      add_finite(static_cast<double>(ref), static_cast<double>(d64), i, differs, bad);
      if (differs && at_sampling_tie(i)) {
        bad = false;
      } else if (differs && unrounded_ != nullptr && explained(ref, out, d64, i)) {
        bad = false;
      }
      if (bad && static_cast<double>(d64) > outlier_bound()) ++s_.beyond_outlier_bound;
    }
  }

  // The summary statistics, the worst element's position and values from the tensors.
  void finish(const at::Tensor& ref_t, const T* ref, const T* out) {
    // A NaN or Inf where the other has a number leads the evidence.
    if (first_special_ >= 0) worst_ = first_special_;
    if (worst_ >= 0) {
      s_.worst_index = unravel(worst_, ref_t.sizes());
      s_.worst_reference = static_cast<double>(ref[worst_]);
      s_.worst_output = static_cast<double>(out[worst_]);
    }
    if (kFloating) s_.max_ulp = max_ulp_;
    s_.mean_abs = finite_pairs_ ? sum_abs_ / static_cast<double>(finite_pairs_) : 0.0;
    s_.mismatch_fraction = s_.numel ? static_cast<double>(s_.mismatches) / static_cast<double>(s_.numel) : 0.0;
    const double peak = kFloating ? 1.0 : 255.0;
    const double mse = finite_pairs_ ? sum_sq_ / static_cast<double>(finite_pairs_) : 0.0;
    s_.psnr_db = mse > 0.0 ? 10.0 * std::log10(peak * peak / mse) : std::numeric_limits<double>::infinity();
    // Honest numbers: |NaN - x| is NaN and |Inf - x| is Inf, whatever the finite pairs say.
    s_.finite_max_abs = s_.max_abs;
    if (s_.nan_mismatches > 0 || s_.inf_mismatches > 0) {
      const double worst = s_.nan_mismatches > 0 ? std::numeric_limits<double>::quiet_NaN()
                                                 : std::numeric_limits<double>::infinity();
      s_.max_abs = s_.mean_abs = s_.max_rel = worst;
      s_.psnr_db = s_.nan_mismatches > 0 ? worst : -worst;
    }
    for (int b = 0; b < static_cast<int>(histogram_.size()); ++b) {
      if (histogram_[b] == 0) continue;
      const auto range = bucket_range(b);
      s_.histogram.push_back({range.first, range.second, histogram_[b]});
    }
  }

 private:
  // NaN and Inf must sit at the same positions; finite pairs are compared by value and in ULPs.
  void add_floating(T ref, T out, int64_t i, bool& differs, bool& bad) {
    const double e = static_cast<double>(ref), a = static_cast<double>(out);
    const bool e_nan = std::isnan(e), a_nan = std::isnan(a);
    const bool e_inf = std::isinf(e), a_inf = std::isinf(a);
    if (e_nan || a_nan) {
      if (e_nan != a_nan) {
        ++s_.nan_mismatches;
        differs = bad = true;
      }
    } else if (e_inf || a_inf) {
      if (e != a) {
        ++s_.inf_mismatches;
        differs = bad = true;
      }
    }
    if (differs) ++s_.beyond_outlier_bound;  // NaN and Inf are beyond any bound
    if (differs && first_special_ < 0) first_special_ = i;
    if (e_nan || a_nan || e_inf || a_inf) return;
    const double d = std::fabs(a - e);
    if (d > 0.0) max_ulp_ = std::max(max_ulp_, ulp_distance(ref, out));
    add_finite(e, d, i, differs, bad);
    if (bad && d > outlier_bound()) ++s_.beyond_outlier_bound;
  }

  // A +-1 difference between `low` and low + 1: at a rounding tie when the
  // reference's unrounded value lies within the stated epsilon (and its own
  // error bound) of the boundary between the two; a tie is never a mismatch.
  // A difference of an integer output, with the reference's unrounded value:
  // a +-1 at a rounding tie (the value within the stated epsilon, and the
  // reference's own error, of the boundary between the two integers); else,
  // with a direct value (Note [Intermediate rounding]), one the reference's
  // intermediate rounding or clipping explains: without it the reference
  // would have reached the output, or its tie. Returns whether it is excused.
  bool explained(T ref, T out, int64_t d64, int64_t i) {
    const double slack = tol_.tie_epsilon + unrounded_->error_at(i);
    if (d64 == 1) {
      const double boundary = unrounded_->boundary(static_cast<double>(std::min<int64_t>(ref, out)));
      if (std::fabs(unrounded_values_[i] - boundary) <= slack) {
        ++s_.rounding_ties;
        return true;
      }
    }
    if (direct_values_ != nullptr) {
      const double direct = direct_values_[i];
      const bool reaches = out > ref ? direct >= unrounded_->boundary(static_cast<double>(out) - 1.0) - slack
                                     : direct <= unrounded_->boundary(static_cast<double>(out)) + slack;
      if (reaches) {
        ++s_.intermediate_rounding;
        return tol_.excuse_intermediate_rounding;
      }
    }
    if (d64 == 1) ++s_.off_by_one_elsewhere;
    return false;
  }

  // A difference where the reference picked at a midpoint (Note [Sampling ties]).
  bool at_sampling_tie(int64_t i) {
    if (ambiguous_ == nullptr || !ambiguous_[i]) return false;
    ++s_.sampling_ties;
    return true;
  }

  // A finite pair at distance d from the reference value e.
  void add_finite(double e, double d, int64_t i, bool& differs, bool& bad) {
    ++finite_pairs_;
    sum_abs_ += d;
    sum_sq_ += d * d;
    if (d <= 0.0) return;
    differs = true;
    bad = d > tol_.atol + tol_.rtol * std::fabs(e);
    s_.max_rel = std::max(s_.max_rel, e != 0.0 ? d / std::fabs(e) : std::numeric_limits<double>::infinity());
    if (d > s_.max_abs) {
      s_.max_abs = d;
      worst_ = i;
    }
  }

  // Mismatches up to this are what mismatch_fraction may allow.
  double outlier_bound() const {
    return tol_.mismatch_fraction > 0.0 ? std::max(tol_.outlier_atol, tol_.atol) : tol_.atol;
  }

  const Tolerance& tol_;
  CompareStats& s_;
  const Unrounded* unrounded_ = nullptr;
  const double* unrounded_values_ = nullptr;
  const double* direct_values_ = nullptr;
  const bool* ambiguous_ = nullptr;
  std::vector<int64_t> histogram_;
  double sum_abs_ = 0.0, sum_sq_ = 0.0;
  int64_t finite_pairs_ = 0, worst_ = -1, first_special_ = -1;
  uint64_t max_ulp_ = 0;
};

template <typename T>
CompareStats compare_typed(const at::Tensor& ref_t, const at::Tensor& out_t, const Tolerance& tol,
                           const Unrounded* unrounded = nullptr) {
  const T* ref = ref_t.data_ptr<T>();
  const T* out = out_t.data_ptr<T>();
  CompareStats s;
  s.numel = ref_t.numel();
  const Grid grid = grid_of(ref_t);
  const int64_t plane_pixels = grid.height * grid.width;
  std::vector<uint8_t> diff_pixels(grid.image ? grid.planes * plane_pixels : 0, 0);
  std::vector<uint8_t> bad_pixels(diff_pixels.size(), 0);
  PairTotals<T> totals(tol, s, unrounded);
  for (int64_t i = 0; i < s.numel; ++i) {
    bool differs = false, bad = false;
    totals.add(ref[i], out[i], i, differs, bad);
    if (differs) ++s.differing;
    if (bad) ++s.mismatches;
    if (grid.image && (differs || bad)) {
      const int64_t plane = i / (grid.channels * plane_pixels);
      const int64_t pixel = plane * plane_pixels + i % plane_pixels;
      if (differs) diff_pixels[pixel] = 1;
      if (bad) bad_pixels[pixel] = 1;
    }
  }
  totals.finish(ref_t, ref, out);
  s.differences = spatial(diff_pixels, grid);
  s.mismatched = spatial(bad_pixels, grid);
  return s;
}

nlohmann::json spatial_json(const SpatialStats& s) {
  return {{"pattern", s.pattern},   {"pixels", s.pixels},   {"isolated", s.isolated},
          {"clusters", s.clusters}, {"largest_cluster", s.largest_cluster}};
}

}  // namespace


NonFinite non_finite_of(const at::Tensor& tensor) {
  NonFinite out;
  if (!at::isFloatingType(tensor.scalar_type()) || tensor.numel() == 0) return out;
  const auto values = tensor.to(at::kCPU).flatten();
  const auto bad = values.isfinite().logical_not();
  out.count = bad.sum().item<int64_t>();
  if (out.count == 0) return out;
  const auto flat = bad.nonzero()[0][0].item<int64_t>();
  out.first = unravel(flat, tensor.sizes());
  out.first_value = values[flat].item<double>();
  return out;
}


bool CompareStats::within(const Tolerance& tolerance) const {
  const auto allowed = static_cast<int64_t>(
      std::floor(tolerance.mismatch_fraction * static_cast<double>(numel) + 1e-9));
  return beyond_outlier_bound == 0 && mismatches <= allowed;
}

nlohmann::json CompareStats::to_json() const {
  nlohmann::json j = {
      {"numel", numel},
      {"max_abs", json_number(max_abs)},
      {"mean_abs", json_number(mean_abs)},
      {"max_rel", json_number(max_rel)},
      {"differing", differing},
      {"mismatches", mismatches},
      {"mismatch_fraction", json_number(mismatch_fraction)},
      {"beyond_outlier_bound", beyond_outlier_bound},
      {"nan_mismatches", nan_mismatches},
      {"inf_mismatches", inf_mismatches},
      {"psnr_db", json_number(psnr_db)},
      {"differences", spatial_json(differences)},
      {"mismatched", spatial_json(mismatched)},
  };
  if (max_ulp) j["max_ulp"] = *max_ulp;
  if (nan_mismatches > 0 || inf_mismatches > 0) j["finite_max_abs"] = json_number(finite_max_abs);
  if (ties_judged) {
    j["rounding_ties"] = rounding_ties;
    j["off_by_one_elsewhere"] = off_by_one_elsewhere;
  }
  if (intermediate_judged) j["intermediate_rounding"] = intermediate_rounding;
  if (sampling_ties_judged) j["sampling_ties"] = sampling_ties;
  if (!worst_index.empty()) {
    j["worst"] = {{"index", worst_index},
                  {"reference", json_number(worst_reference)},
                  {"output", json_number(worst_output)}};
  }
  if (!histogram.empty()) {
    auto h = nlohmann::json::array();
    for (const auto& b : histogram) h.push_back({{"low", b.low}, {"high", b.high}, {"count", b.count}});
    j["abs_diff_histogram"] = h;
  }
  return j;
}

CompareStats compare_tensors(const at::Tensor& reference, const at::Tensor& output,
                             const Tolerance& tolerance, const Unrounded* unrounded) {
  if (reference.sizes() != output.sizes()) {
    throw std::invalid_argument("compare_tensors: shapes differ");
  }
  if (reference.scalar_type() != output.scalar_type()) {
    throw std::invalid_argument("compare_tensors: dtypes differ");
  }
  auto ref = reference.to(at::kCPU).contiguous();
  auto out = output.to(at::kCPU).contiguous();
  switch (ref.scalar_type()) {
    case at::kFloat: return compare_typed<float>(ref, out, tolerance, unrounded);
    case at::kDouble: return compare_typed<double>(ref, out, tolerance, unrounded);
    case at::kHalf:
    case at::kBFloat16: {
      // Compared in float32; ULP distances are then float32's.
      return compare_typed<float>(ref.to(at::kFloat), out.to(at::kFloat), tolerance, unrounded);
    }
    case at::kByte: return compare_typed<uint8_t>(ref, out, tolerance, unrounded);
    case at::kChar: return compare_typed<int8_t>(ref, out, tolerance, unrounded);
    case at::kShort: return compare_typed<int16_t>(ref, out, tolerance, unrounded);
    case at::kInt: return compare_typed<int32_t>(ref, out, tolerance, unrounded);
    case at::kLong: return compare_typed<int64_t>(ref, out, tolerance, unrounded);
    case at::kBool: return compare_typed<uint8_t>(ref.to(at::kByte), out.to(at::kByte), tolerance);
    default:
      throw std::invalid_argument("compare_tensors: unsupported dtype " +
                                  dtype_name(ref.scalar_type()));
  }
}

}  // namespace devparity
