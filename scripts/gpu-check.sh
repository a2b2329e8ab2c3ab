#!/usr/bin/env bash
# Runs on a GPU machine with CUDA, PyTorch and Triton but no LLVM or MLIR:
# unpacks the bundle scripts/gpu-bundle.sh made, runs the GPU tests (the
# example kernels against float64 references through kiln-run, @kiln.jit
# kernels on PyTorch tensors against PyTorch), bench/gpu_suite.py and
# kiln-launch-overhead (launches through the C++ runtime), and writes to
# RESULTS_DIR: the test report (gpu-tests.xml), the suite's table, JSON and
# roofline plot (gpu_suite.md, gpu_suite.json, roofline.png, the plot
# where matplotlib is installed), the C++ launch overhead
# (launch_overhead.md, launch_overhead.json) and a log (gpu-check.log).
#
#   scripts/gpu-check.sh RESULTS_DIR [BUNDLE.tar.xz]
#
# Run from an unpacked bundle (its scripts/ beside its bin/), it uses that.
set -uo pipefail
results=${1:?usage: gpu-check.sh RESULTS_DIR [BUNDLE.tar.xz]}
mkdir -p "$results"
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ -x $here/bin/kiln-run && -d $here/lib ]]; then
  bundle=$here
else
  tarball=${2:-$here/build/kiln-gpu-bundle.tar.xz}
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  tar -C "$unpacked" -xJf "$tarball" || exit 1
  bundle=$unpacked/kiln-gpu
fi

# Everything Kiln loads comes from the bundle.
export LD_LIBRARY_PATH=$bundle/lib
export KILN_LIBRARY_PATH=$bundle/lib/libKilnCAPI.so
export KILN_BUILD_DIR=$bundle
export KILN_LIBDEVICE=$bundle/lib/libdevice.10.bc
export PYTHONPATH=$bundle/python
export PYTHONUNBUFFERED=1

run_checks() {
  local status=0
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  nvidia-smi -L 2>&1 || true
  "$bundle/bin/kiln-run" --help > /dev/null && echo "kiln-run starts"
  echo "== GPU tests"
  python3 -m pytest -q -rs -p no:cacheprovider \
    --junitxml="$results/gpu-tests.xml" \
    "$bundle/python/test/test_example_kernels.py" \
    "$bundle/python/test/test_gpu.py" || status=1
  echo "== Launch overhead through the C++ runtime"
  if "$bundle/bin/kiln-launch-overhead" \
       --json="$results/launch_overhead.json" > "$results/launch_overhead.md"
  then
    cat "$results/launch_overhead.md"
  else
    status=1
    rm -f "$results/launch_overhead.md"
  fi
  echo "== GPU suite"
  python3 "$bundle/bench/gpu_suite.py" --out "$results" || status=1
  return $status
}
run_checks 2>&1 | tee "$results/gpu-check.log"
exit "${PIPESTATUS[0]}"
