#include "harness/base/compare.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace devparity {
namespace {

at::Tensor floats(std::vector<float> v, std::vector<int64_t> shape) {
  return at::tensor(v, at::kFloat).reshape(shape);
}

TEST(CompareTest, HandComputedFloatStatistics) {
  const auto ref = floats({1.0f, 2.0f, 4.0f, 0.0f}, {4});
  const auto out = floats({1.0f, 2.5f, 3.0f, 0.0f}, {4});
  Tolerance tol;  // exact
  const auto s = compare_tensors(ref, out, tol);
  EXPECT_EQ(s.numel, 4);
  EXPECT_DOUBLE_EQ(s.max_abs, 1.0);           // |3 - 4|
  EXPECT_DOUBLE_EQ(s.mean_abs, 1.5 / 4.0);    // (0.5 + 1) / 4
  EXPECT_DOUBLE_EQ(s.max_rel, 0.25);          // 0.5/2 and 1/4
  EXPECT_EQ(s.differing, 2);
  EXPECT_EQ(s.mismatches, 2);
  EXPECT_DOUBLE_EQ(s.mismatch_fraction, 0.5);
  EXPECT_EQ(s.worst_index, std::vector<int64_t>{2});
  EXPECT_EQ(s.worst_reference, 4.0);
  EXPECT_EQ(s.worst_output, 3.0);
  EXPECT_FALSE(s.within(tol));
  // MSE = (0.25 + 1) / 4; PSNR = 10 log10(1 / MSE) with peak 1 for floats.
  EXPECT_NEAR(s.psnr_db, 10.0 * std::log10(4.0 / 1.25), 1e-12);
  EXPECT_EQ(s.differences.pattern, "n/a");  // 1-D is not an image
}

TEST(CompareTest, ToleranceIsAtolPlusRtolTimesReference) {
  const auto ref = floats({100.0f, 1.0f}, {2});
  const auto out = floats({100.05f, 1.05f}, {2});
  Tolerance tol;
  tol.atol = 0.01;
  tol.rtol = 1e-3;  // allows 0.11 at 100 and 0.011 at 1
  const auto s = compare_tensors(ref, out, tol);
  EXPECT_EQ(s.mismatches, 1);
  EXPECT_EQ(s.worst_index, std::vector<int64_t>{0});  // largest |diff| is at 100
  tol.mismatch_fraction = 0.5;
  tol.outlier_atol = 0.1;
  EXPECT_TRUE(compare_tensors(ref, out, tol).within(tol));
  tol.mismatch_fraction = 0.49;
  EXPECT_FALSE(compare_tensors(ref, out, tol).within(tol));
}

// The allowed fraction covers only elements within outlier_atol: one element
// off by 50 among 1,000 fails, where the fraction alone (1%) let it pass.
TEST(CompareTest, AnOutlierBeyondTheBoundFailsWhateverTheFraction) {
  auto ref = at::full({1000}, 100, at::kByte);
  auto out = ref.clone();
  out.narrow(0, 0, 5).add_(2);   // five off by 2: outliers within the bound
  Tolerance tol;
  tol.atol = 1;
  tol.mismatch_fraction = 0.01;
  tol.outlier_atol = 3;
  auto s = compare_tensors(ref, out, tol);
  EXPECT_EQ(s.mismatches, 5);
  EXPECT_EQ(s.beyond_outlier_bound, 0);
  EXPECT_TRUE(s.within(tol));
  out[7] = 150;                  // one off by 50
  s = compare_tensors(ref, out, tol);
  EXPECT_EQ(s.mismatches, 6);    // 0.6%: under the fraction, as before
  EXPECT_EQ(s.beyond_outlier_bound, 1);
  EXPECT_FALSE(s.within(tol));
  EXPECT_EQ(s.to_json()["beyond_outlier_bound"], 1);
  // NaN is beyond any bound.
  Tolerance ftol = tol;
  const auto fs = compare_tensors(floats({1.0f, 2.0f}, {2}), floats({1.0f, NAN}, {2}), ftol);
  EXPECT_EQ(fs.beyond_outlier_bound, 1);
  ftol.mismatch_fraction = 1.0;
  EXPECT_FALSE(fs.within(ftol));
}

at::Tensor bytes(std::vector<uint8_t> v) { return at::tensor(v, at::kByte); }

Unrounded unrounded(std::vector<double> v, Rounding rounding, double error_bound = 0.0) {
  Unrounded u;
  u.values = at::tensor(v, at::kDouble);
  u.rounding = rounding;
  u.error_bound = error_bound;
  return u;
}

TEST(CompareTest, PlusMinusOneAtARoundingTieIsNotAMismatch) {
  // 10.5 is a tie between 10 and 11 (either rounding is right); 20.3 rounds
  // to 20 only, so 21 is a real difference; 30.5 is a tie, but not between
  // 30 and 32 (a difference of 2 is never a tie).
  const auto ref = bytes({10, 20, 30, 40});
  const auto out = bytes({11, 21, 32, 40});
  const auto u = unrounded({10.5, 20.3, 30.5, 40.0}, Rounding::kHalfEven);
  const Tolerance exact;
  const auto s = compare_tensors(ref, out, exact, &u);
  EXPECT_TRUE(s.ties_judged);
  EXPECT_EQ(s.rounding_ties, 1);
  EXPECT_EQ(s.off_by_one_elsewhere, 1);
  EXPECT_EQ(s.differing, 3);
  EXPECT_EQ(s.mismatches, 2);
  EXPECT_EQ(s.to_json()["rounding_ties"], 1);
  EXPECT_EQ(s.to_json()["off_by_one_elsewhere"], 1);
  // Blind (no unrounded values): all three are mismatches, nothing judged.
  const auto blind = compare_tensors(ref, out, exact);
  EXPECT_FALSE(blind.ties_judged);
  EXPECT_EQ(blind.mismatches, 3);
  EXPECT_FALSE(blind.to_json().contains("rounding_ties"));
}

TEST(CompareTest, TieEpsilonAndErrorBoundAreTheStatedDistance) {
  const auto ref = bytes({10, 10});
  const auto out = bytes({11, 11});
  Tolerance tol;  // tie_epsilon 1e-3
  auto u = unrounded({10.4995, 10.498}, Rounding::kHalfUp);
  auto s = compare_tensors(ref, out, tol, &u);
  EXPECT_EQ(s.rounding_ties, 1);  // 5e-4 from 10.5: within; 2e-3: not
  EXPECT_EQ(s.mismatches, 1);
  u.error_bound = 1.5e-3;         // the reference's own error widens the band
  s = compare_tensors(ref, out, tol, &u);
  EXPECT_EQ(s.rounding_ties, 2);
  EXPECT_TRUE(s.within(tol));
  tol.tie_epsilon = 0.0;
  u.error_bound = 0.0;
  s = compare_tensors(ref, out, tol, &u);
  EXPECT_EQ(s.rounding_ties, 0);
}

TEST(CompareTest, TruncationTiesSitAtTheUpperInteger) {
  // Truncation: 10.9996 is 10 here and may be 11 on a device one ulp above;
  // 10.5 truncates to 10 on every device, so 11 is a real difference.
  const auto ref = bytes({10, 10});
  const auto out = bytes({11, 11});
  const auto u = unrounded({10.9996, 10.5}, Rounding::kTruncate);
  const auto s = compare_tensors(ref, out, Tolerance{}, &u);
  EXPECT_EQ(s.rounding_ties, 1);
  EXPECT_EQ(s.off_by_one_elsewhere, 1);
  EXPECT_EQ(s.mismatches, 1);
}

TEST(CompareTest, IntermediateRoundingIsToldApartAndExcusedOnlyWhenAsked) {
  // The reference rounded between two stages (Note [Intermediate rounding]):
  // 1) ref 10, out 11, direct 10.7: without the intermediate it would be 11;
  // 2) ref 250, out 255, direct 262.0: its intermediate clipped bicubic
  //    overshoot, the output saturated: explained at any size;
  // 3) ref 30, out 31, direct 30.2: not explained, a real difference;
  // 4) ref 40, out 39, direct 39.6 rounds to 40 as the reference did: not explained.
  const auto ref = bytes({10, 250, 30, 40});
  const auto out = bytes({11, 255, 31, 39});
  auto u = unrounded({10.2, 250.1, 30.3, 40.1}, Rounding::kHalfUp);
  u.direct = at::tensor({10.7, 262.0, 30.2, 39.6}, at::kDouble);
  Tolerance tol;
  auto s = compare_tensors(ref, out, tol, &u);
  EXPECT_TRUE(s.intermediate_judged);
  EXPECT_EQ(s.intermediate_rounding, 2);
  EXPECT_EQ(s.off_by_one_elsewhere, 2);
  EXPECT_EQ(s.mismatches, 4);  // counted, not excused by default
  tol.excuse_intermediate_rounding = true;
  s = compare_tensors(ref, out, tol, &u);
  EXPECT_EQ(s.intermediate_rounding, 2);
  EXPECT_EQ(s.mismatches, 2);
  EXPECT_EQ(s.to_json()["intermediate_rounding"], 2);
  // A per-element error widens the tie band of that element only.
  u.error = at::tensor({0.0, 0.0, 0.25, 0.0}, at::kDouble);
  s = compare_tensors(ref, out, tol, &u);
  EXPECT_EQ(s.rounding_ties, 1);  // 30.3 is 0.2 from 30.5: within 0.001 + 0.25
  EXPECT_EQ(s.mismatches, 1);
}

TEST(CompareTest, NearestAtAMidpointIsASamplingTieOfAnySize) {
  // Element 1 picked between two sources at an exact midpoint: any
  // difference there is a tie in the choice, for integers and floats alike;
  // element 2 is not at a midpoint, so its difference counts.
  Unrounded u;
  u.ambiguous = at::tensor({0, 1, 0}, at::kByte).to(at::kBool);
  const auto s8 = compare_tensors(bytes({5, 10, 20}), bytes({5, 215, 21}), Tolerance{}, &u);
  EXPECT_TRUE(s8.sampling_ties_judged);
  EXPECT_EQ(s8.sampling_ties, 1);
  EXPECT_EQ(s8.mismatches, 1);
  EXPECT_EQ(s8.beyond_outlier_bound, 1);
  const auto ref = at::tensor({0.5f, 0.25f, 0.75f});
  const auto sf = compare_tensors(ref, at::tensor({0.5f, 0.9f, 0.7f}), default_tolerance(at::kFloat), &u);
  EXPECT_EQ(sf.sampling_ties, 1);
  EXPECT_EQ(sf.mismatches, 1);
  EXPECT_EQ(sf.to_json()["sampling_ties"], 1);
  // Not noted: both are mismatches.
  EXPECT_EQ(compare_tensors(ref, at::tensor({0.5f, 0.9f, 0.7f}), default_tolerance(at::kFloat)).mismatches, 2);
}

TEST(CompareTest, UlpDistance) {
  const float one = 1.0f;
  const float next = std::nextafter(std::nextafter(one, 2.0f), 2.0f);  // two ulps up
  const auto s = compare_tensors(floats({one, -0.0f}, {2}), floats({next, 0.0f}, {2}), Tolerance{});
  ASSERT_TRUE(s.max_ulp.has_value());
  EXPECT_EQ(*s.max_ulp, 2u);  // -0 and +0 are 0 ulps apart and compare equal
  EXPECT_EQ(s.differing, 1);
  const auto neg = compare_tensors(floats({-std::numeric_limits<float>::denorm_min()}, {1}),
                                   floats({std::numeric_limits<float>::denorm_min()}, {1}),
                                   Tolerance{});
  EXPECT_EQ(*neg.max_ulp, 2u);
}

TEST(CompareTest, NanAndInfPositionsMustAgree) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const auto ref = floats({nan, 1.0f, inf, inf, 2.0f}, {5});
  const auto out = floats({nan, nan, inf, -inf, 2.0f}, {5});
  Tolerance tol;
  tol.atol = 1.0;
  const auto s = compare_tensors(ref, out, tol);
  EXPECT_EQ(s.nan_mismatches, 1);  // position 1
  EXPECT_EQ(s.inf_mismatches, 1);  // +inf vs -inf at 3
  EXPECT_EQ(s.mismatches, 2);
  // |NaN - 1| is NaN: the numbers say so, the finite pairs apart.
  EXPECT_TRUE(std::isnan(s.max_abs));
  EXPECT_TRUE(std::isnan(s.psnr_db));
  EXPECT_EQ(s.finite_max_abs, 0.0);
  const auto bad = non_finite_of(out.view({1, 5}));  // NaN at 0 and 1, the infinities at 2 and 3
  EXPECT_EQ(bad.count, 4);
  EXPECT_EQ(bad.first, (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(std::isnan(bad.first_value));
  EXPECT_EQ(non_finite_of(floats({1.0f, 2.0f}, {2})).count, 0);
  EXPECT_EQ(non_finite_of(at::zeros({3}, at::kByte)).count, 0);
  EXPECT_EQ(s.worst_index, std::vector<int64_t>{1});  // first special mismatch
  const auto j = s.to_json();
  EXPECT_EQ(j["worst"]["output"], "NaN");
  EXPECT_EQ(j["max_abs"], "NaN");
  EXPECT_EQ(j["psnr_db"], "NaN");
  EXPECT_EQ(j["finite_max_abs"], 0.0);
  // An Inf mismatch alone: infinite |diff|, PSNR -Infinity; it leads even beside a larger finite diff.
  const auto inf_only = compare_tensors(floats({1.0f, 0.0f, 5.0f}, {3}), floats({inf, 0.0f, 9.0f}, {3}), tol);
  EXPECT_EQ(inf_only.to_json()["max_abs"], "Infinity");
  EXPECT_EQ(inf_only.to_json()["psnr_db"], "-Infinity");
  EXPECT_EQ(inf_only.finite_max_abs, 4.0);
  EXPECT_EQ(inf_only.worst_index, std::vector<int64_t>{0});
  EXPECT_EQ(number_text(s.max_abs), "NaN");
  EXPECT_EQ(number_text(-inf), "-Infinity");
  EXPECT_EQ(number_text(0.25), "0.25");
}

TEST(CompareTest, Uint8DiffsDoNotWrapAround) {
  const auto ref = at::tensor(std::vector<uint8_t>{0, 255, 10, 10}, at::kByte);
  const auto out = at::tensor(std::vector<uint8_t>{255, 0, 11, 10}, at::kByte);
  const auto s = compare_tensors(ref, out, Tolerance{});
  EXPECT_EQ(s.max_abs, 255.0);
  EXPECT_FALSE(s.max_ulp.has_value());
  // Buckets: 0 (one element), 1 (one), 128-255 (two).
  ASSERT_EQ(s.histogram.size(), 3u);
  EXPECT_EQ(s.histogram[0].low, 0);
  EXPECT_EQ(s.histogram[0].count, 1);
  EXPECT_EQ(s.histogram[1].low, 1);
  EXPECT_EQ(s.histogram[1].count, 1);
  EXPECT_EQ(s.histogram[2].low, 128);
  EXPECT_EQ(s.histogram[2].high, 255);
  EXPECT_EQ(s.histogram[2].count, 2);
  // PSNR with peak 255: MSE = (255^2 * 2 + 1) / 4.
  EXPECT_NEAR(s.psnr_db, 10.0 * std::log10(255.0 * 255.0 / ((2.0 * 255 * 255 + 1) / 4.0)), 1e-9);
}

TEST(CompareTest, SpatialPatternSeparatesSpecksFromRegions) {
  // One 1x3x12x12 image; channels collapse into pixels.
  auto ref = at::zeros({1, 3, 12, 12}, at::kByte);
  auto out = ref.clone();
  out[0][0][1][1] = 1;   // isolated
  out[0][2][1][1] = 1;   // same pixel, another channel
  out[0][1][5][9] = 1;   // isolated
  const auto specks = compare_tensors(ref, out, Tolerance{});
  EXPECT_EQ(specks.differences.pattern, "isolated");
  EXPECT_EQ(specks.differences.pixels, 2);
  EXPECT_EQ(specks.differences.isolated, 2);
  EXPECT_EQ(specks.differing, 3);

  out[0][0][2][2] = 1;   // diagonal neighbour of (1,1): a speck of two
  const auto pair = compare_tensors(ref, out, Tolerance{});
  EXPECT_EQ(pair.differences.pattern, "scattered");
  EXPECT_EQ(pair.differences.clusters, 1);
  EXPECT_EQ(pair.differences.largest_cluster, 2);

  out.narrow(2, 6, 4).narrow(3, 0, 4).fill_(9);  // a 4x4 region
  Tolerance tol;
  tol.atol = 1;  // the specks are within tolerance, the region is not
  const auto region = compare_tensors(ref, out, tol);
  EXPECT_EQ(region.differences.pattern, "clustered");
  EXPECT_EQ(region.differences.largest_cluster, 16);
  EXPECT_EQ(region.mismatched.pattern, "clustered");
  EXPECT_EQ(region.mismatched.pixels, 16);
  EXPECT_EQ(region.mismatched.isolated, 0);
  EXPECT_EQ(region.worst_index, (std::vector<int64_t>{0, 0, 6, 0}));
}

TEST(CompareTest, ClustersDoNotJoinAcrossImagesOfABatch) {
  auto ref = at::zeros({2, 1, 3, 3}, at::kFloat);
  auto out = ref.clone();
  out[0][0][2][2] = 1;  // last pixel of image 0
  out[1][0][0][0] = 1;  // first pixel of image 1: adjacent in memory only
  const auto s = compare_tensors(ref, out, Tolerance{});
  EXPECT_EQ(s.differences.isolated, 2);
  EXPECT_EQ(s.differences.clusters, 0);
}

TEST(CompareTest, IdenticalTensors) {
  const auto x = at::rand({2, 3, 5, 4});
  const auto s = compare_tensors(x, x.clone(), Tolerance{});
  EXPECT_EQ(s.differing, 0);
  EXPECT_EQ(s.max_abs, 0.0);
  EXPECT_TRUE(std::isinf(s.psnr_db));
  EXPECT_EQ(s.differences.pattern, "none");
  EXPECT_TRUE(s.within(Tolerance{}));
}

TEST(CompareTest, ShapeOrDtypeMismatchThrows) {
  EXPECT_THROW(compare_tensors(at::zeros({2}), at::zeros({3}), Tolerance{}), std::invalid_argument);
  EXPECT_THROW(compare_tensors(at::zeros({2}), at::zeros({2}, at::kDouble), Tolerance{}),
               std::invalid_argument);
}

TEST(CompareTest, JsonNumbersSpellNonFinite) {
  EXPECT_EQ(json_number(1.5), 1.5);
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(json_number(std::nan("")), "NaN");
}

}  // namespace
}  // namespace devparity
