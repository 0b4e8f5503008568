// The cpu row's TorchFunctionMode (devparity/_host_data.py) passes the calls
// it does not look at straight through, in C.
//
// Note [A mode's pass-through in C]
// A TorchFunctionMode sees every torch call: each Tensor method, each
// indexing, each property read. The cpu row's mode looks at a few dozen
// functions (factories, `.cpu()`, `.to()`, `.device`) and hands the rest on.
// As Python, each call cost a Python frame called from the caller's frame:
// ~1.5 us, and, where the caller was the test's own code, a call the plugin's
// Received watch looked into (Note [Calls watched in C]): a pure-Python
// roi_align reference in torchvision's test ran 14x slower on a traced cpu
// row than untraced. The mode's `__torch_function__` is instead a C function
// bound to the mode (torch 2.x checks its `__self__`), reading the mode's
// `_devparity_pass_through`, (looked_at, handler, set_mode, depth): a
// call whose function is in the set `looked_at` goes to the Python `handler`
// as before; any other is called at once. Where torch keeps its mode stack in
// C++ (2.x) it runs the mode with the mode stashed, so the call is all there
// is; where the mode sits in torch 1.13's C++ slot (Note [A mode set at the
// C++ level] in _host_data.py) the slot is emptied around the call and set
// back after it, as the Python path does, and a mode the code pushed
// (`depth() > 0`) sends the call to the handler, which keeps torch's stack
// order. The interpreter's C API is found in the process (python_api.h);
// Python calls this with the GIL held.

#include "python/csrc/python_api.h"

#include <torch/library.h>

#include <cstddef>

namespace {

using devparity::python::PythonApi;
using devparity::python::python_api;

// CPython's PyMethodDef and its flags (Include/methodobject.h): stable ABI.
struct MethodDef {
  const char* name;
  void* function;
  int flags;
  const char* doc;
};
constexpr int kOneArgument = 0x0008;  // METH_O
constexpr int kFastCall = 0x0080;     // METH_FASTCALL
constexpr int kKeywords = 0x0002;     // METH_KEYWORDS

enum Slot : std::ptrdiff_t { kLookedAt = 0, kHandler, kSetMode, kDepth, kSlots };

const PythonApi& api() { return python_api(); }

// Calls `function(argument)` for its effect; an error it raises is dropped
// (setting torch's slot raises none).
void call_quietly(void* function, void* argument) {
  const auto& a = api();
  if (void* out = a.call(function, argument, nullptr)) {
    a.decref(out);
  } else {
    a.clear_error();
  }
}

// Whether a mode the code pushed is on torch 1.13's Python stack (which
// then owns the order); an error counts as pushed: the handler decides.
bool code_mode_pushed(void* depth) {
  const auto& a = api();
  void* count = a.call(depth, nullptr);
  if (count == nullptr) {
    a.clear_error();
    return true;
  }
  const long pushed = a.as_long(count);
  a.decref(count);
  return pushed != 0;
}

// `func(*args, **kwargs)` with torch 1.13's slot emptied meanwhile; an error
// the call raises is kept across the slot's restore.
void* call_with_slot_empty(void* mode, void* state, void* func, void* args, void* kwargs) {
  const auto& a = api();
  void* set_mode = a.tuple_item(state, kSetMode);
  call_quietly(set_mode, a.none);
  void* out = a.call_with(func, args, kwargs);
  void* type = nullptr;
  void* value = nullptr;
  void* trace = nullptr;
  if (out == nullptr) a.fetch_error(&type, &value, &trace);
  call_quietly(set_mode, mode);
  if (out == nullptr) a.restore_error(type, value, trace);
  return out;
}

// The mode's `__torch_function__(func, types, args, kwargs)`, given its state.
void* pass_through_with(void* mode, void* state, void* const* arguments, std::ptrdiff_t count, void* keyword_names) {
  const auto& a = api();
  void* handler = a.tuple_item(state, kHandler);
  const auto by_handler = [&] {
    return a.vectorcall(handler, arguments, static_cast<std::size_t>(count), keyword_names);
  };
  // torch leaves out kwargs where there are none: (func, types, args).
  if (keyword_names != nullptr || count < 3 || count > 4) return by_handler();
  void* func = arguments[0];
  const int looked_at = a.set_contains(a.tuple_item(state, kLookedAt), func);
  if (looked_at != 0) {
    if (looked_at < 0) a.clear_error();  // (an unhashable function: the handler takes it)
    return by_handler();
  }
  void* args = arguments[2];
  void* kwargs = count < 4 || arguments[3] == a.none ? nullptr : arguments[3];
  if (a.tuple_size(args) < 0 || (kwargs != nullptr && a.dict_size(kwargs) < 0)) {
    a.clear_error();
    return by_handler();
  }
  void* depth = a.tuple_item(state, kDepth);
  if (depth == a.none) return a.call_with(func, args, kwargs);  // the mode is stashed by torch
  if (code_mode_pushed(depth)) return by_handler();
  return call_with_slot_empty(mode, state, func, args, kwargs);
}

// The state a mode's pass-through reads: the mode's attribute (a tuple).
constexpr const char* kStateName = "_devparity_pass_through";

// `__torch_function__` bound to the mode itself: torch 2.x checks that the
// function's `__self__` is the mode.
void* pass_through(void* mode, void* const* arguments, std::ptrdiff_t count, void* keyword_names) {
  const auto& a = api();
  void* state = a.get_attr(mode, kStateName);
  if (state == nullptr) return nullptr;  // (AttributeError)
  if (a.tuple_size(state) != kSlots) {
    a.decref(state);
    a.clear_error();
    a.set_error(*a.type_error, "devparity: a mode's _devparity_pass_through is (looked_at, handler, set_mode, depth)");
    return nullptr;
  }
  void* out = pass_through_with(mode, state, arguments, count, keyword_names);
  a.decref(state);
  return out;
}

MethodDef g_pass_through{"__torch_function__", reinterpret_cast<void*>(&pass_through), kFastCall | kKeywords,
                         "devparity: the cpu row's mode, its pass-through in C (Note [A mode's pass-through in C])"};

// passing_through(mode) -> `__torch_function__` bound to the mode, which
// holds its state in _devparity_pass_through.
void* passing_through(void*, void* mode) { return api().new_function(&g_pass_through, mode, nullptr); }

MethodDef g_passing_through{"_passing_through", reinterpret_cast<void*>(&passing_through), kOneArgument,
                            "devparity: binds the cpu row's mode's pass-through to the mode"};

bool complete(const PythonApi& a) {
  return a.gil_ensure && a.gil_release && a.import && a.set_attr && a.new_function && a.vectorcall && a.call &&
         a.call_with && a.set_contains && a.tuple_size && a.tuple_item && a.dict_size && a.as_long &&
         a.fetch_error && a.restore_error && a.clear_error && a.decref && a.get_attr && a.set_error && a.type_error &&
         a.none;
}

// Sets devparity._host_data._passing_through; false where the process lacks
// what it needs (the mode then stays Python).
bool install_pass_through() {
  const auto& a = api();
  if (!complete(a)) return false;
  const int gil = a.gil_ensure();
  bool installed = false;
  if (void* module = a.import("devparity._host_data")) {
    if (void* function = a.new_function(&g_passing_through, nullptr, nullptr)) {
      installed = a.set_attr(module, "_passing_through", function) == 0;
      a.decref(function);
    }
    a.decref(module);
  }
  if (!installed) a.clear_error();
  a.gil_release(gil);
  return installed;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(devparity, m) {
  m.def("install_mode_pass_through() -> bool", &install_pass_through);
}
