#include "harness/subject/subject_kind.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/json_reader.h"

namespace devparity {

SubjectKindRegistry& SubjectKindRegistry::global() {
  static SubjectKindRegistry registry;
  return registry;
}

const SubjectKind& SubjectKindRegistry::add(std::unique_ptr<SubjectKind> kind) {
  if (!kind) throw std::invalid_argument("cannot register a null subject kind");
  const std::string name = kind->name();
  return NamedRegistry::add(name, std::move(kind));
}

std::vector<c10::ScalarType> read_declared_dtypes(ObjectReader& r) {
  if (!r.has("dtypes")) return {c10::ScalarType::Float};
  const auto names = r.strings("dtypes");
  if (names.empty()) throw FieldError(r.pointer("dtypes"), "expected at least one dtype");
  std::vector<c10::ScalarType> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto t = parse_dtype(names[i]);
    if (!t) throw FieldError(r.pointer("dtypes") + "/" + std::to_string(i), "unknown dtype '" + names[i] + "'");
    out.push_back(*t);
  }
  return out;
}

}  // namespace devparity
