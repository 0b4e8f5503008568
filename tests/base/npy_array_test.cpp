#include "harness/base/error.h"
#include "harness/base/npy.h"
#include "harness/base/npy_array.h"
#include "tests/support/temp_dir.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace devparity {
namespace {

// Every dtype .npy holds, read without LibTorch, gives the values LibTorch
// reads (float16's subnormals, infinities and NaN included).
TEST(NpyArrayTest, ValuesMatchTheTensorLibTorchReads) {
  testing::TempDir dir;
  at::manual_seed(3);
  auto halves = at::randn({2, 3, 4}).mul(300).to(at::kHalf);
  halves.view(-1)[0] = std::ldexp(1.0, -24);  // the smallest subnormal
  halves.view(-1)[1] = INFINITY;
  halves.view(-1)[2] = -INFINITY;
  halves.view(-1)[3] = NAN;
  halves.view(-1)[4] = -0.0;
  const std::vector<at::Tensor> tensors = {
      halves,
      at::randn({2, 3}),
      at::randn({5}, at::kDouble),
      at::randint(0, 256, {3, 4}, at::kByte),
      at::randint(-128, 128, {4}, at::kChar),
      at::randint(-30000, 30000, {4}, at::kShort),
      at::randint(-100000, 100000, {2, 2}, at::kInt),
      at::randint(-100000, 100000, {3}, at::kLong),
      at::randint(0, 2, {5}, at::kLong).to(at::kBool),
      at::tensor(2.5),
  };
  for (const auto& t : tensors) {
    const auto path = dir.file("x.npy");
    write_npy(path, t);
    const auto a = read_npy_array(path);
    EXPECT_EQ(a.shape, t.sizes().vec()) << t.scalar_type();
    ASSERT_EQ(a.numel(), static_cast<size_t>(t.numel()));
    const auto expected = t.to(at::kDouble).contiguous();
    for (size_t i = 0; i < a.numel(); ++i) {
      const double e = expected.data_ptr<double>()[i];
      const double v = a.value(i);
      if (std::isnan(e)) {
        EXPECT_TRUE(std::isnan(v)) << t.scalar_type() << " element " << i;
      } else {
        EXPECT_EQ(v, e) << t.scalar_type() << " element " << i;
        EXPECT_EQ(std::signbit(v), std::signbit(e)) << t.scalar_type() << " element " << i;
      }
    }
  }
}

// npy_file() writes what numpy reads: the header padded to 64 bytes, a
// one-element shape as "(5,)".
// Issue 56: a bfloat16 array saved by numpy (ml_dtypes) is '<V2'; it was "no 'descr' in the header".
TEST(NpyArrayTest, RawTwoByteDataIsNamedAsBfloat16WithWhatToDo) {
  testing::TempDir dir;
  const uint16_t data[2] = {0x3f80, 0x4000};
  const auto path = dir.write("b.npy", npy_file("<V2", {2}, data, sizeof(data)));
  try {
    read_npy_array(path);
    FAIL() << "read";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unsupported dtype '<V2'"), std::string::npos) << what;
    EXPECT_NE(what.find("how numpy saves bfloat16"), std::string::npos) << what;
    EXPECT_NE(what.find("astype(numpy.float32)"), std::string::npos) << what;
  }
  const auto other = dir.write("c.npy", npy_file("<c8", {1}, data, 8));
  try {
    read_npy_array(other);
    FAIL() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported dtype '<c8' (devparity reads bool"), std::string::npos) << e.what();
  }
  // The twin: float16 reads.
  const auto half = dir.write("h.npy", npy_file("<f2", {2}, data, sizeof(data)));
  EXPECT_EQ(read_npy_array(half).itemsize, 2);
}

TEST(NpyArrayTest, TheFileWrittenHasNumpysHeader) {
  const float data[5] = {1, 2, 3, 4, 5};
  const auto file = npy_file("<f4", {5}, data, sizeof(data));
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(file.find("'shape': (5,)"), std::string::npos);
  EXPECT_EQ((file.size() - sizeof(data)) % 64, 0u);
}

}  // namespace
}  // namespace devparity
