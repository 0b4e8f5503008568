#include "harness/jpeg/decode.h"

#include <csetjmp>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <utility>

// jpeglib.h needs FILE and size_t declared first.
#include <jerror.h>
#include <jpeglib.h>

namespace devparity::jpeg {
namespace {

// Note [Strict libjpeg]
// libjpeg reports recoverable damage through emit_message(-1) and goes on,
// so a file with a corrupt tail still "decodes". Like TurboJPEG's
// TJFLAG_STOPONWARNING we leave through longjmp on the first warning as on an
// error. Everything the jump skips is C (libjpeg's frames); the C++ objects
// of the calling frame are made before setjmp and only read after it.
struct StrictError {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  int max_scans;
};

[[noreturn]] void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<StrictError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  auto* err = reinterpret_cast<StrictError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

// Progressive files can hold thousands of tiny scans, each a full pass over
// the coefficients: a decode-time bomb. Refuse beyond the limit.
void on_progress(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  auto* err = reinterpret_cast<StrictError*>(cinfo->err);
  if (d->input_scan_number > err->max_scans) {
    std::snprintf(err->message, sizeof err->message, "more than %d scans", err->max_scans);
    longjmp(err->jump, 1);
  }
}

struct Session {
  jpeg_decompress_struct cinfo{};
  StrictError err{};
  jpeg_progress_mgr progress{};
  Session() = default;
  ~Session() { jpeg_destroy_decompress(&cinfo); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

void setup(Session& s, const uint8_t* data, size_t size, const DecodeLimits& limits) {
  s.cinfo.err = jpeg_std_error(&s.err.mgr);
  s.err.mgr.error_exit = on_error;
  s.err.mgr.emit_message = on_message;
  s.err.max_scans = limits.max_scans;
  s.err.message[0] = '\0';
  jpeg_create_decompress(&s.cinfo);
  s.progress.progress_monitor = on_progress;
  s.cinfo.progress = &s.progress;
  jpeg_mem_src(&s.cinfo, data, static_cast<unsigned long>(size));
}

size_t consumed(const Session& s, size_t size) {
  if (s.cinfo.src == nullptr) return 0;
  return size - s.cinfo.src->bytes_in_buffer;
}

bool too_large(const Session& s, const DecodeLimits& limits) {
  return static_cast<int64_t>(s.cinfo.image_width) * s.cinfo.image_height > limits.max_pixels;
}

// Reads the header, runs `body` (which decodes what it needs), finishes.
// setjmp lives here, so a longjmp from libjpeg anywhere in `body` lands in
// this frame; `body` keeps no C++ object with a destructor across libjpeg calls.
template <typename Result, typename Body>
Result run_strict(const uint8_t* data, size_t size, const DecodeLimits& limits, Body body) {
  // Heap-held, so that what longjmp leaves behind is well defined (Note [Strict libjpeg]).
  auto result = std::make_unique<Result>();
  auto session = std::make_unique<Session>();
  Result& out = *result;
  Session& s = *session;
  setup(s, data, size, limits);
  if (setjmp(s.err.jump) != 0) {
    Result failed;
    failed.error = s.err.message;
    failed.offset = consumed(s, size);
    return failed;
  }
  jpeg_read_header(&s.cinfo, TRUE);
  if (too_large(s, limits)) {
    out.error = "frame larger than the decode limit";
    return std::move(out);
  }
  body(s, out);
  jpeg_finish_decompress(&s.cinfo);
  out.offset = consumed(s, size);
  out.ok = true;
  return std::move(out);
}

}  // namespace

Decoded decode_strict(const uint8_t* data, size_t size, const DecodeLimits& limits) {
  return run_strict<Decoded>(data, size, limits, [](Session& s, Decoded& out) {
    s.cinfo.out_color_space = s.cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&s.cinfo);
    out.width = static_cast<int>(s.cinfo.output_width);
    out.height = static_cast<int>(s.cinfo.output_height);
    out.components = s.cinfo.output_components;
    const size_t stride = static_cast<size_t>(out.width) * out.components;
    out.pixels.resize(stride * out.height);
    while (s.cinfo.output_scanline < s.cinfo.output_height) {
      JSAMPROW row = out.pixels.data() + stride * s.cinfo.output_scanline;
      jpeg_read_scanlines(&s.cinfo, &row, 1);
    }
  });
}

Coefficients read_coefficients_strict(const uint8_t* data, size_t size, const DecodeLimits& limits) {
  return run_strict<Coefficients>(data, size, limits, [](Session& s, Coefficients& out) {
    jvirt_barray_ptr* arrays = jpeg_read_coefficients(&s.cinfo);
    out.width = static_cast<int>(s.cinfo.image_width);
    out.height = static_cast<int>(s.cinfo.image_height);
    out.components.resize(static_cast<size_t>(s.cinfo.num_components));
    for (int c = 0; c < s.cinfo.num_components; ++c) {
      const jpeg_component_info& info = s.cinfo.comp_info[c];
      auto& comp = out.components[static_cast<size_t>(c)];
      comp.id = info.component_id;
      comp.h = info.h_samp_factor;
      comp.v = info.v_samp_factor;
      comp.blocks_w = static_cast<int>(info.width_in_blocks);
      comp.blocks_h = static_cast<int>(info.height_in_blocks);
      comp.values.resize(static_cast<size_t>(comp.blocks_w) * comp.blocks_h * 64);
      for (int by = 0; by < comp.blocks_h; ++by) {
        JBLOCKARRAY rows = (*s.cinfo.mem->access_virt_barray)(
            reinterpret_cast<j_common_ptr>(&s.cinfo), arrays[c], static_cast<JDIMENSION>(by), 1, FALSE);
        for (int bx = 0; bx < comp.blocks_w; ++bx) {
          const JCOEF* block = rows[0][bx];
          std::copy(block, block + 64, comp.values.begin() + (static_cast<size_t>(by) * comp.blocks_w + bx) * 64);
        }
      }
    }
  });
}

}  // namespace devparity::jpeg
