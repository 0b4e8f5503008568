// The cuda_sort model (Note [CUDA's sort order]): sort and topk on vdev give
// equal keys in the order CUDA's kernels give them, held to real GPUs'
// outputs from the public record and to the order each of CUDA's
// algorithms defines.
#include "tests/support/cuda_models.h"
#include "tests/support/vdev_mode.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <limits>

namespace devparity {
namespace {

namespace ca = vdev::cuda_arithmetic;

class CudaSortTest : public testing::CudaModelsTest {
 protected:
  at::Tensor argsort(const at::Tensor& x, bool descending = false, bool stable = false) {
    return std::get<1>(at::sort(x.to(v1_), stable, -1, descending)).cpu();
  }
};

at::Tensor longs(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }
at::Tensor floats(std::vector<float> v) { return at::tensor(v, at::kFloat); }

// Each printed by a real GPU in a public report of a CPU/CUDA difference.
TEST_F(CudaSortTest, SmallSortsTakeTheBitonicNetworksOrderAsRealGpusDo) {
  // pytorch/pytorch#103909 (2.0.1, A100): CPU [0, 5, 1, 4, 2, 3].
  EXPECT_TRUE(at::equal(argsort(longs({1, 2, 3, 3, 2, 1})), longs({5, 0, 1, 4, 2, 3})));
  // pytorch/pytorch#120874 (2.2.0, RTX 3090 Ti): CPU [1, 3, 6, 0, 2, 4, 8, 7, 5].
  EXPECT_TRUE(at::equal(argsort(longs({3, 1, 4, 1, 5, 9, 2, 6, 5})), longs({1, 3, 6, 0, 2, 8, 4, 7, 5})));
  // pytorch/pytorch#28871 (1.3.0): CPU [0, 1, 3, 2, 4].
  EXPECT_TRUE(at::equal(argsort(floats({1, 2, 5, 4, 5})), longs({0, 1, 3, 4, 2})));
  // pytorch/vision#2157 (1.5.0): three equal scores, the GPU's nms kept box 2, the first in its order.
  EXPECT_EQ(argsort(floats({1, 1, 1}), /*descending=*/true)[0].item<int64_t>(), 2);
  EXPECT_EQ(ca::take_moved().count("cuda_sort"), 1u);
}

TEST_F(CudaSortTest, TopkTakesTiesFromTheLowestIndexThenSortsThemAsCudaDoes) {
  // pytorch/pytorch#127196 (2.4.0): CPU indices [0, 2].
  const auto [values, indices] = at::topk(longs({3, 2, 3, 2, 1, 1}).to(v1_), 2);
  EXPECT_TRUE(at::equal(values.cpu(), longs({3, 3})));
  EXPECT_TRUE(at::equal(indices.cpu(), longs({2, 0})));
  // Ties beyond k: the lowest indices, in index order when not sorted.
  const auto ones = at::ones({40});
  EXPECT_TRUE(at::equal(std::get<1>(at::topk(ones.to(v1_), 3, -1, true, /*sorted=*/false)).cpu(), longs({0, 1, 2})));
  // Few long slices are sorted whole (stable radix): the first k in index order.
  EXPECT_TRUE(at::equal(std::get<1>(at::topk(at::zeros({100000}).to(v1_), 3)).cpu(), longs({0, 1, 2})));
  // The k-th value in radix order: +0.0 above -0.0.
  const auto zeros = floats({-0.0f, 0.0f, -0.0f, 0.0f});
  EXPECT_TRUE(at::equal(std::get<1>(at::topk(zeros.to(v1_), 2, -1, true, false)).cpu(), longs({1, 3})));
}

TEST_F(CudaSortTest, LongerSlicesAreStableAsCubsSortsAre) {
  const auto x = at::randint(0, 4, {3, 5000}).to(at::kFloat);
  for (const int64_t n : {33, 128, 129, 4096, 5000}) {
    const auto slice = x.narrow(1, 0, n);
    for (const bool descending : {false, true}) {
      const auto want = std::get<1>(at::sort(slice, /*stable=*/true, -1, descending));
      const auto [values, indices] = at::sort(slice.to(v1_), /*stable=*/false, -1, descending);
      EXPECT_TRUE(at::equal(indices.cpu(), want)) << n << (descending ? " descending" : "");
      EXPECT_TRUE(at::equal(values.cpu(), slice.gather(1, want)));
    }
  }
  // stable=True keeps index order among ties at every length, the bitonic network's too.
  const auto ties = at::zeros({2, 7});
  EXPECT_TRUE(at::equal(argsort(ties, false, /*stable=*/true), at::arange(7).expand({2, 7})));
  // Sorting along another dim than the last.
  const auto t = at::randint(0, 2, {40, 3}).to(at::kFloat);
  EXPECT_TRUE(at::equal(std::get<1>(at::sort(t.to(v1_), 0)).cpu(), std::get<1>(at::sort(t, /*stable=*/true, 0, false))));
}

TEST_F(CudaSortTest, RadixSortsOrderSignedZerosAndEveryNanIsLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 129 and more: radix order, -0.0 first; up to 128 the merge sort's comparator ties them.
  auto x = at::zeros({200});
  x.narrow(0, 0, 100).fill_(0.0f);
  x.narrow(0, 100, 100).fill_(-0.0f);
  EXPECT_TRUE(at::equal(argsort(x).narrow(0, 0, 100), at::arange(100, 200)));
  EXPECT_TRUE(at::equal(argsort(x.narrow(0, 50, 100)), at::arange(100)));
  // A NaN the CPU made negative (0/0 on x86) sorts last, as CUDA's positive NaN does.
  for (const int64_t n : {5, 100, 300}) {
    auto y = at::arange(n).to(at::kFloat);
    y[0] = -nan;
    EXPECT_EQ(argsort(y)[n - 1].item<int64_t>(), 0) << n;
    EXPECT_EQ(argsort(y, /*descending=*/true)[0].item<int64_t>(), 0) << n;
  }
}

TEST_F(CudaSortTest, OffVdevSortsAsTheCpuDoes) {
  const auto x = longs({1, 2, 3, 3, 2, 1});
  const vdev::ModeScope cpu_arithmetic(testing::mode_with_cuda_arithmetic(false));
  EXPECT_TRUE(at::equal(argsort(x), std::get<1>(at::sort(x))));
  EXPECT_FALSE(at::equal(argsort(x), longs({5, 0, 1, 4, 2, 3})));  // the GPU's order
  EXPECT_TRUE(ca::take_moved().empty());
}

}  // namespace
}  // namespace devparity
