// RUN: env KILN_LIBDEVICE=%t.missing kiln-translate %s -split-input-file -verify-diagnostics

llvm.func @negative_gpu_op() attributes {nvvm.kernel} {
  // expected-error @+1 {{input must be tile kernels or in the LLVM dialect, found 'gpu.thread_id'}}
  %0 = gpu.thread_id x
  llvm.return
}

// -----

gpu.module @first {
}
// expected-error @+1 {{expected one gpu.module to translate, found 2}}
gpu.module @second {
}

// -----

// LLVM would abort, unable to select the instruction for sm_80.
llvm.func @negative_wgmma_on_sm80() attributes {nvvm.kernel} {
  // expected-error @+1 {{'nvvm.wgmma.fence.aligned' needs sm_90a, but the target chip is sm_80}}
  nvvm.wgmma.fence.aligned
  llvm.return
}

// -----

// Nor a fence of the async proxy (wgmma's and TMA's), which upstream's op
// does not mark; tilegpu.fence_async_shared lowers to it (a fuzzer found
// the abort).
llvm.func @negative_async_proxy_fence_on_sm80() attributes {nvvm.kernel} {
  // expected-error @+1 {{'nvvm.fence.proxy' needs sm_90 or newer, but the target chip is sm_80}}
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  llvm.return
}

// -----

// Nor the mbarrier operations TMA completes on, which came with sm_90
// (tilegpu.init_barriers lowers to the fence; a fuzzer found the abort).
llvm.func @negative_mbarrier_init_fence_on_sm80() attributes {nvvm.kernel} {
  // expected-error @+1 {{'nvvm.fence.mbarrier.init' needs sm_90 or newer, but the target chip is sm_80}}
  nvvm.fence.mbarrier.init
  llvm.return
}

// -----

llvm.func @negative_expect_tx_on_sm80(%bar: !llvm.ptr<3>, %bytes: i32) attributes {nvvm.kernel} {
  // expected-error @+1 {{'nvvm.mbarrier.arrive.expect_tx' needs sm_90 or newer, but the target chip is sm_80}}
  nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
  llvm.return
}

// -----

// $KILN_LIBDEVICE, when set, is the only place libdevice is looked for.
// expected-error @+1 {{'__nv_expf' comes from libdevice, which was not found (searched}}
llvm.func @__nv_expf(f32) -> f32

llvm.func @negative_missing_libdevice(%x: f32) -> f32 {
  %y = llvm.call @__nv_expf(%x) : (f32) -> f32
  llvm.return %y : f32
}

// -----

llvm.func @negative_malformed() -> i32 {
  // expected-error @+1 {{expected ':'}}
  %0 = llvm.mlir.constant(1 : i32) i32
  llvm.return %0 : i32
}
