// Seeded faults for the jpeg and stress checks, each with its clean twin
// (fault_<name> / clean_<name>; the clean twin is the reference encoder):
//  - jpeg_truncated: the last quarter of every file is lost -> corrupt.
//  - jpeg_missing_eoi: the EOI marker is dropped -> corrupt.
//  - jpeg_bit_flip: the first bit of the scan flipped, inside the first DC
//    Huffman code, so that every code after it is misread -> libjpeg's
//    warnings or the PSNR floor, on every device.
//  - jpeg_late_bit_flip: one bit flipped near the end of the entropy-coded
//    data, off the CPU only. A flip that lands in a coefficient's extra bits
//    changes one coefficient and nothing else: no decoder warns and the PSNR
//    barely moves, so no content check can see it; the cross-device byte and
//    coefficient comparison does.
//  - jpeg_wrong_sof: the SOF's width is off by one within the same MCUs, so
//    the file decodes -> mismatch.
//  - jpeg_read_before_write: entropy coding reads the host buffer before the
//    device's coefficients are copied into it (the CPU analogue of an event
//    recorded before the work). The unwritten buffer holds a poison pattern,
//    as a debugging allocator or compute-sanitizer's initcheck would show it,
//    so the fault is deterministic -> noise (PSNR floor).
//  - jpeg_shared_scratch: every call copies its coefficients into one
//    process-wide scratch buffer and codes from it; calls on other threads
//    overwrite it meanwhile -> the stress check on the CPU. The race is
//    forced (ScratchInterleaving): a call that wrote the buffer while others
//    are still to write waits for the next write before coding, so every
//    concurrent run is clobbered, not some; alone, a call never waits.

#include "harness/jpeg/validator.h"
#include "harness/subject/register.h"
#include "harness/trace/scope.h"
#include "harness/transforms/codec/jpeg_encode.h"
#include "tests/faults/fault_util.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace devparity::faults {
namespace {

TransformInfo jpeg_twin_info(const std::string& name, bool faulty, const std::string& what) {
  auto info = twin_info(name, faulty, what);
  info.family = "faults";
  return info;
}

// Offset of the first entropy-coded byte and of the EOI marker.
std::pair<size_t, size_t> entropy_span(const std::vector<uint8_t>& f) {
  size_t sos = 0;
  for (size_t i = 0; i + 3 < f.size(); ++i) {
    if (f[i] == 0xFF && f[i + 1] == 0xDA) {
      sos = i;
      break;
    }
  }
  const size_t data = sos + 2 + ((f[sos + 2] << 8) | f[sos + 3]);
  return {data, f.size() - 2};
}

// Flips `bit` of the first byte at or after `at` that neither is nor follows
// 0xFF and does not become 0xFF (no marker is made or broken).
void flip_bit(std::vector<uint8_t>& f, size_t at, int bit) {
  const auto [begin, end] = entropy_span(f);
  const auto mask = static_cast<uint8_t>(1u << bit);
  at = std::clamp(at, begin, end - 1);
  while (at < end && (f[at] == 0xFF || f[at - 1] == 0xFF || (f[at] ^ mask) == 0xFF)) ++at;
  if (at < end) f[at] ^= mask;
}

template <bool kFaulty>
class Truncated final : public JpegEncoderBase {
 public:
  Truncated() : JpegEncoderBase(jpeg_twin_info("jpeg_truncated", kFaulty, "loses the last quarter of each file")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto f = JpegEncoderBase::encode_one(image, tables, options);
    if (kFaulty) f.resize(f.size() - f.size() / 4);
    return f;
  }
};

template <bool kFaulty>
class MissingEoi final : public JpegEncoderBase {
 public:
  MissingEoi() : JpegEncoderBase(jpeg_twin_info("jpeg_missing_eoi", kFaulty, "drops the EOI marker")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto f = JpegEncoderBase::encode_one(image, tables, options);
    if (kFaulty) f.resize(f.size() - 2);
    return f;
  }
};

template <bool kFaulty>
class BitFlip final : public JpegEncoderBase {
 public:
  BitFlip() : JpegEncoderBase(jpeg_twin_info("jpeg_bit_flip", kFaulty, "flips the scan's first bit")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto f = JpegEncoderBase::encode_one(image, tables, options);
    if (kFaulty) flip_bit(f, entropy_span(f).first, 7);
    return f;
  }
};

template <bool kFaulty>
class LateBitFlip final : public JpegEncoderBase {
 public:
  LateBitFlip()
      : JpegEncoderBase(jpeg_twin_info("jpeg_late_bit_flip", kFaulty, "flips a bit in the last block, off the CPU")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto f = JpegEncoderBase::encode_one(image, tables, options);
    if (kFaulty && image.device().type() != c10::DeviceType::CPU) flip_silently(f);
    return f;
  }

 private:
  // Flips the last bit of the entropy-coded data whose flip leaves a file
  // that decodes without a warning yet to other pixels: one in a
  // coefficient's extra bits, which changes that coefficient alone (a flip
  // in a Huffman code derails the rest of the scan; one in the final padding
  // changes nothing). Searched from the end, so it is the same bit on every run.
  static void flip_silently(std::vector<uint8_t>& f) {
    jpeg::Decoded original;
    jpeg::validate(f.data(), f.size(), {}, &original);
    const auto [begin, end] = entropy_span(f);
    for (size_t at = end; at-- > begin + 1;) {
      if (f[at] == 0xFF || f[at - 1] == 0xFF) continue;  // markers and stuffed bytes
      for (int bit = 0; bit < 8; ++bit) {
        auto candidate = f;
        candidate[at] ^= static_cast<uint8_t>(1u << bit);
        if (candidate[at] == 0xFF) continue;
        jpeg::Decoded d;
        const auto v = jpeg::validate(candidate.data(), candidate.size(), {}, &d);
        if (v.verdict == jpeg::Verdict::kValid && d.pixels != original.pixels) {
          f = std::move(candidate);
          return;
        }
      }
    }
  }
};

template <bool kFaulty>
class WrongSof final : public JpegEncoderBase {
 public:
  WrongSof() : JpegEncoderBase(jpeg_twin_info("jpeg_wrong_sof", kFaulty, "writes a width off by one")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    auto f = JpegEncoderBase::encode_one(image, tables, options);
    if (!kFaulty) return f;
    for (size_t i = 0; i + 8 < f.size(); ++i) {
      if (f[i] == 0xFF && f[i + 1] == 0xC0) {
        int w = (f[i + 7] << 8) | f[i + 8];
        w = w % 8 == 0 ? w - 1 : w + 1;  // stays inside the last block column
        f[i + 7] = static_cast<uint8_t>(w >> 8);
        f[i + 8] = static_cast<uint8_t>(w & 0xFF);
        break;
      }
    }
    return f;
  }
};

template <bool kFaulty>
class ReadBeforeWrite final : public JpegEncoderBase {
 public:
  ReadBeforeWrite()
      : JpegEncoderBase(jpeg_twin_info("jpeg_read_before_write", kFaulty,
                                       "codes the host buffer before the coefficients are copied in")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    if (!kFaulty) return JpegEncoderBase::encode_one(image, tables, options);
    auto q = jpeg::quantize(image, tables.dct, tables.quant, options);
    // The buffer the copy will land in, not yet written: poison, clamped to
    // what a baseline coder accepts (an encoder saturates what it reads).
    DEVPARITY_HOST_HANDOVER();
    auto host = at::full({q.coefficients.numel()}, -16706 /* 0xBEBE */,
                         at::TensorOptions().dtype(at::kShort).device(at::kCPU));
    host = host.clamp(-1000, 1000).contiguous();
    auto file = jpeg::entropy_code(q, host, tables.host_quant, options);
    host.copy_(jpeg::hand_over(q.coefficients));  // too late
    return file;
  }
};

// Forces the interleaving the seeded race allows. A call takes a Turn when
// it begins and calls written() after it filled the shared buffer, which
// returns once another call has written over it, or when no other call
// that began is still to write after a grace of kGrace for calls started
// at the same moment to begin (so a call alone waits kGrace); 10 s at most.
// A call that throws before writing gives its turn up.
class ScratchInterleaving {
 public:
  static constexpr std::chrono::milliseconds kGrace{50};
  class Turn {
   public:
    explicit Turn(ScratchInterleaving* owner) : owner_(owner) {
      if (owner_ == nullptr) return;
      std::lock_guard<std::mutex> lock(owner_->mutex_);
      ++owner_->unwritten_;
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn() {
      if (owner_ == nullptr || done_) return;
      std::lock_guard<std::mutex> lock(owner_->mutex_);
      --owner_->unwritten_;
      owner_->cv_.notify_all();
    }
    void written() {
      done_ = true;
      std::unique_lock<std::mutex> lock(owner_->mutex_);
      --owner_->unwritten_;
      const uint64_t mine = ++owner_->writes_;
      owner_->cv_.notify_all();
      auto overwritten = [&] { return owner_->writes_ > mine; };
      // A call started at the same time may not have begun yet: a grace for it.
      owner_->cv_.wait_for(lock, kGrace, [&] { return overwritten() || owner_->unwritten_ > 0; });
      owner_->cv_.wait_for(lock, std::chrono::seconds(10), [&] { return overwritten() || owner_->unwritten_ == 0; });
    }

   private:
    ScratchInterleaving* owner_;
    bool done_ = false;
  };

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int unwritten_ = 0;
  uint64_t writes_ = 0;
};

template <bool kFaulty>
class SharedScratch final : public JpegEncoderBase {
 public:
  SharedScratch()
      : JpegEncoderBase(jpeg_twin_info("jpeg_shared_scratch", kFaulty, "codes from one scratch buffer shared by all calls")) {}

 protected:
  std::vector<uint8_t> encode_one(const at::Tensor& image, const jpeg::EncoderTables& tables,
                                  const jpeg::EncoderOptions& options) const override {
    static ScratchInterleaving interleaving;
    ScratchInterleaving::Turn turn(kFaulty ? &interleaving : nullptr);
    auto q = jpeg::quantize(image, tables.dct, tables.quant, options);
    const auto coefficients = jpeg::hand_over(q.coefficients);
    if (!kFaulty) return jpeg::entropy_code(q, coefficients.clone(), tables.host_quant, options);
    DEVPARITY_HOST_HANDOVER();
    static std::mutex resize_mutex;
    static at::Tensor scratch = at::empty({0}, at::TensorOptions().dtype(at::kShort).device(at::kCPU));
    at::Tensor view;
    {
      // Only growing the buffer is locked; using it is not: the seeded bug.
      std::lock_guard<std::mutex> lock(resize_mutex);
      if (scratch.numel() < coefficients.numel()) scratch = at::empty({coefficients.numel()}, scratch.options());
      view = scratch.narrow(0, 0, coefficients.numel());
    }
    view.copy_(coefficients);
    turn.written();
    return jpeg::entropy_code(q, view, tables.host_quant, options);
  }
};

}  // namespace
}  // namespace devparity::faults

DEVPARITY_REGISTER_TRANSFORM(devparity::faults::Truncated<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::Truncated<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::MissingEoi<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::MissingEoi<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::BitFlip<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::BitFlip<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::LateBitFlip<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::LateBitFlip<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::WrongSof<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::WrongSof<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::ReadBeforeWrite<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::ReadBeforeWrite<false>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::SharedScratch<true>)
DEVPARITY_REGISTER_TRANSFORM(devparity::faults::SharedScratch<false>)
