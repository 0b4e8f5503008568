// The reference transforms' bytes, pinned: every group of the default suite
// and of the 4K JPEG suite, run on the CPU, hashed (dtype, shape and
// bytes, FNV-1a 64) and compared with tests/transforms/goldens/
// output_digests.json, made from the kernels before issue 22 made them
// faster. A faster kernel must give the same bytes; a change of bytes on
// purpose regenerates the file (DEVPARITY_WRITE_DIGESTS=1, then review the
// diff: it names every group that changed). A group computed with float
// kernels that LibTorch itself changed between releases (the differentiable
// JPEG's float32 DCT: 4 groups differ between 1.13 and 2.6, every other one
// is identical) holds a list, one digest per release series, added with
// DEVPARITY_WRITE_DIGESTS=add on the other series. Half precision groups may
// hold one per series too: LibTorch 2.6's CPU has float16 and bfloat16 kernels
// where 1.13's computes them in float32 (Note [Half precision reference]).

#include "harness/builtins.h"
#include "harness/device/device.h"
#include "harness/run/group_run.h"
#include "harness/suite/case.h"
#include "harness/suite/plan.h"
#include "tests/support/schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace devparity {
namespace {

const char* const kSuites[] = {"cases/default.json", "cases/jpeg_stress.json"};
const std::string kFile = "tests/transforms/goldens/output_digests.json";

std::string digest(const at::Tensor& t) {
  const auto c = t.contiguous();
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<const unsigned char*>(p)[i];
      h *= 0x100000001b3ULL;
    }
  };
  const std::string head = std::string(c10::toString(c.scalar_type())) + c10::str(c.sizes());
  mix(head.data(), head.size());
  mix(c.data_ptr(), c.nbytes());
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// Group id (its CPU trial's id) -> digest of the subject's output there
// (not of a reference made by another subject: those are LibTorch's ops).
std::map<std::string, std::string> digests_of(const std::string& suite_path) {
  register_builtins();
  DeviceInventory inventory;  // the CPU alone
  const std::vector<Suite> suites = {load_suite(testing::source_path(suite_path), inventory)};
  PlanOptions options;
  options.devices = parse_device_list("cpu", inventory);
  const auto plan = make_plan(suites, options, inventory);
  std::map<std::string, std::string> out;
  for (const auto& group : plan.groups) {
    // LibTorch's own ops (family "native") are what references are compared with, not references.
    if (group.trials.empty() || group.subject->info().family == "native") continue;
    GroupRun run(group, /*trace=*/false);
    const auto& id = group.trials.front().id;
    const auto* own = run.subject_on_reference();
    out[id] = own != nullptr && own->ran ? digest(own->output) : "did not run";
  }
  return out;
}

bool holds(const nlohmann::json& pinned, const std::string& value) {
  if (pinned.is_array()) return std::find(pinned.begin(), pinned.end(), value) != pinned.end();
  return pinned == value;
}

// DEVPARITY_WRITE_DIGESTS=1: the digests of this build; =add: the pinned
// ones, with this build's added as alternatives where they differ.
void write(const nlohmann::json& now, const nlohmann::json& pinned, bool add) {
  auto out = now;
  for (auto& [suite, ids] : out.items()) {
    for (auto& [id, value] : ids.items()) {
      if (!add || !pinned.contains(suite) || !pinned[suite].contains(id)) continue;
      auto old = pinned[suite][id];
      if (holds(old, value.get<std::string>())) {
        value = old;
      } else {
        if (!old.is_array()) old = nlohmann::json::array({old});
        old.push_back(value);
        value = old;
      }
    }
  }
  std::ofstream(testing::source_path(kFile)) << out.dump(1) << "\n";
}

TEST(OutputDigestsTest, TheReferenceTransformsGiveThePinnedBytes) {
  nlohmann::json now;
  for (const char* suite : kSuites) now[suite] = digests_of(suite);
  std::ifstream in(testing::source_path(kFile));
  const auto pinned = in ? nlohmann::json::parse(in) : nlohmann::json::object();
  if (const char* mode = std::getenv("DEVPARITY_WRITE_DIGESTS")) {
    write(now, pinned, std::string(mode) == "add");
    GTEST_SKIP() << "wrote " << kFile << " (DEVPARITY_WRITE_DIGESTS=" << mode << ")";
  }
  ASSERT_FALSE(pinned.empty()) << "missing " << kFile << ": DEVPARITY_WRITE_DIGESTS=1 writes it";
  int compared = 0, alternatives = 0;
  for (const char* suite : kSuites) {
    ASSERT_TRUE(pinned.contains(suite)) << suite;
    EXPECT_EQ(pinned[suite].size(), now[suite].size()) << suite << ": groups added or removed";
    for (const auto& [id, value] : now[suite].items()) {
      ++compared;
      EXPECT_NE(value, "did not run") << id;
      const auto expected = pinned[suite].value(id, nlohmann::json("absent"));
      const bool half = id.find("/float16/") != std::string::npos || id.find("/bfloat16/") != std::string::npos;
      alternatives += expected.is_array() && !half;
      EXPECT_TRUE(holds(expected, value.get<std::string>()))
          << suite << ": " << id << ": " << value << ", pinned " << expected;
    }
  }
  EXPECT_GE(compared, 1000);
  EXPECT_LE(alternatives, 4) << "more full precision groups than the differentiable JPEG's vary by release";
  std::cout << compared << " groups compared, " << alternatives << " with one digest per LibTorch series\n";
}

}  // namespace
}  // namespace devparity
