#!/usr/bin/env bash
# Runs on a GPU machine with CUDA, PyTorch and Triton but no LLVM or MLIR:
# unpacks the bundle scripts/gpu-bundle.sh made, runs the GPU tests (the
# example kernels against float64 references through kiln-run, @kiln.jit
# kernels and autotuned ones on PyTorch tensors against PyTorch, the
# driver's device list; flash attention, forward and backward, and
# K-major operands against PyTorch), the tutorials (on the host
# and the GPU), kiln-launch-overhead (launches through the C++ runtime)
# and bench/gpu_suite.py (first of all the corpus of kernels in Triton's
# idiom, timed with Kiln, Triton and PyTorch), and writes to RESULTS_DIR:
# the test report
# (gpu-tests.xml), the tutorials' tables (tutorials.log), the C++ launch
# overhead (launch_overhead.md, launch_overhead.json), the suite's table,
# JSON and roofline plot (gpu_suite.md, gpu_suite.json, roofline.png, the
# plot where matplotlib is installed) and a log (gpu-check.log).
#
#   scripts/gpu-check.sh RESULTS_DIR [BUNDLE.tar.xz]
#
# KILN_GPU_CHECK_SECONDS (default 540) bounds the whole check: each stage
# gets at most its share of what is left, and the suite, last, writes its
# results section by section, so a stopped run keeps what it measured.
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

# Everything Kiln loads comes from the bundle, but for the C++ runtime: the
# machine's own where it has every version the bundle needs (PyTorch, in
# the same process, may need a newer one than the bundle's).
export LD_LIBRARY_PATH=$bundle/lib
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
system_libstdcxx=$("$ldconfig" -p 2>/dev/null |
  awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
while read -r version; do
  if [[ -z $system_libstdcxx ]] || ! grep -qa "$version" "$system_libstdcxx"
  then
    echo "using the bundle's C++ runtime (the machine's lacks $version)"
    LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$bundle/lib/fallback
    break
  fi
done < "$bundle/lib/fallback/needs"
export KILN_LIBRARY_PATH=$bundle/lib/libKilnCAPI.so
export KILN_BUILD_DIR=$bundle
export KILN_LIBDEVICE=$bundle/lib/libdevice.10.bc
export PYTHONPATH=$bundle/python
export PYTHONUNBUFFERED=1

deadline=$((SECONDS + ${KILN_GPU_CHECK_SECONDS:-540}))
# seconds STAGE_LIMIT: the stage's limit, or what is left if that is less.
seconds() {
  local left=$((deadline - SECONDS))
  echo $(( left < $1 ? (left > 1 ? left : 1) : $1 ))
}

run_checks() {
  local status=0
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  nvidia-smi -L 2>&1 || true
  "$bundle/bin/kiln-run" --help > /dev/null && echo "kiln-run starts"
  echo "== GPU tests"
  timeout "$(seconds 200)" python3 -m pytest -q -rs -p no:cacheprovider \
    --junitxml="$results/gpu-tests.xml" \
    "$bundle/python/test/test_example_kernels.py" \
    "$bundle/python/test/test_gpu.py" "$bundle/python/test/test_cuda.py" \
    "$bundle/python/test/test_autotune.py" || status=1
  echo "== Attention, matmul, K-major operands, warp specialization and kiln.fuse on the GPU (against PyTorch)"
  timeout "$(seconds 120)" python3 -m pytest -q -rs -p no:cacheprovider \
    --junitxml="$results/gpu-attention-tests.xml" \
    -k "on_the_gpu or cuda_tensors" \
    "$bundle/python/test/test_k_major_operands.py" \
    "$bundle/python/test/test_ops_attention.py" \
    "$bundle/python/test/test_ops_matmul.py" \
    "$bundle/python/test/test_fuse_on_device.py" \
    "$bundle/python/test/test_warp_specialize.py" || status=1
  echo "== Tutorials"
  (
    failed=0
    for tutorial in "$bundle"/docs/tutorials/[0-9]*.py; do
      echo "-- $(basename "$tutorial")"
      timeout "$(seconds 60)" python3 "$tutorial" || failed=1
    done
    exit $failed
  ) 2>&1 | tee "$results/tutorials.log"
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  echo "== Launch overhead through the C++ runtime"
  if timeout "$(seconds 60)" "$bundle/bin/kiln-launch-overhead" \
       --json="$results/launch_overhead.json" > "$results/launch_overhead.md"
  then
    cat "$results/launch_overhead.md"
  else
    status=1
    rm -f "$results/launch_overhead.md"
  fi
  echo "== GPU suite"
  timeout "$(seconds 100000)" python3 "$bundle/bench/gpu_suite.py" \
    --out "$results" || status=1
  return $status
}
run_checks 2>&1 | tee "$results/gpu-check.log"
exit "${PIPESTATUS[0]}"
