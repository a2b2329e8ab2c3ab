#!/usr/bin/env bash
# Packs what the GPU check needs into one compressed tarball, for a GPU
# machine that has CUDA, PyTorch and Triton but no LLVM, MLIR or network:
# kiln-run, kiln-launch-overhead, libKilnCAPI.so and the launch extension
# _launch.abi3.so (stripped), every
# shared library they load but the C library's own (libLLVM.so among
# them), libdevice, the Python package, the example kernels, the
# tutorials, the GPU tests
# and the GPU suite (bench/gpu_suite.py, suite_kernels.py, roofline.py,
# fuse_programs.py, matmul_shapes.py,
# triton_peer.py, and the corpus it times: bench/corpus).
# Under 55 MiB, to travel within a device call's 64 MiB. matplotlib, which
# draws the roofline plot, stays out: it is built for one Python version
# and would add some 16 MiB; where the GPU machine lacks it, the suite
# says so and bench/roofline.py draws the plot from the JSON afterwards.
#
#   scripts/gpu-bundle.sh [OUT.tar.xz]     (default: build/kiln-gpu-bundle.tar.xz)
#
# Needs a built tree ($KILN_BUILD_DIR, default build/). On the GPU machine:
#   scripts/gpu-check.sh RESULTS_DIR [BUNDLE.tar.xz]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
out=${1:-$build/kiln-gpu-bundle.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
bundle=$stage/kiln-gpu
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/python/test" "$bundle/docs" \
         "$bundle/bench" "$bundle/scripts"

tools=("$build/bin/kiln-run" "$build/bin/kiln-launch-overhead")
for tool in "${tools[@]}"; do
  strip -o "$bundle/bin/$(basename "$tool")" "$tool"
done
capi=$(readlink -f "$build/lib/libKilnCAPI.so")
strip -o "$bundle/lib/libKilnCAPI.so" "$capi"
# The launch extension (@kiln.jit's cache hits in C), beside the library,
# where the package looks for it; it needs only the C library.
strip -o "$bundle/lib/_launch.abi3.so" "$build/lib/_launch.abi3.so"

# The libraries they load, except the C library's, which the GPU machine's
# own must provide (a second one could not share a process with it). The
# C++ runtime goes to lib/fallback: gpu-check.sh uses it only where the
# machine's own is older, since PyTorch in the same process may need a
# newer one than this machine's.
mkdir -p "$bundle/lib/fallback"
ldd "${tools[@]}" "$capi" | awk '/=> \//{print $3}' | sort -u |
  while read -r library; do
    case $(basename "$library") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
      libstdc++.so*|libgcc_s.so*) cp -L "$library" "$bundle/lib/fallback/" ;;
      *) cp -L "$library" "$bundle/lib/" ;;
    esac
  done
strip --strip-unneeded "$bundle"/lib/*.so* "$bundle"/lib/fallback/*.so* \
  2>/dev/null || true
# The newest C++ runtime versions the bundle's libraries ask for, which
# gpu-check.sh looks for in the machine's own libstdc++.
objdump -T "$bundle"/bin/* "$bundle"/lib/*.so* |
  grep -o 'GLIBCXX_[0-9.]*\|CXXABI_[0-9.]*' | sort -uV |
  awk -F_ '{newest[$1] = $0} END {for (n in newest) print newest[n]}' \
  > "$bundle/lib/fallback/needs"

# libdevice, for the math functions of kernels compiled there.
cp "$(python3 - <<'PY'
import os
for base in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
    path = os.path.join(base, "nvvm", "libdevice", "libdevice.10.bc")
    if base and os.path.exists(path):
        print(path)
        break
PY
)" "$bundle/lib/"

cp -r "$root/python/kiln" "$bundle/python/"
# The GPU tests and the modules they take helpers from
# (test_kernel_semantics.py, test_jit.py, attention_reference.py,
# test_compiler_remarks.py).
cp "$root/python/test/conftest.py" "$root/python/test/test_example_kernels.py" \
   "$root/python/test/test_gpu.py" "$root/python/test/test_kernel_semantics.py" \
   "$root/python/test/test_autotune.py" "$root/python/test/test_cuda.py" \
   "$root/python/test/test_jit.py" "$root/python/test/test_k_major_operands.py" \
   "$root/python/test/test_ops_attention.py" \
   "$root/python/test/test_ops_matmul.py" \
   "$root/python/test/test_fuse_on_device.py" \
   "$root/python/test/test_warp_specialize.py" \
   "$root/python/test/test_compiler_remarks.py" \
   "$root/python/test/attention_reference.py" "$bundle/python/test/"
cp -r "$root/docs/examples" "$root/docs/tutorials" "$bundle/docs/"
mkdir -p "$bundle/test/tools/kiln-run"
cp "$root/test/tools/kiln-run/array.mlir" "$root/test/tools/kiln-run/array-gpu.mlir" \
   "$root/test/tools/kiln-run/array-dynamic.mlir" \
   "$bundle/test/tools/kiln-run/"
cp "$root/bench/gpu_suite.py" "$root/bench/suite_kernels.py" \
   "$root/bench/fuse_programs.py" "$root/bench/matmul_shapes.py" \
   "$root/bench/roofline.py" "$root/bench/triton_peer.py" "$bundle/bench/"
mkdir -p "$bundle/bench/corpus"
cp "$root"/bench/corpus/*.py "$bundle/bench/corpus/"
cp "$root/scripts/gpu-check.sh" "$bundle/scripts/"
find "$bundle" -name __pycache__ -prune -exec rm -rf {} +

tar -C "$stage" -cf - kiln-gpu | xz -T0 -9 > "$out"
echo "$out: $(du -h "$out" | cut -f1) ($(du -sh "$bundle" | cut -f1) unpacked)"
