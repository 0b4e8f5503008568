#pragma once
/// Case files (cases/*.json): declarative suites of subjects, parameters,
/// inputs, dtypes, devices and checks. The format is documented in
/// cases/README.md and cases/schema/case.schema.json; load_suite() enforces it
/// and reports every error as file:line:column, the field's JSON pointer and
/// what was expected.

#include "harness/base/json_source.h"
#include "harness/suite/inputs.h"

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

struct DeviceInventory;
class Transform;

/// Where a trial's expected values come from.
struct ReferenceSpec {
  std::string device = "cpu";  ///< must have values (not meta)
  std::string subject;         ///< empty: the case's own subject
  nlohmann::json params = nlohmann::json::object();  ///< overrides of the case's params

  /// True when the reference is another subject or other parameters, so the
  /// reference device's own row is compared too.
  bool differs() const { return !subject.empty() || !params.empty(); }
};

/// One case of a suite.
struct CaseSpec {
  std::string suite;        ///< path of the suite file
  std::string pointer;      ///< JSON pointer of the case in that file ("/cases/3")
  std::string name;         ///< identifier, unique in the run
  std::string description;  ///< free text
  std::string subject;      ///< transform name (a declared subject's own name)
  /// A subject declared in the file ({"torchscript": ...}), owned by the case;
  /// null for registered transforms.
  std::shared_ptr<const Transform> declared_subject;
  nlohmann::json params = nlohmann::json::object();  ///< fixed parameters
  /// Cartesian grid: parameter name -> values, in name order.
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> grid;
  std::vector<InputRecipe> inputs;          ///< at least one
  std::vector<c10::ScalarType> dtypes;      ///< the subject's dtypes when the file gives none
  std::vector<std::string> devices;         ///< device names to keep; empty keeps the run's
  ReferenceSpec reference;                  ///< where expected values come from
  /// Enabled checks -> true or an object: every registered check unless the
  /// case turned it off with false.
  std::map<std::string, nlohmann::json> checks;
  std::optional<uint64_t> seed;             ///< base seed unless --seed is given
  /// Rows run under their device's autocast in this dtype (Note [Autocast rows]); none: off.
  std::optional<c10::ScalarType> autocast;

  /// The subject: the declared one, else the registered transform `subject`.
  const Transform& subject_transform() const;
};

/// A loaded, validated suite.
struct Suite {
  std::string path;         ///< as given
  std::string name;         ///< "suite" field, or the file's stem
  std::string description;  ///< free text
  std::vector<CaseSpec> cases;
  JsonDocument document;    ///< the parsed file, for positions in later messages
};

/// Loads and validates a suite: structure, subjects, checks and their
/// settings, dtypes, device names, and every parameter combination of the
/// grid against every input shape (by sampling them). Throws InputError.
Suite load_suite(const std::string& path, const DeviceInventory& inventory);

/// The same for a suite already parsed (`devparity run --torchscript` builds
/// one); relative paths in it are resolved against `base_dir`.
Suite load_suite(JsonDocument document, const std::string& base_dir,
                 const DeviceInventory& inventory);

/// The variants of a case: the fixed params merged with each grid combination,
/// with a label "k=v,k=v" (empty without a grid).
std::vector<std::pair<std::string, nlohmann::json>> case_variants(const CaseSpec& spec);

}  // namespace devparity
