# SPDX-License-Identifier: BSL-1.0
# Builds tests/consumer against own, either installed into a scratch prefix (MODE=find_package)
# or pulled in with add_subdirectory, then runs it. Installed, own is configured, built and installed
# with the README's three commands on a machine without GoogleTest (simulated: its tests must be left
# out, not fail the configure); then find_package(own major.minor) must work and a request for the
# next major version be refused (VERSION: own's, major.minor.patch), and main.cpp must build from
# `pkg-config --cflags --libs own` alone.
file(REMOVE_RECURSE ${WORK_DIR})
set(consumer_source ${SOURCE_DIR}/tests/consumer)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

if(MODE STREQUAL "find_package")
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" major_minor ${VERSION})
  math(EXPR next_major "${CMAKE_MATCH_1} + 1")
  set(prefix ${WORK_DIR}/prefix)
  # The README's three commands, with no options, on a machine without GoogleTest (simulated).
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/own-build -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
      -DCMAKE_CXX_COMPILER=${CXX})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/own-build)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/own-build --prefix ${prefix})

  execute_process(COMMAND ${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/wrong-major
                    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DOWN_REQUESTED_VERSION=${next_major}.0
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  # The installed package must be the one found and refused, not merely absent.
  if(rc EQUAL 0 OR NOT out MATCHES "not accepted:.*own-config.cmake, version: ${VERSION}")
    message(FATAL_ERROR "find_package(own ${next_major}.0) was not refused for own ${VERSION} (${rc}):\n${out}")
  endif()

  find_program(pkg_config pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/share/pkgconfig)
  execute_process(COMMAND ${pkg_config} --modversion own OUTPUT_VARIABLE pc_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion own gave '${pc_version}', not ${VERSION}")
  endif()
  execute_process(COMMAND ${pkg_config} --cflags --libs own OUTPUT_VARIABLE pc_flags COMMAND_ERROR_IS_FATAL ANY)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config)
  run(${CXX} -std=c++17 ${consumer_source}/main.cpp ${pc_flags} -o ${WORK_DIR}/pkg-config/consumer)
  run(${WORK_DIR}/pkg-config/consumer)

  run(${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/build -DCMAKE_CXX_COMPILER=${CXX}
      -DCMAKE_PREFIX_PATH=${prefix} -DOWN_REQUESTED_VERSION=${major_minor})
else()
  run(${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/build -DCMAKE_CXX_COMPILER=${CXX}
      -DOWN_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
