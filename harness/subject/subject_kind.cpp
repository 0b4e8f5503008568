#include "harness/subject/subject_kind.h"

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

}  // namespace devparity
