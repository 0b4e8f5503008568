// devparity.vdev_async(): the asynchronous simulated device around a block
// of Python code (docs/python.md): its streams run later, in an interleaving
// drawn from a seed, and the race detector's findings come back at the end.
#include "python/csrc/python_frames.h"

#include "harness/builtins.h"
#include "harness/vdev/vdev.h"
#include "harness/vdev/async.h"
#include "harness/vdev/mode.h"
#include "harness/vdev/perturb.h"
#include "harness/trace/tracer.h"

#include <nlohmann/json.hpp>
#include <torch/library.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Open {
  std::unique_ptr<devparity::vdev::ModeScope> mode;  // asynchronous while the block runs
  std::unique_ptr<devparity::vdev::async::Session> session;
};

std::mutex g_mutex;
std::map<int64_t, Open> g_open;
int64_t g_next = 1;

nlohmann::json side(const devparity::vdev::async::Race::Side& s) {
  return {{"op", s.op}, {"stream", s.stream}, {"site", s.site}, {"write", s.write}};
}

// Sessions begin and end on one thread (the detector collects that thread's work).
int64_t async_begin(int64_t seed, std::vector<std::string> skip, std::string pinned_release) {
  namespace async = devparity::vdev::async;
  TORCH_CHECK(devparity::vdev::compiled(), "devparity.vdev_async(): this build has no simulated device");
  TORCH_CHECK(seed >= 0, "devparity.vdev_async(seed): expected a non-negative integer, got ", seed);
  const auto release = async::parse_pinned_release(pinned_release, "devparity.vdev_async(pinned_release)");
  devparity::python::locate_python_sources(std::move(skip));
  devparity::provide_vdev_sites();
  Open open;
  auto mode = devparity::vdev::mode();
  mode.async = true;
  mode.pinned_release = release;
  open.mode = std::make_unique<devparity::vdev::ModeScope>(std::move(mode));
  open.session = std::make_unique<async::Session>(static_cast<uint64_t>(seed));
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_open[g_next] = std::move(open);
  return g_next++;
}

// Drains every stream and returns {"seed", "poison", "races": [...]}.
std::string async_end(int64_t id) {
  Open open;
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_open.find(id);
    TORCH_CHECK(it != g_open.end(), "devparity.vdev_async(): no open session ", id);
    open = std::move(it->second);
    g_open.erase(it);
  }
  const auto races = open.session->finish();
  nlohmann::json out = {{"seed", open.session->seed()}, {"poison", open.session->poison()}};
  out["races"] = nlohmann::json::array();
  for (const auto& r : races) {
    out["races"].push_back({{"message", r.describe()},
                            {"earlier", side(r.earlier)},
                            {"later", side(r.later)},
                            {"memory", r.memory},
                            {"freed", r.freed}});
  }
  open.session.reset();
  open.mode.reset();
  return out.dump();
}

bool async_enabled() { return devparity::vdev::async::enabled(); }

// The pytest plugin's perturbed numerics around one test (Note [Perturbed
// numerics]): one scope at a time.
std::unique_ptr<devparity::vdev::perturb::Scope> g_perturbed;

void perturb_begin(std::string names) {
  TORCH_CHECK(!g_perturbed, "devparity: perturbed numerics are already on");
  devparity::register_builtins();  // the switches are built-ins
  try {
    g_perturbed = std::make_unique<devparity::vdev::perturb::Scope>(
        devparity::vdev::perturb::parse(names, "--devparity-perturb"));
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

// {"switch": op calls it moved}, and the scope ends.
std::string perturb_end() {
  nlohmann::json out = nlohmann::json::object();
  if (g_perturbed) {
    for (const auto& [name, calls] : g_perturbed->moved()) out[name] = calls;
  }
  g_perturbed.reset();
  return out.dump();
}

void synchronize(int64_t index) {
  TORCH_CHECK(index >= 0 && index < devparity::vdev::device_count(), "synchronize: index ", index,
              " outside the ", devparity::vdev::device_count(), " simulated device(s)");
  devparity::vdev::async::synchronize_device(static_cast<c10::DeviceIndex>(index));
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("async_begin(int seed, str[] skip, str pinned_release) -> int", &async_begin);
  m.def("async_end(int id) -> str", &async_end);
  m.def("async_enabled() -> bool", &async_enabled);
  m.def("perturb_begin(str names) -> ()", &perturb_begin);
  m.def("perturb_end() -> str", &perturb_end);
  m.def("synchronize(int index) -> ()", &synchronize);
}
