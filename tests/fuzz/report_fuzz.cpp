// libFuzzer target: reading reports back (diff, merge and the JUnit writer's
// inputs, and .partial logs) must, on any bytes, either give a report or an
// InputError (or, for a field of an unexpected type deep inside, a JSON type
// error, which the CLI turns into exit 2), and never touch memory it does not
// own. Built with clang (ASan + UBSan) by tests/CMakeLists.txt; ctest runs it
// for a bounded time (ReportReaderFuzz).

#include "harness/base/error.h"
#include "harness/report/diff.h"
#include "harness/report/junit.h"
#include "harness/report/markup.h"
#include "harness/report/merge.h"
#include "harness/report/report_file.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace devparity;
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)escape_markup(text);
  nlohmann::json report;
  try {
    report = parse_report("fuzz.json", text);
  } catch (const InputError&) {
    return 0;
  }
  try {
    const auto d = diff_reports(report, report);
    if (d.regressed() || !d.new_failures.empty()) __builtin_trap();  // a report never regresses against itself
    (void)d.to_text();
    (void)d.to_markdown();
    (void)d.to_json().dump();
    (void)merge_reports({{"fuzz.json", report}}).dump();
    (void)junit_xml(report);
  } catch (const InputError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
