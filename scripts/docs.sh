#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Generates own's API reference from the /// comments of include/own/*.hpp (docs/Doxyfile) into
# build/docs/html/index.html, and fails if doxygen warns: an undocumented public declaration (all
# but own::detail) or a malformed comment. CI runs it as scripts/test.sh's docs stage.
# Usage: scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v doxygen >/dev/null || { echo "docs: doxygen is missing (bash scripts/bootstrap.sh installs it)" >&2; exit 1; }
version=$(sed -n 's/^#define OWN_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/own/version.hpp | paste -sd.)
rm -rf build/docs
mkdir -p build/docs
{ cat docs/Doxyfile; echo "PROJECT_NUMBER = $version"; } | doxygen -
# Doxygen 1.9 cannot place a specialisation declared as `struct std::hash<own::...>` (a qualified
# name, at global scope) and says so for each, whatever is documented: not a fault of the headers.
warnings=$(grep -v 'Internal inconsistency: scope for class std::' build/docs/warnings.log || true)
if [ -n "$warnings" ]; then
  echo "$warnings"
  echo "docs: $(wc -l <<<"$warnings") doxygen warnings (above); every public declaration needs a /// comment" >&2
  exit 1
fi
echo "docs: build/docs/html/index.html (own $version)"
