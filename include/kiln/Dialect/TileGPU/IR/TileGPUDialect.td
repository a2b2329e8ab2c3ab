//===- TileGPUDialect.td - GPU-level additions to tile IR --*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::kiln::tilegpu";
  let summary = "How tiles are spread over the threads of a GPU program";
  let description = [{
    Layouts, as encodings of tile tensor types, say which thread holds which
    element; the GPU passes add them to tile IR and the lowering to NVVM
    reads them. `tilegpu.convert_layout` moves a tile between layouts.
    The layout functions themselves live in `kiln/Layout`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
