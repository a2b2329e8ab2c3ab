//===- PlanDialect.h - Launch plans of array programs -----------*- C++ -*-===//

#ifndef KILN_DIALECT_PLAN_IR_PLANDIALECT_H
#define KILN_DIALECT_PLAN_IR_PLANDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "kiln/Dialect/Plan/IR/PlanDialect.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Plan/IR/PlanOps.h.inc"

namespace kiln::plan {

/// Whether `func` is a launch plan (it says how to call it).
bool isPlan(mlir::func::FuncOp func);

} // namespace kiln::plan

#endif // KILN_DIALECT_PLAN_IR_PLANDIALECT_H
