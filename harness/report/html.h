#pragma once
/// The HTML report: one self-contained file (inline CSS and script, images
/// as data: URIs, a Content-Security-Policy that allows nothing from the
/// network and no script but its own). Summary, filters by status, device,
/// dtype and failing check, every result, and for each failure the reference
/// and device images side by side with a heatmap of |diff| (from the
/// trial's .npy artifacts), its statistics and placement findings. Every
/// string from a case file, a subject or an exception is escaped.

#include "harness/model/results.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace devparity {

struct HtmlOptions {
  /// Where the report's artifact paths are relative to (its folder).
  std::string base_dir;
  /// Failures shown in full (images and findings); the rest are listed.
  size_t max_detailed = 200;
};

/// The page for a complete report.
std::string html_report(const nlohmann::json& report, const HtmlOptions& options);
/// The page for `report`'s header and summary with its `results` as read
/// (read_report()'s sink): a reader that has them typed need not keep their
/// JSON too.
std::string html_report(const nlohmann::json& report, const std::vector<TrialResult>& results,
                        const HtmlOptions& options);

}  // namespace devparity
