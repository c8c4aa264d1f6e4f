# Installs what find_package(Kiln) gives a user project: the runtime and kernel libraries
# (portable, and Ascend unless KILN_ASCEND=off), their headers, the CMake API and the codegen.
# Everything is install component `development`.
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
set(KILN_INSTALL_HEADERDIR ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
set(KILN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/kiln)

# Exported as Kiln::<name>. The emulator is exported because the Ascend kernels link it; with
# CANN the device library (kernels/ascend, cmake/KilnCann.cmake) takes its place.
set(kiln_exported runtime portable_kernels ascend_kernels ascend_emu ascend_device)
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

install(FILES ${PROJECT_SOURCE_DIR}/functions.yaml DESTINATION ${KILN_INSTALL_DATADIR}
        COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codegen
        DESTINATION ${KILN_INSTALL_DATADIR}/python
        COMPONENT development
        PATTERN "__pycache__" EXCLUDE)
# The installed codegen has no source tree around it: it reads the backend list beside
# codegen/model/backends.py.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/kernel/backends.def
        DESTINATION ${KILN_INSTALL_DATADIR}/python/codegen/model
        COMPONENT development)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/Codegen.cmake ${PROJECT_SOURCE_DIR}/cmake/KilnBackends.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnCompileOptions.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnAten.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR}
        COMPONENT development)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake
  INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR}
  PATH_VARS KILN_INSTALL_DATADIR KILN_INSTALL_HEADERDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR}
        COMPONENT development)
