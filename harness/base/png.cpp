#include "harness/base/png.h"

#include "harness/base/atomic_file.h"
#include "harness/base/error.h"
#include "harness/base/input_file.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <spng.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace devparity {
namespace {

struct Context {
  spng_ctx* ctx;
  explicit Context(int flags) : ctx(spng_ctx_new(flags)) {}
  ~Context() {
    if (ctx != nullptr) spng_ctx_free(ctx);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

}  // namespace

at::Tensor read_png(const std::string& path) {
  const std::string bytes = read_input_file(path);
  Context c(0);
  if (c.ctx == nullptr) throw std::runtime_error("libspng: cannot create a context");
  spng_set_crc_action(c.ctx, SPNG_CRC_ERROR, SPNG_CRC_ERROR);
  int rc = spng_set_png_buffer(c.ctx, bytes.data(), bytes.size());
  spng_ihdr ihdr{};
  if (rc == 0) rc = spng_get_ihdr(c.ctx, &ihdr);
  if (rc != 0) throw InputError(fmt::format("{}: not a readable PNG: {}", path, spng_strerror(rc)));
  if (static_cast<uint64_t>(ihdr.width) * ihdr.height > (uint64_t{1} << 28)) {
    throw InputError(fmt::format("{}: {}x{} is too large", path, ihdr.width, ihdr.height));
  }
  size_t size = 0;
  rc = spng_decoded_image_size(c.ctx, SPNG_FMT_RGB8, &size);
  std::vector<uint8_t> rgb(size);
  if (rc == 0) rc = spng_decode_image(c.ctx, rgb.data(), rgb.size(), SPNG_FMT_RGB8, 0);
  if (rc != 0) throw InputError(fmt::format("{}: PNG decoding failed: {}", path, spng_strerror(rc)));
  const bool grey = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE || ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
  const int64_t h = ihdr.height, w = ihdr.width;
  auto hwc = at::from_blob(rgb.data(), {h, w, 3}, at::TensorOptions().dtype(at::kByte));
  auto chw = hwc.permute({2, 0, 1});
  if (grey) chw = chw.narrow(0, 0, 1);
  return chw.contiguous().clone();
}

void write_png(const std::string& path, const at::Tensor& chw) {
  write_file_atomic(path, encode_png(chw));
}

std::string encode_png(const at::Tensor& chw) {
  if (chw.dim() != 3 || (chw.size(0) != 1 && chw.size(0) != 3) || chw.scalar_type() != at::kByte) {
    throw std::invalid_argument("encode_png: expected a CHW uint8 tensor with 1 or 3 channels");
  }
  const auto hwc = chw.to(at::kCPU).permute({1, 2, 0}).contiguous();
  Context c(SPNG_CTX_ENCODER);
  spng_set_option(c.ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(chw.size(2));
  ihdr.height = static_cast<uint32_t>(chw.size(1));
  ihdr.bit_depth = 8;
  ihdr.color_type = chw.size(0) == 3 ? SPNG_COLOR_TYPE_TRUECOLOR : SPNG_COLOR_TYPE_GRAYSCALE;
  int rc = spng_set_ihdr(c.ctx, &ihdr);
  if (rc == 0) {
    rc = spng_encode_image(c.ctx, hwc.data_ptr<uint8_t>(), static_cast<size_t>(hwc.numel()), SPNG_FMT_PNG,
                           SPNG_ENCODE_FINALIZE);
  }
  size_t size = 0;
  void* buffer = rc == 0 ? spng_get_png_buffer(c.ctx, &size, &rc) : nullptr;
  if (buffer == nullptr) throw std::runtime_error(fmt::format("PNG encoding failed: {}", spng_strerror(rc)));
  std::unique_ptr<void, void (*)(void*)> owned(buffer, free);
  return std::string(static_cast<const char*>(buffer), size);
}

}  // namespace devparity
