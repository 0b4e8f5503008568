// The tracer active in the process (trace/active_tracer.h): one at a time,
// reachable while it lives, the locator shared by all.

#include "harness/trace/active_tracer.h"

#include "harness/trace/tracer.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace devparity::tracing {
namespace {

TEST(ActiveTracerTest, OneTracerAtATimeReachableWhileItLives) {
  auto& active = ActiveTracer::get();
  EXPECT_EQ(active.state(), nullptr);
  EXPECT_FALSE(Tracer::with_active([](Tracer&) { FAIL() << "no tracer is active"; }));
  {
    Tracer tracer(c10::Device(c10::DeviceType::CPU));
    EXPECT_NE(active.state(), nullptr);
    Tracer* reached = nullptr;
    EXPECT_TRUE(Tracer::with_active([&](Tracer& t) { reached = &t; }));
    EXPECT_EQ(reached, &tracer);
    EXPECT_THROW(Tracer second(c10::Device(c10::DeviceType::CPU)), std::logic_error);
  }
  EXPECT_EQ(active.state(), nullptr);
  EXPECT_FALSE(Tracer::with_active([](Tracer&) {}));
  Tracer next(c10::Device(c10::DeviceType::CPU));  // the slot is free again
  EXPECT_TRUE(Tracer::with_active([](Tracer&) {}));
}

SourcePoint at_line_12() { return {"ramp.py:12", "ramp.py:12:4"}; }

TEST(ActiveTracerTest, TheLocatorNamesTheSourceForEveryTracer) {
  const auto was = source_locator();
  set_source_locator(&at_line_12);
  EXPECT_EQ(current_source().user, "ramp.py:12");
  EXPECT_EQ(current_source().site, "ramp.py:12:4");
  set_source_locator(nullptr);
  EXPECT_TRUE(current_source().user.empty());
  set_source_locator(was);
}

TEST(ActiveTracerTest, HandOversCountPerThreadAndNeverGoBelowZero) {
  enter_host_handover();
  enter_host_handover();
  EXPECT_EQ(ActiveTracer::handover_depth(), 2);
  leave_host_handover();
  leave_host_handover();
  leave_host_handover();  // one too many: stays at none
  EXPECT_EQ(ActiveTracer::handover_depth(), 0);
}

}  // namespace
}  // namespace devparity::tracing
