#include "harness/base/npy.h"

#include "harness/base/error.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tools.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace devparity {
namespace {

std::string npy_bytes(const std::string& header_dict, const std::string& data) {
  std::string header = header_dict;
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

TEST(NpyTest, RoundTripsEveryDtype) {
  testing::TempDir dir;
  for (auto dtype : {at::kByte, at::kFloat, at::kDouble, at::kLong, at::kInt, at::kBool,
                     at::kHalf, at::kChar, at::kShort}) {
    const auto x = (at::rand({2, 3, 4}) * 100).to(dtype);
    const auto path = dir.file("x.npy");
    write_npy(path, x);
    const auto y = read_npy(path);
    EXPECT_EQ(y.scalar_type(), dtype);
    EXPECT_TRUE(at::equal(x, y)) << c10::toString(dtype);
  }
  const auto scalar = at::full({}, 7.0);
  write_npy(dir.file("s.npy"), scalar);
  EXPECT_EQ(read_npy(dir.file("s.npy")).dim(), 0);
  const auto vec = at::arange(5, at::kLong);
  write_npy(dir.file("v.npy"), vec);
  EXPECT_TRUE(at::equal(read_npy(dir.file("v.npy")), vec));
  // numpy has no bfloat16: written as float32, which holds it exactly.
  const auto b = at::rand({3, 2}).to(at::kBFloat16);
  write_npy(dir.file("b.npy"), b);
  EXPECT_TRUE(at::equal(read_npy(dir.file("b.npy")), b.to(at::kFloat)));
}

TEST(NpyTest, HeaderIsWhatNumpyWrites) {
  testing::TempDir dir;
  write_npy(dir.file("x.npy"), at::zeros({2, 3}, at::kByte));
  const auto bytes = testing::read_text(dir.file("x.npy"));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  // 10 + 60 header bytes do not fit in 64: padded to 128, ending in '\n',
  // so the data starts 64-byte aligned, as numpy writes it.
  EXPECT_EQ(bytes.find('\n'), 127u);
  EXPECT_EQ(bytes.size(), 128u + 6u);
  write_npy(dir.file("v.npy"), at::zeros({5}, at::kFloat));
  EXPECT_NE(testing::read_text(dir.file("v.npy")).find("'shape': (5,)"), std::string::npos);
}

TEST(NpyTest, ReadsFortranOrderAndBigEndian) {
  testing::TempDir dir;
  // 2x3 int16 in Fortran order: columns stored first.
  const int16_t f[] = {1, 4, 2, 5, 3, 6};
  dir.write("f.npy", npy_bytes("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }",
                               std::string(reinterpret_cast<const char*>(f), sizeof(f))));
  const auto t = read_npy(dir.file("f.npy"));
  EXPECT_TRUE(at::equal(t, at::tensor(std::vector<int16_t>{1, 2, 3, 4, 5, 6}).reshape({2, 3})));
  // Big-endian float32 1.0 and -2.0.
  const std::string be("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8);
  dir.write("b.npy", npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be));
  const auto b = read_npy(dir.file("b.npy"));
  EXPECT_EQ(b[0].item<float>(), 1.0f);
  EXPECT_EQ(b[1].item<float>(), -2.0f);
}

TEST(NpyTest, BadFilesAreInputErrorsNamingThePath) {
  testing::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"magic", "not numpy at all"},
      {"truncated", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "abc")},
      {"dtype", npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "12345678")},
      {"noshape", npy_bytes("{'descr': '<f4', 'fortran_order': False, }", "1234")},
      // Hostile headers: a size that overflows, a negative one, a dtype size past any int.
      {"overflow", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", "1234")},
      {"huge", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", "1234")},
      {"negative", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, -4, 4), }", std::string(192, 'x'))},
      {"dtype_size", npy_bytes("{'descr': '<f99999999999', 'fortran_order': False, 'shape': (1,), }", "1234")},
  };
  for (const auto& [name, bytes] : bad) {
    const auto path = dir.write(name + ".npy", bytes);
    try {
      read_npy(path);
      ADD_FAILURE() << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_npy(dir.file("missing.npy")), InputError);
}

TEST(NpyTest, NumpyLoadsWhatWeWrite) {
  DEVPARITY_NEEDS(testing::python_has("numpy"), "python3-numpy is not installed (tools/setup.sh installs it)");
  testing::TempDir dir;
  const auto x = at::arange(24, at::kFloat).reshape({2, 3, 4}) / 7;
  write_npy(dir.file("x.npy"), x);
  const std::string script = "import numpy as n; a = n.load('" + dir.file("x.npy") +
                             "'); assert a.dtype == n.float32 and a.shape == (2, 3, 4); "
                             "assert abs(float(a[1, 2, 3]) - 23 / 7) < 1e-6; "
                             "n.save('" + dir.file("y.npy") + "', (a * 2).astype(n.float64))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()), 0);
  const auto y = read_npy(dir.file("y.npy"));
  EXPECT_EQ(y.scalar_type(), at::kDouble);
  EXPECT_TRUE(at::allclose(y, (x * 2).to(at::kDouble)));
}

}  // namespace
}  // namespace devparity
