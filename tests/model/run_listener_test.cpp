#include "harness/model/run_listener.h"

#include <gtest/gtest.h>

namespace devparity {
namespace {

class Tagger final : public RunListener {
 public:
  Tagger(std::string tag, std::vector<std::string>& log) : tag_(std::move(tag)), log_(log) {}
  void on_run_start(const RunInfo&) override { log_.push_back(tag_ + ":run_start"); }
  void on_case_start(const CaseInfo&) override { log_.push_back(tag_ + ":case_start"); }
  void on_trial_start(const std::string&) override { log_.push_back(tag_ + ":trial_start"); }
  void on_trial_end(const TrialResult&) override { log_.push_back(tag_ + ":trial_end"); }
  void on_case_end(const CaseInfo&, const StatusCounts&) override {
    log_.push_back(tag_ + ":case_end");
  }
  void on_run_end(const RunSummary&) override { log_.push_back(tag_ + ":run_end"); }

 private:
  std::string tag_;
  std::vector<std::string>& log_;
};

TEST(RunListenerTest, StartsInOrderEndsInReverse) {
  std::vector<std::string> log;
  ListenerList list;
  list.add(std::make_unique<Tagger>("a", log));
  list.add(std::make_unique<Tagger>("b", log));
  list.add(nullptr);  // ignored
  EXPECT_EQ(list.size(), 2u);
  list.on_run_start({});
  list.on_case_start({});
  list.on_trial_start("t");
  list.on_trial_end({});
  list.on_case_end({}, {});
  list.on_run_end({});
  EXPECT_EQ(log, (std::vector<std::string>{"a:run_start", "b:run_start", "a:case_start",
                                           "b:case_start", "a:trial_start", "b:trial_start",
                                           "b:trial_end", "a:trial_end", "b:case_end",
                                           "a:case_end", "b:run_end", "a:run_end"}));
}

}  // namespace
}  // namespace devparity
