#include "harness/base/png_codec.h"

#include "harness/base/error.h"

#include <fmt/format.h>
#include <spng.h>

#include <memory>
#include <stdexcept>

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

PngPixels decode_png(const std::string& bytes, const std::string& path) {
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
  PngPixels out;
  out.samples.resize(size);
  if (rc == 0) rc = spng_decode_image(c.ctx, out.samples.data(), out.samples.size(), SPNG_FMT_RGB8, 0);
  if (rc != 0) throw InputError(fmt::format("{}: PNG decoding failed: {}", path, spng_strerror(rc)));
  out.height = ihdr.height;
  out.width = ihdr.width;
  const bool grey = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE || ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
  if (grey) {  // RGB8 decoding repeats the grey sample three times
    for (size_t i = 0; i < out.samples.size() / 3; ++i) out.samples[i] = out.samples[3 * i];
    out.samples.resize(out.samples.size() / 3);
    out.channels = 1;
  }
  return out;
}

std::string encode_png(const PngPixels& pixels) {
  if ((pixels.channels != 1 && pixels.channels != 3) ||
      pixels.samples.size() != static_cast<size_t>(pixels.height * pixels.width * pixels.channels)) {
    throw std::invalid_argument("encode_png: expected height x width x 1 or 3 samples");
  }
  Context c(SPNG_CTX_ENCODER);
  spng_set_option(c.ctx, SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = static_cast<uint32_t>(pixels.width);
  ihdr.height = static_cast<uint32_t>(pixels.height);
  ihdr.bit_depth = 8;
  ihdr.color_type = pixels.channels == 3 ? SPNG_COLOR_TYPE_TRUECOLOR : SPNG_COLOR_TYPE_GRAYSCALE;
  int rc = spng_set_ihdr(c.ctx, &ihdr);
  if (rc == 0) {
    rc = spng_encode_image(c.ctx, pixels.samples.data(), pixels.samples.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  }
  size_t size = 0;
  void* buffer = rc == 0 ? spng_get_png_buffer(c.ctx, &size, &rc) : nullptr;
  if (buffer == nullptr) throw std::runtime_error(fmt::format("PNG encoding failed: {}", spng_strerror(rc)));
  std::unique_ptr<void, void (*)(void*)> owned(buffer, free);
  return std::string(static_cast<const char*>(buffer), size);
}

}  // namespace devparity
