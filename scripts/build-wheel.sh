#!/usr/bin/env bash
# Builds a self-contained wheel of the Python package into OUT (default
# dist/): `pip wheel` builds the C API library with CMake, then
# `auditwheel repair` copies the shared libraries it loads (libLLVM and
# its dependencies) into the wheel, points the library's RPATH at them and
# tags the wheel manylinux for the glibc of this machine. The result
# installs with `pip install` where no LLVM is.
#
# The CMake build is kept in $KILN_BUILD_DIR/wheel, so a second run only
# rebuilds what changed. Prints the wheel's path last.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
kiln_install_apt_packages
kiln_install_python_packages

out=${1:-$KILN_ROOT/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

kiln_log "Building the wheel (CMake build in $KILN_BUILD_DIR/wheel)"
# A one-off build: unity, as the other scripts build (README).
SKBUILD_BUILD_DIR="$KILN_BUILD_DIR/wheel" \
  SKBUILD_CMAKE_DEFINE="KILN_UNITY_BUILD=${KILN_UNITY_BUILD:-ON}" \
  python3 -m pip wheel --no-deps --no-build-isolation -q -w "$raw" "$KILN_ROOT"

glibc=$(python3 -c 'import platform; print(platform.libc_ver()[1])')
plat="manylinux_${glibc/./_}_$(uname -m)"
kiln_log "Bundling its shared libraries (auditwheel, $plat)"
rm -f "$out"/kiln-*.whl
python3 -m auditwheel repair --plat "$plat" -w "$out" "$raw"/kiln-*.whl
ls "$out"/kiln-*.whl
