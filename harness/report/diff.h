#pragma once
/// Two reports compared result by result (`devparity diff OLD NEW`): new
/// failures, fixes, other status changes, results only in one report, and
/// statistics that moved beyond a threshold (max |diff| grew, PSNR fell).

#include "harness/model/results.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace devparity {

/// When a statistic has moved enough to report.
struct DiffThresholds {
  double max_abs_growth = 0.1;   ///< relative growth of a check's max |diff|
  double max_abs_floor = 1e-6;   ///< ... and by more than this, absolutely
  double psnr_drop_db = 1.0;     ///< PSNR fell by more than this
};

/// One result whose status changed.
struct StatusChange {
  std::string id;
  std::string from, to;   ///< statuses; "absent" when missing on one side
  std::string checks;     ///< failing checks in the newer report
  std::string message;    ///< the newer report's message (or the older one's)
};

/// One statistic that moved.
struct StatMove {
  std::string id, check, stat;
  double from = 0.0, to = 0.0;
  std::string subject, device;  ///< of the result, for the summary by transform and device

  /// How far it moved, as an amplitude ratio: max |diff|'s growth, a PSNR drop of d dB as
  /// 10^(d/20); infinite where it became NaN or infinite (or grew from 0).
  double severity() const;
};

/// What a diff keeps of one report: a report is read a result at a time and
/// not held whole, so that two large reports are compared in little memory.
struct ReportDigest {
  /// A check's statistics that diff compares.
  struct Stats {
    std::string check;
    std::optional<double> max_abs, psnr_db;
  };
  struct Result {
    std::string id, status, message;
    std::string failing_checks;  ///< "parity,placement"
    std::string case_name, subject, device;
    std::vector<Stats> stats;
  };
  std::vector<Result> results;                   ///< in the report's order
  std::unordered_map<std::string, size_t> index; ///< id -> position in results

  /// Adds one result.
  void add(const TrialResult& result);
};

/// The digest of a report as read (read_report()), packed or not.
ReportDigest digest_report(const nlohmann::json& report);

/// Reads and checks the report at `path` (read_report()) into its digest, in
/// one pass over its results.
ReportDigest read_report_digest(const std::string& path);

/// The comparison.
struct ReportDiff {
  std::string old_path, new_path;
  size_t old_results = 0, new_results = 0, paired = 0;
  std::vector<StatusChange> new_failures;  ///< failing now, not before (absent included)
  std::vector<StatusChange> fixed;         ///< failing before, passing now
  std::vector<StatusChange> changed;       ///< every other status change
  std::vector<std::string> only_old, only_new;
  std::vector<StatMove> moved;             ///< statistics beyond the thresholds
  /// The case and device of every result of either report, by id (the HTML page's matrix).
  std::map<std::string, std::pair<std::string, std::string>> places;

  /// New failures or statistics that moved the wrong way.
  bool regressed() const { return !new_failures.empty() || !moved.empty(); }
  nlohmann::json to_json() const;
  std::string to_text() const;
  /// For a pull-request comment.
  std::string to_markdown() const;
};

ReportDiff diff_reports(const ReportDigest& older, const ReportDigest& newer, const DiffThresholds& thresholds = {});

/// The same for the reports as read (read_report()), packed or not.
ReportDiff diff_reports(const nlohmann::json& old_report, const nlohmann::json& new_report,
                        const DiffThresholds& thresholds = {});

}  // namespace devparity
