#include "harness/transforms/codec/jpeg_encoder.h"

#include "harness/device/device.h"
#include "harness/vdev/async.h"
#include "harness/jpeg/tables.h"
#include "harness/trace/scope.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace devparity::jpeg {
namespace {

// Note [Exact JPEG arithmetic]
// Every value the device part computes is an integer. The colour conversion
// and subsampling are libjpeg's fixed-point formulas in int32: the largest
// sum is 255 * 65536 + 8421375 < 2^25, every numerator is non-negative (the
// offsets see to it), so an arithmetic shift is libjpeg's floor division.
// The DCT matrix A is scaled by 2^16 and rounded (no entry is within 0.02 of
// a rounding tie), and F = A B A^T is computed exactly, so any order of
// summation gives the same integers. Rounding is symmetric, so A keeps the
// cosines' symmetries exactly: A[u][7-k] = (-1)^u A[u][k], and for even u
// the same one level down. The transform uses them as a butterfly
// (dct_pass): sums and differences of mirrored samples, then the 4, 2 and 1
// distinct coefficients of each row, about half the multiplies of a GEMM and
// every step along contiguous memory but the first.
//  - Along rows, in int32 on the samples 0..255: the level shift (- 128)
//    changes only the DC (every other row of A sums to 0, and the butterfly
//    cancels the constant), so it is applied to the DC's sum (- 8 * 128);
//    every result is at most 128 * max_u sum_k |A[u][k]| < 2^24.5.
//  - Along columns, sums of up to eight of those in int32 (< 2^27.5), and
//    products and their sums in float64: integers below 2^42, exact below
//    2^53.
// Quantization divides two such integers, which rounds correctly and cannot
// cross an integer. No step can differ between devices, so the
// coefficients, and the bytes, are the same on all. Shifts are in place:
// LibTorch 1.13's meta device has only the in-place shift.
constexpr double kDctScale = 65536.0;  // 2^16; A B A^T carries 2^32

// floor(x / 2^bits) for non-negative int32 x, in place.
at::Tensor shift_down(at::Tensor x, int64_t bits) {
  x.__irshift__(bits);
  return x;
}

// libjpeg's jccolor.c in 16-bit fixed point (FIX(0.299) = 19595, ...):
// (cr * r + cg * g + cb * b + offset) >> 16, accumulated in place.
at::Tensor fixed_point_mix(const at::Tensor& r, const at::Tensor& g, const at::Tensor& b, int64_t cr, int64_t cg,
                           int64_t cb, int64_t offset) {
  auto y = r * cr;
  y.add_(g, cg).add_(b, cb).add_(offset);
  return shift_down(std::move(y), 16);
}

// Replicates the last row and column up to `ph` x `pw` (libjpeg pads edges so).
at::Tensor pad_edges(const at::Tensor& plane, int64_t ph, int64_t pw) {
  auto p = plane;
  const int64_t h = p.size(0), w = p.size(1);
  if (ph > h) p = at::cat({p, p.narrow(0, h - 1, 1).expand({ph - h, w})}, 0);
  if (pw > w) p = at::cat({p, p.narrow(1, w - 1, 1).expand({ph, pw - w})}, 1);
  return p;
}

// libjpeg's h2v2 downsampling: (sum of 2x2 + bias) >> 2, bias 1, 2, 1, 2, ...
// by column. Rows pair first (contiguous halves), then columns: a reduction
// over two strided dimensions is ~9x slower on the CPU.
at::Tensor downsample_2x2(const at::Tensor& plane) {
  DEVPARITY_TRACE_SCOPE("downsample");
  const int64_t h = plane.size(0) / 2, w = plane.size(1) / 2;
  const auto rows = plane.reshape({h, 2, 2 * w});
  const auto pairs = (rows.select(1, 0) + rows.select(1, 1)).reshape({h, w, 2});
  const auto bias = at::arange(w, plane.options()).remainder(2).add_(1);
  auto sums = pairs.select(2, 0) + bias;
  sums.add_(pairs.select(2, 1));
  return shift_down(std::move(sums), 2);
}

// One 8-point pass of F = A B A^T: out(u) = sum over k of A[u][k] in(k),
// through the symmetries of A (Note [Exact JPEG arithmetic]). `a` holds A in
// the dtype of the products; `dc_offset` is subtracted from the DC's sum of
// samples. Sums stay in the input's dtype, out(u) takes the products'.
template <typename In, typename Out>
void dct_pass(In in, Out out, const at::Tensor& a, int64_t dc_offset) {
  const auto coef = [&](int64_t u, int64_t k) { return a.select(0, u).narrow(0, k, 1); };
  std::array<at::Tensor, 4> s, d;
  for (int64_t k = 0; k < 4; ++k) {
    s[k] = in(k) + in(7 - k);
    d[k] = in(k) - in(7 - k);
  }
  auto e0 = s[0] + s[3], e1 = s[1] + s[2];
  const auto f0 = s[0] - s[3], f1 = s[1] - s[2];
  auto dc = e0 + e1;
  if (dc_offset != 0) dc.sub_(dc_offset);
  // out(u) = x * A[u][0] + sum of y * A[u][k]: views, written in place.
  const auto row = [&](int64_t u, const at::Tensor& x, std::initializer_list<at::Tensor> ys) {
    auto o = out(u);
    at::mul_out(o, x, coef(u, 0));
    int64_t k = 1;
    for (const auto& y : ys) o.addcmul_(y, coef(u, k++));
  };
  row(0, dc, {});
  row(4, e0.sub_(e1), {});
  for (int64_t u : {2, 6}) row(u, f0, {f1});
  for (int64_t u : {1, 3, 5, 7}) row(u, d[0], {d[1], d[2], d[3]});
}

// (Hb*8, Wb*8) int32 samples -> quantized coefficients of the (Hb, Wb)
// blocks in raster order, (Hb*Wb*64) int16, each block row-major (the
// vertical frequency first).
at::Tensor dct_quantize(const at::Tensor& plane, const at::Tensor& dct, const at::Tensor& quant) {
  DEVPARITY_TRACE_SCOPE("dct");
  const int64_t rows = plane.size(0), hb = rows / 8, wb = plane.size(1) / 8;
  // Along each row's 8-sample runs, into (block row, y, u, block column) in
  // int32: each u a plane with contiguous rows for the next pass.
  const auto runs = plane.reshape({rows, wb, 8});
  auto across = at::empty({hb, 8, 8, wb}, plane.options());
  dct_pass([&](int64_t k) { return runs.select(2, k); },
           [&](int64_t u) { return across.select(2, u).view({rows, wb}); }, dct.to(at::kInt), 8 * 128);
  // Down each block's 8 rows, into (block row, v, u, block column) x 2^32:
  // the block order is then a transpose of each block row.
  auto coefficients = at::empty({hb, 8, 8, wb}, dct.options());
  dct_pass([&](int64_t y) { return across.select(1, y); }, [&](int64_t v) { return coefficients.select(1, v); },
           dct, 0);
  // Round half away from zero, as libjpeg's quantizer.
  const auto den = (quant * (kDctScale * kDctScale)).reshape({1, 8, 8, 1});
  auto num = at::copysign(den * 0.5, coefficients).add_(coefficients);
  return at::div(num, den, "trunc").to(at::kShort).view({hb, 64, wb}).transpose(1, 2).reshape({-1});
}

}  // namespace

Subsampling parse_subsampling(const std::string& text) {
  if (text == "420" || text == "4:2:0") return Subsampling::k420;
  if (text == "444" || text == "4:4:4") return Subsampling::k444;
  throw std::invalid_argument("subsampling '" + text + "': expected 420 or 444");
}

const char* subsampling_name(Subsampling s) { return s == Subsampling::k420 ? "420" : "444"; }

std::vector<std::array<uint16_t, 64>> host_quant_tables(int quality, int components) {
  if (quality < 1 || quality > 100) throw std::invalid_argument("quality out of 1..100");
  std::vector<std::array<uint16_t, 64>> out = {scaled_quant_table(kLumaQuant, quality)};
  if (components == 3) out.push_back(scaled_quant_table(kChromaQuant, quality));
  return out;
}

EncoderTables make_tables(int quality, int components) {
  if (quality < 1 || quality > 100) throw std::invalid_argument("quality out of 1..100");
  EncoderTables t;
  // Built on the host on purpose (Note [Exact JPEG arithmetic]); callers move them.
  t.dct = at::empty({8, 8}, at::TensorOptions().dtype(at::kDouble).device(at::kCPU));
  auto a = t.dct.accessor<double, 2>();
  const double pi = std::acos(-1.0);
  for (int u = 0; u < 8; ++u) {
    const double c = u == 0 ? std::sqrt(0.5) : 1.0;
    for (int x = 0; x < 8; ++x) a[u][x] = std::round(kDctScale * c / 2.0 * std::cos((2 * x + 1) * u * pi / 16.0));
  }
  t.host_quant = host_quant_tables(quality, components);
  t.quant = at::empty({static_cast<int64_t>(t.host_quant.size()), 8, 8},
                      at::TensorOptions().dtype(at::kDouble).device(at::kCPU));
  auto q = t.quant.accessor<double, 3>();
  for (size_t i = 0; i < t.host_quant.size(); ++i) {
    for (int k = 0; k < 64; ++k) q[static_cast<int64_t>(i)][k / 8][k % 8] = t.host_quant[i][k];
  }
  return t;
}

QuantizedFrame quantize(const at::Tensor& image, const at::Tensor& dct, const at::Tensor& quant,
                        const EncoderOptions& options) {
  DEVPARITY_TRACE_SCOPE("jpeg_quantize");
  if (image.dim() != 3 || (image.size(0) != 1 && image.size(0) != 3)) {
    throw std::invalid_argument("JPEG encoding takes a CHW image with 1 or 3 channels");
  }
  const int64_t channels = image.size(0), h = image.size(1), w = image.size(2);
  if (h < 1 || w < 1 || h > 65535 || w > 65535) throw std::invalid_argument("image size out of 1..65535");
  const bool color = channels == 3;
  const bool sub = color && options.subsampling == Subsampling::k420;
  const int64_t mcu = sub ? 16 : 8;
  const int64_t ph = (h + mcu - 1) / mcu * mcu, pw = (w + mcu - 1) / mcu * mcu;

  QuantizedFrame out;
  out.frame.width = static_cast<int>(w);
  out.frame.height = static_cast<int>(h);
  out.frame.optimize_huffman = options.optimize_huffman;
  out.frame.restart_interval = options.restart_interval;
  for (int64_t c = 0; c < channels; ++c) {
    ComponentData comp;
    comp.id = static_cast<uint8_t>(c + 1);
    comp.h = comp.v = static_cast<uint8_t>(sub && c == 0 ? 2 : 1);
    comp.quant_table = comp.huffman_table = static_cast<uint8_t>(c > 0 ? 1 : 0);
    const int64_t scale = sub && c > 0 ? 2 : 1;
    comp.blocks_w = static_cast<int>(pw / scale / 8);
    comp.blocks_h = static_cast<int>(ph / scale / 8);
    out.frame.components.push_back(comp);
  }

  // Note [Strips]
  // Whole MCU rows at a time, about a million samples each: a 4K frame in
  // float64 is 66 MB per plane, over the size glibc's per-thread arenas
  // serve, so every temporary would be a fresh mapping that page-faults
  // again. Blocks stay in raster order: a strip is a run of block rows.
  const int64_t strip_rows = std::max<int64_t>(mcu, (int64_t{1} << 20) / pw / mcu * mcu);
  std::vector<std::vector<at::Tensor>> parts(static_cast<size_t>(channels));
  for (int64_t r0 = 0; r0 < ph; r0 += strip_rows) {
    const int64_t rows = std::min(strip_rows, ph - r0);           // padded rows in this strip
    const int64_t have = std::max<int64_t>(0, std::min(rows, h - r0));  // image rows in it
    // Samples 0..255 as int32: uint8 as is; floats in [0, 1] rounded half to even.
    const auto samples = image.narrow(1, r0, have);
    const auto strip = image.scalar_type() == at::kByte
                           ? samples.to(at::kInt)
                           : at::clamp(at::round(samples.to(at::kDouble) * 255.0), 0.0, 255.0).to(at::kInt);
    std::vector<at::Tensor> planes;
    if (color) {
      DEVPARITY_TRACE_SCOPE("rgb_to_ycbcr");
      const auto r = strip.select(0, 0), g = strip.select(0, 1), b = strip.select(0, 2);
      planes.push_back(fixed_point_mix(r, g, b, 19595, 38470, 7471, 32768));
      planes.push_back(fixed_point_mix(r, g, b, -11059, -21709, 32768, 8421375));
      planes.push_back(fixed_point_mix(r, g, b, 32768, -27439, -5329, 8421375));
    } else {
      planes.push_back(strip.select(0, 0));
    }
    for (size_t c = 0; c < planes.size(); ++c) {
      auto p = pad_edges(planes[c], rows, pw);
      if (c > 0 && sub) p = downsample_2x2(p);
      parts[c].push_back(dct_quantize(p, dct, quant.select(0, out.frame.components[c].quant_table)));
    }
  }
  std::vector<at::Tensor> all;
  int64_t offset = 0;
  for (auto& component : parts) {
    all.push_back(component.size() == 1 ? component[0] : at::cat(component));
    out.offsets.push_back(offset);
    offset += all.back().numel();
  }
  out.coefficients = all.size() == 1 ? all[0] : at::cat(all);
  return out;
}

// Note [Device to host hand-over]
// The order is the whole point (pytorch/vision#8587: an event recorded before
// the encode ordered nothing, and 4K frames came out as noise). Through the
// device-generic interface, so CUDA and the asynchronous vdev run this code:
//  1. the copy is enqueued on the *current* stream, the one the kernels that
//     produced the coefficients ran on, so it starts only after them;
//  2. it is non-blocking into pinned memory (a pageable destination would
//     make the copy synchronous and hide a missing wait in testing);
//  3. the event is recorded on that stream *after* the copy, so it completes
//     only when the bytes have landed;
//  4. the host waits on the event (polling it: 1.13's c10::Event has no
//     synchronize) before anyone reads the buffer.
at::Tensor hand_over(const at::Tensor& device_coefficients) {
  // Entropy coding runs on the host: this copy is the encoder's purpose.
  DEVPARITY_HOST_HANDOVER();
  const auto& src = device_coefficients;
  if (src.device().is_cpu()) return src.contiguous();
  const c10::DeviceGuard guard(src.device());
  const c10::impl::VirtualGuardImpl device(src.device().type());
  auto host = pinned_empty(src.sizes(), src.scalar_type(), src.device().type());
  host.copy_(src, /*non_blocking=*/true);
  c10::Event copied(src.device().type());
  copied.record(device.getStream(src.device()));
  while (!copied.query()) std::this_thread::yield();
  return host;
}

std::vector<uint8_t> entropy_code(QuantizedFrame q, const at::Tensor& host,
                                  const std::vector<std::array<uint16_t, 64>>& host_quant,
                                  const EncoderOptions& options) {
  if (host.device().type() != c10::DeviceType::CPU || host.scalar_type() != at::kShort ||
      !host.is_contiguous() || host.numel() != q.coefficients.numel()) {
    throw std::invalid_argument("entropy_code: expected the contiguous int16 host copy of the coefficients");
  }
  vdev::async::host_reads(host);  // Note [Race detector]: a raw read
  const int16_t* base = host.data_ptr<int16_t>();
  for (size_t c = 0; c < q.frame.components.size(); ++c) q.frame.components[c].coefficients = base + q.offsets[c];
  q.frame.quant_tables = host_quant;
  q.frame.optimize_huffman = options.optimize_huffman;
  q.frame.restart_interval = options.restart_interval;
  return write_jpeg(q.frame);
}

std::vector<uint8_t> encode(const at::Tensor& image, const EncoderTables& tables, const EncoderOptions& options) {
  auto q = quantize(image, tables.dct, tables.quant, options);
  const auto host = hand_over(q.coefficients);
  return entropy_code(std::move(q), host, tables.host_quant, options);
}

EncoderTables device_tables(int quality, int components, const c10::Device& device) {
  // Eighty constants, made on the host and moved once.
  DEVPARITY_HOST_HANDOVER();
  auto tables = make_tables(quality, components);
  tables.dct = tables.dct.to(device);
  tables.quant = tables.quant.to(device);
  return tables;
}

std::vector<uint8_t> encode_image(const at::Tensor& image, const EncoderOptions& options) {
  return encode(image, device_tables(options.quality, static_cast<int>(image.size(0)), image.device()), options);
}

at::Tensor bytes_on(const std::vector<std::vector<uint8_t>>& files, const c10::Device& device) {
  // The bytes were coded on the host; they go back to the device.
  DEVPARITY_HOST_HANDOVER();
  size_t total = 0;
  for (const auto& f : files) total += f.size();
  auto bytes = at::empty({static_cast<int64_t>(total)}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
  size_t at = 0;
  for (const auto& f : files) {
    std::copy(f.begin(), f.end(), bytes.data_ptr<uint8_t>() + at);
    at += f.size();
  }
  return bytes.to(device);
}

}  // namespace devparity::jpeg
