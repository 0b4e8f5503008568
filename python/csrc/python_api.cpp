#include "python/csrc/python_api.h"

#include <dlfcn.h>

namespace devparity::python {
namespace {

template <typename F>
void bind(F& slot, const char* name) {
  slot = reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}

PythonApi load() {
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
  bind(api.set_profile, "PyEval_SetProfile");
  bind(api.import, "PyImport_ImportModule");
  bind(api.call, "PyObject_CallFunctionObjArgs");
  bind(api.as_long, "PyLong_AsLong");
  bind(api.call_with, "PyObject_Call");
  bind(api.vectorcall, "PyObject_Vectorcall");
  bind(api.new_function, "PyCFunction_NewEx");
  bind(api.set_attr, "PyObject_SetAttrString");
  bind(api.set_contains, "PySet_Contains");
  bind(api.tuple_size, "PyTuple_Size");
  bind(api.tuple_item, "PyTuple_GetItem");
  bind(api.dict_size, "PyDict_Size");
  bind(api.restore_error, "PyErr_Restore");
  bind(api.set_error, "PyErr_SetString");
  api.type_error = static_cast<void**>(::dlsym(RTLD_DEFAULT, "PyExc_TypeError"));
  api.none = ::dlsym(RTLD_DEFAULT, "_Py_NoneStruct");
  return api;
}

}  // namespace

const PythonApi& python_api() {
  static const PythonApi api = load();
  return api;
}

}  // namespace devparity::python
