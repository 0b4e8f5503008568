// jpeg: for subjects whose output is JPEG files (TransformInfo::output ==
// "jpeg"), each file is validated (markers, lengths, strict libjpeg decode),
// decoded and compared with its source image against a PSNR floor, and, off
// the reference row, compared with the reference device's file: the bytes
// must be identical, and when they are not the quantized coefficients say
// whether the encoders disagree (how many coefficients, where) or only the
// entropy coding does (a bug either way for a deterministic encoder).

#include "harness/base/error.h"
#include "harness/base/json_reader.h"
#include "harness/checks/registry.h"
#include "harness/jpeg/assess.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace devparity {
namespace {

struct Settings {
  std::optional<double> min_psnr;
  double margin_db = 1.0;
  std::string coefficients = "exact";  // or "report"

  static Settings read(const nlohmann::json& setting) {
    Settings s;
    if (!setting.is_object()) return s;
    ObjectReader r(setting);
    if (r.get("min_psnr") != nullptr) s.min_psnr = r.number("min_psnr", std::nullopt, 0.0, 200.0);
    s.margin_db = r.number("margin_db", 1.0, 0.0, 60.0);
    s.coefficients = r.string("coefficients", std::string("exact"), {"exact", "report"});
    r.finish();
    return s;
  }
};

using Span = std::pair<const uint8_t*, size_t>;

std::vector<Span> files_of(const at::Tensor& bytes) {
  std::vector<Span> out;
  if (bytes.numel() == 0) return out;
  const auto* d = bytes.data_ptr<uint8_t>();
  for (const auto& [begin, end] : jpeg::split_stream(d, static_cast<size_t>(bytes.numel()))) {
    out.emplace_back(d + begin, end - begin);
  }
  return out;
}

// Image n of the input as HWC uint8 levels, as the encoder sees it.
at::Tensor source_levels(const at::Tensor& input, int64_t n) {
  auto x = input.select(0, n);
  if (x.scalar_type() != at::kByte) x = at::clamp(at::round(x.to(at::kDouble) * 255.0), 0, 255).to(at::kByte);
  return x.permute({1, 2, 0}).contiguous();
}

// Where two files' quantized coefficients differ.
nlohmann::json coefficient_diff(const Span& mine, const Span& ref, int64_t* count) {
  const auto a = jpeg::read_coefficients_strict(mine.first, mine.second);
  const auto b = jpeg::read_coefficients_strict(ref.first, ref.second);
  nlohmann::json j = nlohmann::json::object();
  *count = -1;
  if (!a.ok || !b.ok) {
    j["error"] = !a.ok ? "this file: " + a.error : "reference file: " + b.error;
    return j;
  }
  if (a.components.size() != b.components.size()) {
    j["error"] = fmt::format("{} components against the reference's {}", a.components.size(), b.components.size());
    return j;
  }
  int64_t n = 0;
  auto first = nlohmann::json::array();
  auto per_component = nlohmann::json::array();
  for (size_t c = 0; c < a.components.size(); ++c) {
    const auto& ca = a.components[c];
    const auto& cb = b.components[c];
    if (ca.blocks_w != cb.blocks_w || ca.blocks_h != cb.blocks_h) {
      j["error"] = fmt::format("component {}: {}x{} blocks against {}x{}", c, ca.blocks_w, ca.blocks_h,
                               cb.blocks_w, cb.blocks_h);
      return j;
    }
    int64_t in_component = 0;
    for (size_t i = 0; i < ca.values.size(); ++i) {
      if (ca.values[i] == cb.values[i]) continue;
      ++in_component;
      if (first.size() < 8) {
        const auto block = static_cast<int64_t>(i / 64);
        first.push_back({{"component", c}, {"block_row", block / ca.blocks_w}, {"block_col", block % ca.blocks_w},
                         {"index", i % 64}, {"value", ca.values[i]}, {"reference", cb.values[i]}});
      }
    }
    per_component.push_back(in_component);
    n += in_component;
  }
  *count = n;
  j["differing"] = n;
  j["per_component"] = per_component;
  j["first"] = first;
  return j;
}

// One file: valid, and above its PSNR floor against its source image n.
// Adds what is wrong to `problems`; lowers `worst_margin` to the file's.
nlohmann::json assess_file(const at::Tensor& input, int64_t n, const Span& file, const Settings& settings,
                           std::optional<int> quality, std::vector<std::string>& problems, double& worst_margin) {
  const auto src = source_levels(input, n);
  const jpeg::SourceImage source{src.data_ptr<uint8_t>(), static_cast<int>(src.size(1)),
                                 static_cast<int>(src.size(0)), static_cast<int>(src.size(2))};
  jpeg::AssessOptions options;
  options.source = &source;
  options.min_psnr = settings.min_psnr;
  options.quality = quality;
  options.margin_db = settings.margin_db;
  const auto a = jpeg::assess(file.first, file.second, options);
  nlohmann::json f = {{"index", n}, {"verdict", a.verdict}, {"bytes", file.second},
                      {"subsampling", a.inspection.subsampling()}, {"quality", a.quality}};
  if (!a.ok()) {
    f["reason"] = a.reason;
    f["offset"] = a.offset;
    problems.push_back(fmt::format("file {}: {}: {}{}", n, a.verdict, a.reason,
                                   a.verdict == "corrupt" ? fmt::format(" (byte {})", a.offset) : ""));
  }
  if (a.psnr) {
    f["psnr_db"] = std::isfinite(*a.psnr) ? nlohmann::json(*a.psnr) : nlohmann::json("inf");
    f["floor_db"] = a.floor->floor_db;
    f["floor_basis"] = a.floor->basis;
    worst_margin = std::min(worst_margin, *a.psnr - a.floor->floor_db);
  }
  return f;
}

// File n against the reference device's: identical bytes, or (with settings
// "exact") the same quantized coefficients. Records the comparison in `f`,
// adds what is wrong to `problems`; true when the bytes are identical.
bool compare_file(const Span& mine, const Span& ref, int64_t n, const Settings& settings,
                  const std::string& reference_name, nlohmann::json& f, std::vector<std::string>& problems) {
  const bool same = mine.second == ref.second && std::equal(mine.first, mine.first + mine.second, ref.first);
  f["identical_to_reference"] = same;
  if (same) return true;
  int64_t differing = 0;
  f["coefficients"] = coefficient_diff(mine, ref, &differing);
  if (differing == 0) {
    problems.push_back(fmt::format("file {}: bytes differ from {}'s although the quantized "
                                   "coefficients agree: the entropy coding is not deterministic",
                                   n, reference_name));
  } else if (differing > 0 && settings.coefficients == "exact") {
    const auto& first = f["coefficients"]["first"][0];
    problems.push_back(fmt::format(
        "file {}: {} quantized coefficient(s) differ from the reference's; first: component {} "
        "block ({}, {}) index {}: {} vs {}",
        n, differing, first["component"].get<int>(), first["block_row"].get<int64_t>(),
        first["block_col"].get<int64_t>(), first["index"].get<int>(), first["value"].get<int>(),
        first["reference"].get<int>()));
  } else if (differing < 0) {
    problems.push_back(fmt::format("file {}: bytes differ from the reference's and the "
                                   "coefficients could not be compared: {}",
                                   n, f["coefficients"]["error"].get<std::string>()));
  }
  return false;
}

class JpegCheck final : public Check {
 public:
  std::string name() const override { return "jpeg"; }

  std::string description() const override {
    return "JPEG outputs: every file valid (markers, lengths, strict libjpeg decode), decoding "
           "above the PSNR floor against its source, byte-identical to the reference device's";
  }

  void validate_setting(const nlohmann::json& setting) const override { Settings::read(setting); }

  bool applies_to(const TransformInfo& subject) const override { return subject.output == "jpeg"; }

  bool runs_on_reference_row() const override { return true; }

  CheckOutcome run(const CheckContext& ctx) const override {
    CheckOutcome out;
    out.name = name();
    const auto settings = Settings::read(ctx.setting);
    if (!ctx.target.has_values()) {
      out.status = Status::kSkip;
      out.message = "no bytes on meta: the encoder's device part ran for the placement check";
      return out;
    }
    const auto& replay = ctx.replay_for("jpeg");
    const auto& input = replay.input;
    const int64_t images = input.size(0);
    const auto bytes = ctx.output().contiguous();
    if (bytes.dim() != 1 || bytes.scalar_type() != at::kByte) {
      out.status = Status::kFail;
      out.message = fmt::format("{}: expected a 1-D uint8 tensor of JPEG bytes", ctx.result.id);
      return out;
    }
    const auto mine = files_of(bytes);
    const bool compare = !ctx.is_reference_row && ctx.reference.defined();
    const auto ref_bytes = compare ? ctx.reference.contiguous() : at::Tensor();
    const auto refs = compare ? files_of(ref_bytes) : std::vector<Span>{};
    std::optional<int> quality;
    if (replay.params.contains("quality") && replay.params["quality"].is_number_integer()) {
      quality = replay.params["quality"].get<int>();
    }

    std::vector<std::string> problems;
    auto files = nlohmann::json::array();
    double worst_margin = std::numeric_limits<double>::infinity();
    int64_t identical = 0;
    const auto reference_name = replay.reference_device ? replay.reference_device->str() : "the reference";
    for (int64_t n = 0; n < std::min<int64_t>(images, static_cast<int64_t>(mine.size())); ++n) {
      auto f = assess_file(input, n, mine[n], settings, quality, problems, worst_margin);
      if (compare && n < static_cast<int64_t>(refs.size()) &&
          compare_file(mine[n], refs[n], n, settings, reference_name, f, problems)) {
        ++identical;
      }
      files.push_back(std::move(f));
    }
    if (static_cast<int64_t>(mine.size()) != images) {
      problems.push_back(fmt::format("{} JPEG file(s) in the output for {} image(s)", mine.size(), images));
    }
    out.stats = {{"files", files}, {"images", images}};
    if (compare) out.stats["identical_to_reference"] = identical;
    out.describe = compare ? "every file valid, above its PSNR floor, byte-identical to the reference's"
                           : "every file valid and above its PSNR floor";
    if (!problems.empty()) {
      out.status = Status::kFail;
      out.message = fmt::format("{}: {}", ctx.result.id, problems.front());
      if (problems.size() > 1) out.message += fmt::format(" (+{} more)", problems.size() - 1);
      return out;
    }
    out.status = Status::kPass;
    out.message = fmt::format("{} file(s) valid; PSNR at least {:.2f} dB above the floor{}", images,
                              std::isfinite(worst_margin) ? worst_margin : 0.0,
                              compare ? "; byte-identical to the reference" : "");
    return out;
  }
};

}  // namespace

void register_jpeg_check(CheckRegistry& registry) { registry.add(std::make_unique<JpegCheck>()); }

}  // namespace devparity
