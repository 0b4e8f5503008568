// Note [Packed report]
// The default audit's report was 40 MB for 12,414 trials (issue 41): the same
// check descriptions, tolerances, messages and statistics written again for
// every trial, field names and all, and a third of the trials CUDA rows that
// never ran on a machine without a GPU. The file's packed form (schema
// version 2) keeps everything a full result says, except what a trial that
// never ran had only sampled (its seed, parameters and input shape):
// - "shared" holds each value that occurs more than once: a whole check, or a
//   check's describe, message, stats, findings or artifacts; a result's
//   params, reference_params, shape, perturbed or cuda_arithmetic. Where it occurs, its index
//   stands instead; none of these fields is an integer in full, so an integer
//   there is a reference.
// - A result leaves out what its other fields give back: status and message
//   (its checks decide them, TrialResult::finalize), case, subject, variant,
//   dtype, device and input (its id spells them), resolved_device (the
//   device), reference_subject (the subject), duration_ms (the run check's),
//   an empty reference_params, a check's empty describe, stats, findings and
//   artifacts, and the suite and reference device most results share
//   ("result_defaults"). The writer leaves a field out only where the
//   reader's rule gives back exactly what was there.
// - Trials whose every check skipped (nothing ran: the device is absent, an op
//   has no meta kernel) are grouped by all they say alike under "skipped":
//   one result for the group, and the ids.
// Every reader goes through for_each_result(), which gives each result in
// full, packed or not: the same code reads schema 1 and 2.

#include "harness/report/packed_report.h"

#include "harness/base/input_file.h"
#include "harness/model/results.h"
#include "harness/report/document.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace devparity {
namespace {

constexpr const char* kCheckFields[] = {"describe", "message", "stats", "findings", "artifacts"};
constexpr const char* kResultFields[] = {"params", "reference_params", "shape", "perturbed", "cuda_arithmetic"};
constexpr const char* kIdFields[] = {"case", "subject", "variant", "dtype", "device", "input"};
constexpr const char* kDefaultFields[] = {"suite", "reference_device"};
constexpr const char* kSampledFields[] = {"seed", "params", "shape", "interleaving_seed"};
constexpr const char* kPackedArrays[] = {"results", "shared", "skipped"};

// What a check leaves out when empty, and the reader puts back.
const nlohmann::json& empty_check_field(const std::string& key) {
  static const std::map<std::string, nlohmann::json> empty = {{"describe", ""},
                                                              {"stats", nlohmann::json::object()},
                                                              {"findings", nlohmann::json::array()},
                                                              {"artifacts", nlohmann::json::array()}};
  static const nlohmann::json none;
  const auto it = empty.find(key);
  return it == empty.end() ? none : it->second;
}

// plan.cpp's trial_id, case/subject[variant]/dtype/device/input, back into its
// parts; nullopt where the id does not split into exactly those.
std::optional<std::map<std::string, std::string>> split_id(const std::string& id) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = id.find('/', start)) != std::string::npos; start = slash + 1) {
    parts.push_back(id.substr(start, slash - start));
  }
  parts.push_back(id.substr(start));
  if (parts.size() != 5) return std::nullopt;
  std::string subject = parts[1], variant;
  if (!subject.empty() && subject.back() == ']') {
    const auto open = subject.find('[');
    if (open == std::string::npos) return std::nullopt;
    variant = subject.substr(open + 1, subject.size() - open - 2);
    subject.resize(open);
  }
  return std::map<std::string, std::string>{{"case", parts[0]},  {"subject", subject}, {"variant", variant},
                                            {"dtype", parts[2]}, {"device", parts[3]},  {"input", parts[4]}};
}

// The status and message the checks decide (of each check, its name, status and message).
std::pair<std::string, std::string> verdict_of(const nlohmann::json& checks) {
  TrialResult t;
  for (const auto& c : checks) {
    const auto status = parse_status(c.at("status").get<std::string>());
    if (!status) throw std::invalid_argument("a check's status is not pass, fail, error or skip");
    t.checks.push_back(CheckOutcome::verdict(c.at("name").get<std::string>(), *status, c.value("message", "")));
  }
  t.finalize();
  return {status_name(t.status), t.message};
}

// The run check's duration, which a result's own is unless it says otherwise.
nlohmann::json run_duration(const nlohmann::json& checks) {
  for (const auto& c : checks) {
    if (!c.is_object() || c.value("name", "") != "run") continue;
    const auto stats = c.find("stats");
    if (stats != c.end() && stats->is_object() && stats->contains("duration_ms") &&
        (*stats)["duration_ms"].is_number()) {
      return (*stats)["duration_ms"];
    }
  }
  return 0.0;
}

bool never_ran(const nlohmann::json& result) {
  for (const auto& c : result.at("checks")) {
    if (c.value("status", "") != "skip") return false;
  }
  return true;
}

// The most common string value of `key` among the results.
std::optional<std::string> most_common(const nlohmann::json& results, const char* key) {
  std::unordered_map<std::string, size_t> counts;
  for (const auto& r : results) {
    if (r.contains(key) && r[key].is_string()) ++counts[r[key].get<std::string>()];
  }
  std::optional<std::string> best;
  size_t most = 0;
  for (const auto& [value, n] : counts) {
    if (n > most || (n == most && best && value < *best)) best = value, most = n;
  }
  return best;
}

// A full result without what the reader gives back.
nlohmann::json leave_out_implied(nlohmann::json r, const nlohmann::json& defaults) {
  auto& checks = r["checks"];
  const auto [status, message] = verdict_of(checks);
  if (r.value("status", "") == status) r.erase("status");
  if (r.contains("message") && r["message"] == message) r.erase("message");
  if (r.contains("duration_ms") && r["duration_ms"] == run_duration(checks)) r.erase("duration_ms");
  for (auto& c : checks) {
    for (const auto* key : kCheckFields) {
      if (c.contains(key) && c[key] == empty_check_field(key) && !empty_check_field(key).is_null()) c.erase(key);
    }
  }
  if (r.contains("resolved_device") && r["resolved_device"] == r.value("device", "")) r.erase("resolved_device");
  if (r.contains("reference_subject") && r["reference_subject"] == r.value("subject", "")) r.erase("reference_subject");
  if (r.contains("reference_params") && r["reference_params"] == nlohmann::json::object()) r.erase("reference_params");
  if (const auto parts = split_id(r.value("id", ""))) {
    for (const auto* key : kIdFields) {
      if (r.contains(key) && r[key] == parts->at(key)) r.erase(key);
    }
  }
  for (const auto& [key, value] : defaults.items()) {
    if (r.contains(key) && r[key] == value) r.erase(key);
  }
  return r;
}

// A value its index would not shorten: a number, a short string, an empty container.
bool cheaper_inline(const nlohmann::json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().size() <= 4;
  return !(v.is_object() || v.is_array()) || v.empty();
}

// Values seen more than once go to the shared table; each stands as its index.
// Values are known by their structure (std::hash of nlohmann::json, confirmed
// by comparison) and held by address, not copied or written out: that cost a
// second a report. The values counted must outlive the table, which one or
// more counts (whole checks, fields) fill.
class SharedValues {
 public:
  explicit SharedValues(nlohmann::json& table) : table_(table) {}
  void count(const nlohmann::json& v) {
    if (cheaper_inline(v)) return;
    if (auto* e = find(v)) {
      ++e->count;
    } else {
      entries_.emplace(std::hash<nlohmann::json>{}(v), Entry{&v, 1, kNone});
    }
  }
  size_t seen(const nlohmann::json& v) const {
    const auto* e = cheaper_inline(v) ? nullptr : find(v);
    return e ? e->count : 0;
  }
  // The value as written: its index where it repeats (`packed` is what the
  // table holds for it, made on its first use).
  template <typename Packed>
  nlohmann::json ref(const nlohmann::json& v, Packed&& packed) {
    auto* e = cheaper_inline(v) ? nullptr : find(v);
    if (e == nullptr || e->count < 2) return packed();
    if (e->index == kNone) {
      auto value = packed();  // first: it may add to the table itself
      e->index = table_.size();
      table_.push_back(std::move(value));
    }
    return e->index;
  }
  nlohmann::json ref(const nlohmann::json& v) {
    return ref(v, [&] { return v; });
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  struct Entry {
    const nlohmann::json* value;
    size_t count;
    size_t index;
  };
  const Entry* find(const nlohmann::json& v) const {
    const auto [first, last] = entries_.equal_range(std::hash<nlohmann::json>{}(v));
    for (auto it = first; it != last; ++it) {
      if (*it->second.value == v) return &it->second;
    }
    return nullptr;
  }
  Entry* find(const nlohmann::json& v) {
    return const_cast<Entry*>(static_cast<const SharedValues*>(this)->find(v));
  }
  std::unordered_multimap<size_t, Entry> entries_;
  nlohmann::json& table_;
};

// A result as written, its repeated values as indexes. A check that repeats
// whole is written once, and its own fields are shared with other checks.
nlohmann::json with_refs(const nlohmann::json& r, SharedValues& shared, SharedValues& whole_checks) {
  auto out = nlohmann::json::object();
  for (const auto& [key, value] : r.items()) {
    if (key != "checks") out[key] = value;
  }
  for (const auto* key : kResultFields) {
    if (r.contains(key)) out[key] = shared.ref(r[key]);
  }
  auto& checks = out["checks"] = nlohmann::json::array();
  for (const auto& c : r.at("checks")) {
    checks.push_back(whole_checks.ref(c, [&] {
      auto packed = c;
      for (const auto* key : kCheckFields) {
        if (c.contains(key)) packed[key] = shared.ref(c[key]);
      }
      return packed;
    }));
  }
  return out;
}

// What a packed report grows by as it unpacks: each shared value every time
// it is resolved, a skipped group's result once per id. 2 MB that refer to a
// 200 KB message 50,000 times are 10 GB in full, past any reader's memory
// (issue 56): past the bound, unpacking stops with the bound and its variable.
class Expansion {
 public:
  Expansion() : limit_(max_unpacked_bytes()) {}
  void add(uint64_t bytes, const std::string& pointer) {
    total_ += bytes;
    if (total_ <= limit_) return;
    throw UnpackedTooLarge(pointer, fmt::format("the packed report expands past the {} MiB devparity unpacks "
                                                "(set {} to raise it)",
                                                limit_ >> 20, max_unpacked_variable()));
  }
  // The size of shared value `index` written out, measured once.
  uint64_t shared_size(const nlohmann::json& table, size_t index) {
    if (sizes_.size() < table.size()) sizes_.resize(table.size(), kUnmeasured);
    if (sizes_[index] == kUnmeasured) sizes_[index] = written_size(table[index]);
    return sizes_[index];
  }
  static uint64_t written_size(const nlohmann::json& v) {
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
  }

 private:
  static constexpr uint64_t kUnmeasured = ~uint64_t{0};
  uint64_t limit_;
  uint64_t total_ = 0;
  std::vector<uint64_t> sizes_;
};

// What unpacking needs of the document.
struct Tables {
  const nlohmann::json* shared = nullptr;
  const nlohmann::json* defaults = nullptr;
  Expansion* expansion = nullptr;
};

nlohmann::json resolve(const nlohmann::json& v, const Tables& t, const std::string& pointer) {
  if (!v.is_number_integer()) return v;
  const auto size = t.shared ? t.shared->size() : 0;
  if (v.is_number_unsigned() && v.get<uint64_t>() < size) {
    const auto index = v.get<size_t>();
    if (t.expansion) t.expansion->add(t.expansion->shared_size(*t.shared, index), pointer);
    return (*t.shared)[index];
  }
  throw PackedReportError(pointer, fmt::format("a reference to shared value {}, but the report's \"shared\" table "
                                               "holds {} value(s)", v.dump(), size));
}

void unpack_checks(nlohmann::json& checks, const Tables& t, const std::string& pointer) {
  for (size_t k = 0; k < checks.size(); ++k) {
    const auto p = pointer + "/" + std::to_string(k);
    auto& c = checks[k];
    c = resolve(c, t, p);
    if (!c.is_object()) continue;
    for (const auto* key : kCheckFields) {
      if (c.contains(key)) {
        c[key] = resolve(c[key], t, p + "/" + key);
      } else if (!empty_check_field(key).is_null()) {
        c[key] = empty_check_field(key);
      }
    }
  }
}

// What the id spells, where the result leaves it out. An id that does not
// split leaves them out still: the writer never packs such a result, and a
// schema 1 result may lack the optional ones (its reader's checks name a
// required one that is missing).
void restore_id_fields(nlohmann::json& r) {
  std::optional<std::map<std::string, std::string>> parts;
  for (const auto* key : kIdFields) {
    if (r.contains(key)) continue;
    if (!parts && r.contains("id") && r["id"].is_string()) parts = split_id(r["id"].get<std::string>());
    if (!parts) return;
    r[key] = parts->at(key);
  }
}

nlohmann::json unpack_result(nlohmann::json r, const Tables& t, const std::string& pointer) {
  if (!r.is_object()) return r;
  for (const auto* key : kResultFields) {
    if (r.contains(key)) r[key] = resolve(r[key], t, pointer + "/" + key);
  }
  if (!r.contains("checks") || !r["checks"].is_array()) return r;  // the reader's checks name it
  unpack_checks(r["checks"], t, pointer + "/checks");
  restore_id_fields(r);
  if (t.defaults) {
    for (const auto& [key, value] : t.defaults->items()) {
      if (!r.contains(key)) r[key] = value;
    }
  }
  if (!r.contains("resolved_device") && r.contains("device")) r["resolved_device"] = r["device"];
  if (!r.contains("reference_subject") && r.contains("subject")) r["reference_subject"] = r["subject"];
  if (!r.contains("reference_params")) r["reference_params"] = nlohmann::json::object();
  if (!r.contains("duration_ms")) r["duration_ms"] = run_duration(r["checks"]);
  if (!r.contains("status") || !r.contains("message")) {
    try {
      const auto [status, message] = verdict_of(r["checks"]);
      if (!r.contains("status")) r["status"] = status;
      if (!r.contains("message")) r["message"] = message;
    } catch (const std::exception& e) {
      throw PackedReportError(pointer + "/checks", std::string("not devparity checks: ") + e.what());
    }
  }
  return r;
}

const nlohmann::json* member(const nlohmann::json& doc, const char* key, bool (nlohmann::json::*is)() const noexcept) {
  const auto it = doc.find(key);
  if (it == doc.end()) return nullptr;
  if (!((*it).*is)()) throw PackedReportError(std::string("/") + key, "not of the packed form's type");
  return &*it;
}

}  // namespace

nlohmann::json pack_report(nlohmann::json report) {
  if (report.contains("shared") || report.contains("skipped") || report.contains("result_defaults")) {
    report = unpack_report(report);
  }
  auto results = std::move(report.at("results"));
  auto defaults = nlohmann::json::object();
  for (const auto* key : kDefaultFields) {
    if (const auto value = most_common(results, key)) defaults[key] = *value;
  }
  std::vector<nlohmann::json> ran;
  std::unordered_map<nlohmann::json, std::vector<std::string>> ids_of;  // trials that never ran, by what they say alike
  std::vector<nlohmann::json> groups;
  for (auto& r : results) {
    const bool skipped = never_ran(r);
    auto packed = leave_out_implied(std::move(r), defaults);
    if (!skipped) {
      ran.push_back(std::move(packed));
      continue;
    }
    for (const auto* key : kSampledFields) packed.erase(key);
    auto id = packed.at("id").get<std::string>();
    packed.erase("id");
    auto& ids = ids_of[packed];
    if (ids.empty()) groups.push_back(std::move(packed));
    ids.push_back(std::move(id));
  }
  auto table = nlohmann::json::array();
  SharedValues whole_checks(table), shared(table);
  auto each_result = [&](auto&& fn) {
    for (const auto& r : ran) fn(r);
    for (const auto& r : groups) fn(r);
  };
  each_result([&](const nlohmann::json& r) {
    for (const auto& c : r.at("checks")) whole_checks.count(c);
  });
  auto unused = nlohmann::json::array();
  SharedValues counted(unused);  // whole checks whose fields are counted: each is written once
  each_result([&](const nlohmann::json& r) {
    for (const auto* key : kResultFields) {
      if (r.contains(key)) shared.count(r[key]);
    }
    for (const auto& c : r.at("checks")) {
      if (whole_checks.seen(c) >= 2) {
        if (counted.seen(c) > 0) continue;
        counted.count(c);
      }
      for (const auto* key : kCheckFields) {
        if (c.contains(key)) shared.count(c[key]);
      }
    }
  });
  auto out = std::move(report);
  out["schema_version"] = kReportSchemaVersion;
  out["results"] = nlohmann::json::array();
  for (const auto& r : ran) out["results"].push_back(with_refs(r, shared, whole_checks));
  auto skipped = nlohmann::json::array();
  for (const auto& like : groups) {
    skipped.push_back({{"result", with_refs(like, shared, whole_checks)}, {"ids", std::move(ids_of.at(like))}});
  }
  if (!skipped.empty()) out["skipped"] = std::move(skipped);
  if (!table.empty()) out["shared"] = std::move(table);
  if (!defaults.empty()) out["result_defaults"] = std::move(defaults);
  return out;
}

std::string report_text(const nlohmann::json& packed) {
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
  auto header = packed;
  for (const auto* key : kPackedArrays) header.erase(key);
  auto text = header.dump(2, ' ', false, kReplace);
  text.resize(text.size() - 2);  // "\n}": the arrays follow, an element a line
  for (const auto* key : kPackedArrays) {
    const auto it = packed.find(key);
    if (it == packed.end()) continue;
    text += fmt::format(",\n  \"{}\": [", key);
    for (size_t i = 0; i < it->size(); ++i) {
      text += (i == 0 ? "\n    " : ",\n    ") + (*it)[i].dump(-1, ' ', false, kReplace);
    }
    text += it->empty() ? "]" : "\n  ]";
  }
  return text + "\n}\n";
}

void for_each_result(const nlohmann::json& report,
                     const std::function<void(nlohmann::json result, const std::string& pointer)>& fn) {
  Expansion expansion;
  Tables t;
  t.shared = member(report, "shared", &nlohmann::json::is_array);
  t.defaults = member(report, "result_defaults", &nlohmann::json::is_object);
  t.expansion = &expansion;
  if (const auto* results = member(report, "results", &nlohmann::json::is_array)) {
    for (size_t i = 0; i < results->size(); ++i) {
      const auto p = "/results/" + std::to_string(i);
      fn(unpack_result((*results)[i], t, p), p);
    }
  }
  const auto* skipped = member(report, "skipped", &nlohmann::json::is_array);
  for (size_t g = 0; skipped && g < skipped->size(); ++g) {
    const auto& group = (*skipped)[g];
    const auto p = "/skipped/" + std::to_string(g);
    if (!group.is_object() || !group.contains("result") || !group["result"].is_object() ||
        !group.contains("ids") || !group["ids"].is_array()) {
      throw PackedReportError(p, "expected a group of trials that never ran: {\"result\": {...}, \"ids\": [...]}");
    }
    const auto group_size = Expansion::written_size(group["result"]);
    for (size_t k = 0; k < group["ids"].size(); ++k) {
      const auto ip = p + "/ids/" + std::to_string(k);
      if (!group["ids"][k].is_string()) throw PackedReportError(ip, "expected a result id");
      expansion.add(group_size, ip);
      auto r = group["result"];
      r["id"] = group["ids"][k];
      fn(unpack_result(std::move(r), t, p + "/result"), ip);
    }
  }
}

std::optional<std::map<std::string, std::string>> trial_id_fields(const std::string& id) {
  auto parts = split_id(id);
  if (!parts) return std::nullopt;
  // A test id with five path parts splits too; a trial's names a dtype and a device.
  static const std::set<std::string> dtypes = {"bool",    "uint8",   "int8",     "int16",     "int32",     "int64",
                                               "float16", "bfloat16", "float32", "float64", "complex64", "complex128"};
  const auto& device = parts->at("device");
  const auto colon = device.find(':');
  const auto type = device.substr(0, colon);
  const bool device_like =
      !type.empty() && std::all_of(type.begin(), type.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }) &&
      (colon == std::string::npos ||
       (colon + 1 < device.size() &&
        std::all_of(device.begin() + static_cast<long>(colon) + 1, device.end(), [](char ch) { return ch >= '0' && ch <= '9'; })));
  if (!dtypes.count(parts->at("dtype")) || !device_like) return std::nullopt;
  return parts;
}

std::map<std::string, std::set<std::string>> failing_checks(const nlohmann::json& report) {
  std::map<std::string, std::set<std::string>> out;
  for_each_result(report, [&](const nlohmann::json& r, const std::string&) {
    const auto result = TrialResult::from_json(r);
    if (result.status != Status::kFail && result.status != Status::kError) return;
    const auto names = deciding_checks(result);
    out[result.id].insert(names.begin(), names.end());
  });
  return out;
}

size_t result_count(const nlohmann::json& report) {
  size_t n = report.contains("results") && report["results"].is_array() ? report["results"].size() : 0;
  if (report.contains("skipped") && report["skipped"].is_array()) {
    for (const auto& g : report["skipped"]) {
      if (g.is_object() && g.contains("ids") && g["ids"].is_array()) n += g["ids"].size();
    }
  }
  return n;
}

nlohmann::json unpack_report(const nlohmann::json& report) {
  auto results = nlohmann::json::array();
  for_each_result(report, [&](nlohmann::json r, const std::string&) { results.push_back(std::move(r)); });
  return with_results(report, std::move(results));
}

nlohmann::json with_results(const nlohmann::json& report, nlohmann::json results) {
  auto out = nlohmann::json::object();
  for (const auto& [key, value] : report.items()) {
    const bool packed = key == "result_defaults" || std::find(std::begin(kPackedArrays), std::end(kPackedArrays), key) !=
                                                        std::end(kPackedArrays);
    if (!packed && key != "results") out[key] = value;
  }
  out["results"] = std::move(results);
  return out;
}

}  // namespace devparity
