# Installs what find_package(Kiln) gives a user project: the runtime and kernel libraries
# (portable, and Ascend unless KILN_ASCEND=off), their headers, the CMake API, the codegen, and the
# portable kernel sources that an operator library built from a selection compiles. Everything is install component
# `development`; the wheel (pyproject.toml) installs it inside the kiln Python package, under
# kiln/{lib,include,share}, where kiln.cmake_prefix_path points.
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
set(KILN_INSTALL_HEADERDIR ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
set(KILN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/kiln)
set(KILN_INSTALL_PORTABLE_DIR ${KILN_INSTALL_DATADIR}/kernels/portable)

# Exported as Kiln::<name>. The emulator is exported because the Ascend kernels link it; with
# CANN the device library (kernels/ascend, cmake/KilnCann.cmake) takes its place.
# ATen mode's portable_kernels links aten_kernels (kernels/aten), so that is exported too.
set(kiln_exported runtime threads executor mindspore_aot portable_kernels aten_kernels ascend_kernels
                  ascend_emu ascend_device)
set(kiln_install_targets "")
foreach(name IN LISTS kiln_exported)
  if(TARGET kiln_${name})
    set_target_properties(kiln_${name} PROPERTIES EXPORT_NAME ${name})
    list(APPEND kiln_install_targets kiln_${name})
  endif()
endforeach()
install(TARGETS ${kiln_install_targets}
        EXPORT KilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR}
        COMPONENT development)

# Headers keep their source-tree paths under include/kiln, the include directory of Kiln::runtime:
# "runtime/core/tensor.h", "kernels/portable/cpu/util/...", "kernels/ascend/common/...".
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime
        DESTINATION ${KILN_INSTALL_HEADERDIR}
        COMPONENT development
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
if(NOT KILN_ATEN_MODE)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/portable/cpu
          DESTINATION ${KILN_INSTALL_HEADERDIR}/kernels/portable
          COMPONENT development
          FILES_MATCHING PATTERN "*.h")
endif()
if(KILN_ASCEND STREQUAL "emu")
  # The kernels' own headers and the emulator's API (kernel_operator.h, emulator.h), for kernels
  # written against Kiln::ascend_emu.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/ascend
          DESTINATION ${KILN_INSTALL_HEADERDIR}/kernels
          COMPONENT development
          FILES_MATCHING PATTERN "*.h")
elseif(KILN_ASCEND STREQUAL "cann")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/ascend
          DESTINATION ${KILN_INSTALL_HEADERDIR}/kernels
          COMPONENT development
          FILES_MATCHING PATTERN "*.h"
          PATTERN "emu" EXCLUDE)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/functions.yaml ${PROJECT_SOURCE_DIR}/custom_ops.yaml
        DESTINATION ${KILN_INSTALL_DATADIR}
        COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runner DESTINATION ${KILN_INSTALL_DATADIR}
        COMPONENT development)
# The codegen is kiln.codegen: kiln/__init__.py (which imports nothing until asked) comes along, so
# that this kiln/, first on the codegen's PYTHONPATH, is the one imported even beside another
# installed kiln.
install(FILES ${PROJECT_SOURCE_DIR}/python/kiln/__init__.py
        DESTINATION ${KILN_INSTALL_DATADIR}/python/kiln
        COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/kiln/codegen
        DESTINATION ${KILN_INSTALL_DATADIR}/python/kiln
        COMPONENT development
        PATTERN "__pycache__" EXCLUDE)
# The installed codegen has no source tree around it: it reads the backend list beside
# kiln/codegen/model/backends.py.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/kernel/backends.def
        DESTINATION ${KILN_INSTALL_DATADIR}/python/kiln/codegen/model
        COMPONENT development)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/Codegen.cmake ${PROJECT_SOURCE_DIR}/cmake/KilnBackends.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnCompileOptions.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnAten.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnThreads.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR}
        COMPONENT development)

# Selective builds: the portable kernel sources under share/kiln/kernels/portable, and
# KilnPortableKernels.cmake, which sets the global properties kernels/portable/CMakeLists.txt sets
# in the source tree (sources, per-source compile options, definitions) for the installed copies.
if(NOT KILN_ATEN_MODE)
  get_property(kiln_portable_dir GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DIR)
  get_property(kiln_portable_sources GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES)
  get_property(kiln_portable_definitions GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DEFINITIONS)
  set(kiln_installed_sources "")
  set(kiln_source_options "")
  foreach(source IN LISTS kiln_portable_sources)
    file(RELATIVE_PATH relative "${kiln_portable_dir}" "${source}")
    get_filename_component(relative_dir "${relative}" DIRECTORY)
    install(FILES "${source}" DESTINATION ${KILN_INSTALL_PORTABLE_DIR}/${relative_dir}
            COMPONENT development)
    string(APPEND kiln_installed_sources "  \"\${KILN_PORTABLE_KERNEL_DIR}/${relative}\"\n")
    get_property(options GLOBAL PROPERTY "KILN_PORTABLE_KERNEL_OPTIONS_${source}")
    if(options)
      string(APPEND kiln_source_options
             "set_property(GLOBAL PROPERTY \"KILN_PORTABLE_KERNEL_OPTIONS_\${KILN_PORTABLE_KERNEL_DIR}"
             "/${relative}\" [==[${options}]==])\n")
    endif()
  endforeach()
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/KilnPortableKernels.cmake CONTENT
"# Generated by Kiln's cmake/KilnInstall.cmake: the portable kernel sources an operator library
# built from a selection compiles, installed under KILN_PORTABLE_KERNEL_DIR, and the directory of
# the headers they include (both set by KilnConfig.cmake).
set_property(GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DIR \"\${KILN_PORTABLE_KERNEL_DIR}\")
set_property(GLOBAL PROPERTY KILN_PORTABLE_KERNEL_INCLUDE_DIR \"\${KILN_PORTABLE_KERNEL_INCLUDE_DIR}\")
set_property(GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES
@kiln_installed_sources@)
set_property(GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DEFINITIONS [==[@kiln_portable_definitions@]==])
@kiln_source_options@" @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/KilnPortableKernels.cmake DESTINATION ${KILN_INSTALL_CMAKEDIR}
          COMPONENT development)
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake
  INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR}
  PATH_VARS KILN_INSTALL_DATADIR KILN_INSTALL_HEADERDIR KILN_INSTALL_PORTABLE_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR}
        COMPONENT development)
