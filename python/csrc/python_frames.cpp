#include "python/csrc/python_frames.h"

#include "harness/builtins.h"
#include "harness/subject/op_subject.h"
#include "harness/trace/tracer.h"
#include "harness/vdev/async.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <functional>
#include <unordered_map>
#include <utility>

namespace devparity::python {
namespace {

// The stable C API functions used (Note [Python frames without libpython]).
struct PythonApi {
  void* (*this_thread_state)() = nullptr;  // PyGILState_GetThisThreadState
  int (*gil_ensure)() = nullptr;           // PyGILState_Ensure
  void (*gil_release)(int) = nullptr;      // PyGILState_Release
  void* (*frame_of)(void*) = nullptr;      // PyThreadState_GetFrame (new reference)
  void* (*frame_back)(void*) = nullptr;    // PyFrame_GetBack (new reference)
  void* (*frame_code)(void*) = nullptr;    // PyFrame_GetCode (new reference)
  int (*frame_line)(void*) = nullptr;      // PyFrame_GetLineNumber
  int (*frame_lasti)(void*) = nullptr;     // PyFrame_GetLasti (3.11+; optional)
  void* (*get_attr)(void*, const char*) = nullptr;  // PyObject_GetAttrString (new reference)
  const char* (*utf8)(void*) = nullptr;   // PyUnicode_AsUTF8 (borrowed)
  void (*decref)(void*) = nullptr;         // Py_DecRef
  void (*clear_error)() = nullptr;         // PyErr_Clear
  void* (*error_occurred)() = nullptr;     // PyErr_Occurred (borrowed)
  void (*fetch_error)(void**, void**, void**) = nullptr;  // PyErr_Fetch (new references)
  void* (*str)(void*) = nullptr;           // PyObject_Str (new reference)

  bool complete() const {
    return this_thread_state && gil_ensure && gil_release && frame_of && frame_back && frame_code &&
           frame_line && get_attr && utf8 && decref && clear_error && error_occurred && fetch_error && str;
  }
};

template <typename F>
void bind(F& slot, const char* name) {
  slot = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}

PythonApi load_api() {
  PythonApi api;
  bind(api.this_thread_state, "PyGILState_GetThisThreadState");
  bind(api.gil_ensure, "PyGILState_Ensure");
  bind(api.gil_release, "PyGILState_Release");
  bind(api.frame_of, "PyThreadState_GetFrame");
  bind(api.frame_back, "PyFrame_GetBack");
  bind(api.frame_code, "PyFrame_GetCode");
  bind(api.frame_line, "PyFrame_GetLineNumber");
  bind(api.frame_lasti, "PyFrame_GetLasti");
  bind(api.get_attr, "PyObject_GetAttrString");
  bind(api.utf8, "PyUnicode_AsUTF8");
  bind(api.decref, "Py_DecRef");
  bind(api.clear_error, "PyErr_Clear");
  bind(api.error_occurred, "PyErr_Occurred");
  bind(api.fetch_error, "PyErr_Fetch");
  bind(api.str, "PyObject_Str");
  return api;
}

PythonApi g_api;
std::vector<std::string> g_skip;
std::atomic<SourceLocator> g_next{nullptr};

bool skipped(const std::string& file) {
  for (const auto& prefix : g_skip) {
    if (file.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

std::string file_of(void* frame) {
  void* code = g_api.frame_code(frame);
  if (code == nullptr) return {};
  void* name = g_api.get_attr(code, "co_filename");
  std::string out;
  if (name != nullptr) {
    const char* text = g_api.utf8(name);
    if (text != nullptr) out = text;
    g_api.decref(name);
  }
  g_api.decref(code);
  if (out.empty()) g_api.clear_error();
  return out;
}

// The file of a code object when it is user code; null when skipped. Held
// by code object, which the cache keeps alive so that its address is never
// another's: the tracer asks for every op that records autograd work, and
// reading and comparing the name each time was most of that cost. Used
// with the GIL held, which guards the cache.
const std::string* user_file(void* frame) {
  static std::unordered_map<void*, std::optional<std::string>> files;
  void* code = g_api.frame_code(frame);
  if (code == nullptr) return nullptr;
  auto it = files.find(code);
  if (it != files.end()) {
    g_api.decref(code);  // the cache holds its own reference
  } else {
    const auto file = file_of(frame);
    std::optional<std::string> kept;
    if (!file.empty() && file[0] != '<' && !skipped(file)) kept = file;
    it = files.emplace(code, std::move(kept)).first;  // keeps the reference frame_code gave
  }
  return it->second ? &*it->second : nullptr;
}

// "file.py:42" of `frame`, whose code's file is `file`. By code object and
// instruction where the interpreter tells the instruction: the asynchronous
// vdev asks for every op it queues, and decoding the line table each time
// was most of that cost. (The code object is held by user_file's cache.)
std::string located(void* frame, const std::string& file) {
  if (g_api.frame_lasti == nullptr) return file + ":" + std::to_string(g_api.frame_line(frame));
  struct Hash {
    size_t operator()(const std::pair<void*, int>& k) const {
      return std::hash<void*>()(k.first) ^ (std::hash<int>()(k.second) << 1);
    }
  };
  static std::unordered_map<std::pair<void*, int>, std::string, Hash> lines;
  void* code = g_api.frame_code(frame);
  const std::pair<void*, int> key{code, g_api.frame_lasti(frame)};
  if (code != nullptr) g_api.decref(code);
  auto it = lines.find(key);
  if (it == lines.end()) it = lines.emplace(key, file + ":" + std::to_string(g_api.frame_line(frame))).first;
  return it->second;
}

// "file.py:42" of the innermost frame of user code; empty when none.
std::string innermost_user_frame() {
  std::string found;
  void* frame = g_api.frame_of(g_api.this_thread_state());
  while (frame != nullptr && found.empty()) {
    if (const auto* file = user_file(frame)) found = located(frame, *file);
    void* back = g_api.frame_back(frame);
    g_api.decref(frame);
    frame = back;
  }
  if (frame != nullptr) g_api.decref(frame);
  return found;
}

SourcePoint python_source() {
  if (g_api.this_thread_state() != nullptr) {
    const int gil = g_api.gil_ensure();
    auto user = innermost_user_frame();
    g_api.gil_release(gil);
    // Sources name lines (TraceSeeds::literals_by_line): the site is the line.
    if (!user.empty()) return {user, user};
  }
  const auto next = g_next.load();
  return next == nullptr ? SourcePoint{} : next();
}

// str(object), or "" (clearing the error str() may raise).
std::string text_of(void* object) {
  std::string out;
  if (object == nullptr) return out;
  if (void* text = g_api.str(object)) {
    if (const char* utf8 = g_api.utf8(text)) out = utf8;
    g_api.decref(text);
  }
  if (out.empty()) g_api.clear_error();
  return out;
}

std::string type_name(void* type) {
  if (type == nullptr) return "Exception";
  void* name = g_api.get_attr(type, "__name__");
  auto out = text_of(name);
  if (name != nullptr) g_api.decref(name);
  return out.empty() ? "Exception" : out;
}

void drop_python_error();

std::once_flag g_loaded;
void load_once() { std::call_once(g_loaded, [] { g_api = load_api(); }); }

}  // namespace

std::optional<std::string> take_python_error() {
  load_once();
  if (!g_api.complete() || g_api.this_thread_state() == nullptr) return std::nullopt;
  const int gil = g_api.gil_ensure();
  std::optional<std::string> out;
  if (g_api.error_occurred() != nullptr) {
    void *type = nullptr, *value = nullptr, *traceback = nullptr;
    g_api.fetch_error(&type, &value, &traceback);
    out = type_name(type) + ": " + text_of(value);
    for (void* o : {type, value, traceback}) {
      if (o != nullptr) g_api.decref(o);
    }
  }
  g_api.gil_release(gil);
  return out;
}

namespace {
void drop_python_error() { take_python_error(); }
}  // namespace

void locate_python_sources(std::vector<std::string> skip) {
  load_once();
  // Builtins install the TorchScript locator: ours goes in front of it, after.
  register_builtins();
  static std::once_flag once;
  std::call_once(once, [&] {
    if (!g_api.complete()) return;  // not in a Python process
    g_skip = std::move(skip);
    g_next.store(source_locator());
    set_source_locator(&python_source);
    set_op_error_message(&take_python_error);
    vdev::async::set_pending_error_reset(&drop_python_error);
  });
}

}  // namespace devparity::python
