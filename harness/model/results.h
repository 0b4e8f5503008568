#pragma once
/// The result model every reporter reads: check outcomes, trial results, run
/// information and totals, and their JSON form (reports/schema/report.schema.json).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace devparity {

/// Verdict of a check, and of a trial.
enum class Status { kPass, kFail, kError, kSkip };

/// "pass", "fail", "error", "skip".
const char* status_name(Status status);
/// The one that decides an aggregate: fail > error > pass > skip.
Status worse(Status a, Status b);
/// Parses status_name()'s output.
std::optional<Status> parse_status(const std::string& name);

/// What one check concluded about one trial, with its evidence.
struct CheckOutcome {
  std::string name;                                     ///< "run", "parity", ...
  Status status = Status::kSkip;                        ///< verdict
  std::string message;                                  ///< one line: why
  std::string describe;                                 ///< what the check asserts
  nlohmann::json stats = nlohmann::json::object();      ///< numbers behind the verdict
  nlohmann::json findings = nlohmann::json::array();    ///< specific problems found
  nlohmann::json artifacts = nlohmann::json::array();   ///< files written for it

  /// An outcome with only a verdict and its message.
  static CheckOutcome verdict(std::string name, Status status, std::string message);
  nlohmann::json to_json() const;
  static CheckOutcome from_json(const nlohmann::json& j);
};

/// One row of the report: a subject run on one device for one dtype and input.
struct TrialResult {
  std::string id;                 ///< stable across runs: case/subject[variant]/dtype/device/input
  std::string suite;              ///< suite file the case came from
  std::string case_name;          ///< case name
  std::string subject;            ///< transform name
  std::string variant;            ///< grid values, "k=v,k=v"; empty without a grid
  std::string dtype;              ///< "uint8", "float32", ...
  std::string device;             ///< as named in the matrix: "cpu", "cuda:N"
  std::string resolved_device;    ///< "cuda:3"; empty when the device is absent
  std::string reference_device;   ///< device of the reference output
  std::string reference_subject;  ///< subject of the reference output
  std::string input;              ///< input label: "noise-1x3x17x11"
  std::vector<int64_t> shape;     ///< input shape
  uint64_t seed = 0;              ///< input and sampling seed
  nlohmann::json params = nlohmann::json::object();            ///< parameters as sampled
  nlohmann::json reference_params = nlohmann::json::object();  ///< reference's parameters
  Status status = Status::kSkip;  ///< aggregate of the checks (finalize())
  std::string message;            ///< the deciding check's message
  double duration_ms = 0.0;       ///< time spent in the subject
  std::vector<CheckOutcome> checks;
  /// On the asynchronous vdev (--vdev-async): the seed its streams'
  /// interleaving was drawn from, so that the run replays.
  std::optional<uint64_t> interleaving_seed;
  /// Under perturbed numerics (--vdev-perturb, Note [Perturbed numerics]):
  /// {"switches": [on], "moved": {switch: op calls it changed}, and on a
  /// failure "blamed": [switches that fail the trial alone]}; null otherwise.
  nlohmann::json perturbed;
  /// On vdev where CUDA's arithmetic moved values (Note [CUDA's arithmetic on
  /// vdev]): {model: op calls it changed}; null otherwise.
  nlohmann::json cuda_arithmetic;
  /// In float16 or bfloat16 where LibTorch's CPU lacks a kernel: what ran in float32 instead,
  /// this row's own run or ("reference: ...") its reference's (Note [Half precision reference]).
  std::string round_trip;
  /// The row ran under its device's autocast in this dtype ("float16", "bfloat16"; Note
  /// [Autocast rows]); empty otherwise.
  std::string autocast;
  /// Against a --baseline: "known" (the baseline's row with this id failed
  /// the same checks), "new" (any other failure or error); empty otherwise.
  std::string baseline;

  /// Sets status and message from the checks: fail > error > pass > skip,
  /// where a passing "run" alone counts only when it is the only check.
  void finalize();
  nlohmann::json to_json() const;
  static TrialResult from_json(const nlohmann::json& j);
};

/// The check that decides a trial's verdict (fail > error > pass > skip; a
/// passing "run" only when it is the only check); null: nothing was checked,
/// the trial is a skip.
const CheckOutcome* deciding_check(const std::vector<CheckOutcome>& checks);

/// Counts of results by status.
struct StatusCounts {
  int64_t passed = 0, failed = 0, errored = 0, skipped = 0;
  void add(Status status);
  int64_t total() const { return passed + failed + errored + skipped; }
  nlohmann::json to_json() const;
};

/// A run measured against a previous report (--baseline).
struct BaselineSummary {
  std::string path;                ///< the baseline report
  std::vector<std::string> known;  ///< failing again as before: not gating
  std::vector<std::string> fresh;  ///< new failures: gating
  std::vector<std::string> fixed;  ///< failed in the baseline, pass now
  nlohmann::json to_json() const;
};

/// Where each case ran: a device "ran" a case when any of the case's trials
/// on it did more than skip. A run whose rows all skipped (an autocast case
/// on LibTorch 1.13, `--devices cuda:0` without a GPU) passed nothing, and
/// says so instead of PASSED (issue 56).
class Coverage {
 public:
  /// One device where a case did not run, with the first reason given.
  struct Gap {
    std::string case_name, device, reason;
  };
  void add(const TrialResult& result);
  /// Each (case, device) where the case's every trial skipped, in case order.
  std::vector<Gap> gaps() const;
  /// The cases that ran on no device at all.
  std::vector<std::string> ran_nowhere() const;
  nlohmann::json to_json() const;

 private:
  struct Seen {
    bool ran = false;
    std::string reason;  // the first skip's, while nothing ran
  };
  std::vector<std::string> order_;
  std::map<std::string, std::map<std::string, Seen>> by_case_;
};

/// Totals of a run so far.
struct RunSummary {
  StatusCounts results;                         ///< by trial
  std::map<std::string, StatusCounts> by_check;   ///< by check name
  std::map<std::string, StatusCounts> by_device;  ///< by device name
  double duration_s = 0.0;
  /// Ops found without a kernel per device type: {"meta": ["aten::conv2d"]},
  /// gathered by add() from the checks whose stats say error_kind
  /// "unsupported" with an op and a device_type (the run check's, the
  /// gradient check's): results, so workers' trials count as this process's.
  nlohmann::json unsupported_ops = nlohmann::json::object();

  /// Set when the run is measured against a baseline.
  std::optional<BaselineSummary> baseline;
  /// The signal (SIGINT, SIGTERM) that stopped the run early; 0 if none.
  int interrupted_by = 0;
  /// Why the run stopped early otherwise (an in-process timeout); empty if it did not.
  std::string stopped_because;
  /// Where each case ran, and where it did not.
  Coverage coverage;
  /// --require-all: a case that did not run on every device of the run fails it (exit 1).
  bool require_all = false;

  /// Whether --require-all asked for more than ran.
  bool coverage_unmet() const;

  /// Counts one finished result.
  void add(const TrialResult& result);
  /// 0 when nothing failed or errored, else 1 (DESIGN.md exit codes); with a
  /// baseline, 1 only for new failures; 1 under --require-all when a case did
  /// not run everywhere; 128 + the signal after an interrupt.
  int exit_code() const;
  nlohmann::json to_json() const;
};

/// Everything known before the first trial runs.
struct RunInfo {
  nlohmann::json tool;         ///< {"name", "version", "git"}
  nlohmann::json run;          ///< {"started_at", "argv", "seed", "suites", "devices", ...}
  nlohmann::json environment;  ///< torch and CUDA versions, devices, host
  int64_t planned_trials = 0;  ///< rows the run will report
};

/// A case as announced to listeners.
struct CaseInfo {
  std::string suite;        ///< suite file
  std::string name;         ///< case name
  std::string subject;      ///< transform name
  std::string description;  ///< from the case file
  int64_t planned_trials = 0;
};

/// The names of a result's checks whose status is the result's own (those
/// that decided it), in report order.
std::vector<std::string> deciding_checks(const TrialResult& result);

}  // namespace devparity
