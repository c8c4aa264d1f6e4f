# Installs the runtime, kernel libraries, headers, CMake API and codegen for find_package(Kiln).
include(CMakePackageConfigHelpers)

set_target_properties(kiln_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(kiln_portable_kernels PROPERTIES EXPORT_NAME portable_kernels)
install(TARGETS kiln_runtime kiln_portable_kernels
        EXPORT KilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(KILN_INSTALL_HEADERDIR ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime
        DESTINATION ${KILN_INSTALL_HEADERDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

set(KILN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/kiln)
install(FILES ${PROJECT_SOURCE_DIR}/functions.yaml DESTINATION ${KILN_INSTALL_DATADIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codegen
        DESTINATION ${KILN_INSTALL_DATADIR}/python
        PATTERN "__pycache__" EXCLUDE)
# The installed codegen has no source tree around it: it reads the backend list beside
# codegen/model/backends.py.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/kernel/backends.def
        DESTINATION ${KILN_INSTALL_DATADIR}/python/codegen/model)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/Codegen.cmake ${PROJECT_SOURCE_DIR}/cmake/KilnBackends.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnCompileOptions.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KilnAten.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln
  PATH_VARS KILN_INSTALL_DATADIR KILN_INSTALL_HEADERDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)
