//===- TensorMaps.cpp - Blocks the tensor memory accelerator copies -------===//

#include "kiln/Dialect/TileGPU/Transforms/TensorMaps.h"

#include "kiln/Layout/SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

int kiln::tilegpu::getTensorMapDataType(Type type) {
  if (type.isF16())
    return 6;
  if (type.isBF16())
    return 9;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  if (type.isInteger(8))
    return 0;
  if (type.isInteger(16))
    return 1;
  if (type.isInteger(32))
    return 3;
  if (type.isInteger(64))
    return 5;
  return -1;
}

tile::MakeBlockPtrOp kiln::tilegpu::getBlockPtrOrigin(Value value) {
  auto skipAdvances = [](Value v) {
    while (auto advance = v.getDefiningOp<tile::AdvanceOp>())
      v = advance.getBlockPtr();
    return v;
  };
  value = skipAdvances(value);
  while (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg == loop.getInductionVar())
      return nullptr;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    if (skipAdvances(yield.getOperand(arg.getArgNumber() - 1)) != arg)
      return nullptr;
    value = skipAdvances(loop.getTiedLoopInit(arg)->get());
  }
  return value.getDefiningOp<tile::MakeBlockPtrOp>();
}

/// Where a launch finds `value`: (-1, the constant) or (kernel argument,
/// its size in bytes), through integer extensions; nullopt otherwise.
static std::optional<std::pair<int64_t, int64_t>> getLaunchSource(Value value) {
  while (isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::make_pair<int64_t, int64_t>(-1, constant.getSExtValue());
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return std::nullopt;
  int64_t bytes = isa<tile::PointerType>(arg.getType())
                      ? 8
                      : arg.getType().getIntOrFloatBitWidth() / 8;
  if (bytes != 4 && bytes != 8)
    return std::nullopt;
  return std::make_pair<int64_t, int64_t>(arg.getArgNumber(), int64_t(bytes));
}

FailureOr<TensorMapFields>
kiln::tilegpu::getTensorMap(tile::MakeBlockPtrOp origin, RankedTensorType type,
                            ArrayRef<int32_t> boundaryCheck,
                            AxisInfoAnalysis &axisInfo, std::string &whyNot) {
  auto fail = [&](const Twine &why) {
    whyNot = why.str();
    return failure();
  };
  if (origin.getOrder() != ArrayRef<int32_t>{1, 0})
    return fail("the tensor is not row-major (order [1, 0])");
  // An unchecked dimension reads and writes past the shape, where TMA
  // would read zeros and write nothing.
  for (int32_t dim : {0, 1})
    if (!llvm::is_contained(boundaryCheck, dim))
      return fail(llvm::formatv("it does not check the bounds of dimension "
                                "{0}, which TMA clips at the tensor's shape "
                                "(boundary_check=(0, 1) would let it)",
                                dim));
  auto unitStride = getLaunchSource(origin.getStrides()[1]);
  if (!unitStride || unitStride->first != -1 || unitStride->second != 1)
    return fail("the column stride is not the constant 1");
  Type element = type.getElementType();
  if (getTensorMapDataType(element) < 0) {
    std::string name;
    llvm::raw_string_ostream(name) << element;
    return fail("TMA has no data type for " + name);
  }
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  // cuTensorMapEncodeTiled's alignment rules.
  if (axisInfo.get(origin.getBase()).divisibility[0] % 16 != 0)
    return fail("the base is not known to be 16-byte aligned (give it "
                "tile.divisibility = 16)");
  if (axisInfo.get(origin.getStrides()[0]).divisibility[0] * elementBytes %
          16 != 0)
    return fail("the row stride is not known to be a multiple of 16 bytes");
  TensorMapFields fields;
  fields.elementType = element;
  for (Value value : {Value(origin.getBase()), origin.getShape()[0],
                      origin.getShape()[1], origin.getStrides()[0]}) {
    auto source = getLaunchSource(value);
    if (!source)
      return fail("its base, shape and row stride are not kernel arguments "
                  "or constants");
    fields.sources.push_back(source->first);
    fields.values.push_back(source->second);
  }
  // One copy per slab of the slot's layout.
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  int64_t rowBytes = columns * elementBytes;
  fields.swizzle = layout::SharedLayout::chooseSwizzle(rowBytes);
  int64_t boxColumns =
      fields.swizzle ? fields.swizzle / elementBytes : columns;
  if (rows > 256 || boxColumns > 256 || (!fields.swizzle && rowBytes % 16))
    return fail(llvm::formatv("a {0}x{1} block is not a TMA box (at most "
                              "256x256, rows of a multiple of 16 bytes)",
                              rows, columns));
  // The swizzle repeats every eight rows: each slot and slab must start
  // on such a boundary for TMA to write the layout the readers expect.
  if (fields.swizzle && rows % 8 != 0)
    return fail(llvm::formatv("its {0} rows are not a multiple of the "
                              "swizzle's 8",
                              rows));
  fields.box = {rows, boxColumns};
  return fields;
}


Value kiln::tilegpu::getTensorMapArgument(func::FuncOp kernel,
                                          const TensorMapFields &fields) {
  MLIRContext *context = kernel.getContext();
  SmallVector<Attribute> maps;
  if (auto list = kernel->getAttrOfType<ArrayAttr>(TensorMapAttr::kAttrName))
    maps.assign(list.begin(), list.end());
  for (Attribute attr : maps) {
    int64_t argument = cast<TensorMapAttr>(attr).getArgument();
    if (fields.get(context, argument) == attr)
      return kernel.getArgument(argument);
  }
  unsigned argument = kernel.getNumArguments();
  (void)kernel.insertArgument(
      argument, tile::PointerType::get(IntegerType::get(context, 8), 0), {},
      kernel.getLoc());
  maps.push_back(fields.get(context, argument));
  kernel->setAttr(TensorMapAttr::kAttrName, ArrayAttr::get(context, maps));
  return kernel.getArgument(argument);
}
