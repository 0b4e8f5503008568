#include "harness/report/html.h"

#include "harness/base/npy_array.h"
#include "harness/base/png_codec.h"
#include "harness/base/rng.h"
#include "harness/report/document.h"
#include "harness/report/html_overview.h"
#include "harness/report/junit.h"
#include "harness/report/markup.h"
#include "harness/report/report_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace devparity {
namespace {

std::string esc(const std::string& s) { return escape_markup(s); }

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += table[v >> 18];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= uint8_t(bytes[i + 1]) << 8;
    out += table[v >> 18];
    out += table[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// The first image of an NCHW (CHW, HW) array: its channels of height x width
// elements from the array's start.
struct FirstImage {
  int64_t channels = 0, height = 0, width = 0;
  bool empty() const { return channels * height * width == 0; }
};

FirstImage first_image(const NpyArray& a) {
  const auto& s = a.shape;
  FirstImage f;
  if (s.size() == 2) {
    f = {1, s[0], s[1]};
  } else if (s.size() == 3 || s.size() == 4) {
    f = {s[s.size() - 3], s[s.size() - 2], s[s.size() - 1]};
  }
  if (s.size() == 4 && s[0] == 0) return {};
  return f;
}

// As 8-bit pixels with 1 or 3 channels (of any other count, the first):
// uint8 as stored, other types clamped to [0, 1] (NaN as 0).
PngPixels display_image(const NpyArray& a) {
  auto f = first_image(a);
  PngPixels p;
  if (f.empty()) return p;
  if (f.channels != 3) f.channels = 1;
  p.height = f.height;
  p.width = f.width;
  p.channels = static_cast<int>(f.channels);
  const size_t plane = static_cast<size_t>(f.height * f.width);
  p.samples.resize(plane * p.channels);
  const bool stored = a.kind == 'u' && a.itemsize == 1;
  for (size_t c = 0; c < static_cast<size_t>(p.channels); ++c) {
    for (size_t i = 0; i < plane; ++i) {
      const double v = a.value(c * plane + i);
      const double shown = stored ? v : std::nearbyint(std::clamp(std::isnan(v) ? 0.0 : v, 0.0, 1.0) * 255.0);
      p.samples[i * p.channels + c] = static_cast<uint8_t>(shown);
    }
  }
  return p;
}

// |diff| of the first image, largest over channels, scaled to its finite
// maximum and coloured black -> red -> yellow -> white; a pixel whose
// |diff| is NaN or Inf (NaN or Inf against a number) is magenta, the one
// colour the scale never reaches. `special_out` counts those pixels.
PngPixels heatmap(const NpyArray& diff, double* max_out, int64_t* special_out) {
  const auto f = first_image(diff);
  PngPixels p;
  if (f.empty()) return p;
  const size_t plane = static_cast<size_t>(f.height * f.width);
  std::vector<double> largest(plane, 0.0);
  std::vector<bool> special(plane, false);
  for (size_t c = 0; c < static_cast<size_t>(f.channels); ++c) {
    for (size_t i = 0; i < plane; ++i) {
      const double v = diff.value(c * plane + i);
      if (std::isfinite(v)) {
        largest[i] = std::max(largest[i], v);
      } else {
        special[i] = true;
      }
    }
  }
  const double max = *std::max_element(largest.begin(), largest.end());
  *max_out = max;
  *special_out = std::count(special.begin(), special.end(), true);
  p.height = f.height;
  p.width = f.width;
  p.channels = 3;
  p.samples.resize(plane * 3);
  auto byte = [](double x) { return static_cast<uint8_t>(std::nearbyint(std::clamp(x, 0.0, 1.0) * 255.0)); };
  for (size_t i = 0; i < plane; ++i) {
    const double t = max > 0 ? largest[i] / max : 0.0;
    p.samples[3 * i] = special[i] ? 255 : byte(t * 3.0);
    p.samples[3 * i + 1] = special[i] ? 0 : byte(t * 3.0 - 1.0);
    p.samples[3 * i + 2] = special[i] ? 255 : byte(t * 3.0 - 2.0);
  }
  return p;
}

std::string image_tag(const PngPixels& image, const std::string& alt) {
  if (image.samples.empty()) return "<p class=\"missing\">no image</p>";
  // Small images are drawn larger, pixel for pixel.
  const auto h = image.height, w = image.width;
  const int64_t scale = std::max<int64_t>(1, std::min<int64_t>(16, 192 / std::max<int64_t>(1, std::max(h, w))));
  return fmt::format("<img class=\"shot\" alt=\"{}\" width=\"{}\" height=\"{}\" src=\"data:image/png;base64,{}\">",
                     esc(alt), w * scale, h * scale, base64(encode_png(image)));
}

const nlohmann::json* artifact(const CheckOutcome& check, const char* kind) {
  if (!check.artifacts.is_array()) return nullptr;
  for (const auto& a : check.artifacts) {
    if (a.value("kind", "") == kind) return &a;
  }
  return nullptr;
}

std::string figures(const CheckOutcome& check, const std::string& base_dir) {
  const auto* ref = artifact(check, "reference");
  const auto* out = artifact(check, "output");
  const auto* diff = artifact(check, "abs_diff");
  if (ref == nullptr || out == nullptr || diff == nullptr) return "";
  auto load = [&](const nlohmann::json* a) -> std::optional<NpyArray> {
    namespace fs = std::filesystem;
    const fs::path p(a->value("path", ""));
    try {
      return read_npy_array((p.is_absolute() || base_dir.empty() ? p : fs::path(base_dir) / p).string());
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  const auto r = load(ref), o = load(out), d = load(diff);
  if (!r || !o || !d) {
    return "<p class=\"missing\">artifacts not found next to the report (" + esc(ref->value("path", "")) + ")</p>";
  }
  double max = 0.0;
  int64_t special = 0;
  const auto heat = heatmap(*d, &max, &special);
  std::ostringstream s;
  s << "<div class=\"figures\">"
    << "<figure>" << image_tag(display_image(*r), "reference") << "<figcaption>reference</figcaption></figure>"
    << "<figure>" << image_tag(display_image(*o), "device output") << "<figcaption>device output</figcaption></figure>"
    << "<figure class=\"heat\">" << image_tag(heat, "|diff| heatmap")
    << fmt::format("<figcaption>|diff| (black 0, white {:g}{})</figcaption></figure>", max,
                   special == 0 ? std::string()
                                : fmt::format("; magenta: NaN or Inf against a number, {} pixel(s)", special))
    << "</div>";
  return s.str();
}

std::string findings_table(const CheckOutcome& check) {
  const auto& findings = check.findings;
  if (findings.empty()) return "";
  std::ostringstream s;
  s << "<table class=\"findings\"><tr><th>kind</th><th>severity</th><th>op</th><th>where</th><th>message</th>"
       "<th>device</th><th>count</th></tr>";
  for (const auto& f : findings) {
    std::string where;
    for (const auto& sc : f.value("scopes", nlohmann::json::array())) where += (where.empty() ? "" : " > ") + json_text(sc);
    if (!f.value("source", "").empty()) where += (where.empty() ? "" : " ") + std::string("[") + f.value("source", "") + "]";
    s << "<tr><td>" << esc(f.value("kind", "")) << "</td><td>" << esc(f.value("severity", "")) << "</td><td>"
      << esc(f.value("op", "")) << "</td><td>" << esc(where) << "</td><td>" << esc(f.value("message", ""))
      << "</td><td>" << esc(f.value("device", "")) << "</td><td>" << f.value("count", 1) << "</td></tr>";
  }
  s << "</table>";
  return s.str();
}

bool is_failing(const TrialResult& r) { return r.status == Status::kFail || r.status == Status::kError; }

std::string failing_checks_of(const TrialResult& r) {
  if (!is_failing(r)) return "";
  return fmt::format("{}", fmt::join(deciding_checks(r), " "));
}

std::string options_of(const std::set<std::string>& values) {
  std::string out = "<option value=\"\">all</option>";
  for (const auto& v : values) out += "<option value=\"" + esc(v) + "\">" + esc(v) + "</option>";
  return out;
}

constexpr const char* kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{margin:0 0 .2em}.meta{color:#555;font-size:12px;word-break:break-all}
.counts span{display:inline-block;margin-right:1em;padding:.2em .6em;border-radius:4px;background:#eee}
.pass{color:#176e2d}.fail{color:#b3261e}.error{color:#8a4b00}.skip{color:#666}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
#results td.msg{font-size:12px;max-width:60em;word-break:break-word}
.filters label{margin-right:1em}.detail{border-top:2px solid #ddd;margin-top:1em;padding-top:.5em}
.figures{display:flex;gap:1em;flex-wrap:wrap}figure{margin:0}figcaption{font-size:12px;color:#555}
img.shot{image-rendering:pixelated;border:1px solid #ccc;background:#fff}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;font-size:12px}.missing{color:#8a4b00}
.hidden{display:none}
)css";

constexpr const char* kScript = R"js(
(function(){
  function pick(id){return document.getElementById(id).value;}
  function apply(){
    var s=pick('f-status'),d=pick('f-device'),t=pick('f-dtype'),c=pick('f-check'),q=pick('f-text').toLowerCase();
    var shown=0;
    document.querySelectorAll('[data-status]').forEach(function(e){
      var ok=(!s||e.dataset.status===s)&&(!d||e.dataset.device===d)&&(!t||e.dataset.dtype===t)&&
             (!c||(' '+e.dataset.checks+' ').indexOf(' '+c+' ')>=0)&&(!q||e.dataset.id.toLowerCase().indexOf(q)>=0);
      e.classList.toggle('hidden',!ok);
      if(ok&&e.tagName==='TR')shown++;
    });
    document.getElementById('shown').textContent=shown;
  }
  ['f-status','f-device','f-dtype','f-check','f-text'].forEach(function(id){
    var e=document.getElementById(id);e.addEventListener('change',apply);e.addEventListener('input',apply);
  });
  window.addEventListener('load',function(){
    document.querySelectorAll('img').forEach(function(i){if(i.complete&&i.naturalWidth>0)i.dataset.loaded='1';});
    apply();
  });
})();
)js";

}  // namespace

namespace {

// The head, the run's identity and the verdict with its counts, overall and by device.
void write_summary(std::ostringstream& s, const nlohmann::json& report, const std::string& nonce) {
  const auto summary = ReportSummary::of(report);
  s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
       "style-src 'unsafe-inline'; script-src 'nonce-" << nonce << "'\">"
    << "<title>devparity report</title><style>" << kStyle << kOverviewStyle << "</style></head><body>\n";
  const auto& tool = report.at("tool");
  const auto& run = report.at("run");
  s << "<h1>devparity report</h1><p class=\"meta\">" << esc(tool.value("name", "devparity")) << " "
    << esc(tool.value("version", "")) << " (" << esc(tool.value("git", "")) << "), started "
    << esc(run.value("started_at", "")) << ", " << fmt::format("{:.2f}", run.value("duration_s", 0.0))
    << " s; LibTorch " << esc(report.at("environment").value("torch_version", "")) << "<br>"
    << esc(json_text(run.value("argv", nlohmann::json::array()))) << "</p>\n";
  const auto& counts = summary.results;
  const bool unmet = summary.coverage_unmet();
  const bool passed = summary.passed();
  const bool nothing_ran = counts.total() == counts.skipped;
  const auto interruption = interruption_of(report);
  const char* verdict = interruption ? "INTERRUPTED" : !passed ? "FAILED" : nothing_ran ? "NOTHING RAN" : "PASSED";
  s << "<p class=\"counts\" id=\"verdict\"><span class=\"" << (passed && !interruption ? "pass" : "fail") << "\">"
    << verdict << "</span><span>" << counts.total() << " trials</span>"
    << "<span class=\"pass\">" << counts.passed << " passed</span><span class=\"fail\">" << counts.failed
    << " failed</span><span class=\"error\">" << counts.errored << " errors</span><span class=\"skip\">"
    << counts.skipped << " skipped</span></p>\n";
  if (interruption) {
    s << "<p class=\"fail\" id=\"interrupted\">The run did not finish, " << esc(interruption->describe())
      << ". " << esc(interruption->message) << "</p>\n";
  }
  const auto& nowhere = summary.ran_nowhere;
  if (!summary.not_run.empty()) {
    std::map<std::pair<std::string, std::string>, size_t> gaps;  // (device, reason) -> cases
    for (const auto& g : summary.not_run) ++gaps[{g.device, g.reason}];
    s << "<p id=\"coverage\"" << (unmet ? " class=\"fail\"" : "") << ">Not run"
      << (unmet ? " (--require-all)" : "") << ":";
    if (!nowhere.empty()) s << " " << nowhere.size() << " case(s) ran on no device;";
    for (const auto& [where, cases] : gaps) {
      s << " on " << esc(where.first) << " for " << cases << " case(s) (" << esc(where.second) << ");";
    }
    s << "</p>\n";
  }
  if (const auto& b = summary.baseline) {
    s << "<p>Baseline " << esc(b->path) << ": " << b->known.size() << " known failure(s) (not gating), "
      << b->fresh.size() << " new, " << b->fixed.size() << " fixed.</p>\n";
  }
  s << "<table><tr><th>device</th><th>pass</th><th>fail</th><th>error</th><th>skip</th></tr>";
  for (const auto& [device, c] : summary.by_device) {
    s << "<tr><td>" << esc(device) << "</td><td>" << c.passed << "</td><td>" << c.failed << "</td><td>" << c.errored
      << "</td><td>" << c.skipped << "</td></tr>";
  }
  s << "</table>\n";
}

// The filter controls, with the devices, dtypes and checks the results name.
void write_filters(std::ostringstream& s, const std::vector<TrialResult>& results) {
  std::set<std::string> devices, dtypes, checks;
  for (const auto& r : results) {
    devices.insert(r.device);
    dtypes.insert(r.dtype);
    for (const auto& c : r.checks) checks.insert(c.name);
  }
  s << "<div class=\"filters\"><label>status <select id=\"f-status\">"
    << options_of({"pass", "fail", "error", "skip"}) << "</select></label><label>device <select id=\"f-device\">"
    << options_of(devices) << "</select></label><label>dtype <select id=\"f-dtype\">" << options_of(dtypes)
    << "</select></label><label>failing check <select id=\"f-check\">" << options_of(checks)
    << "</select></label><label>id contains <input id=\"f-text\" type=\"search\"></label>"
    << "<span><span id=\"shown\">" << results.size() << "</span> shown</span></div>\n";
}

// What the filters match on.
std::string data_attributes(const TrialResult& r) {
  return fmt::format(" data-status=\"{}\" data-device=\"{}\" data-dtype=\"{}\" data-checks=\"{}\" data-id=\"{}\"",
                     status_name(r.status), esc(r.device), esc(r.dtype), esc(failing_checks_of(r)), esc(r.id));
}

// One row per result; the first `detailed` (failures) link to their sections.
void write_results_table(std::ostringstream& s, const std::vector<const TrialResult*>& order, size_t detailed) {
  s << "<table id=\"results\"><tr><th>status</th><th>result</th><th>message</th><th>ms</th></tr>\n";
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& r = *order[i];
    const auto status = status_name(r.status);
    auto message = r.message;
    if (message.size() > 400) message = message.substr(0, 397) + "...";
    const auto id = esc(r.id);
    const auto link = i < detailed ? fmt::format("<a href=\"#detail-{}\">{}</a>", i, id) : id;
    s << "<tr" << data_attributes(r) << "><td class=\"" << status << "\">" << status << "</td><td>" << link
      << (r.baseline.empty() ? "" : " <em>(" + esc(r.baseline) + ")</em>") << "</td><td class=\"msg\">"
      << esc(message) << "</td><td>" << fmt::format("{:.3f}", r.duration_ms) << "</td></tr>\n";
  }
  s << "</table>\n";
}

// A failure's section: its identity, and the evidence of each failing check
// or check with findings.
void write_failure_detail(std::ostringstream& s, const TrialResult& r, size_t i, const std::string& base_dir) {
  s << "<section class=\"detail\" id=\"detail-" << i << "\"" << data_attributes(r) << "><h3>" << esc(r.id)
    << "</h3><p>" << esc(r.message) << "</p>"
    << "<p class=\"meta\">subject " << esc(r.subject) << ", params " << esc(json_text(r.params)) << ", seed "
    << r.seed << ", reference " << esc(r.reference_subject) << " on " << esc(r.reference_device) << "</p>";
  for (const auto& c : r.checks) {
    const bool failed = c.status == Status::kFail || c.status == Status::kError;
    if (!failed && c.findings.empty()) continue;
    const auto cs = status_name(c.status);
    s << "<h4 class=\"" << cs << "\">" << esc(c.name) << ": " << cs << "</h4>" << figures(c, base_dir) << "<pre>"
      << esc(check_evidence(c)) << "</pre>" << findings_table(c);
  }
  s << "</section>\n";
}

}  // namespace

std::string html_report(const nlohmann::json& report, const HtmlOptions& options) {
  return html_report(report, results_of(report), options);
}

std::string html_report(const nlohmann::json& report, const std::vector<TrialResult>& results,
                        const HtmlOptions& options) {
  // A fresh nonce per page: only the page's own script runs, whatever text
  // got into it.
  SplitMix64 rng(static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  const auto nonce = fmt::format("{:016x}{:016x}", rng.next(), rng.next());
  std::ostringstream s;
  // Failures first, then the rest, in report order.
  std::vector<const TrialResult*> order;
  for (const auto& r : results) {
    if (is_failing(r)) order.push_back(&r);
  }
  const size_t failing = order.size();
  for (const auto& r : results) {
    if (!is_failing(r)) order.push_back(&r);
  }
  const size_t detailed = std::min(failing, options.max_detailed);
  std::map<std::string, size_t> detail_of;
  for (size_t i = 0; i < detailed; ++i) detail_of.emplace(order[i]->id, i);
  write_summary(s, report, nonce);
  write_matrix(s, report, results);
  write_problems(s, results, detail_of);
  write_filters(s, results);
  write_results_table(s, order, detailed);
  s << "<h2>Failures</h2>\n";
  if (failing == 0) s << "<p>None.</p>\n";
  for (size_t i = 0; i < detailed; ++i) write_failure_detail(s, *order[i], i, options.base_dir);
  if (failing > options.max_detailed) {
    s << "<p>" << failing - options.max_detailed << " more failure(s) are listed above without details.</p>\n";
  }
  s << "<script nonce=\"" << nonce << "\">" << kScript << "</script>\n</body></html>\n";
  return s.str();
}

}  // namespace devparity
