#pragma once
// The virtual device's guard: device index, streams and events through
// LibTorch's device-generic interface (c10::Stream, c10::Event, the device
// guard), so code written for any backend runs its stream logic on vdev.
// The series' platform file derives the registered guard from it, adding
// what its interface has beyond 1.13's (getNewStream, synchronizeEvent,
// synchronizeDevice on 2.x).

#include "harness/vdev/autograd_threads.h"
#include "harness/vdev/runtime.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

namespace devparity::vdev {

/// The backend's index checks and thread-local current index (vdev/install.cpp).
void check_index(c10::DeviceIndex index);
c10::DeviceIndex current_index();
void set_current_index(c10::DeviceIndex index);
int installed_count();

struct GuardBase : public c10::impl::DeviceGuardImplInterface {
  static constexpr auto kType = c10::DeviceType::PrivateUse1;

  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const auto old = getDevice();
    setDevice(d);
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kType, current_index()); }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == kType, "not a virtual device: ", d);
    if (!d.has_index()) return;
    check_index(d.index());
    set_current_index(d.index());
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    if (d.has_index()) set_current_index(d.index());
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return runtime::current_stream(d.has_index() ? d.index() : current_index());
  }
  c10::Stream getDefaultStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::DEFAULT, c10::Device(kType, d.has_index() ? d.index() : current_index()));
  }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool = false) const override {
    return runtime::pool_stream(d.has_index() ? d.index() : current_index());
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    const auto old = runtime::current_stream(s.device_index());
    runtime::set_current_stream(s);
    return old;
  }
  // None while the autograd engine sizes its pool: devparity serves vdev's
  // indices there itself (Note [Autograd device threads]).
  c10::DeviceIndex deviceCount() const noexcept override {
    return autograd_threads::sizing_pool() ? 0 : static_cast<c10::DeviceIndex>(installed_count());
  }
  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex, const c10::EventFlag) const override {
    runtime::record_event(event, stream);
  }
  void block(void* event, const c10::Stream& stream) const override { runtime::block_on_event(event, stream); }
  bool queryEvent(void* event) const override { return runtime::query_event(event); }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override { runtime::destroy_event(event); }
  bool queryStream(const c10::Stream& stream) const override { return runtime::stream_idle(stream); }
  void synchronizeStream(const c10::Stream& stream) const override { runtime::synchronize_stream(stream); }
  void recordDataPtrOnStream(const c10::DataPtr& data, const c10::Stream& stream) const override {
    runtime::record_data_on_stream(data.get(), stream);
  }
};

}  // namespace devparity::vdev
