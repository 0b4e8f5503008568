#include "harness/report/diff_html.h"

#include "harness/base/text.h"
#include "harness/report/html_overview.h"
#include "harness/report/markup.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace devparity {
namespace {

std::string esc(const std::string& s) { return escape_markup(s); }

// What happened to a cell's results, the worst first: the class that colours it.
enum Change { kNewFailure, kMoved, kChanged, kOnlyOne, kFixed, kSame, kChangeCount };
constexpr const char* kClass[] = {"new", "moved", "changed", "one", "fixed", "same"};
constexpr const char* kWords[] = {"new failure", "statistic moved", "other status change", "in one report alone",
                                  "fixed", "unchanged"};

struct Cell {
  int counts[kChangeCount] = {};
  int results = 0;
  Change worst() const {
    for (int c = 0; c < kChangeCount; ++c) {
      if (counts[c] > 0) return static_cast<Change>(c);
    }
    return kSame;
  }
};

constexpr const char* kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}.meta{color:#555;font-size:12px;word-break:break-all}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
td.m{width:6em;text-align:center;font-size:12px;border:2px solid #fff}
.m.new{background:#f6c9c5;font-weight:bold}.m.moved{background:#fbe0bd}.m.changed{background:#fff3b0}
.m.one{background:#e3e0f5}.m.fixed{background:#d7f0dc}.m.same{background:#eee;color:#777}.m.none{background:#fafafa}
td.msg{font-size:12px;max-width:60em;word-break:break-word}.legend span{margin-right:1em;padding:0 .4em}
)css";

void write_matrix(std::ostringstream& s, const ReportDiff& d) {
  std::vector<std::string> cases, devices;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  std::map<std::string, Change> change_of;  // the worst change of each id
  auto mark = [&](const std::string& id, Change c) {
    const auto it = change_of.find(id);
    if (it == change_of.end() || c < it->second) change_of[id] = c;
  };
  for (const auto& c : d.new_failures) mark(c.id, kNewFailure);
  for (const auto& m : d.moved) mark(m.id, kMoved);
  for (const auto& c : d.changed) mark(c.id, kChanged);
  for (const auto& id : d.only_old) mark(id, kOnlyOne);
  for (const auto& id : d.only_new) mark(id, kOnlyOne);
  for (const auto& c : d.fixed) mark(c.id, kFixed);
  for (const auto& [id, place] : d.places) {
    add_unique(cases, place.first);
    add_unique(devices, place.second);
    auto& cell = cells[place];
    const auto it = change_of.find(id);
    ++cell.counts[it == change_of.end() ? kSame : it->second];
    ++cell.results;
  }
  s << "<h2>Devices x cases, by change</h2>\n<p class=\"legend\">";
  for (int c = 0; c < kChangeCount; ++c) s << "<span class=\"m " << kClass[c] << "\">" << kWords[c] << "</span>";
  s << "</p>\n";
  write_case_device_table(s, "id=\"matrix\"", cases, devices, [&](const auto& c, const auto& dev) {
    const auto it = cells.find({c, dev});
    if (it == cells.end()) return false;
    const auto& cell = it->second;
    const auto worst = cell.worst();
    std::string title;
    for (int k = 0; k < kChangeCount; ++k) {
      if (cell.counts[k] > 0) title += fmt::format("{}{} {}", title.empty() ? "" : ", ", cell.counts[k], kWords[k]);
    }
    s << "<td class=\"m " << kClass[worst] << "\" title=\"" << esc(c + " on " + dev + ": " + title) << "\">"
      << (worst == kSame ? std::to_string(cell.results) : fmt::format("{}/{}", cell.counts[worst], cell.results))
      << "</td>";
    return true;
  });
}

void write_changes(std::ostringstream& s, const char* title, const std::vector<StatusChange>& v) {
  if (v.empty()) return;
  s << "<h2>" << title << " (" << v.size() << ")</h2>\n<table><tr><th>result</th><th>was</th><th>now</th><th>checks</th>"
    << "<th>message</th></tr>\n";
  for (const auto& c : v) {
    s << "<tr><td>" << esc(c.id) << "</td><td>" << esc(c.from) << "</td><td>" << esc(c.to) << "</td><td>"
      << esc(c.checks) << "</td><td class=\"msg\">" << esc(c.message) << "</td></tr>\n";
  }
  s << "</table>\n";
}

void write_moved(std::ostringstream& s, const std::vector<StatMove>& moved) {
  if (moved.empty()) return;
  s << "<h2>Statistics that moved (" << moved.size() << ")</h2>\n<table><tr><th>result</th><th>check</th>"
    << "<th>statistic</th><th>was</th><th>now</th><th>moved</th></tr>\n";
  for (const auto& m : moved) {
    const double r = m.severity();
    s << "<tr><td>" << esc(m.id) << "</td><td>" << esc(m.check) << "</td><td>" << esc(m.stat) << "</td><td>"
      << esc(number_text(m.from)) << "</td><td>" << esc(number_text(m.to)) << "</td><td>"
      << (std::isfinite(r) ? fmt::format("x{:.3g}", r) : std::string("x inf")) << "</td></tr>\n";
  }
  s << "</table>\n";
}

}  // namespace

std::string diff_html(const ReportDiff& d) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    << "<title>devparity diff</title><style>" << kStyle << "</style></head><body>\n"
    << "<h1>devparity diff: " << (d.regressed() ? "regressions" : "no regression") << "</h1>\n"
    << "<p class=\"meta\">" << esc(d.old_path) << " &rarr; " << esc(d.new_path) << "</p>\n<p>"
    << fmt::format("{} paired results; <b>{} new failure(s)</b>, {} fixed, {} other status change(s), {} statistic(s) "
                   "moved; {} only in the old report, {} only in the new.",
                   d.paired, d.new_failures.size(), d.fixed.size(), d.changed.size(), d.moved.size(),
                   d.only_old.size(), d.only_new.size())
    << "</p>\n";
  write_matrix(s, d);
  write_changes(s, "New failures", d.new_failures);
  write_moved(s, d.moved);
  write_changes(s, "Fixed", d.fixed);
  write_changes(s, "Other status changes", d.changed);
  s << "</body></html>\n";
  return s.str();
}

}  // namespace devparity
