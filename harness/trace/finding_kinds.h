#pragma once
/// Every finding kind, one row each: adding a kind is adding a row here (and
/// its name in finding.h). The placement check's severity overrides, the
/// case schema's "severity" object, docs/placement.md's table and
/// `devparity list` follow the rows (tests check the schema and the page
/// against them).

#include "harness/trace/finding.h"

#include <string_view>
#include <vector>

namespace devparity {

struct FindingKind {
  const char* name;     ///< the report's `kind`
  Severity usual;       ///< its severity unless the finding's context or the case says otherwise
  const char* check;    ///< the check that reports it: "placement" (a case may re-grade it) or "run"
  const char* meaning;  ///< one line: what happened
};

/// Every kind, in the order docs/placement.md lists them.
const std::vector<FindingKind>& finding_kinds();

/// The row named `name`; null for another name.
const FindingKind* find_finding_kind(std::string_view name);

}  // namespace devparity
