#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Kiln and runs its main job as far
# as it exists: each example kernel of docs/examples is parsed, verified and
# simplified by kiln-opt, with the IR printed after every stage; one is
# compiled to PTX for sm_90a (and assembled by ptxas where it is found);
# a whole-tensor layer norm is fused into one kernel (cost report before
# and after) and run; then all run on random data against numpy, on the GPU
# where there is one and on the host target otherwise.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
kiln_setup

kiln_opt=$KILN_BUILD_DIR/bin/kiln-opt
for example in "$KILN_ROOT"/docs/examples/*.mlir; do
  kiln_log "Example $(basename "$example")"
  echo "// -----// Parsed and verified //----- //"
  "$kiln_opt" "$example"
  "$kiln_opt" "$example" -o /dev/null --mlir-print-ir-after-all \
    --pass-pipeline='builtin.module(func.func(canonicalize,cse))' 2>&1
done

kiln_log "softmax for the GPU: layouts, per-thread code, PTX for sm_90a"
# Specialized as a launch on aligned arrays with 1024 columns would be.
"$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
    -tile-specialize-arguments="divisible=0,1,2,3" -tile-assign-layouts |
  "$kiln_opt" -kiln-convert-tile-to-gpu |
  sed -n '/gpu.func/,/gpu.return/p' | sed -n '1,40p'  # reads it all: no SIGPIPE
echo "    ..."
"$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
    -tile-specialize-arguments="divisible=0,1,2,3" |
  "$KILN_BUILD_DIR/bin/kiln-translate" --chip=sm_90a -o "$KILN_BUILD_DIR/softmax.ptx"
grep -E '^\.(version|target)|\.entry|ld\.global|st\.global|shfl|bar\.sync' \
  "$KILN_BUILD_DIR/softmax.ptx"
if "$KILN_BUILD_DIR/bin/kiln-translate" --chip=sm_90a --emit=cubin \
     --ptxas-verbose -o "$KILN_BUILD_DIR/softmax.cubin" \
     < <("$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
           -tile-specialize-arguments="divisible=0,1,2,3") 2>&1; then
  echo "(ptxas assembled it: $KILN_BUILD_DIR/softmax.cubin)"
fi

kiln_log "A whole-tensor layer norm: 7 kernels before fusion, 1 after"
"$KILN_BUILD_DIR/bin/kiln-run" "$KILN_ROOT/docs/examples/layer_norm_array.mlir" \
  --kernel=layer_norm --init=rand --report

kiln_log "Matmul, bias and GELU: 4 kernels before fusion, 1 after (tile.dot on 64x64 blocks)"
"$KILN_BUILD_DIR/bin/kiln-run" "$KILN_ROOT/docs/examples/matmul_bias_gelu_array.mlir" \
  --kernel=mlp --init=rand --report

kiln_log "Running the examples on random data, checked against numpy"
PYTHONPATH=$KILN_ROOT/python KILN_BUILD_DIR=$KILN_BUILD_DIR \
  python3 "$KILN_ROOT/scripts/lib/run_examples.py"
