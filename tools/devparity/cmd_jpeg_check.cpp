// devparity jpeg-check: the validator the runner's jpeg check uses, on files.

#include "harness/base/error.h"
#include "harness/base/input_file.h"
#include "harness/base/npy.h"
#include "harness/base/png.h"
#include "harness/jpeg/assess.h"
#include "tools/devparity/commands.h"

#include <CLI/CLI.hpp>

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <regex>

namespace devparity::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The reference as HWC uint8: .png, or .npy in CHW, HWC, NCHW (N = 1) or HW.
at::Tensor load_reference(const std::string& path) {
  at::Tensor x;
  if (ends_with(path, ".png") || ends_with(path, ".PNG")) {
    x = read_png(path);
  } else if (ends_with(path, ".npy")) {
    x = read_npy(path);
    if (x.dim() == 4 && x.size(0) == 1) x = x.select(0, 0);
    if (x.dim() == 2) x = x.unsqueeze(0);
    if (x.dim() != 3) {
      throw InputError(fmt::format("{}: expected an image (HW, CHW, HWC or 1xCxHxW), got {} dimensions", path, x.dim()));
    }
    const bool chw = x.size(0) == 1 || x.size(0) == 3;
    const bool hwc = x.size(2) == 1 || x.size(2) == 3;
    if (!chw && !hwc) {
      throw InputError(fmt::format("{}: shape [{}] has no 1- or 3-channel axis first or last", path,
                                   fmt::join(x.sizes(), ", ")));
    }
    if (!chw) x = x.permute({2, 0, 1});
    if (x.is_floating_point()) {
      x = at::clamp(at::round(x.to(at::kDouble) * 255.0), 0, 255).to(at::kByte);
    } else if (x.scalar_type() != at::kByte) {
      throw InputError(fmt::format("{}: dtype must be uint8 or floating (in [0, 1])", path));
    }
  } else {
    throw InputError(fmt::format("{}: the reference must be a .png or .npy file", path));
  }
  return x.permute({1, 2, 0}).contiguous();
}

std::optional<std::pair<int, int>> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  static const std::regex pattern("([0-9]{1,5})x([0-9]{1,5})");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) {
    throw UsageError(fmt::format("--expect-size '{}': expected HxW, e.g. 2160x3840", text));
  }
  return std::make_pair(std::stoi(m[1]), std::stoi(m[2]));
}

nlohmann::json number_or_inf(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf"); }

}  // namespace

CLI::App* add_jpeg_check_command(CLI::App& app, Options& o) {
  auto* jpeg = app.add_subcommand("jpeg-check", "Validate JPEG files: markers, segment lengths and a "
                                                "strict libjpeg-turbo decode; with --reference, also "
                                                "how close each decodes to its source");
  jpeg->add_option("files", o.jpeg_check.files, "JPEG files")->required();
  jpeg->add_option("--reference", o.jpeg_check.reference,
                   "The source image (.npy CHW or HWC, uint8 or float in [0, 1]; or .png): a file "
                   "that decodes far from it is reported as noise");
  jpeg->add_option("--min-psnr", o.jpeg_check.min_psnr,
                   "PSNR floor in dB (default: by quality, estimated from the file's tables)")
      ->check(number_check(0, 200));
  jpeg->add_option("--expect-size", o.jpeg_check.expect_size, "HxW the files must have, e.g. 2160x3840");
  jpeg->add_flag("--json", o.jpeg_check.json, "One JSON object per file, as an array");
  return jpeg;
}

namespace {

// One file's assessment as `jpeg-check --json` gives it.
nlohmann::json assessment_json(const std::string& path, size_t bytes, const jpeg::Assessment& a) {
  nlohmann::json j = {{"file", path}};
  const auto& in = a.inspection;
  j["verdict"] = a.verdict;
  j["bytes"] = bytes;
  if (!a.ok()) j["reason"] = a.reason;
  if (a.verdict == "corrupt") j["offset"] = a.offset;
  if (in.width > 0) {
    j["width"] = in.width;
    j["height"] = in.height;
    j["components"] = in.components.size();
    j["subsampling"] = in.subsampling();
    j["progressive"] = in.progressive;
    j["markers"] = in.markers;
  }
  if (a.quality > 0) j["quality"] = {{"value", a.quality}, {"estimated", a.quality_estimated}};
  if (a.psnr) {
    j["psnr_db"] = number_or_inf(*a.psnr);
    j["floor_db"] = a.floor->floor_db;
    j["floor_basis"] = a.floor->basis;
  }
  return j;
}

// One file's line in the text output.
void print_assessment(const std::string& path, size_t bytes, const jpeg::Assessment& a) {
  const auto& in = a.inspection;
  if (a.verdict == "corrupt") {
    fmt::print("{}: corrupt at byte {}: {}\n", path, a.offset, a.reason);
  } else if (!a.ok()) {
    fmt::print("{}: {}: {}\n", path, a.verdict, a.reason);
  } else {
    std::string line = fmt::format("{}: valid: {}x{}, {} component(s) {}, {}, {} bytes", path, in.width, in.height,
                                   in.components.size(), in.subsampling(),
                                   in.progressive ? "progressive" : "baseline", bytes);
    if (a.psnr) {
      line += fmt::format("; PSNR {} dB (floor {:.2f}, quality {}{})",
                          std::isfinite(*a.psnr) ? fmt::format("{:.2f}", *a.psnr) : "inf", a.floor->floor_db,
                          a.quality_estimated ? "~" : "", a.quality);
    }
    fmt::print("{}\n", line);
  }
}

}  // namespace

int cmd_jpeg_check(const Options& options) {
  const auto& o = options.jpeg_check;
  const auto size = parse_size(o.expect_size);
  at::Tensor reference;
  jpeg::SourceImage source;
  if (!o.reference.empty()) {
    reference = load_reference(o.reference);
    source = {reference.data_ptr<uint8_t>(), static_cast<int>(reference.size(1)),
              static_cast<int>(reference.size(0)), static_cast<int>(reference.size(2))};
  }
  jpeg::AssessOptions assess_options;
  if (size) {
    assess_options.expect.height = size->first;
    assess_options.expect.width = size->second;
  }
  if (reference.defined()) assess_options.source = &source;
  assess_options.min_psnr = o.min_psnr;

  auto all = nlohmann::json::array();
  std::map<std::string, int> counts;
  bool unreadable = false;
  for (const auto& path : o.files) {
    std::string bytes;
    try {
      bytes = read_input_file(path);
    } catch (const InputError& e) {  // a directory, a stream without end, no such file
      unreadable = true;
      ++counts["unreadable"];
      nlohmann::json j = {{"file", path}, {"verdict", "unreadable"}};
      std::string reason = e.what();
      if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
      j["reason"] = reason;
      if (!o.json) fmt::print("{}: unreadable: {}\n", path, reason);
      all.push_back(j);
      continue;
    }
    const auto a = jpeg::assess(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), assess_options);
    ++counts[a.verdict];
    all.push_back(assessment_json(path, bytes.size(), a));
    if (!o.json) print_assessment(path, bytes.size(), a);
  }
  if (o.json) {
    std::cout << all.dump(2) << "\n";
  } else if (o.files.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [verdict, n] : counts) parts.push_back(fmt::format("{} {}", n, verdict));
    fmt::print("{} file(s): {}\n", o.files.size(), fmt::join(parts, ", "));
  }
  if (unreadable) return 2;
  return counts["valid"] == static_cast<int>(o.files.size()) ? 0 : 1;
}

}  // namespace devparity::cli
