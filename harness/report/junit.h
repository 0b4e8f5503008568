#pragma once
/// JUnit XML from a report: one <testsuite> per case, one <testcase> per
/// trial; failures and errors carry the failing checks' messages and key
/// statistics, skips their reasons, and each suite the environment as
/// properties. Valid against tests/junit/junit.xsd (the Jenkins/xunit shape
/// CI systems read).

#include "harness/model/results.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace devparity {

/// The JUnit document for a complete report (schema reports/schema).
std::string junit_xml(const nlohmann::json& report);
/// The same for `report`'s header and summary with its `results` already typed.
std::string junit_xml(const nlohmann::json& report, const std::vector<TrialResult>& results);

/// A failing check's evidence in a few lines: its message, then its key
/// statistics (max |diff|, mismatch count, PSNR, worst element) and its first
/// findings.
std::string check_evidence(const CheckOutcome& check);

}  // namespace devparity
