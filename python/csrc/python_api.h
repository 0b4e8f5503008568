#pragma once
// The interpreter's C API, found in the process (Note [Python frames without
// libpython] in python_frames.h): the one place the op library looks it up.

#include <cstddef>

namespace devparity::python {

// The stable C API functions used; null where the process has none.
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
  const char* (*utf8)(void*) = nullptr;    // PyUnicode_AsUTF8 (borrowed)
  void (*decref)(void*) = nullptr;         // Py_DecRef
  void (*clear_error)() = nullptr;         // PyErr_Clear
  void* (*error_occurred)() = nullptr;     // PyErr_Occurred (borrowed)
  void (*fetch_error)(void**, void**, void**) = nullptr;  // PyErr_Fetch (new references)
  void* (*str)(void*) = nullptr;           // PyObject_Str (new reference)
  void (*set_profile)(int (*)(void*, void*, int, void*), void*) = nullptr;  // PyEval_SetProfile
  void* (*import)(const char*) = nullptr;  // PyImport_ImportModule (new reference)
  void* (*call)(void*, ...) = nullptr;     // PyObject_CallFunctionObjArgs (new reference)
  long (*as_long)(void*) = nullptr;        // PyLong_AsLong
  void* (*call_with)(void*, void*, void*) = nullptr;  // PyObject_Call (new reference)
  void* (*vectorcall)(void*, void* const*, std::size_t, void*) = nullptr;  // PyObject_Vectorcall
  void* (*new_function)(void*, void*, void*) = nullptr;  // PyCFunction_NewEx (new reference)
  int (*set_attr)(void*, const char*, void*) = nullptr;  // PyObject_SetAttrString
  int (*set_contains)(void*, void*) = nullptr;       // PySet_Contains
  std::ptrdiff_t (*tuple_size)(void*) = nullptr;            // PyTuple_Size
  void* (*tuple_item)(void*, std::ptrdiff_t) = nullptr;      // PyTuple_GetItem (borrowed)
  std::ptrdiff_t (*dict_size)(void*) = nullptr;             // PyDict_Size
  void (*restore_error)(void*, void*, void*) = nullptr;  // PyErr_Restore (steals)
  void (*set_error)(void*, const char*) = nullptr;   // PyErr_SetString
  void** type_error = nullptr;             // &PyExc_TypeError
  void* none = nullptr;                    // _Py_NoneStruct
};

/// The API, looked up once.
const PythonApi& python_api();

}  // namespace devparity::python
