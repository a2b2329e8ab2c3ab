//===- TileGPUOps.td - Operations of the tilegpu dialect ---*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "kiln/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure]> {
  let summary = "Move a tile from one layout to another";
  let description = [{
    The same tile (shape, element type, values) in another layout; on the
    GPU it moves elements between threads, through shared memory where
    needed.

    ```mlir
    %b = tilegpu.convert_layout %a : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked1>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
