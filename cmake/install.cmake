# SPDX-License-Identifier: BSL-1.0
include(CMakePackageConfigHelpers)

install(TARGETS own EXPORT own-targets)
install(DIRECTORY include/own DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT own-targets NAMESPACE own:: DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)

configure_package_config_file(cmake/own-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/own-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/own-config-version.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/own-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/own-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)
