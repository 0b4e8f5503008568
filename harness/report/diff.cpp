#include "harness/report/diff.h"

#include "harness/base/text.h"
#include "harness/report/report_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

namespace devparity {
namespace {

bool failing(const std::string& status) { return status == "fail" || status == "error"; }

std::string failing_check_names(const nlohmann::json& r) {
  return fmt::format("{}", fmt::join(deciding_checks(r), ","));
}

// A statistic as the report writes it: a number, or "NaN" / "Infinity" / "-Infinity".
std::optional<double> number_at(const nlohmann::json& stats, const char* key) {
  if (!stats.contains(key)) return std::nullopt;
  const auto& v = stats[key];
  if (v.is_number()) return v.get<double>();
  if (v == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (v == "Infinity") return std::numeric_limits<double>::infinity();
  if (v == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

// A number that became NaN or infinite has moved, whatever the thresholds.
bool became_non_finite(double from, double to) { return std::isfinite(from) && !std::isfinite(to); }

// A table cell: pipes escaped (GitHub's tables take \|), no newlines.
std::string cell(std::string s) {
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

// The moves of one transform on one device: how many, and the largest.
struct MoveGroup {
  std::string subject, device;
  size_t count = 0;
  const StatMove* largest = nullptr;
};

// Groups by transform and device, the most severe first.
std::vector<MoveGroup> by_subject_and_device(const std::vector<StatMove>& moved) {
  std::map<std::pair<std::string, std::string>, MoveGroup> groups;
  for (const auto& m : moved) {
    auto& g = groups[{m.subject, m.device}];
    g.subject = m.subject;
    g.device = m.device;
    ++g.count;
    if (g.largest == nullptr || m.severity() > g.largest->severity()) g.largest = &m;
  }
  std::vector<MoveGroup> out;
  for (auto& [key, g] : groups) out.push_back(g);
  std::stable_sort(out.begin(), out.end(), [](const MoveGroup& a, const MoveGroup& b) {
    return a.largest->severity() > b.largest->severity();
  });
  return out;
}

// "x12.5", "x inf".
std::string ratio_text(double r) { return std::isfinite(r) ? fmt::format("x{:.3g}", r) : "x inf"; }

constexpr size_t kMarkdownRows = 50;  // a pull-request comment stays readable (and under its size limit)

}  // namespace

double StatMove::severity() const {
  if (became_non_finite(from, to) || std::isnan(to)) return std::numeric_limits<double>::infinity();
  if (stat == "psnr_db") return std::pow(10.0, (from - to) / 20.0);
  return from > 0.0 ? to / from : std::numeric_limits<double>::infinity();
}

ReportDiff diff_reports(const nlohmann::json& old_report, const nlohmann::json& new_report,
                        const DiffThresholds& t) {
  ReportDiff d;
  std::map<std::string, const nlohmann::json*> older;
  for (const auto& r : old_report.at("results")) older[r.at("id").get<std::string>()] = &r;
  d.old_results = older.size();
  std::map<std::string, bool> seen;
  for (const auto& r : new_report.at("results")) {
    const auto id = r.at("id").get<std::string>();
    ++d.new_results;
    const auto it = older.find(id);
    const auto to = r.at("status").get<std::string>();
    if (it == older.end()) {
      d.only_new.push_back(id);
      if (failing(to)) d.new_failures.push_back({id, "absent", to, failing_check_names(r), r.value("message", "")});
      continue;
    }
    seen[id] = true;
    ++d.paired;
    const auto& o = *it->second;
    const auto from = o.at("status").get<std::string>();
    StatusChange change{id, from, to, failing_check_names(r), r.value("message", "")};
    if (failing(to) && !failing(from)) {
      d.new_failures.push_back(change);
    } else if (failing(from) && to == "pass") {
      // What was fixed: the older report's failing checks and message.
      change.checks = failing_check_names(o);
      change.message = o.value("message", "");
      d.fixed.push_back(change);
    } else if (from != to) {
      d.changed.push_back(change);
    }
    // Statistics of checks present on both sides.
    for (const auto& c : r.at("checks")) {
      const auto name = c.value("name", "");
      for (const auto& oc : o.at("checks")) {
        if (oc.value("name", "") != name) continue;
        const auto& ns = c.value("stats", nlohmann::json::object());
        const auto& os = oc.value("stats", nlohmann::json::object());
        const auto a = number_at(os, "max_abs"), b = number_at(ns, "max_abs");
        const auto subject = r.value("subject", ""), device = r.value("device", "");
        if (a && b && (became_non_finite(*a, *b) || (*b > *a * (1.0 + t.max_abs_growth) && *b - *a > t.max_abs_floor))) {
          d.moved.push_back({id, name, "max_abs", *a, *b, subject, device});
        }
        const auto pa = number_at(os, "psnr_db"), pb = number_at(ns, "psnr_db");
        if (pa && pb && std::isfinite(*pa) && (std::isnan(*pb) || *pa - *pb > t.psnr_drop_db)) {
          d.moved.push_back({id, name, "psnr_db", *pa, *pb, subject, device});
        }
      }
    }
  }
  for (const auto& [id, r] : older) {
    if (seen.count(id) == 0) d.only_old.push_back(id);
  }
  return d;
}

nlohmann::json ReportDiff::to_json() const {
  auto changes = [](const std::vector<StatusChange>& v) {
    auto out = nlohmann::json::array();
    for (const auto& c : v) {
      out.push_back({{"id", c.id}, {"from", c.from}, {"to", c.to}, {"checks", c.checks}, {"message", c.message}});
    }
    return out;
  };
  auto moves = nlohmann::json::array();
  for (const auto& m : moved) {
    moves.push_back({{"id", m.id}, {"check", m.check}, {"stat", m.stat}, {"from", json_number(m.from)},
                     {"to", json_number(m.to)}});
  }
  return {{"old", old_path},
          {"new", new_path},
          {"old_results", old_results},
          {"new_results", new_results},
          {"paired", paired},
          {"regressed", regressed()},
          {"new_failures", changes(new_failures)},
          {"fixed", changes(fixed)},
          {"status_changes", changes(changed)},
          {"only_old", only_old},
          {"only_new", only_new},
          {"stats_moved", moves}};
}

std::string ReportDiff::to_text() const {
  std::ostringstream out;
  out << fmt::format("{} -> {}: {} paired result(s), {} only in the old, {} only in the new\n", old_path,
                     new_path, paired, only_old.size(), only_new.size());
  auto list = [&](const char* title, const std::vector<StatusChange>& v) {
    if (v.empty()) return;
    out << fmt::format("\n{} ({}):\n", title, v.size());
    for (const auto& c : v) {
      out << fmt::format("  {}  {} -> {}{}\n", c.id, c.from, c.to, c.checks.empty() ? "" : " [" + c.checks + "]");
      if (!c.message.empty()) out << "      " << c.message << "\n";
    }
  };
  list("new failures", new_failures);
  list("fixed", fixed);
  list("other status changes", changed);
  if (!moved.empty()) {
    out << fmt::format("\nstatistics that moved ({}):\n", moved.size());
    for (const auto& m : moved) {
      out << fmt::format("  {}  {}.{}: {} -> {}\n", m.id, m.check, m.stat, number_text(m.from), number_text(m.to));
    }
  }
  out << (regressed() ? "\nREGRESSED\n" : "\nno regression\n");
  return out.str();
}

std::string ReportDiff::to_markdown() const {
  std::ostringstream out;
  out << "### devparity: " << (regressed() ? "regressions" : "no regression") << "\n\n";
  out << fmt::format("`{}` → `{}`: {} paired results; **{} new failure(s)**, {} fixed, {} other status "
                     "change(s), {} statistic(s) moved; {} only in the old report, {} only in the new.\n",
                     cell(old_path), cell(new_path), paired, new_failures.size(), fixed.size(), changed.size(),
                     moved.size(), only_old.size(), only_new.size());
  auto more = [&](size_t total) {
    if (total > kMarkdownRows) out << fmt::format("\n… and {} more (`devparity diff --format json` lists all)\n", total - kMarkdownRows);
  };
  auto table = [&](const char* title, const std::vector<StatusChange>& v) {
    if (v.empty()) return;
    out << "\n#### " << title << "\n\n| result | was | now | checks | message |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < v.size() && i < kMarkdownRows; ++i) {
      const auto& c = v[i];
      out << fmt::format("| `{}` | {} | {} | {} | {} |\n", cell(c.id), c.from, c.to, cell(c.checks), cell(c.message));
    }
    more(v.size());
  };
  table("New failures", new_failures);
  table("Fixed", fixed);
  table("Other status changes", changed);
  if (!moved.empty()) {
    out << "\n#### Top moved statistics, by transform and device\n\n"
           "| transform | device | moved | largest | was | now | result |\n|---|---|---:|---|---:|---:|---|\n";
    const auto groups = by_subject_and_device(moved);
    for (size_t i = 0; i < groups.size() && i < kMarkdownRows; ++i) {
      const auto& g = groups[i];
      const auto& m = *g.largest;
      out << fmt::format("| {} | {} | {} | {}.{} {} | {} | {} | `{}` |\n", cell(g.subject), cell(g.device), g.count,
                         m.check, m.stat, ratio_text(m.severity()), number_text(m.from), number_text(m.to), cell(m.id));
    }
    more(groups.size());
    out << "\n#### Statistics that moved\n\n| result | check | statistic | was | now |\n|---|---|---|---:|---:|\n";
    for (size_t i = 0; i < moved.size() && i < kMarkdownRows; ++i) {
      const auto& m = moved[i];
      out << fmt::format("| `{}` | {} | {} | {} | {} |\n", cell(m.id), m.check, m.stat, number_text(m.from),
                         number_text(m.to));
    }
    more(moved.size());
  }
  return out.str();
}

}  // namespace devparity
