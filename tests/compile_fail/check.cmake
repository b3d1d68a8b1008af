# SPDX-License-Identifier: BSL-1.0
# One compile-fail test: compiles SOURCE (with CXX, own's include directory INCLUDE_DIR and
# -std=c++STANDARD, 17 if empty) and passes if the compiler refuses it with the expected message, in at most two
# error lines (the message, and a fatal stop or one consequence of it): the point of these messages
# is to replace pages of errors. SOURCE declares what it expects in comment lines:
#   // compile-fail expects: <text that must appear in the compiler's output>
#   // compile-fail flags: <extra flags, after -std=..., so they may override it>
file(STRINGS ${SOURCE} expects REGEX "^// compile-fail expects: ")
file(STRINGS ${SOURCE} flags REGEX "^// compile-fail flags: ")
list(TRANSFORM expects REPLACE "^// compile-fail expects: " "")
list(TRANSFORM flags REPLACE "^// compile-fail flags: " "")
separate_arguments(flags UNIX_COMMAND "${flags}")
if(NOT STANDARD)
  set(STANDARD 17)
endif()
if(NOT expects)
  message(FATAL_ERROR "${SOURCE} declares no '// compile-fail expects:' line")
endif()

execute_process(COMMAND ${CXX} -std=c++${STANDARD} ${flags} -fsyntax-only -I ${INCLUDE_DIR} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled; it must not")
endif()
foreach(text IN LISTS expects)
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "The compiler's output lacks \"${text}\":\n${out}")
  endif()
endforeach()
string(REGEX MATCHALL ": (fatal )?error: " errors "${out}")
list(LENGTH errors error_count)
if(error_count GREATER 2)
  message(FATAL_ERROR "${error_count} errors, where one message should be all:\n${out}")
endif()
