# KILN_ASCEND=cann: Kiln's Ascend C kernels built by Huawei's CANN toolchain for one SoC.
#
# Needs ASCEND_CANN_PACKAGE_PATH (the CANN install, e.g. /usr/local/Ascend/ascend-toolkit/latest)
# and SOC_VERSION (e.g. Ascend910B3, Ascend310P3). Anything missing stops the configure with the
# fix; nothing is skipped silently. Not verified here: Kiln's CI has no CANN and no NPU.
include_guard(GLOBAL)

set(ASCEND_CANN_PACKAGE_PATH "$ENV{ASCEND_CANN_PACKAGE_PATH}" CACHE PATH
    "CANN install for KILN_ASCEND=cann (e.g. /usr/local/Ascend/ascend-toolkit/latest)")
set(SOC_VERSION "" CACHE STRING "Ascend SoC for KILN_ASCEND=cann (e.g. Ascend910B3, Ascend310P3)")

if(NOT ASCEND_CANN_PACKAGE_PATH)
  message(FATAL_ERROR "KILN_ASCEND=cann needs CANN: pass -DASCEND_CANN_PACKAGE_PATH=<CANN install> "
                      "(e.g. /usr/local/Ascend/ascend-toolkit/latest), or configure with "
                      "-DKILN_ASCEND=emu to build the kernels against Kiln's emulator")
endif()
if(NOT EXISTS "${ASCEND_CANN_PACKAGE_PATH}")
  message(FATAL_ERROR "KILN_ASCEND=cann: ASCEND_CANN_PACKAGE_PATH '${ASCEND_CANN_PACKAGE_PATH}' "
                      "does not exist; point it at the CANN install")
endif()
if(NOT SOC_VERSION)
  message(FATAL_ERROR "KILN_ASCEND=cann needs -DSOC_VERSION=<SoC>, e.g. Ascend910B3 or Ascend310P3 "
                      "(npu-smi info shows the chip)")
endif()

# CANN 8.x keeps ascendc.cmake under compiler/tikcpp (older releases: tools/tikcpp).
set(kiln_ascendc_cmake "")
foreach(candidate compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake
                  tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake)
  if(EXISTS "${ASCEND_CANN_PACKAGE_PATH}/${candidate}")
    set(kiln_ascendc_cmake "${ASCEND_CANN_PACKAGE_PATH}/${candidate}")
    break()
  endif()
endforeach()
if(NOT kiln_ascendc_cmake)
  message(FATAL_ERROR "KILN_ASCEND=cann: no ascendc.cmake under '${ASCEND_CANN_PACKAGE_PATH}' "
                      "(looked in compiler/tikcpp and tools/tikcpp); install the CANN toolkit "
                      "with its Ascend C kernel tools")
endif()
if(NOT DEFINED RUN_MODE)
  set(RUN_MODE npu)
endif()
# CANN's host_config.cmake sets CMAKE_SKIP_RPATH for the directory that includes it (this one,
# kernels/ascend, whose libraries are static and carry no RPATH). The caller's value comes back
# after the include, so no target Kiln or its user defines later here loses its RPATH. Other
# directories never see the change: tests/test_cmake_api.py configures Kiln against a fake CANN
# and checks that its executables keep theirs.
set(kiln_skip_rpath_before "${CMAKE_SKIP_RPATH}")
include("${kiln_ascendc_cmake}")  # rejects an unknown SOC_VERSION itself
set(CMAKE_SKIP_RPATH "${kiln_skip_rpath_before}")

# CANN's platform API (platform_ascendc::PlatformAscendCManager) tells the host wrappers the
# device's core counts and buffer sizes; CANN installs its header with the Ascend C tiling API.
find_path(KILN_CANN_PLATFORM_INCLUDE_DIR tiling/platform/platform_ascendc.h
  PATHS "${ASCEND_CANN_PACKAGE_PATH}/include"
        "${ASCEND_CANN_PACKAGE_PATH}/compiler/ascendc/include/highlevel_api"
        "${ASCEND_CANN_PACKAGE_PATH}/tools/ascendc/include/highlevel_api"
  NO_DEFAULT_PATH)
if(NOT KILN_CANN_PLATFORM_INCLUDE_DIR)
  message(FATAL_ERROR "KILN_ASCEND=cann: no tiling/platform/platform_ascendc.h under "
                      "'${ASCEND_CANN_PACKAGE_PATH}' (looked in include and "
                      "compiler/ascendc/include/highlevel_api); install the CANN toolkit with "
                      "its Ascend C tiling API")
endif()

# The device library: ascendc_library compiles the Ascend C sources with bisheng and generates
# aclrtlaunch_<kernel>.h launch headers for each kernel. It is installed and exported with the
# host wrappers (cmake/KilnInstall.cmake); the launch headers' directory in the build tree, which
# some CANN releases put on its interface, only serves the build (an export may not name it).
function(kiln_cann_device_library name)
  ascendc_library(${name} STATIC ${ARGN})
  # ascendc_library links CANN's host_intf_pub privately, and a static library hands a private
  # dependency's link options on to whatever links it: every executable using the Ascend kernels
  # would be linked with CANN's -s (stripped, in Release), -pie and -z now. Those are CANN's
  # choices for its own host stub, whose objects are already compiled into this library.
  get_target_property(interface_libs ${name} INTERFACE_LINK_LIBRARIES)
  if(interface_libs)
    list(FILTER interface_libs EXCLUDE REGEX "host_intf_pub")
    set_target_properties(${name} PROPERTIES INTERFACE_LINK_LIBRARIES "${interface_libs}")
  endif()
  get_filename_component(repo_root "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  ascendc_include_directories(${name} PRIVATE "${repo_root}")
  get_target_property(interface_dirs ${name} INTERFACE_INCLUDE_DIRECTORIES)
  if(interface_dirs)
    set(kept "")
    foreach(dir IN LISTS interface_dirs)
      string(FIND "${dir}" "${CMAKE_BINARY_DIR}" in_build_tree)
      if(in_build_tree EQUAL 0)
        set(dir "$<BUILD_INTERFACE:${dir}>")
      endif()
      list(APPEND kept "${dir}")
    endforeach()
    set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${kept}")
  endif()
endfunction()

# Host wrappers: the ACL runtime, CANN's platform API, the launch headers, and which kernels exist
# for this SoC.
function(kiln_cann_host_target target)
  target_compile_definitions(${target} PUBLIC KILN_ASCEND_CANN=1)
  if(SOC_VERSION MATCHES "^Ascend910B" OR SOC_VERSION MATCHES "^Ascend910_93")
    target_compile_definitions(${target} PUBLIC KILN_ASCEND_SOC_HAS_BF16=1)
  endif()
  target_include_directories(${target} PRIVATE
    "${ASCEND_CANN_PACKAGE_PATH}/include"
    "${KILN_CANN_PLATFORM_INCLUDE_DIR}"
    "${CMAKE_BINARY_DIR}/include/kiln_ascend_device")
  target_link_directories(${target} PUBLIC "${ASCEND_CANN_PACKAGE_PATH}/lib64")
  target_link_libraries(${target} PUBLIC ascendcl platform)
endfunction()
