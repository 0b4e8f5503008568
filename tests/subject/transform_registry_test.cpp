#include "harness/subject/transform_registry.h"

#include "harness/builtins.h"
#include "harness/checks/registry.h"
#include "harness/reporters/reporter_registry.h"
#include "harness/subject/register.h"
#include "tests/support/lambda_transform.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

// The user-facing macro, exercised from a test translation unit (an object
// file linked into the executable, so the registration survives).
class MacroRegistered final : public Transform {
 public:
  MacroRegistered() {
    info_.name = "test_macro_registered";
    info_.dtypes = {at::kFloat};
  }
  const TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json& g, c10::IntArrayRef, at::Generator&) const override {
    return g;
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override { return x; }

 private:
  TransformInfo info_;
};

}  // namespace
}  // namespace devparity

DEVPARITY_REGISTER_TRANSFORM(devparity::MacroRegistered)

namespace devparity {
namespace {

TEST(RegistryTest, BuiltinsAreRegisteredOnceAndSorted) {
  register_builtins();
  register_builtins();  // idempotent
  const auto names = TransformRegistry::global().names();
  for (const char* name : {"gaussian_blur2d", "interpolate", "resize"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(CheckRegistry::global().find("parity"), nullptr);
  EXPECT_NE(ReporterRegistry::global().find("json"), nullptr);
  EXPECT_NE(ReporterRegistry::global().find("console"), nullptr);
}

TEST(RegistryTest, MacroRegistersUserTransforms) {
  EXPECT_NE(TransformRegistry::global().find("test_macro_registered"), nullptr);
}

TEST(RegistryTest, DuplicateAndMalformedNamesAreRejected) {
  TransformRegistry local;
  local.add(std::make_unique<testing::LambdaTransform>("a", nullptr));
  EXPECT_THROW(local.add(std::make_unique<testing::LambdaTransform>("a", nullptr)),
               std::invalid_argument);
  EXPECT_THROW(local.add(std::make_unique<testing::LambdaTransform>("a-b", nullptr)),
               std::invalid_argument);
  EXPECT_THROW(local.add(nullptr), std::invalid_argument);
  EXPECT_EQ(local.find("missing"), nullptr);
  EXPECT_EQ(local.list().size(), 1u);

  CheckRegistry checks;
  register_parity_check(checks);
  EXPECT_THROW(register_parity_check(checks), std::invalid_argument);
  ReporterRegistry reporters;
  register_json_reporter(reporters);
  EXPECT_THROW(register_json_reporter(reporters), std::invalid_argument);
  EXPECT_THROW(reporters.make("xml", {}), std::invalid_argument);
}

TEST(RegistryTest, EveryBuiltinDocumentsItsParameters) {
  TransformRegistry builtins;  // the built-ins alone, not this binary's test transforms
  register_builtin_transforms(builtins);
  ASSERT_GT(builtins.names().size(), 40u);
  for (const auto& name : builtins.names()) {
    const auto& info = builtins.find(name)->info();
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_FALSE(info.dtypes.empty()) << info.name;
    for (const auto& p : info.params) {
      EXPECT_FALSE(p.type.empty() || p.default_value.empty() || p.description.empty())
          << info.name << "." << p.name;
    }
  }
}

}  // namespace
}  // namespace devparity

namespace devparity {
namespace {

TEST(RegistryTest, PluginRegistrationsThatFailAreCollectedNotThrown) {
  register_builtins();
  (void)take_registration_errors();
  auto clash = [](const at::Tensor& x, const nlohmann::json&) { return x; };
  // A name taken by a built-in, and one that is not an identifier.
  EXPECT_FALSE(register_transform(std::make_unique<testing::LambdaTransform>("resize", clash)));
  EXPECT_FALSE(register_transform(std::make_unique<testing::LambdaTransform>("bad name", clash)));
  EXPECT_FALSE(register_transform(nullptr));
  const auto errors = take_registration_errors();
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("'resize' is already registered"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("not an identifier"), std::string::npos) << errors[1];
  EXPECT_TRUE(take_registration_errors().empty());
}

}  // namespace
}  // namespace devparity
