#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Kiln and runs its main job as far
# as it exists: each example kernel of docs/examples is parsed, verified and
# simplified by kiln-opt, with the IR printed after every stage, then
# compiled for the host target and run on random data against numpy.
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

kiln_log "Running the examples on random data, checked against numpy"
PYTHONPATH=$KILN_ROOT/python KILN_BUILD_DIR=$KILN_BUILD_DIR \
  python3 "$KILN_ROOT/scripts/lib/run_examples.py"
