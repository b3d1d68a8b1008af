// SPDX-License-Identifier: BSL-1.0
/// @file
/// own's version, for code that must tell releases apart at compile time. The numbers are those of
/// project() in CMakeLists.txt (a test checks that the two agree). Plain macros, so this header
/// compiles in any language mode and in #if.
///
/// Usage:
///
///     #include <own/version.hpp>
///     #if OWN_VERSION >= 100  // 0.1.0 or later
///     ...
///     #endif
#pragma once

/// The major version: incompatible changes raise it (CHANGELOG.md).
#define OWN_VERSION_MAJOR 0
/// The minor version.
#define OWN_VERSION_MINOR 1
/// The patch version.
#define OWN_VERSION_PATCH 0
/// One integer that orders versions: major * 10000 + minor * 100 + patch (0.1.0 is 100, 1.2.3 is
/// 10203). Minor and patch stay below 100.
#define OWN_VERSION (OWN_VERSION_MAJOR * 10000 + OWN_VERSION_MINOR * 100 + OWN_VERSION_PATCH)
