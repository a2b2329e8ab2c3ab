//===- Passes.td - Kiln conversion passes ------------------*- tablegen -*-===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPlanToHostPass : Pass<"kiln-convert-plan-to-host", "mlir::ModuleOp"> {
  let summary = "Lower launch plans to calls of the host runtime and launchers";
  let description = [{
    On the host target a launch plan is compiled with its kernels:

    - `plan.alloc` calls `__kiln_host_alloc(bytes) -> address`, and
      `plan.free` calls `__kiln_host_free(address)`;
    - `plan.launch @k[%programs](args)` calls `@k_launch(args..., programs,
      1, 1, 0, programs)`: the kernel's launcher (which
      `kiln-convert-tile-to-host` defines) over a grid of `programs`
      programs along x, all of them.

    Each callee is declared where the module lacks it.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect",
  ];
}

def ConvertTileToHostPass : Pass<"kiln-convert-tile-to-host", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to host loops over program instances";
  let description = [{
    Rewrites every tile kernel (a `func.func` using tile ops) for the CPU:

    - pointers become `i64` addresses, and `tile.addptr` byte arithmetic;
    - tile ops become `tensor`, `linalg` and `scf` ops on tensors (to be
      bufferized), loads and stores become loops over the elements with
      `llvm.load`/`llvm.store` where the mask allows, atomics a load, the
      combination and a store under a lock, `tile.dot` becomes
      `linalg.matmul`,
      `tile.reduce` a
      `linalg.reduce` with the combining region, `tile.scan` a loop;
    - the kernel takes six trailing `i32` arguments, its program id and the
      grid size along x, y and z, which `tile.program_id` and
      `tile.num_programs` read;
    - a launcher `<kernel>_launch(args..., grid_x, grid_y, grid_z, begin,
      end)` runs the program instances with linear ids [begin, end), x
      fastest, so that a launch can split them between threads; atomics
      take the runtime's lock (`__kiln_host_lock`, `__kiln_host_unlock`).

    With `bounds-check`, every access first calls
    `__kiln_host_check_access(address, bytes, site, enabled, pid_x, pid_y,
    pid_z) -> i32`, which the host runtime provides, and happens only if it
    returns non-zero; the module attribute `kiln.host.access_sites` names the
    op of each site id, so that an access outside every array of the launch
    is reported with its location.

    A block pointer becomes an `!llvm.array<(1 + 3 * rank) x i64>` holding
    the base address, the tensor's sizes and strides and the block's
    offsets;
    its loads and stores are element loops like the others, with the
    `boundary_check` dimensions tested against the sizes.
  }];
  let options = [
    Option<"boundsCheck", "bounds-check", "bool", /*default=*/"false",
           "Check every load, store and atomic against the launch's arrays">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def HostExactMathPass : Pass<"kiln-host-exact-math", "mlir::ModuleOp"> {
  let summary = "Compute on the host exactly what the GPU approximates";
  let description = [{
    The `arcp` and `afn` flags on `arith.divf`, `arith.remf`, `math.exp`
    and `math.sqrt` mark Triton's approximate float32 division, remainder,
    `exp` and `sqrt`, which
    the GPU computes as
    Triton does (`kiln-approximate-math-to-nvvm`); the host clears them
    and rounds those correctly, as Triton's interpreter does.

    MLIR's `convert-math-to-llvm` lowers `math.expm1` to `exp(x) - 1` and
    `math.log1p` to `log(1 + x)`, which lose every digit of a result near
    0 (the GPU calls libdevice's `__nv_expm1f` and `__nv_log1pf`). This
    pass, run on the host before it, makes those two ops on `f32` and `f64`
    scalars calls of libm's `expm1f`/`expm1` and `log1pf`/`log1p`, as
    `convert-math-to-libm` does, and leaves every other op to
    `convert-math-to-llvm` (whose intrinsics LLVM vectorizes).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect"];
}

def HostGPUResultsPass : Pass<"kiln-host-gpu-results", "mlir::ModuleOp"> {
  let summary = "Give the host the GPU's results where LLVM leaves them "
                "open: out-of-range shifts and float-to-integer conversions, "
                "and the extrema of zeros of both signs";
  let description = [{
    LLVM leaves a shift by the width or more (or by a negative amount) and
    a conversion of a float outside the integer's range (or of a NaN)
    undefined, and the sign of `maxnum`/`minnum` of +0 and -0 open; the
    GPU's instructions, which Triton's kernels compile to, define them:
    `shl`/`shr` clamp the amount (read unsigned) to the width, giving 0
    or, for an arithmetic right shift, the sign; `cvt.rzi` saturates to
    the integer's range and takes a NaN to 0; `max`/`min` order -0 below
    +0. An x86 CPU gives other results (the amount modulo the width,
    0x80000000, whichever zero came second), so the host would silently
    differ from the GPU. This pass rewrites `arith.shli`, `shrui`, `shrsi`
    (unless the amount is a constant in range), `arith.fptosi`, `fptoui`,
    and `arith.maxnumf`, `minnumf`, `maximumf`, `minimumf` into selects
    that compute the GPU's results, on scalars and tiles alike (in
    reductions' regions too).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ConvertTileToGPUPass : Pass<"kiln-convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower laid-out tile kernels to per-thread GPU code";
  let description = [{
    Runs after `tile-assign-layouts`. Moves every kernel into a `gpu.module
    @kiln` as a `gpu.func` kernel of `tilegpu.num_warps` warps (its
    `known_block_size`) and rewrites every tile into the registers each
    thread holds of it, a `vector` whose element r is the layout's register
    r; tiles of pointers hold i64 addresses.

    - `tile.program_id`/`num_programs`: `gpu.block_id`/`gpu.grid_dim`;
      `tile.range`: the thread's coordinates from its layout.
    - Elementwise `arith`/`math` ops: the same op on the register vectors;
      `scf` ops carry the converted tiles.
    - Loads and stores move each thread's run of consecutive elements as
      one vector (up to 16 bytes, as contiguity, alignment and mask allow);
      a masked access is a predicated PTX `ld`/`st` (inline asm), and only
      the canonical copy of a replicated element is stored.
    - Atomics: `llvm.atomicrmw` per element under its mask; a scalar atomic
      runs on thread 0 and shares its result through shared memory.
    - `broadcast`, `expand_dims`, `reshape`, `trans`, `convert_layout`: a
      permutation of registers where every element stays in its thread,
      else a round trip through shared memory.
    - `tile.reduce`: within the thread, across lanes with xor shuffles,
      across warps through shared memory.

    - `tile.dot` on CUDA cores: both operands staged in shared memory, then
      one vector `math.fma` per step of K for all the accumulator
      registers a thread holds (f16, bf16, f32, f64, i8). In the mma
      layouts: `mma.sync` on dot-operand fragments (ldmatrix from swizzled
      shared memory), and `tilegpu.warpgroup_dot` as `wgmma.mma_async` on
      the pipeline's slots.

    - Shared memory: one array for all kernels of the module, the pipeline
      buffers at its start and every op's scratch after them. Up to 48 KiB
      it is static; beyond, it is dynamic shared memory (`.extern`), and
      the gpu.module's `kiln.dynamic_shared_bytes` says how much every
      launch must give. More than `shared-memory-limit` bytes is an error
      naming both sizes.

    - `tile.scan`: log2(n) rounds of Hillis and Steele through shared
      memory.

    - Block pointers: a vector of i64 fields per thread (base, shape,
      strides, offsets); their loads and stores predicate each element on
      the `boundary_check` dimensions.

    - TMA (sm_90): mbarriers initialized by one thread and fenced,
      `mbarrier.arrive.expect_tx` and `cp.async.bulk.tensor.2d` (one per
      slab of the slot's swizzled layout, at the block pointer's offsets)
      issued by thread 0, `mbarrier.try_wait.parity` by every thread. The
      kernel keeps its `tilegpu.tensor_maps`; `kiln-tensor-map-params`
      makes those parameters `__grid_constant__` once it is an llvm.func.

    What it cannot lower (fp8 products, calls, declarations, non-splat
    tile constants, reductions over non-power-of-two axes) is refused
    before the conversion starts, with a diagnostic naming the op, the
    reason and the target.
  }];
  let options = [
    Option<"sharedMemoryLimit", "shared-memory-limit", "int64_t",
           /*default=*/"49152",
           "Shared memory a block of the target may have, in bytes (the "
           "static 48 KiB unless the launcher gives dynamic shared memory)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::cf::ControlFlowDialect",
    "mlir::gpu::GPUDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::math::MathDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
  ];
}

def TensorMapParamsPass
    : Pass<"kiln-tensor-map-params", "mlir::gpu::GPUModuleOp"> {
  let summary = "Pass the tensor maps of kernels as __grid_constant__ parameters";
  let description = [{
    Runs on the LLVM dialect (after `convert-gpu-to-nvvm`): every parameter
    an `llvm.func` kernel lists in its `tilegpu.tensor_maps` becomes a
    128-byte, 64-byte-aligned by-value parameter marked
    `nvvm.grid_constant` (PTX `.param .align 64 .b8 p[128]`), whose address
    the TMA instructions take in the generic space. A listed parameter that
    is not a pointer is an error.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

def Float8ToNVVMPass
    : Pass<"kiln-float8-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Convert e4m3 and e5m2 pairs with sm_89's cvt instructions";
  let description = [{
    From sm_89 on, PTX converts two 8-bit floats in one instruction each
    way, as Triton emits them there. This pass, which the GPU pipeline runs
    for those chips before `tile-expand-float8`, rewrites each
    `arith.extf` from `f8E4M3FN` or `f8E5M2` and each `arith.truncf` to
    them, on scalars and 1-D vectors (a thread's registers), pair by pair:

    - widening: `nvvm.convert.f8x2.to.f16x2` (`cvt.rn.f16x2.e4m3x2`,
      exact), then the f16 converted to the result type (exactly);
    - narrowing: the value in f32 (exact from f16 and bf16; f64 is rounded
      to f32 first, as `tile-expand-float8` does), then
      `nvvm.convert.f32x2.to.f8x2` with round-to-nearest-even and
      saturation to the largest finite value
      (`cvt.rn.satfinite.e4m3x2.f32`), NaN to NaN: what
      `tile-expand-float8` computes with integer operations elsewhere.

    An odd count's last element is converted in a pair with itself; an
    even count of narrowed codes is assembled from the pairs as 16-bit
    words (the instructions' own results). Other 8-bit formats (FNUZ) are
    left to `tile-expand-float8`.

    ```mlir
    %w = arith.extf %x : vector<2xf8E4M3FN> to vector<2xf16>
    // becomes
    %bytes = arith.bitcast %x : vector<2xf8E4M3FN> to vector<2xi8>
    %pair = vector.shuffle %bytes, %bytes [0, 1] : vector<2xi8>, vector<2xi8>
    %h = nvvm.convert.f8x2.to.f16x2 %pair : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::vector::VectorDialect",
  ];
}

def ApproximateMathToNVVMPass
    : Pass<"kiln-approximate-math-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower float math as Triton does: f32 division, remainder, "
                "exp and sqrt; min, max, fma and abs";
  let description = [{
    Triton computes `x / y` on float32 with PTX's `div.full.f32` (2 ulp),
    `tl.fdiv(x, y, approx=True)` with `div.approx.f32`, and `tl.exp(x)` as
    `ex2.approx.f32(x * log2(e))`; only `tl.div_rn` and
    `fdiv(ieee_rounding=True)` round correctly. The Python front end marks
    the approximate ones with fastmath flags, which this pass, run on the
    kernels before `convert-gpu-to-nvvm`, turns into those instructions
    (element by element for vectors):

    - `arith.divf` on f32 with `arcp` (and not `afn`): `llvm.nvvm.div.full`;
    - `arith.divf` on f32 with `afn`: `llvm.nvvm.div.approx.f`;
    - `math.exp` on f32 with `afn`: a multiply by log2(e) rounded to f32,
      then `llvm.nvvm.ex2.approx.f32` (as libdevice's `__nv_fast_expf`,
      without flushing subnormal results to zero);
    - `arith.remf` on f32 or f64 with `afn` (Triton's `%`): x - trunc(x /
      y) * y with the quotient correctly rounded, and x where y is
      infinite: what LLVM's NVPTX back end makes of Triton's `frem`
      (`div.rn`, `cvt.rzi`, `fma`, a test for infinity), not libdevice's
      exact `fmod`;
    - `math.sqrt` on f32 without `afn` (`tl.sqrt_rn`):
      `llvm.nvvm.sqrt.rn.f`, correctly rounded; with `afn` (`tl.sqrt`) it stays
      libdevice's `__nv_sqrtf` (`sqrt.approx.f32`, `sqrt.approx.ftz.f32`
      where libdevice flushes subnormals, as Triton's).

    `arith.maxnumf`, `arith.minnumf` and `math.fma` (of any float type)
    become LLVM's `maxnum`, `minnum` and `fma`, and `math.absf` clears the
    sign bit (`and.b32`), as Triton lowers `tl.maximum`, `tl.minimum`,
    `tl.fma` and `tl.abs`: not libdevice's functions, which, linked
    flushing subnormals (a kernel with `tile.libdevice_ftz`, as Triton
    links libdevice), would flush them (`max.ftz.f32`) where Triton's do
    not.

    Division and `exp` without these flags, and on other types, are left
    to the usual lowering (`div.rn`, libdevice's `__nv_expf`). The host
    target clears the flags (`kiln-host-exact-math`), as Triton's
    interpreter computes these exactly.

    ```mlir
    %q = arith.divf %a, %b fastmath<arcp> : f32
    // becomes
    %q = llvm.call_intrinsic "llvm.nvvm.div.full"(%a, %b) : (f32, f32) -> f32
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::math::MathDialect",
    "mlir::vector::VectorDialect",
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
