# SPDX-License-Identifier: BSL-1.0
include(CMakePackageConfigHelpers)

install(TARGETS own EXPORT own-targets)
install(DIRECTORY include/own DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT own-targets NAMESPACE own:: DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/own)
# The gdb printers, for `source` from ~/.gdbinit (<own/gdb_printers.hpp> embeds the same script).
install(FILES gdb/own_printers.py DESTINATION ${CMAKE_INSTALL_DATADIR}/own/gdb)
# The LLDB formatters, for `command script import` from ~/.lldbinit.
install(FILES lldb/own_formatters.py DESTINATION ${CMAKE_INSTALL_DATADIR}/own/lldb)

configure_package_config_file(cmake/own-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/own-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)
# find_package(own 0.1) accepts any 0.x at or above 0.1 and refuses another major version: a new
# major is where incompatible changes go (CHANGELOG.md). Header-only, so one package serves any
# architecture.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/own-config-version.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/own-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/own-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/own)

# pkg-config's file, in the architecture-independent directory (nothing in it depends on the
# architecture). Threads::Threads becomes -pthread.
file(RELATIVE_PATH own_pc_to_prefix ${CMAKE_INSTALL_FULL_DATADIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" own_pc_to_prefix "${own_pc_to_prefix}")
configure_file(cmake/own.pc.in ${CMAKE_CURRENT_BINARY_DIR}/own.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/own.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)
