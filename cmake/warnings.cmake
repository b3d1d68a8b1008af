# SPDX-License-Identifier: BSL-1.0
# Project-internal targets (tests, examples, benchmarks) link this for warnings and checked mode.
add_library(own_build_flags INTERFACE)
target_compile_options(own_build_flags INTERFACE -Wall -Wextra -Wpedantic
  $<$<BOOL:${OWN_WERROR}>:-Werror>)
if(OWN_CHECKED)
  target_compile_definitions(own_build_flags INTERFACE OWN_CHECKED=1)
endif()
