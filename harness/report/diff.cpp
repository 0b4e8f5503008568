#include "harness/report/diff.h"

#include "harness/base/text.h"
#include "harness/model/results.h"
#include "harness/report/markup.h"
#include "harness/report/packed_report.h"
#include "harness/report/report_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <algorithm>
#include <sstream>

namespace devparity {
namespace {

bool failing(const std::string& status) { return status == "fail" || status == "error"; }

std::string failing_check_names(const TrialResult& r) {
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

// A table cell of text from a report, shown as text (markdown_text), cut at 160 characters.
std::string cell(std::string s) {
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return markdown_text(s);
}

// The same inside a code span.
std::string code(std::string s) {
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return "`" + markdown_code(s) + "`";
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

namespace {

ReportDigest::Result digest_result(const TrialResult& r) {
  ReportDigest::Result out{r.id, status_name(r.status), r.message, failing_check_names(r), r.case_name, r.subject,
                           r.device, {}};
  for (const auto& c : r.checks) {
    ReportDigest::Stats s{c.name, number_at(c.stats, "max_abs"), number_at(c.stats, "psnr_db")};
    if (s.max_abs || s.psnr_db) out.stats.push_back(std::move(s));
  }
  return out;
}

void compare_stats(ReportDiff& d, const ReportDigest::Result& o, const ReportDigest::Result& n, const DiffThresholds& t) {
  for (const auto& ns : n.stats) {
    for (const auto& os : o.stats) {
      if (os.check != ns.check) continue;
      const auto &a = os.max_abs, &b = ns.max_abs;
      if (a && b && (became_non_finite(*a, *b) || (*b > *a * (1.0 + t.max_abs_growth) && *b - *a > t.max_abs_floor))) {
        d.moved.push_back({n.id, ns.check, "max_abs", *a, *b, n.subject, n.device});
      }
      const auto &pa = os.psnr_db, &pb = ns.psnr_db;
      if (pa && pb && std::isfinite(*pa) && (std::isnan(*pb) || *pa - *pb > t.psnr_drop_db)) {
        d.moved.push_back({n.id, ns.check, "psnr_db", *pa, *pb, n.subject, n.device});
      }
    }
  }
}

}  // namespace

void ReportDigest::add(const TrialResult& result) {
  auto r = digest_result(result);
  index.emplace(r.id, results.size());  // read_report() refused a repeated id
  results.push_back(std::move(r));
}

ReportDigest digest_report(const nlohmann::json& report) {
  ReportDigest out;
  for_each_result(report, [&](const nlohmann::json& r, const std::string&) { out.add(TrialResult::from_json(r)); });
  return out;
}

ReportDigest read_report_digest(const std::string& path) {
  ReportDigest out;
  (void)read_report(path, [&](const nlohmann::json&, const TrialResult& parsed) { out.add(parsed); });
  return out;
}

ReportDiff diff_reports(const ReportDigest& older, const ReportDigest& newer, const DiffThresholds& t) {
  ReportDiff d;
  d.old_results = older.results.size();
  d.new_results = newer.results.size();
  for (const auto* digest : {&older, &newer}) {
    for (const auto& r : digest->results) d.places[r.id] = {r.case_name, r.device};
  }
  std::vector<bool> paired(older.results.size(), false);
  for (const auto& n : newer.results) {
    const auto it = older.index.find(n.id);
    if (it == older.index.end()) {
      d.only_new.push_back(n.id);
      if (failing(n.status)) d.new_failures.push_back({n.id, "absent", n.status, n.failing_checks, n.message});
      continue;
    }
    paired[it->second] = true;
    ++d.paired;
    const auto& o = older.results[it->second];
    StatusChange change{n.id, o.status, n.status, n.failing_checks, n.message};
    if (failing(n.status) && !failing(o.status)) {
      d.new_failures.push_back(change);
    } else if (failing(o.status) && n.status == "pass") {
      // What was fixed: the older report's failing checks and message.
      change.checks = o.failing_checks;
      change.message = o.message;
      d.fixed.push_back(change);
    } else if (o.status != n.status) {
      d.changed.push_back(change);
    }
    compare_stats(d, o, n, t);  // of checks present on both sides
  }
  std::vector<std::string> only_old;
  for (size_t i = 0; i < older.results.size(); ++i) {
    if (!paired[i]) only_old.push_back(older.results[i].id);
  }
  std::sort(only_old.begin(), only_old.end());  // by id
  d.only_old = std::move(only_old);
  return d;
}

ReportDiff diff_reports(const nlohmann::json& old_report, const nlohmann::json& new_report, const DiffThresholds& t) {
  return diff_reports(digest_report(old_report), digest_report(new_report), t);
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

// Text from the reports reaches a terminal as text (terminal_text): no escape sequence in a case
// name or a message recolours a line or prints a fake verdict.
std::string ReportDiff::to_text() const {
  const auto& t = terminal_text;
  std::ostringstream out;
  out << fmt::format("{} -> {}: {} paired result(s), {} only in the old, {} only in the new\n", t(old_path),
                     t(new_path), paired, only_old.size(), only_new.size());
  auto list = [&](const char* title, const std::vector<StatusChange>& v) {
    if (v.empty()) return;
    out << fmt::format("\n{} ({}):\n", title, v.size());
    for (const auto& c : v) {
      out << fmt::format("  {}  {} -> {}{}\n", t(c.id), t(c.from), t(c.to),
                         c.checks.empty() ? "" : " [" + t(c.checks) + "]");
      if (!c.message.empty()) out << "      " << t(c.message) << "\n";
    }
  };
  list("new failures", new_failures);
  list("fixed", fixed);
  list("other status changes", changed);
  if (!moved.empty()) {
    out << fmt::format("\nstatistics that moved ({}):\n", moved.size());
    for (const auto& m : moved) {
      out << fmt::format("  {}  {}.{}: {} -> {}\n", t(m.id), t(m.check), t(m.stat), number_text(m.from),
                         number_text(m.to));
    }
  }
  out << (regressed() ? "\nREGRESSED\n" : "\nno regression\n");
  return out.str();
}

std::string ReportDiff::to_markdown() const {
  std::ostringstream out;
  out << "### devparity: " << (regressed() ? "regressions" : "no regression") << "\n\n";
  out << fmt::format("{} → {}: {} paired results; **{} new failure(s)**, {} fixed, {} other status "
                     "change(s), {} statistic(s) moved; {} only in the old report, {} only in the new.\n",
                     code(old_path), code(new_path), paired, new_failures.size(), fixed.size(), changed.size(),
                     moved.size(), only_old.size(), only_new.size());
  auto more = [&](size_t total) {
    if (total > kMarkdownRows) out << fmt::format("\n… and {} more (`devparity diff --format json` lists all)\n", total - kMarkdownRows);
  };
  auto table = [&](const char* title, const std::vector<StatusChange>& v) {
    if (v.empty()) return;
    out << "\n#### " << title << "\n\n| result | was | now | checks | message |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < v.size() && i < kMarkdownRows; ++i) {
      const auto& c = v[i];
      out << fmt::format("| {} | {} | {} | {} | {} |\n", code(c.id), cell(c.from), cell(c.to), cell(c.checks),
                         cell(c.message));
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
      out << fmt::format("| {} | {} | {} | {}.{} {} | {} | {} | {} |\n", cell(g.subject), cell(g.device), g.count,
                         cell(m.check), cell(m.stat), ratio_text(m.severity()), number_text(m.from),
                         number_text(m.to), code(m.id));
    }
    more(groups.size());
    out << "\n#### Statistics that moved\n\n| result | check | statistic | was | now |\n|---|---|---|---:|---:|\n";
    for (size_t i = 0; i < moved.size() && i < kMarkdownRows; ++i) {
      const auto& m = moved[i];
      out << fmt::format("| {} | {} | {} | {} | {} |\n", code(m.id), cell(m.check), cell(m.stat),
                         number_text(m.from), number_text(m.to));
    }
    more(moved.size());
  }
  return out.str();
}

}  // namespace devparity
