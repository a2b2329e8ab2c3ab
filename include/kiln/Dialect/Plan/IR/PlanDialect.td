//===- PlanDialect.td - Launch plans of array programs -----*- tablegen -*-===//

#ifndef KILN_DIALECT_PLAN_IR_PLANDIALECT_TD
#define KILN_DIALECT_PLAN_IR_PLANDIALECT_TD

include "mlir/IR/OpBase.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::kiln::plan";
  let summary = "Launch plans: how an array program runs as tile kernels";
  let description = [{
    kiln-tile turns an array function into tile kernels and a launch plan:
    a function of i64s (the addresses of its input and result buffers,
    then the sizes its dynamic dimensions take) that allocates
    temporaries, launches each kernel over its grid and frees the
    temporaries, in program order. Integer `arith` ops compute sizes and
    grids between them.

    The plan's function carries how to call it, as attributes this dialect
    verifies:

    - `plan.inputs`, `plan.outputs`: the tensor types of the buffers, with
      the sizes the program fixes made static;
    - `plan.sizes` (where a type has `?`): for each `?` of those types,
      inputs first, the index of the size argument it equals.

    The host target lowers plans to calls of its runtime and of the
    kernels' launchers (`kiln-convert-plan-to-host`); on a GPU, Kiln's runtime
    follows them op by op (`lib/Runtime/PlanExecutor.cpp`).
  }];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static llvm::StringRef getInputsAttrName() { return "plan.inputs"; }
    static llvm::StringRef getOutputsAttrName() { return "plan.outputs"; }
    static llvm::StringRef getSizesAttrName() { return "plan.sizes"; }
  }];
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_PLAN_IR_PLANDIALECT_TD
