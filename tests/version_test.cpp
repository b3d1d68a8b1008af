// SPDX-License-Identifier: BSL-1.0
// Tests of <own/version.hpp>: the macros agree with the version CMake's project() declares (passed
// in by tests/CMakeLists.txt as OWN_PROJECT_VERSION_*), so that a release bumps both or fails here.
#include <own/version.hpp>

#include <gtest/gtest.h>

namespace {

TEST(version, agrees_with_cmake_project_version) {
  EXPECT_EQ(OWN_VERSION_MAJOR, OWN_PROJECT_VERSION_MAJOR);
  EXPECT_EQ(OWN_VERSION_MINOR, OWN_PROJECT_VERSION_MINOR);
  EXPECT_EQ(OWN_VERSION_PATCH, OWN_PROJECT_VERSION_PATCH);
}

// OWN_VERSION orders versions only while minor and patch fit in two digits.
TEST(version, single_integer_orders_versions) {
  EXPECT_LT(OWN_VERSION_MINOR, 100);
  EXPECT_LT(OWN_VERSION_PATCH, 100);
}

// Checked by the preprocessor, where users compare it.
#if OWN_VERSION != OWN_VERSION_MAJOR * 10000 + OWN_VERSION_MINOR * 100 + OWN_VERSION_PATCH
#error "OWN_VERSION is not major * 10000 + minor * 100 + patch in #if"
#endif

}  // namespace
