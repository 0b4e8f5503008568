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

# dp_device_rules(<out_var>): CUDA's mixed-device rules for the LibTorch that
# was found (harness/core/rules/: the generated-check table of that release
# and the hand-written rules of ops that decide for themselves), embedded in
# a generated source whose path goes to <out_var>. This is the one place the
# LibTorch version picks the rules; the code reads whichever table it gets.
function(dp_device_rules out_var)
  set(dir ${PROJECT_SOURCE_DIR}/harness/core/rules)
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
  set(DP_RULES_RELEASE ${release})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/device_rules_data.cpp)
  configure_file(${dir}/device_rules_data.cpp.in ${out} @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${checks_file} ${special_files})
  message(STATUS "devparity: CUDA device rules of LibTorch ${release}")
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
