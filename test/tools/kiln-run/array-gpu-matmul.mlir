// An array matmul on the GPU: the kernels of a plan take their buffers
// 16-byte aligned (every buffer is a device allocation), so the matmul's
// loads are pipelined (no "not pipelined" remark) and feed wgmma. A buffer
// that is not aligned is refused before the launch, by name (the stand-in
// driver misaligns its allocations on request).
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=mlp --target=gpu --check=none 2>&1 | FileCheck %s
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_FAKE_CUDA_MISALIGN=8 not kiln-run %s --kernel=mlp --target=gpu --check=none 2>&1 | FileCheck %s --check-prefix=MISALIGNED

// CHECK-NOT: not pipelined
// CHECK: array function mlp on Kiln Fake GPU (sm_90a)
// MISALIGNED: kiln-run: plan 'mlp', plan.launch at {{.*}}: buffer 0 of 'mlp_kernel0_tile' is not 16-byte aligned
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<128x256xf16>, %w: tensor<256x192xf16>, %b: tensor<192xf32>) -> tensor<128x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x192xf32>) -> tensor<128x192xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<128x256xf16>, tensor<256x192xf16>) outs(%init : tensor<128x192xf32>) -> tensor<128x192xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<128x192xf32>, tensor<192xf32>) outs(%e : tensor<128x192xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x192xf32>
  return %y : tensor<128x192xf32>
}
