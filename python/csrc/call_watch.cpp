// The pytest plugin's watch of what a test's code receives from the library
// (Note [Received values] in devparity/_received.py), as a C profile function.
//
// Note [Calls watched in C]
// The watch needs the return of every call a test's frame makes into the
// library. A Python hook runs for every Python call the process makes,
// torch's and the library's own included, and cost torchvision's traced suite
// more than the tracer itself. Here the hook is C: a call is looked at only
// when its caller's code is the test's and the callee's is not (both known by
// code object, asked of Python once each); for those Python decides what to
// judge, and the frame's return is handed back to it.
//
// It is a profile function, not a trace function: calls and returns are all
// it needs, and a trace function also makes Python 3.11 stop at every line of
// every frame (a frame object and a line number each time), which doubled
// the time of pure-Python test code (torchvision's test_rgb2hsv checks 150,000
// pixels with colorsys); 3.12+ turns on line events for it too. It also
// leaves sys.settrace to coverage tools and debuggers. `sys.getprofile()`
// reads the Python hook meanwhile, so code that saves and restores the
// profile function restores a watch that works (in Python). The interpreter's
// C API is found in the process (python_api.h, Note [Python frames without
// libpython]); profile functions run with the GIL held, which guards this
// file's state.

#include "python/csrc/python_api.h"

#include <torch/library.h>

#include <memory>
#include <unordered_map>

namespace {

using devparity::python::PythonApi;
using devparity::python::python_api;

constexpr int kCall = 0;    // PyTrace_CALL (a Python function starts or resumes)
constexpr int kReturn = 3;  // PyTrace_RETURN (it returns, yields or raises)

enum Kind : long { kLibrary = 0, kTest = 1, kNeither = 2 };

const PythonApi& api() { return python_api(); }

// The functions the watch uses.
bool complete(const PythonApi& a) {
  return a.gil_ensure && a.gil_release && a.set_profile && a.frame_code && a.frame_back && a.import && a.get_attr &&
         a.call && a.as_long && a.decref && a.clear_error && a.none;
}

// Code object (a reference held, so that its address is never another's) ->
// Kind. Kept from one watch to the next while the scaffolding they were asked
// under holds; cleared past kMaxKinds (code compiled at run time, one per call).
using Kinds = std::unordered_map<void*, long>;
constexpr std::size_t kMaxKinds = 1 << 16;

struct Watch {
  void* kind_of = nullptr;  // watcher._kind(code) -> Kind
  void* on_call = nullptr;  // watcher._on_call(frame) -> fn(frame, value) or None
  void* hook = nullptr;     // watcher._global: what sys.getprofile() reads
  std::unordered_map<void*, void*> returning;  // frame -> its fn (a reference held)
};

Watch* g_watch = nullptr;
Kinds g_kinds;

void drop(void* object) {
  if (object != nullptr) api().decref(object);
}

void forget_kinds() {
  for (auto& [code, kind] : g_kinds) api().decref(code);
  g_kinds.clear();
}

// The code's kind, asked of Python once per code object.
long kind_of(const Watch& w, void* frame) {
  const auto& a = api();
  void* code = a.frame_code(frame);
  if (code == nullptr) {
    a.clear_error();
    return kNeither;
  }
  const auto it = g_kinds.find(code);
  if (it != g_kinds.end()) {
    a.decref(code);
    return it->second;
  }
  long kind = kNeither;
  if (void* answer = a.call(w.kind_of, code, nullptr)) {
    kind = a.as_long(answer);
    a.decref(answer);
  }
  a.clear_error();
  if (g_kinds.size() >= kMaxKinds) forget_kinds();
  g_kinds.emplace(code, kind);  // keeps frame_code's reference
  return kind;
}

void on_call(Watch& w, void* frame) {
  const auto& a = api();
  if (kind_of(w, frame) != kLibrary) return;
  void* caller = a.frame_back(frame);
  if (caller == nullptr) return;
  const bool from_test = kind_of(w, caller) == kTest;
  a.decref(caller);
  if (!from_test) return;
  void* fn = a.call(w.on_call, frame, nullptr);
  a.clear_error();
  if (fn == nullptr || fn == a.none) {
    drop(fn);
    return;
  }
  auto& slot = w.returning[frame];
  drop(slot);  // (a generator's frame resumed: its last entry was returned already)
  slot = fn;
}

void on_return(Watch& w, void* frame, void* value) {
  const auto it = w.returning.find(frame);
  if (it == w.returning.end()) return;
  void* fn = it->second;
  w.returning.erase(it);
  const auto& a = api();
  drop(a.call(fn, frame, value == nullptr ? a.none : value, nullptr));
  a.clear_error();
  a.decref(fn);
}

int on_event(void*, void* frame, int what, void* arg) {
  if (g_watch == nullptr) return 0;
  if (what == kCall) {
    on_call(*g_watch, frame);
  } else if (what == kReturn && !g_watch->returning.empty()) {
    on_return(*g_watch, frame, arg);
  }
  return 0;  // the watch never raises into the code it watches
}

void stop_locked() {
  if (g_watch == nullptr) return;
  const auto& a = api();
  a.set_profile(nullptr, nullptr);
  for (auto& [frame, fn] : g_watch->returning) a.decref(fn);
  for (void* o : {g_watch->kind_of, g_watch->on_call, g_watch->hook}) drop(o);
  delete g_watch;
  g_watch = nullptr;
}

// on: watches this thread's calls for devparity._received._watcher; off:
// stops (the caller restores the profile function it saved). same_kinds:
// the scaffolding is what the kinds kept were asked under.
void watch_calls(bool on, bool same_kinds) {
  const auto& a = api();
  TORCH_CHECK(complete(a), "devparity: watch_calls needs a Python interpreter in the process");
  const int gil = a.gil_ensure();
  stop_locked();
  if (!same_kinds) forget_kinds();
  if (on) {
    void* module = a.import("devparity._received");
    void* watcher = module == nullptr ? nullptr : a.get_attr(module, "_watcher");
    auto w = std::make_unique<Watch>();
    if (watcher != nullptr && watcher != a.none) {
      w->kind_of = a.get_attr(watcher, "_kind");
      w->on_call = a.get_attr(watcher, "_on_call");
      w->hook = a.get_attr(watcher, "_global");
    }
    drop(watcher);
    drop(module);
    const bool ready = w->kind_of && w->on_call && w->hook;
    if (ready) {
      g_watch = w.release();
      a.set_profile(&on_event, g_watch->hook);
    } else {
      for (void* o : {w->kind_of, w->on_call, w->hook}) drop(o);
      a.clear_error();
    }
    a.gil_release(gil);
    TORCH_CHECK(ready, "devparity: watch_calls: devparity._received._watcher is not a Received watch");
    return;
  }
  a.gil_release(gil);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("watch_calls(bool on, bool same_kinds) -> ()", &watch_calls);
}
