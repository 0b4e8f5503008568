#include "harness/report/html_overview.h"

#include "harness/base/text.h"
#include "harness/model/failure_groups.h"
#include "harness/report/markup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

namespace devparity {
namespace {

std::string esc(const std::string& s) { return escape_markup(s); }

struct Cell {
  Status worst = Status::kSkip;
  int trials = 0, bad = 0;
};

}  // namespace

const char* const kOverviewStyle = R"css(
table.matrix td.m{width:4.5em;text-align:center;font-size:12px;border:2px solid #fff}
td.m.pass{background:#d7f0dc}td.m.fail{background:#f6c9c5;font-weight:bold}td.m.error{background:#fbe0bd}
td.m.skip{background:#eee;color:#777}td.m.none{background:#fafafa}
.problems li{margin:.4em 0}.problems details{margin-left:1.5em;font-size:12px}
)css";

void write_matrix(std::ostringstream& s, const nlohmann::json& report, const std::vector<TrialResult>& results) {
  std::vector<std::string> cases, devices;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  for (const auto& r : results) {
    add_unique(cases, r.case_name);
    add_unique(devices, r.device);
    auto& cell = cells[{r.case_name, r.device}];
    cell.worst = worse(cell.worst, r.status);  // skip until something else is seen
    ++cell.trials;
    cell.bad += r.status == Status::kFail || r.status == Status::kError;
  }
  if (cases.empty()) return;
  // Columns in the run's device order: read back, trials that never ran come last.
  std::vector<std::string> run_order;
  const auto run = report.value("run", nlohmann::json::object());
  for (const auto& d : run.is_object() ? run.value("devices", nlohmann::json::array()) : nlohmann::json::array()) {
    if (d.is_object() && d.contains("name") && d["name"].is_string()) run_order.push_back(d["name"].get<std::string>());
  }
  auto rank = [&](const std::string& device) {
    return std::find(run_order.begin(), run_order.end(), device) - run_order.begin();
  };
  std::stable_sort(devices.begin(), devices.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  s << "<h2>Devices x cases</h2>\n";
  write_case_device_table(s, "class=\"matrix\" id=\"matrix\"", cases, devices, [&](const auto& c, const auto& d) {
    const auto it = cells.find({c, d});
    if (it == cells.end()) return false;
    const auto& cell = it->second;
    const auto text = cell.bad > 0 ? fmt::format("{}/{}", cell.bad, cell.trials) : std::to_string(cell.trials);
    s << "<td class=\"m " << status_name(cell.worst) << "\" title=\"" << esc(c) << " on " << esc(d) << ": "
      << status_name(cell.worst) << ", " << cell.bad << " of " << cell.trials << " trials failing\">" << text << "</td>";
    return true;
  });
}

void write_case_device_table(std::ostringstream& s, const std::string& attributes,
                             const std::vector<std::string>& cases, const std::vector<std::string>& devices,
                             const std::function<bool(const std::string& c, const std::string& device)>& cell) {
  s << "<table " << attributes << "><tr><th>case</th>";
  for (const auto& d : devices) s << "<th>" << esc(d) << "</th>";
  s << "</tr>\n";
  for (const auto& c : cases) {
    s << "<tr><td>" << esc(c) << "</td>";
    for (const auto& d : devices) {
      if (!cell(c, d)) s << "<td class=\"m none\"></td>";
    }
    s << "</tr>\n";
  }
  s << "</table>\n";
}

void write_problems(std::ostringstream& s, const std::vector<TrialResult>& results,
                    const std::map<std::string, size_t>& detail_of) {
  const auto groups = group_failures(results);
  if (groups.groups().empty()) return;
  s << "<h2 id=\"problems\">Problems: " << esc(groups.headline()) << "</h2>\n<ol class=\"problems\">\n";
  for (const auto& g : groups.groups()) {
    const auto status = status_name(g.status);
    s << "<li><span class=\"" << status << "\">" << status << "</span> " << esc(g.where()) << " &mdash; "
      << esc(g.summary) << "<details><summary>" << g.ids.size() << " trial" << (g.ids.size() == 1 ? "" : "s")
      << " in " << esc(fmt::format("{}", fmt::join(g.cases, ", "))) << "</summary><ul>";
    for (const auto& id : g.ids) {
      const auto at = detail_of.find(id);
      s << "<li>"
        << (at == detail_of.end() ? esc(id) : fmt::format("<a href=\"#detail-{}\">{}</a>", at->second, esc(id)))
        << "</li>";
    }
    s << "</ul></details></li>\n";
  }
  s << "</ol>\n";
}

}  // namespace devparity
