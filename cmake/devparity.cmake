# Helpers shared by harness/, tools/ and tests/ (googletest's internal_utils.cmake style).

set(DEVPARITY_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# Headers every harness translation unit pays for; precompiled once per target.
set(DEVPARITY_PCH_HEADERS
  <ATen/ATen.h>
  <nlohmann/json.hpp>
  <fmt/format.h>
  <string> <vector> <map> <memory> <optional> <functional>)

# dp_detect_cuda(): sets DEVPARITY_CUDA (ON/OFF) from the LibTorch that was found.
# A CPU LibTorch (Debian) leaves it OFF; a CUDA LibTorch 2.x wheel turns it ON.
function(dp_detect_cuda)
  set(found OFF)
  if(TORCH_CUDA_LIBRARIES OR CAFFE2_USE_CUDA OR TARGET torch_cuda)
    set(found ON)
  endif()
  if(DEVPARITY_WITH_CUDA STREQUAL "AUTO")
    set(use ${found})
  elseif(DEVPARITY_WITH_CUDA)
    if(NOT found)
      message(FATAL_ERROR "DEVPARITY_WITH_CUDA=ON but the LibTorch found at "
        "${TORCH_INSTALL_PREFIX} was built without CUDA. Point CMAKE_PREFIX_PATH "
        "at a CUDA LibTorch (python -c 'import torch; print(torch.utils.cmake_prefix_path)').")
    endif()
    set(use ON)
  else()
    set(use OFF)
  endif()
  message(STATUS "devparity: LibTorch ${Torch_VERSION} at ${TORCH_INSTALL_PREFIX}; CUDA support ${use}")
  set(DEVPARITY_CUDA ${use} PARENT_SCOPE)
endfunction()

# dp_detect_torch_series(): sets DEVPARITY_TORCH_SERIES (1 or 2) from the
# LibTorch found. The one place its version is read: the device rules and
# the virtual device's platform file follow the series, and the code probes
# capabilities at run time.
function(dp_detect_torch_series)
  if(Torch_VERSION VERSION_LESS 2.0)
    set(series 1)
  else()
    set(series 2)
  endif()
  set(DEVPARITY_TORCH_SERIES ${series} PARENT_SCOPE)
endfunction()

# dp_detect_vdev(): sets DEVPARITY_VDEV (ON/OFF): the virtual device is built
# unless DEVPARITY_WITH_VDEV=OFF.
function(dp_detect_vdev)
  if(DEVPARITY_WITH_VDEV STREQUAL "AUTO")
    set(use ON)
  else()
    set(use ${DEVPARITY_WITH_VDEV})
  endif()
  message(STATUS "devparity: virtual device (vdev) ${use}")
  set(DEVPARITY_VDEV ${use} PARENT_SCOPE)
endfunction()

# dp_target_defaults(<target>): warnings and precompiled headers.
function(dp_target_defaults target)
  # GCC 12 reports false maybe-uninitialized positives inside nlohmann::json;
  # aggregates such as CheckContext leave their trailing members defaulted.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         -Wno-maybe-uninitialized -Wno-missing-field-initializers)
  target_precompile_headers(${target} PRIVATE ${DEVPARITY_PCH_HEADERS})
endfunction()

# dp_torch_free(<files>...): sources of the current layer that need nothing
# of LibTorch. They are compiled once, into devparity_reports
# (harness/CMakeLists.txt), whose objects go into libdevparity.so and into the
# devparity executable, which runs the report commands without LibTorch
# (Note [Report commands without LibTorch]). A layer all of whose sources are
# such is declared dp_layer(... TORCH_FREE ...) instead.
function(dp_torch_free)
  foreach(f ${ARGN})
    set_property(GLOBAL APPEND PROPERTY DP_TORCH_FREE_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
endfunction()

# dp_layer(<name> [TORCH_FREE] [BELOW <layers>...] SOURCES <files>...): one
# layer of harness/ (docs/architecture.md), an OBJECT library devparity_<name>
# that links the layers it builds on. Its sources see only the headers of their
# own folder and of the layers below (BELOW and theirs, transitively): the
# include path is a view of harness/ holding just those folders, so an include
# of a layer above fails to compile ("No such file"). libdevparity.so is
# assembled from every layer's objects (harness/CMakeLists.txt).
# A TORCH_FREE layer needs nothing of LibTorch: its sources go to
# devparity_reports (dp_torch_free), which compiles them against this layer's
# view, and devparity_<name> is an INTERFACE target the layers above name.
# There is one: report (reading, packing, diff, merge, JUnit, HTML).
function(dp_layer name)
  cmake_parse_arguments(L "TORCH_FREE" "" "BELOW;SOURCES" ${ARGN})
  set(allowed ${name})
  foreach(below ${L_BELOW})
    get_property(closure GLOBAL PROPERTY DP_LAYER_CLOSURE_${below})
    if(NOT closure)
      message(FATAL_ERROR "layer ${name} builds on ${below}, which is not defined before it")
    endif()
    list(APPEND allowed ${closure})
  endforeach()
  list(REMOVE_DUPLICATES allowed)
  set_property(GLOBAL PROPERTY DP_LAYER_CLOSURE_${name} ${allowed})

  set(view ${PROJECT_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/harness)
  foreach(layer ${allowed})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/harness/${layer} ${view}/harness/${layer} SYMBOLIC)
  endforeach()

  set(target devparity_${name})
  if(L_TORCH_FREE)
    get_property(taken GLOBAL PROPERTY DP_TORCH_FREE_LAYER)
    if(taken)
      message(FATAL_ERROR "layer ${name}: ${taken} is already the torch-free layer devparity_reports compiles against")
    endif()
    set_property(GLOBAL PROPERTY DP_TORCH_FREE_LAYER ${name})
    dp_torch_free(${L_SOURCES})
    add_library(${target} INTERFACE)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY DP_LAYERS ${name})
  add_library(${target} OBJECT ${L_SOURCES})
  target_include_directories(${target} PRIVATE ${view})
  foreach(below ${L_BELOW})
    target_link_libraries(${target} PRIVATE devparity_${below})
  endforeach()
  target_link_libraries(${target} PUBLIC torch nlohmann_json::nlohmann_json fmt::fmt)
  target_compile_definitions(${target} PUBLIC ${DEVPARITY_PUBLIC_DEFINITIONS})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         -Wno-maybe-uninitialized -Wno-missing-field-initializers)
  # One precompiled header for every layer: the layers share flags.
  get_property(first GLOBAL PROPERTY DP_LAYERS)
  list(GET first 0 first)
  if(name STREQUAL first)
    target_precompile_headers(${target} PRIVATE ${DEVPARITY_PCH_HEADERS})
  else()
    target_precompile_headers(${target} REUSE_FROM devparity_${first})
  endif()
endfunction()

# dp_device_rules(<out_var>): CUDA's mixed-device rules for the LibTorch that
# was found (harness/rules/tables/: the generated-check table of that release
# and the hand-written rules of ops that decide for themselves), embedded in
# a generated source whose path goes to <out_var>. This is the one place the
# LibTorch version picks the rules; the code reads whichever table it gets.
function(dp_device_rules out_var)
  set(dir ${PROJECT_SOURCE_DIR}/harness/rules/tables)
  if(DEVPARITY_TORCH_SERIES EQUAL 1)
    set(release 1.13)
  else()
    set(release 2.6)
  endif()
  set(checks_file ${dir}/cuda-device-checks-${release}.tsv)
  set(special_files ${dir}/common-special-rules.tsv ${dir}/special-rules-${release}.tsv)
  file(READ ${checks_file} DP_RULES_CHECKS)
  set(DP_RULES_SPECIAL "")
  foreach(f ${special_files})
    file(READ ${f} text)
    string(APPEND DP_RULES_SPECIAL "${text}")
  endforeach()
  set(half_gaps_file ${dir}/cuda-half-gaps-${release}.tsv)
  file(READ ${half_gaps_file} DP_RULES_HALF_GAPS)
  set(DP_RULES_RELEASE ${release})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/device_rules_data.cpp)
  configure_file(${dir}/device_rules_data.cpp.in ${out} @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${checks_file} ${special_files} ${half_gaps_file})
  message(STATUS "devparity: CUDA device rules of LibTorch ${release}")
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
