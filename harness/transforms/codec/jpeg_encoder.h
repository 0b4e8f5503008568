#pragma once
/// The reference JPEG encoder: colour conversion, chroma subsampling, 8x8 DCT
/// and quantization as tensor ops on the image's device; entropy coding on the
/// host (writer.h). The device part computes in integers carried by float64,
/// so its coefficients are the same on every device, and so are the bytes.

#include "harness/jpeg/writer.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace devparity::jpeg {

enum class Subsampling { k444, k420 };

struct EncoderOptions {
  int quality = 75;  ///< 1..100, libjpeg's scaling of the Annex K tables
  Subsampling subsampling = Subsampling::k420;  ///< colour images only
  bool optimize_huffman = false;
  int restart_interval = 0;  ///< MCUs between RST markers; 0: none
};

/// The constant tensors of the device part, made on the CPU and moved with
/// the subject (registered state): `dct` (8, 8) and `quant` (T, 8, 8), float64.
struct EncoderTables {
  at::Tensor dct;
  at::Tensor quant;
  std::vector<std::array<uint16_t, 64>> host_quant;  ///< the same tables, for DQT
};
EncoderTables make_tables(int quality, int components);
/// The quantization tables alone (luma, and chroma for 3 components), for DQT.
std::vector<std::array<uint16_t, 64>> host_quant_tables(int quality, int components);

/// The device part's result: every component's blocks, flattened and
/// concatenated as int16 on the image's device, and where each one is.
struct QuantizedFrame {
  at::Tensor coefficients;
  FrameData frame;  ///< components' coefficient pointers are unset
  std::vector<int64_t> offsets;  ///< element offset of each component
};

/// Colour conversion, subsampling, DCT and quantization of one CHW image
/// (1 or 3 channels; uint8, or float in [0, 1]) with tables on its device.
QuantizedFrame quantize(const at::Tensor& image, const at::Tensor& dct, const at::Tensor& quant,
                        const EncoderOptions& options);

/// The explicit device-to-host hand-over of the coefficients (Note [Device to
/// host hand-over]): a plain copy on the CPU; elsewhere a non-blocking copy
/// into pinned memory on the current stream, ordered by an event after it.
at::Tensor hand_over(const at::Tensor& device_coefficients);

/// Points `q.frame`'s components into `host` (from hand_over) and writes the file.
std::vector<uint8_t> entropy_code(QuantizedFrame q, const at::Tensor& host,
                                  const std::vector<std::array<uint16_t, 64>>& host_quant,
                                  const EncoderOptions& options);

/// quantize, hand_over, entropy_code: one image to a JFIF file.
std::vector<uint8_t> encode(const at::Tensor& image, const EncoderTables& tables_on_device,
                            const EncoderOptions& options);

/// make_tables() moved to `device`: built on the host and moved inside a
/// declared hand-over, for callers without a subject's registered state.
EncoderTables device_tables(int quality, int components, const c10::Device& device);

/// encode() with device_tables() for the image's device (tools, tests, operators).
std::vector<uint8_t> encode_image(const at::Tensor& image, const EncoderOptions& options);

/// Files made on the host, back to back in a 1-D uint8 tensor on `device`
/// (a declared hand-over): what a JPEG subject returns.
at::Tensor bytes_on(const std::vector<std::vector<uint8_t>>& files, const c10::Device& device);
inline at::Tensor bytes_on(const std::vector<uint8_t>& file, const c10::Device& device) {
  return bytes_on(std::vector<std::vector<uint8_t>>{file}, device);
}

/// "420" / "444".
Subsampling parse_subsampling(const std::string& text);
const char* subsampling_name(Subsampling s);

}  // namespace devparity::jpeg
