#pragma once
/// Subject kinds: case files name a registered transform with a string
/// ("subject": "resize"), or declare a subject built from a file with an
/// object whose key names its kind ("subject": {"torchscript": "m.pt"}).
/// Each kind is registered here; the TorchScript loader is a built-in.

#include "harness/base/named_registry.h"

#include <c10/core/ScalarType.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace devparity {

class InputSource;
class ObjectReader;
class Transform;

/// What a declaration may refer to beyond its own fields, given by the
/// suite that reads it (suite/inputs.h: declaration_context()).
struct DeclarationContext {
  std::string base_dir;  ///< relative paths resolve against it
  /// Reads an input declaration ({"pattern", "shape", ...}, {"file"},
  /// {"tensor"}) as a case's inputs are read; throws FieldError.
  std::function<std::shared_ptr<const InputSource>(ObjectReader&)> read_input;
};

/// Builds subjects from their declarations.
class SubjectKind {
 public:
  virtual ~SubjectKind() = default;
  /// The declaration's key, an identifier: "torchscript".
  virtual std::string name() const = 0;
  /// One line for `devparity list`.
  virtual std::string description() const = 0;
  /// Builds the subject from its declaration (the whole object; every field
  /// it does not read is an error after it returns). Relative paths are
  /// resolved against context.base_dir. Throws FieldError at the offending
  /// field.
  virtual std::shared_ptr<const Transform> load(ObjectReader& declaration,
                                                const DeclarationContext& context) const = 0;
};

/// A declaration's "dtypes" (names; at least one), float32 when absent.
/// Throws FieldError at the offending entry.
std::vector<c10::ScalarType> read_declared_dtypes(ObjectReader& declaration);

/// Name -> subject kind.
class SubjectKindRegistry : public NamedRegistry<SubjectKind> {
 public:
  SubjectKindRegistry() : NamedRegistry("subject kind") {}
  /// The process-wide registry.
  static SubjectKindRegistry& global();
  /// Adds a kind under its own name.
  const SubjectKind& add(std::unique_ptr<SubjectKind> kind);
};

}  // namespace devparity
