// JPEG on a 3840x2160 frame at quality 90, 4:2:0, standard Huffman tables:
// the reference encoder on the CPU (whole, and its device part and entropy
// coding alone) against libjpeg-turbo's tjCompress2 with the same settings;
// validation (marker walk + strict decode) against tjDecompress2 alone.
// Bytes processed are the JPEG file's, so MB/s reads as file throughput.

#include "harness/transforms/codec/jpeg_encoder.h"
#include "harness/jpeg/validator.h"
#include "tools/bench/bench_util.h"

#include <turbojpeg.h>

#include <memory>
#include <stdexcept>

namespace devparity::bench {
namespace {

constexpr int kQuality = 90;

// A frame with smooth gradients and some texture, like a photograph: pure
// noise would make the entropy coder the whole story.
const at::Tensor& frame() {
  static const at::Tensor f = [] {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    const auto y = at::linspace(0, 1, 2160).reshape({1, 2160, 1});
    const auto x = at::linspace(0, 1, 3840).reshape({1, 1, 3840});
    const auto base = at::cat({y * 0.6 + x * 0.3, (1 - y) * 0.5 + x * 0.2, at::sin(x * 20) * 0.25 + 0.5 + y * 0.0}, 0);
    const auto texture = at::rand({3, 2160, 3840}, gen) * 0.15;
    return ((base * 0.85 + texture) * 255).round().clamp(0, 255).to(at::kByte).contiguous();
  }();
  return f;
}

const at::Tensor& frame_hwc() {
  static const at::Tensor f = frame().permute({1, 2, 0}).contiguous();
  return f;
}

jpeg::EncoderOptions options() {
  jpeg::EncoderOptions o;
  o.quality = kQuality;
  return o;
}

const std::vector<uint8_t>& encoded() {
  static const auto bytes = jpeg::encode_image(frame(), options());
  return bytes;
}

void BM_jpeg_encode_4k_q90_devparity(benchmark::State& state) {
  const auto tables = jpeg::make_tables(kQuality, 3);
  const auto& image = frame();  // made once, before the clock starts
  size_t bytes = 0;
  for (auto _ : state) bytes = jpeg::encode(image, tables, options()).size();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_jpeg_encode_4k_q90_device_part(benchmark::State& state) {
  const auto tables = jpeg::make_tables(kQuality, 3);
  for (auto _ : state) {
    auto q = jpeg::quantize(frame(), tables.dct, tables.quant, options());
    benchmark::DoNotOptimize(jpeg::hand_over(q.coefficients).data_ptr());
  }
}

void BM_jpeg_encode_4k_q90_entropy_coding(benchmark::State& state) {
  const auto tables = jpeg::make_tables(kQuality, 3);
  const auto q = jpeg::quantize(frame(), tables.dct, tables.quant, options());
  const auto host = jpeg::hand_over(q.coefficients);
  for (auto _ : state) benchmark::DoNotOptimize(jpeg::entropy_code(q, host, tables.host_quant, options()).data());
}

void BM_jpeg_encode_4k_q90_libjpeg_turbo(benchmark::State& state) {
  tjhandle t = tjInitCompress();
  unsigned long size = 0;
  for (auto _ : state) {
    unsigned char* out = nullptr;
    if (tjCompress2(t, frame_hwc().data_ptr<uint8_t>(), 3840, 0, 2160, TJPF_RGB, &out, &size, TJSAMP_420,
                    kQuality, 0) != 0) {
      state.SkipWithError(tjGetErrorStr2(t));
      break;
    }
    tjFree(out);
  }
  tjDestroy(t);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_jpeg_validate_4k_devparity(benchmark::State& state) {
  const auto& bytes = encoded();
  for (auto _ : state) {
    const auto r = jpeg::validate(bytes.data(), bytes.size());
    if (r.verdict != jpeg::Verdict::kValid) state.SkipWithError(r.reason.c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}

void BM_jpeg_decode_4k_libjpeg_turbo(benchmark::State& state) {
  const auto& bytes = encoded();
  std::vector<uint8_t> out(3840 * 2160 * 3);
  tjhandle t = tjInitDecompress();
  for (auto _ : state) {
    if (tjDecompress2(t, bytes.data(), bytes.size(), out.data(), 3840, 0, 2160, TJPF_RGB, 0) != 0) {
      state.SkipWithError(tjGetErrorStr2(t));
      break;
    }
  }
  tjDestroy(t);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}

BENCHMARK(BM_jpeg_encode_4k_q90_devparity)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jpeg_encode_4k_q90_device_part)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jpeg_encode_4k_q90_entropy_coding)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jpeg_encode_4k_q90_libjpeg_turbo)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jpeg_validate_4k_devparity)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_jpeg_decode_4k_libjpeg_turbo)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace devparity::bench
