#pragma once
/// Element-wise comparison of a device's output with the reference output.

#include "harness/base/rounding.h"
#include "harness/base/text.h"  // json_number, number_text: statistics are written with them
#include "harness/base/tolerance.h"

#include <ATen/core/Tensor.h>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

/// Where a set of pixels lies: single pixels or small specks (salt and
/// pepper, the signature of rounding) or connected regions (a misplaced edge,
/// a wrong kernel, a corrupt block). Pixels are (plane, y, x), channels
/// collapsed, 8-connected.
struct SpatialStats {
  /// none | isolated (every pixel alone) | scattered (specks of at most
  /// kSpeckPixels) | clustered (a region larger than that) | n/a (not an image)
  std::string pattern = "none";
  int64_t pixels = 0;            ///< pixels with at least one channel in the set
  int64_t isolated = 0;          ///< of those, pixels with no 8-neighbour in the set
  int64_t clusters = 0;          ///< 8-connected groups of two or more pixels
  int64_t largest_cluster = 0;   ///< pixels in the largest group
};

/// The largest group of connected pixels still called a speck (a 3x3 block).
constexpr int64_t kSpeckPixels = 9;

/// One bucket of the |diff| histogram (integer dtypes).
struct HistogramBucket {
  int64_t low = 0;   ///< smallest |diff| in the bucket
  int64_t high = 0;  ///< largest |diff| in the bucket
  int64_t count = 0;
};

/// Statistics of output vs reference.
struct CompareStats {
  int64_t numel = 0;
  /// max |out - ref|: NaN when NaN stands where the other has a number,
  /// else infinite when an infinity does (nan_mismatches, inf_mismatches);
  /// otherwise over the elements, NaN and equal infinities matching.
  double max_abs = 0.0;
  double finite_max_abs = 0.0;  ///< max |out - ref| over the pairs finite in both
  double mean_abs = 0.0;  ///< mean |out - ref|, NaN or infinite as max_abs
  double max_rel = 0.0;   ///< max |out - ref| / |ref|; infinite when ref is 0 and out is not; as max_abs
  std::optional<uint64_t> max_ulp;  ///< floating dtypes: max distance in units in the last place
  int64_t differing = 0;            ///< elements that differ at all
  int64_t mismatches = 0;           ///< elements outside atol/rtol, NaN/Inf mismatches included
  double mismatch_fraction = 0.0;   ///< mismatches / numel
  int64_t beyond_outlier_bound = 0; ///< of the mismatches, those beyond outlier_atol (never allowed)
  /// Integer outputs whose reference noted its unrounded values: whether
  /// ties were judged, and the +-1 differences found at a rounding tie
  /// (not mismatches) and elsewhere.
  bool ties_judged = false;
  int64_t rounding_ties = 0;
  int64_t off_by_one_elsewhere = 0;
  /// Where the reference also noted its value without an intermediate
  /// rounding (Note [Intermediate rounding]): the differences, not at a tie,
  /// that the intermediate rounding or clipping explains, of any size
  /// (mismatches unless the tolerance excuses them). Not counted in
  /// off_by_one_elsewhere.
  bool intermediate_judged = false;
  int64_t intermediate_rounding = 0;
  /// Where the reference noted nearest-neighbour picks at exact midpoints
  /// (Note [Sampling ties]): elements that differ there, by any amount;
  /// never mismatches, and not counted in the +-1 classes above.
  bool sampling_ties_judged = false;
  int64_t sampling_ties = 0;
  int64_t nan_mismatches = 0;       ///< NaN in exactly one of the two
  int64_t inf_mismatches = 0;       ///< infinite in one, or infinities of opposite sign
  std::vector<int64_t> worst_index;  ///< the first NaN/Inf mismatch, else the largest |diff|
  double worst_reference = 0.0;      ///< reference value there
  double worst_output = 0.0;         ///< output value there
  std::vector<HistogramBucket> histogram;  ///< integer dtypes: |diff| buckets 0,1,2,3,4-7,8-15,...
  SpatialStats differences;  ///< where any difference is
  SpatialStats mismatched;   ///< where the out-of-tolerance elements are
  /// Peak 255 (integers) or 1 (floats); NaN with a NaN mismatch, -Infinity with an Inf one.
  double psnr_db = std::numeric_limits<double>::infinity();

  /// True when no mismatch is beyond the outlier bound and the mismatches
  /// fit within the tolerance's allowed fraction.
  bool within(const Tolerance& tolerance) const;
  /// The statistics as written in reports (non-finite numbers as strings).
  nlohmann::json to_json() const;
};

/// Compares two tensors of the same shape and dtype (any device; they are
/// copied to the CPU). `unrounded`, when known, holds the reference's values
/// before rounding (integer dtypes): +-1 differences are then judged for
/// rounding ties. Throws std::invalid_argument when shapes or dtypes differ.
CompareStats compare_tensors(const at::Tensor& reference, const at::Tensor& output,
                             const Tolerance& tolerance, const Unrounded* unrounded = nullptr);

/// The NaN and Inf elements of a tensor (none for integer dtypes).
struct NonFinite {
  int64_t count = 0;
  std::vector<int64_t> first;  ///< index of the first, in row-major order
  double first_value = 0.0;
};

/// Counts them (any device; copied to the CPU when there are values).
NonFinite non_finite_of(const at::Tensor& tensor);



}  // namespace devparity
