// The DEVPARITY_REGISTER_* macros for checks and reporters, as user code and
// plugins write them: registered at static initialisation, and a clash
// recorded, never thrown (a plugin's static initialiser must not throw).
#include "harness/checks/register.h"
#include "harness/reporters/register.h"
#include "harness/subject/register.h"

#include <gtest/gtest.h>

namespace registration_test {

class AlwaysPasses final : public devparity::Check {
 public:
  std::string name() const override { return "registration_test_check"; }
  std::string description() const override { return "passes every trial (a registration test)"; }
  void validate_setting(const nlohmann::json&) const override {}
  bool on_by_default() const override { return false; }  // the other tests' cases do not run it
  devparity::CheckOutcome run(const devparity::CheckContext&) const override {
    return devparity::CheckOutcome::verdict(name(), devparity::Status::kPass, "ok");
  }
};

class CountsTrials final : public devparity::RunListener {
 public:
  explicit CountsTrials(const devparity::ReporterOptions&) {}
};

}  // namespace registration_test

DEVPARITY_REGISTER_CHECK(registration_test::AlwaysPasses)
DEVPARITY_REGISTER_REPORTER("registration_test_reporter", "counts trials (a registration test)",
                            registration_test::CountsTrials)

namespace devparity {
namespace {

TEST(Registration, MacrosRegisterChecksAndReportersAtStartup) {
  ASSERT_NE(CheckRegistry::global().find("registration_test_check"), nullptr);
  EXPECT_EQ(CheckRegistry::global().find("registration_test_check")->description(),
            "passes every trial (a registration test)");
  ASSERT_NE(ReporterRegistry::global().find("registration_test_reporter"), nullptr);
  EXPECT_NE(ReporterRegistry::global().make("registration_test_reporter", {}), nullptr);
}

TEST(Registration, AClashIsRecordedNotThrown) {
  take_registration_errors();
  EXPECT_FALSE(register_check(std::make_unique<registration_test::AlwaysPasses>()));
  EXPECT_FALSE(register_check(nullptr));
  EXPECT_FALSE(register_reporter("registration_test_reporter", "again", nullptr));
  EXPECT_FALSE(register_reporter("not an identifier", "x", nullptr));
  const auto errors = take_registration_errors();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(errors[0].find("registration_test_check"), std::string::npos) << errors[0];
  EXPECT_TRUE(take_registration_errors().empty());
}

}  // namespace
}  // namespace devparity
