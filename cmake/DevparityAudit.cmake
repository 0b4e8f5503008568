# devparity_add_audit(): registers a devparity suite as a ctest test.
#
#   devparity_add_audit(NAME <test> SUITE <case file>
#                       [DEVICES <list>]        # default: auto
#                       [GPUS <n>]              # ctest resource groups: n GPUs
#                       [OUTPUT_DIR <dir>]      # report, JUnit, HTML (default: build/audits)
#                       [DEVPARITY <exe>]       # default: the devparity target or devparity::devparity's bin
#                       [ARGS <extra run args>...])
#
# The test runs `devparity run --suite <file> --devices <list> --report
# <dir>/<test>.json --junit <dir>/<test>.xml --html <dir>/<test>.html`.
#
# With GPUS, the test asks ctest for that many slots of the resource "gpus"
# (RESOURCE_GROUPS). Run ctest with a resource spec naming your GPUs, e.g.
#   {"version": {"major": 1, "minor": 0},
#    "local": [{"gpus": [{"id": "0"}, {"id": "1"}, {"id": "2"}, {"id": "3"}]}]}
# and `ctest --resource-spec-file gpus.json -j4`: each audit then sees only the
# GPU(s) ctest gave it (CUDA_VISIBLE_DEVICES), so four suites fill four GPUs
# and none share one. Without a spec file ctest allocates nothing and the
# audit sees every GPU.
set(DEVPARITY_AUDIT_RUNNER ${CMAKE_CURRENT_LIST_DIR}/DevparityAuditRun.cmake)

function(devparity_add_audit)
  cmake_parse_arguments(A "" "NAME;SUITE;DEVICES;GPUS;OUTPUT_DIR;DEVPARITY" "ARGS" ${ARGN})
  if(NOT A_NAME OR NOT A_SUITE)
    message(FATAL_ERROR "devparity_add_audit: NAME and SUITE are required")
  endif()
  if(NOT A_DEVICES)
    set(A_DEVICES auto)
  endif()
  if(NOT A_OUTPUT_DIR)
    set(A_OUTPUT_DIR ${CMAKE_BINARY_DIR}/audits)
  endif()
  if(NOT A_DEVPARITY)
    if(TARGET devparity)
      set(A_DEVPARITY $<TARGET_FILE:devparity>)
    elseif(DEFINED devparity_EXECUTABLE)
      set(A_DEVPARITY ${devparity_EXECUTABLE})
    else()
      message(FATAL_ERROR "devparity_add_audit: give DEVPARITY <executable>")
    endif()
  endif()
  set(out ${A_OUTPUT_DIR}/${A_NAME})
  string(REPLACE ";" "\\;" extra "${A_ARGS}")
  add_test(NAME ${A_NAME}
           COMMAND ${CMAKE_COMMAND} "-DDEVPARITY=${A_DEVPARITY}"
                   "-DARGS=run\\;--suite\\;${A_SUITE}\\;--devices\\;${A_DEVICES}\\;--report\\;${out}.json\\;--junit\\;${out}.xml\\;--html\\;${out}.html\\;${extra}"
                   -P ${DEVPARITY_AUDIT_RUNNER})
  set_tests_properties(${A_NAME} PROPERTIES LABELS audit)
  if(A_GPUS)
    set_tests_properties(${A_NAME} PROPERTIES RESOURCE_GROUPS "gpus:${A_GPUS}")
  endif()
endfunction()
