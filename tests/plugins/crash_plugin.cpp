// A test plugin of subjects that take the process down, for --isolate: each
// misbehaves only off the CPU, so its CPU rows (and every other subject's)
// must survive. Loaded with `devparity run --plugin libdevparity_crash_plugin.so`.

#include <harness/subject/register.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <vector>

namespace crash {

class Misbehaving : public devparity::Transform {
 public:
  Misbehaving(const char* name, const char* description) {
    info_.name = name;
    info_.family = "test";
    info_.description = description;
    info_.dtypes = {at::kFloat};
  }
  const devparity::TransformInfo& info() const override { return info_; }
  nlohmann::json sample(const nlohmann::json&, c10::IntArrayRef, at::Generator&) const override {
    return nlohmann::json::object();
  }
  at::Tensor apply(const at::Tensor& x, const nlohmann::json&) const override {
    if (!x.device().is_cpu()) misbehave(x);
    return x * 2;
  }

 protected:
  virtual void misbehave(const at::Tensor& x) const = 0;

 private:
  devparity::TransformInfo info_;
};

class Segfault final : public Misbehaving {
 public:
  Segfault() : Misbehaving("crash_segfault", "segfaults off the CPU") {}
  void misbehave(const at::Tensor&) const override { std::raise(SIGSEGV); }
};

class Abort final : public Misbehaving {
 public:
  Abort() : Misbehaving("crash_abort", "aborts off the CPU") {}
  void misbehave(const at::Tensor&) const override { std::abort(); }
};

class Exit final : public Misbehaving {
 public:
  Exit() : Misbehaving("crash_exit", "calls exit(3) off the CPU") {}
  void misbehave(const at::Tensor&) const override { std::exit(3); }
};

class Hang final : public Misbehaving {
 public:
  Hang() : Misbehaving("crash_hang", "never returns off the CPU") {}
  void misbehave(const at::Tensor&) const override {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};

// Asks for 4 TiB at once: LibTorch's allocator refuses, in any process.
class HugeAllocation final : public Misbehaving {
 public:
  HugeAllocation() : Misbehaving("crash_huge_allocation", "asks for 4 TiB off the CPU") {}
  void misbehave(const at::Tensor& x) const override {
    (void)at::empty({int64_t{1} << 40}, x.options().device(at::kCPU));
  }
};

// Keeps allocating and touching 256 MiB blocks: stopped only by a memory
// limit (--memory-limit-mb) or the system.
class Exhaust final : public Misbehaving {
 public:
  Exhaust() : Misbehaving("crash_exhaust_memory", "allocates until memory runs out, off the CPU") {}
  void misbehave(const at::Tensor& x) const override {
    std::vector<at::Tensor> hoard;
    // Address space, not pages: --memory-limit-mb limits the former, and
    // writing gigabytes would make the test's timing depend on the machine.
    for (;;) hoard.push_back(at::empty({int64_t{64} << 20}, x.options().device(at::kCPU)));
  }
};

}  // namespace crash

DEVPARITY_REGISTER_TRANSFORM(crash::Segfault)
DEVPARITY_REGISTER_TRANSFORM(crash::Abort)
DEVPARITY_REGISTER_TRANSFORM(crash::Exit)
DEVPARITY_REGISTER_TRANSFORM(crash::Hang)
DEVPARITY_REGISTER_TRANSFORM(crash::HugeAllocation)
DEVPARITY_REGISTER_TRANSFORM(crash::Exhaust)
