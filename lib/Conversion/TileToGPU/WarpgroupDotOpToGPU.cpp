//===- WarpgroupDotOpToGPU.cpp - tilegpu.warpgroup_dot on wgmma -----------===//
//
// Each warpgroup multiplies its 64-row blocks of the accumulator with
// `wgmma.mma_async` m64nNk16 (m64nNk32 for 8-bit operands, m64nNk8 for
// tf32), reading B (N-major, or K-major from a transposed slot, staged as A
// is) and a slotted A (K-major) from shared memory through matrix
// descriptors (kiln/Layout/MatrixDescriptor.h), or A from registers, which in
// the dot-operand layout of the warpgroup accumulator are per warp exactly
// wgmma's A fragment (mma.sync m16n8k16's): a fence, one instruction per
// (row block, N chunk, K step), a commit, and a wait whose inline assembly
// redefines every accumulator register, so nothing reads them before the
// products are in.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/MatrixDescriptor.h"
#include "kiln/Layout/MmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

/// N of each wgmma: the widest multiple of B's swizzle span (in elements)
/// that divides N and is at most 256, so every instruction starts on a
/// span.
int64_t chooseInstrN(int64_t n, int64_t spanElements) {
  int64_t best = spanElements;
  for (int64_t instrN = spanElements; instrN <= std::min<int64_t>(n, 256);
       instrN += spanElements)
    if (n % instrN == 0)
      best = instrN;
  return best;
}

/// The descriptor of the instruction operand that starts `offset` (i32
/// bytes) into `tile`.
Value getDescriptor(OpBuilder &b, Location loc, const SharedTile &tile,
                    Value offset) {
  Type i64 = b.getI64Type();
  layout::MatrixDescriptor descriptor =
      layout::MatrixDescriptor::forStagedTile(tile.layout);
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(),
                                           tile.address(b, loc, offset));
  // Start address bits 4-17 (MatrixDescriptor::getAddressBits).
  Value field = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, address),
                             constantInt(b, loc, i64, 4)),
      constantInt(b, loc, i64, 0x3fff));
  return arith::OrIOp::create(
      b, loc, field,
      constantInt(b, loc, i64,
                  static_cast<int64_t>(descriptor.getStrideAndSwizzleBits())));
}

/// One wgmma operand: A in four 32-bit registers (f16 or bf16, as
/// mma.sync's A fragment) or through a matrix descriptor.
struct WgmmaA {
  SmallVector<Value> words;
  Value descriptor;
};

/// `wgmma.mma_async` of `aType` x `bType` (B through `bDescriptor`,
/// K-major when `bKMajor`, else N-major) into the accumulator struct `d`
/// (`accType`: f32 or s32), written in PTX for what upstream's op cannot
/// say: A in registers, and scale-d from a value (`accumulate`, i1:
/// whether `d` is added to; null: it is).
Value wgmmaInPTX(OpBuilder &b, Location loc, Value d, const WgmmaA &a,
                 Value bDescriptor, int64_t instrN, int64_t instrK,
                 NVVM::WGMMATypes aType, NVVM::WGMMATypes bType,
                 NVVM::WGMMATypes accType, bool bKMajor, Value accumulate) {
  auto structType = cast<LLVM::LLVMStructType>(d.getType());
  int64_t count = structType.getBody().size();
  std::string constraint = accType == NVVM::WGMMATypes::f32 ? "f" : "r";
  SmallVector<Value> operands;
  std::string accumulators, constraints;
  for (int64_t i = 0; i < count; ++i) {
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    accumulators += (i ? ", $" : "$") + std::to_string(i);
    constraints += (i ? ",=" : "=") + constraint;
  }
  for (int64_t i = 0; i < count; ++i)
    constraints += "," + std::to_string(i);
  // Operands $0.. are the results, then the tied accumulators, then A, B
  // and scale-d.
  int64_t next = 2 * count;
  auto operand = [&](Value value, llvm::StringRef kind) {
    operands.push_back(value);
    constraints += ("," + kind).str();
    return "$" + std::to_string(next++);
  };
  std::string aOperand;
  if (a.descriptor) {
    aOperand = operand(a.descriptor, "l");
  } else {
    for (Value word : a.words)
      aOperand += (aOperand.empty() ? "{" : ", ") + operand(word, "r");
    aOperand += "}";
  }
  std::string bOperand = operand(bDescriptor, "l");
  std::string scaleD =
      accumulate
          ? operand(arith::ExtUIOp::create(b, loc, b.getI32Type(), accumulate),
                    "r")
          : "1";
  // The immediates: imm-scale-a and imm-scale-b (1: no negation) for
  // floats, then imm-trans-a (0: A is K-major) where A is in shared memory
  // and imm-trans-b (1: B is N-major) for f16 and bf16.
  std::string immediates;
  if (aType != NVVM::WGMMATypes::s8)
    immediates += ", 1, 1";
  if (aType == NVVM::WGMMATypes::f16 || aType == NVVM::WGMMATypes::bf16) {
    if (a.descriptor)
      immediates += ", 0";
    immediates += bKMajor ? ", 0" : ", 1";
  }
  std::string asmString =
      llvm::formatv("{{ .reg .pred p; setp.ne.b32 p, {0}, 0; "
                    "wgmma.mma_async.sync.aligned.m64n{1}k{2}.{3}.{4}.{5} "
                    "{{{6}}, {7}, {8}, p{9}; }",
                    scaleD, instrN, instrK, NVVM::stringifyWGMMATypes(accType),
                    NVVM::stringifyWGMMATypes(aType),
                    NVVM::stringifyWGMMATypes(bType), accumulators, aOperand,
                    bOperand, immediates)
          .str();
  return LLVM::InlineAsmOp::create(
             b, loc, structType, operands, asmString, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getResult(0);
}

/// wgmma's name of operands of `element` type: f32 is read as tf32; i8
/// operands are signed (the front end refuses unsigned ones).
NVVM::WGMMATypes getWgmmaType(Type element) {
  if (element.isF16())
    return NVVM::WGMMATypes::f16;
  if (element.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (element.isF32())
    return NVVM::WGMMATypes::tf32;
  if (isa<Float8E4M3FNType>(element))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(element))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::s8;
}

/// The registers `value` (converted from a tile of `type`) holds.
static SmallVector<Value> getRegisters(OpBuilder &b, Location loc, Value value,
                                       RankedTensorType type) {
  SmallVector<Value> registers;
  for (int64_t reg = 0, e = getNumRegisters(type); reg < e; ++reg)
    registers.push_back(extractRegister(b, loc, value, reg));
  return registers;
}

/// `wgmma.wait_group.sync.aligned pending` that takes and gives back
/// `registers` (all f32 or all i32), tied: a use of the result cannot move
/// above the wait.
SmallVector<Value> waitForRegisters(OpBuilder &b, Location loc,
                                    ArrayRef<Value> registers,
                                    int64_t pending) {
  int64_t count = registers.size();
  Type type = registers.front().getType();
  std::string output = type.isF32() ? "=f" : "=r", constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += (i ? "," : "") + output;
  for (int64_t i = 0; i < count; ++i)
    constraints += "," + std::to_string(i);
  Type result = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(count, type));
  auto wait = LLVM::InlineAsmOp::create(
      b, loc, result, registers,
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  SmallVector<Value> waited;
  for (int64_t i = 0; i < count; ++i)
    waited.push_back(
        LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i));
  return waited;
}

struct WarpgroupDotLowering : OpConversionPattern<tilegpu::WarpgroupDotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::WarpgroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    auto mma = cast<tilegpu::MmaEncodingAttr>(accType.getEncoding());
    int64_t numWarps = mma.getWarpsPerCTA()[0];
    MemRefType bBuffer = op.getB().getType();
    auto aBuffer = dyn_cast<MemRefType>(op.getA().getType());
    int64_t m = accType.getDimSize(0), n = accType.getDimSize(1),
            k = bBuffer.getDimSize(1);
    // A from its slot, or (aRegisters) from registers.
    std::optional<SharedTile> a;
    Value aRegisters;
    if (aBuffer)
      a = getBufferSlot(rewriter, loc, adaptor.getA(), aBuffer,
                        adaptor.getASlot());
    else
      aRegisters = adaptor.getA();
    SharedTile b = getBufferSlot(rewriter, loc, adaptor.getB(), bBuffer,
                                 adaptor.getBSlot());
    int64_t elementBytes = b.layout.getElementBytes();
    // A K-major B (a transposed slot) has N rows, read eight at a time; an
    // N-major one is read a swizzle span of N at a time.
    int64_t instrN = chooseInstrN(
        n, b.transposed ? 8 : b.layout.getSwizzleBytes() / elementBytes);
    Type element = bBuffer.getElementType();
    constexpr int64_t instrM = tilegpu::WarpgroupDotOp::kInstrM;
    int64_t instrK = tilegpu::WarpgroupDotOp::getInstrK(element);
    NVVM::WGMMATypes aType = getWgmmaType(getElementTypeOrSelf(op.getA())),
                     bType = getWgmmaType(element);
    Type accElement = accType.getElementType();
    NVVM::WGMMATypes sumType =
        accElement.isF32() ? NVVM::WGMMATypes::f32 : NVVM::WGMMATypes::s32;
    Value accumulate = adaptor.getUseAcc();
    Type i32 = rewriter.getI32Type();
    auto c32 = [&](int64_t v) { return constantInt(rewriter, loc, i32, v); };
    // Warpgroup g's row blocks start at 64g + 16 * numWarps * i (the
    // accumulator's repeats along M): where a slotted A's rows start.
    Value groupRow;
    if (a) {
      Value warpgroup = arith::DivUIOp::create(
          rewriter, loc, getLaneAndWarp(rewriter, loc).second, c32(4));
      groupRow = arith::MulIOp::create(rewriter, loc, warpgroup, c32(instrM));
    }
    int64_t rowBlocks = m / (16 * numWarps);
    int64_t nBlocks = n / layout::MmaLayout::kInstrN;
    int64_t perInstr = instrN / layout::MmaLayout::kInstrN *
                       layout::MmaLayout::kAccRegisters;

    SmallVector<Value> acc =
        getRegisters(rewriter, loc, adaptor.getAcc(), accType);
    Type accStruct = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(perInstr, accElement));
    auto shape = NVVM::MMAShapeAttr::get(rewriter.getContext(), instrM, instrN,
                                         instrK);
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t i = 0; i < rowBlocks; ++i) {
      Value row = a ? arith::AddIOp::create(rewriter, loc, groupRow,
                                            c32(i * 16 * numWarps))
                          .getResult()
                    : Value();
      for (int64_t n0 = 0; n0 < n; n0 += instrN) {
        // This instruction's registers: the accumulator's 8-column blocks
        // n0 / 8 ... of row repeat i, four registers each.
        int64_t first = (i * nBlocks + n0 / layout::MmaLayout::kInstrN) *
                        layout::MmaLayout::kAccRegisters;
        Value d = LLVM::UndefOp::create(rewriter, loc, accStruct);
        for (int64_t r = 0; r < perInstr; ++r)
          d = LLVM::InsertValueOp::create(rewriter, loc, d, acc[first + r], r);
        for (int64_t k0 = 0; k0 < k; k0 += instrK) {
          // B's K rows from k0, at N n0 (its N rows from n0, at K k0, when
          // K-major); A's rows from `row`, at K k0.
          Value bDescriptor = getDescriptor(
              rewriter, loc, b,
              c32(b.transposed ? b.layout.getLinearByteOffset(n0, k0)
                               : b.layout.getLinearByteOffset(k0, n0)));
          if (aRegisters) {
            // This warp's fragment of row block i, K step k0 / 16 (f16 or
            // bf16, as the verifier ensures): four
            // words of two elements, as mma.sync's A.
            int64_t fragment = (i * (k / instrK) + k0 / instrK) * 8;
            SmallVector<Value> words = packFragmentWords(
                rewriter, loc, aRegisters,
                llvm::to_vector(llvm::seq<int64_t>(fragment, fragment + 8)),
                /*perWord=*/2);
            for (Value &word : words)
              word = LLVM::BitcastOp::create(rewriter, loc, i32, word);
            d = wgmmaInPTX(rewriter, loc, d, WgmmaA{words, Value()},
                           bDescriptor, instrN, instrK, aType, bType, sumType,
                           b.transposed, k0 ? Value() : accumulate);
            continue;
          }
          Value aOffset = arith::AddIOp::create(
              rewriter, loc,
              arith::MulIOp::create(rewriter, loc, row,
                                    c32(a->layout.getSwizzleBytes())),
              c32(a->layout.getLinearByteOffset(0, k0)));
          Value aDescriptor = getDescriptor(rewriter, loc, *a, aOffset);
          // Each chain's first instruction adds to the accumulator only
          // where `use_acc` says so.
          if (accumulate && k0 == 0) {
            d = wgmmaInPTX(rewriter, loc, d, WgmmaA{{}, aDescriptor},
                           bDescriptor, instrN, instrK, aType, bType, sumType,
                           b.transposed, accumulate);
            continue;
          }
          d = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, accStruct, d, aDescriptor, bDescriptor, shape,
              NVVM::WGMMATypesAttr::get(rewriter.getContext(), aType),
              NVVM::WGMMATypesAttr::get(rewriter.getContext(), bType),
              NVVM::WGMMATypesAttr::get(rewriter.getContext(), sumType),
              NVVM::WGMMAScaleOutAttr::get(rewriter.getContext(),
                                           NVVM::WGMMAScaleOut::one),
              NVVM::WGMMAScaleInAttr::get(rewriter.getContext(),
                                          NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(rewriter.getContext(),
                                          NVVM::WGMMAScaleIn::one),
              // A is K-major (row); B is N-major (row, the transposed
              // form) or, from a transposed slot, K-major (col).
              NVVM::MMALayoutAttr::get(rewriter.getContext(),
                                       NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(rewriter.getContext(),
                                       b.transposed ? NVVM::MMALayout::col
                                                    : NVVM::MMALayout::row),
              NVVM::MMAIntOverflowAttr());
        }
        for (int64_t r = 0; r < perInstr; ++r)
          acc[first + r] = LLVM::ExtractValueOp::create(rewriter, loc, d, r);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(
        op, fromRegisters(
                rewriter, loc, cast<VectorType>(adaptor.getAcc().getType()),
                waitForRegisters(rewriter, loc, acc, op.getAsync() ? 1 : 0)));
    return success();
  }
};

struct WarpgroupWaitLowering : OpConversionPattern<tilegpu::WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::WarpgroupWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<VectorType>(adaptor.getValue().getType());
    SmallVector<Value> registers =
        getRegisters(rewriter, loc, adaptor.getValue(),
                     cast<RankedTensorType>(op.getValue().getType()));
    rewriter.replaceOp(
        op, fromRegisters(rewriter, loc, type,
                          waitForRegisters(rewriter, loc, registers, 0)));
    return success();
  }
};

struct FenceAsyncSharedLowering
    : OpConversionPattern<tilegpu::FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op,
        NVVM::ProxyKindAttr::get(op.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(op.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateWarpgroupDotOpToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpgroupDotLowering, WarpgroupWaitLowering,
               FenceAsyncSharedLowering>(converter, patterns.getContext());
}
