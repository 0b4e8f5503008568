#pragma once
/// The report file's packed form (schema version 2, Note [Packed report]):
/// values that repeat are written once, what a result's other fields imply is
/// left out, and trials that never ran are listed by id under their shared
/// reason. Readers see every result in full through for_each_result().

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace devparity {

/// A packed document that does not unpack: `pointer` names the field.
class PackedReportError : public std::runtime_error {
 public:
  PackedReportError(std::string pointer, const std::string& what)
      : std::runtime_error(what), pointer_(std::move(pointer)) {}
  const std::string& pointer() const { return pointer_; }

 private:
  std::string pointer_;
};

/// A packed document that would unpack past max_unpacked_bytes().
class UnpackedTooLarge : public PackedReportError {
 public:
  using PackedReportError::PackedReportError;
};

/// The packed form of a report whose results are written in full (as
/// assemble_report() makes it; a packed one is unpacked first).
nlohmann::json pack_report(nlohmann::json report);

/// The file's text: the header members indented, one result per line.
std::string report_text(const nlohmann::json& packed);

/// Calls `fn` with each result of `report`, packed or not (schema 1 or 2), in
/// full, and the JSON pointer it was read from: the results in their order,
/// then the trials that never ran, group by group. Throws PackedReportError.
void for_each_result(const nlohmann::json& report,
                     const std::function<void(nlohmann::json result, const std::string& pointer)>& fn);

/// What a run's trial id (case/subject[variant]/dtype/device/input) spells:
/// case, subject, variant, dtype, device and input; nullopt for an id of
/// another shape (the pytest plugin's test ids), which spells nothing.
std::optional<std::map<std::string, std::string>> trial_id_fields(const std::string& id);

/// The ids of the failing (fail or error) results of `report`, packed or not,
/// -> the names of their failing checks (what --baseline compares).
std::map<std::string, std::set<std::string>> failing_checks(const nlohmann::json& report);

/// How many results `report` holds, packed or not.
size_t result_count(const nlohmann::json& report);

/// The document with every result written in full under "results".
nlohmann::json unpack_report(const nlohmann::json& report);

/// `report`'s header (all but its results, shared values, defaults and
/// skipped groups) with `results`, each in full, under "results".
nlohmann::json with_results(const nlohmann::json& report, nlohmann::json results);

}  // namespace devparity
