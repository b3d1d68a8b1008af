#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Installs the Debian packages own's tests and benchmarks need, only those that are missing.
# Usage: scripts/bootstrap.sh [test|bench]   (default: test)
set -euo pipefail
what=${1:-test}
packages=(cmake ninja-build g++ clang-14 libclang-rt-14-dev googletest libgtest-dev libgmock-dev valgrind pkg-config
          clang-16 libc++-16-dev libc++abi-16-dev gdb lldb-16 python3 doxygen)
if [ "$what" = bench ]; then
  packages+=(libbenchmark-dev libboost-dev libgoogle-perftools-dev libjemalloc-dev libmimalloc-dev
             python3 python3-matplotlib)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
