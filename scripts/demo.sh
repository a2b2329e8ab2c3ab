#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Kiln and runs its main job:
# each example kernel of docs/examples is parsed, verified and simplified
# by kiln-opt (the IR after every stage kept in build/demo/, one line
# printed per example); one is compiled to PTX for sm_90a (an excerpt
# printed, assembled by ptxas where it is found); whole-tensor programs are
# fused into one kernel each (cost report before and after) and run; then
# every example runs on random data against numpy, on the GPU where there
# is one (with its rate and PyTorch's eager time beside it) and on the host
# target otherwise.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
kiln_setup

kiln_opt=$KILN_BUILD_DIR/bin/kiln-opt
demo=$KILN_BUILD_DIR/demo
mkdir -p "$demo"
kiln_log "A kernel in tile IR (docs/examples/vector_add.mlir)"
grep -v '^//' "$KILN_ROOT/docs/examples/vector_add.mlir" | sed '/^$/d'

kiln_log "The examples, parsed, verified and simplified (IR in $demo)"
for example in "$KILN_ROOT"/docs/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  "$kiln_opt" "$example" -o "$demo/$name.mlir"
  "$kiln_opt" "$example" -o /dev/null --mlir-print-ir-after-all \
    --pass-pipeline='builtin.module(func.func(canonicalize,cse))' \
    2> "$demo/$name.stages.mlir"
  printf '%-28s %s\n' "$name.mlir" "$(grep -o 'func.func @[a-z_0-9]*' \
    "$demo/$name.mlir" | sed 's/func.func //' | paste -sd' ')"
done

kiln_log "softmax for the GPU: PTX for sm_90a (per-thread code in $demo/softmax.gpu.mlir)"
# Specialized as a launch on aligned arrays with 1024 columns would be.
"$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
    -tile-specialize-arguments="divisible=0,1,2,3" -tile-assign-layouts |
  "$kiln_opt" -kiln-convert-tile-to-gpu -o "$demo/softmax.gpu.mlir"
"$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
    -tile-specialize-arguments="divisible=0,1,2,3" |
  "$KILN_BUILD_DIR/bin/kiln-translate" --chip=sm_90a -o "$demo/softmax.ptx"
grep -E '^\.(version|target)|\.entry|ld\.global|st\.global|shfl|bar\.sync' \
  "$demo/softmax.ptx" |
  awk '{ op = $1 ~ /^@/ ? $2 : $1 } !seen[op]++'  # one line per instruction
if "$KILN_BUILD_DIR/bin/kiln-translate" --chip=sm_90a --emit=cubin \
     --ptxas-verbose -o "$demo/softmax.cubin" \
     < <("$kiln_opt" "$KILN_ROOT/docs/examples/softmax.mlir" \
           -tile-specialize-arguments="divisible=0,1,2,3") 2> "$demo/softmax.ptxas.log"; then
  echo "ptxas: $(grep -o 'Used [0-9]* registers.*' "$demo/softmax.ptxas.log")"
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
