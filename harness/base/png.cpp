#include "harness/base/png.h"

#include "harness/base/atomic_file.h"
#include "harness/base/input_file.h"
#include "harness/base/png_codec.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace devparity {

at::Tensor read_png(const std::string& path) {
  auto pixels = decode_png(read_input_file(path), path);
  auto hwc = at::from_blob(pixels.samples.data(), {pixels.height, pixels.width, pixels.channels},
                           at::TensorOptions().dtype(at::kByte));
  return hwc.permute({2, 0, 1}).contiguous().clone();
}

void write_png(const std::string& path, const at::Tensor& chw) {
  write_file_atomic(path, encode_png(chw));
}

std::string encode_png(const at::Tensor& chw) {
  if (chw.dim() != 3 || (chw.size(0) != 1 && chw.size(0) != 3) || chw.scalar_type() != at::kByte) {
    throw std::invalid_argument("encode_png: expected a CHW uint8 tensor with 1 or 3 channels");
  }
  const auto hwc = chw.to(at::kCPU).permute({1, 2, 0}).contiguous();
  PngPixels pixels;
  pixels.height = chw.size(1);
  pixels.width = chw.size(2);
  pixels.channels = static_cast<int>(chw.size(0));
  pixels.samples.assign(hwc.data_ptr<uint8_t>(), hwc.data_ptr<uint8_t>() + hwc.numel());
  return encode_png(pixels);
}

}  // namespace devparity
