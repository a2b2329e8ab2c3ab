//===- PlanToHost.cpp - Launch plans as host code -------------------------===//
//
// On the host target a launch plan is compiled with its kernels: each
// plan.alloc and plan.free calls the host runtime's allocator, each
// plan.launch the kernel's launcher (which kiln-convert-tile-to-host
// defines) over programs [0, programs) of a grid of that many along x.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "kiln/Conversion/TileToHost/RuntimeInterface.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTPLANTOHOSTPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct ConvertPlanToHostPass
    : kiln::impl::ConvertPlanToHostPassBase<ConvertPlanToHostPass> {
  void runOnOperation() override;
};
} // namespace

/// The function `name` of `type`, declared in `module` if it is not there.
static func::FuncOp declare(ModuleOp module, SymbolTable &symbols,
                            StringRef name, FunctionType type) {
  if (auto found = symbols.lookup<func::FuncOp>(name))
    return found;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  symbols.insert(func);
  return func;
}

void ConvertPlanToHostPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  OpBuilder b(module.getContext());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  module.walk([&](Operation *op) {
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<plan::AllocOp>(op)) {
      func::FuncOp allocator = declare(module, symbols, host::kAllocFunction,
                                       b.getFunctionType({i64}, {i64}));
      alloc.replaceAllUsesWith(
          func::CallOp::create(b, loc, allocator, alloc.getBytes())
              .getResult(0));
      alloc.erase();
    } else if (auto free = dyn_cast<plan::FreeOp>(op)) {
      func::FuncOp release = declare(module, symbols, host::kFreeFunction,
                                     b.getFunctionType({i64}, {}));
      func::CallOp::create(b, loc, release, free.getBuffer());
      free.erase();
    } else if (auto launch = dyn_cast<plan::LaunchOp>(op)) {
      // The launcher takes the kernel's arguments (pointers as addresses),
      // the grid, and the range of programs to run.
      auto kernel = symbols.lookup<func::FuncOp>(launch.getKernel());
      SmallVector<Type> types;
      for (Type type : kernel.getArgumentTypes())
        types.push_back(isa<tile::PointerType>(type) ? i64 : type);
      types.append(3, i32);
      types.append(2, i64);
      func::FuncOp launcher =
          declare(module, symbols, (launch.getKernel() + "_launch").str(),
                  b.getFunctionType(types, {}));
      SmallVector<Value> args(launch.getArguments());
      Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
      args.push_back(
          arith::TruncIOp::create(b, loc, i32, launch.getPrograms()));
      args.append({one, one, arith::ConstantIntOp::create(b, loc, 0, 64),
                   launch.getPrograms()});
      func::CallOp::create(b, loc, launcher, args);
      launch.erase();
    }
  });
}
