// libFuzzer target: the case-file loader must, on any bytes, either load a
// suite or throw InputError/UsageError naming where the file is wrong, and
// never touch memory it does not own. The loader, the JSON position map and
// the field reader are compiled with ASan + UBSan and coverage; the rest of
// libdevparity (the subjects the cases name) is linked as built. Run for a
// bounded time by ctest (CaseFileFuzz).

#include "harness/base/error.h"
#include "harness/base/json_source.h"
#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/suite/case.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  devparity::register_builtins();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace devparity;
  static const DeviceInventory inventory = [] {
    DeviceInventory i;
    i.vdev_compiled = true;
    i.vdev_count = 2;
    return i;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto suite = load_suite(parse_json_text("fuzz.json", text), "", inventory);
    for (const auto& c : suite.cases) (void)case_variants(c);
  } catch (const InputError& e) {
    if (std::string(e.what()).rfind("fuzz.json", 0) != 0) __builtin_trap();  // errors say which file
  } catch (const UsageError&) {
  }
  return 0;
}
