#include "python/csrc/python_frames.h"

#include "python/csrc/python_api.h"

#include "harness/builtins.h"
#include "harness/subject/op_subject.h"
#include "harness/trace/tracer.h"
#include "harness/vdev/async.h"


#include <atomic>
#include <mutex>
#include <optional>
#include <functional>
#include <unordered_map>
#include <utility>

namespace devparity::python {
namespace {

// The functions the locator uses (Note [Python frames without libpython]).
bool complete(const PythonApi& a) {
  return a.this_thread_state && a.gil_ensure && a.gil_release && a.frame_of && a.frame_back && a.frame_code &&
         a.frame_line && a.get_attr && a.utf8 && a.decref && a.clear_error && a.error_occurred && a.fetch_error &&
         a.str;
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
void load_once() { std::call_once(g_loaded, [] { g_api = python_api(); }); }

}  // namespace

std::optional<std::string> take_python_error() {
  load_once();
  if (!complete(g_api) || g_api.this_thread_state() == nullptr) return std::nullopt;
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
    if (!complete(g_api)) return;  // not in a Python process
    g_skip = std::move(skip);
    g_next.store(source_locator());
    set_source_locator(&python_source);
    set_op_error_message(&take_python_error);
    vdev::async::set_pending_error_reset(&drop_python_error);
  });
}

}  // namespace devparity::python
