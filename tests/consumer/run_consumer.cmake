# SPDX-License-Identifier: BSL-1.0
# Builds tests/consumer against own, either installed into a scratch prefix (MODE=find_package)
# or pulled in with add_subdirectory, then runs it.
file(REMOVE_RECURSE ${WORK_DIR})
set(consumer_source ${SOURCE_DIR}/tests/consumer)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/own-build -DBUILD_TESTING=OFF
      -DOWN_BUILD_EXAMPLES=OFF -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/own-build)
  run(${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/build -DCMAKE_CXX_COMPILER=${CXX}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${consumer_source} -B ${WORK_DIR}/build -DCMAKE_CXX_COMPILER=${CXX}
      -DOWN_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
