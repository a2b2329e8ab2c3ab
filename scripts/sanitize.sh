#!/usr/bin/env bash
# Builds Kiln with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer
# on) in build-sanitize/ and runs the lit suite, the C++ unit tests and the
# Python tests under them. Any report fails the run. Takes a few minutes.
set -euo pipefail
KILN_BUILD_DIR=${KILN_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build-sanitize}
source "$(dirname "$0")/lib/setup.sh"
kiln_install_apt_packages
kiln_install_python_packages

# MLIR and LLVM are built without instrumentation, but their headers poison
# and unpoison allocator memory when included in our instrumented code; with
# half the code doing that, the manual poisoning misfires
# (allow_user_poisoning=0 turns it off), and so would container-overflow
# checks on vectors shared with their code. The build runs instrumented
# tools too (kiln-translate makes the PTX of the launch-overhead bench).
export ASAN_OPTIONS=allow_user_poisoning=0:detect_container_overflow=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

kiln_log "Configuring and building the sanitized Kiln in $KILN_BUILD_DIR"
cmake -S "$KILN_ROOT" -B "$KILN_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKILN_ENABLE_WERROR=ON -DKILN_ENABLE_SANITIZERS=ON \
  -DKILN_UNITY_BUILD="${KILN_UNITY_BUILD:-ON}" > /dev/null
cmake --build "$KILN_BUILD_DIR" ${KILN_JOBS:+-j "$KILN_JOBS"}
status=0

kiln_log "lit suite under the sanitizers"
"$KILN_LLVM_BIN/lit" -sv "$KILN_BUILD_DIR/test" || status=1

kiln_log "C++ unit tests under the sanitizers"
ctest --test-dir "$KILN_BUILD_DIR" --output-on-failure || status=1

# Python itself is not instrumented: the runtime is preloaded, and leaks are
# not checked there (the interpreter keeps memory to its exit by design).
# Under the sanitizers, pytest runs the suites that reach Kiln's C++ by the
# most distinct paths: broken input (kiln-opt's mutations, the front end's
# fuzzer and hostile kernels, host memory checks, the cache fuzzer), the
# runtime through the C API against the stand-in driver (CUDA, several
# GPUs, launch keys, kiln.fuse on device), compiles for the GPU and the
# host and their caches, and the array level (kiln.fuse, array programs).
# The other suites take the same paths with more kernels; scripts/test.sh
# runs every suite unsanitized. This keeps the whole CI run in its time.
sanitized_tests=(
  test/robustness
  python/test/test_frontend_fuzz.py python/test/test_hostile_kernels.py
  python/test/test_host_memory_safety.py python/test/test_cache_fuzz.py
  python/test/test_cuda.py python/test/test_multi_gpu.py
  python/test/test_launch_keys.py python/test/test_fuse_on_device.py
  python/test/test_gpu.py python/test/test_jit.py
  python/test/test_host_target.py python/test/test_host_disk_cache.py
  python/test/test_source_keyed_cache.py python/test/test_error_messages.py
  python/test/test_fuse.py python/test/test_array_programs.py
)
kiln_log "pytest with the sanitized C API"
(cd "$KILN_ROOT" && KILN_BUILD_DIR="$KILN_BUILD_DIR" \
  LD_PRELOAD="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 \
  python3 -m pytest -q -n "${KILN_TEST_WORKERS:-2}" --durations=15 \
    "${sanitized_tests[@]}") || status=1

if ((status == 0)); then
  echo "sanitizers: clean"
else
  echo "sanitizers: FAILED"
fi
exit $status
