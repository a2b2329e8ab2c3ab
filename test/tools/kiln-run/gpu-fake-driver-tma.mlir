// docs/examples/matmul_tma.mlir through kiln-run's GPU path against the
// stand-in driver (compute capability 9.0: sm_90a). With M, N and K
// multiples of 16 the block loads and C's block store are copied by TMA:
// each launch builds the three tensor maps from the arguments and passes
// them after them, and the stand-in refuses a launch whose 128-byte
// parameters hold no map. With K = 250 the row stride of A is not a
// multiple of 16 bytes: A's block load stays a load (a remark says why)
// and only B's load and C's store go through TMA.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/matmul_tma.mlir --kernel=matmul_tma --target=gpu --num-warps=8 --grid=2,2 --arg="f16[65536]=rand" --arg="f16[65536]=rand" --arg="f32[65536]=zeros" --arg=i32=256 --arg=i32=256 --arg=i32=256 --check=none --repeat=2 | FileCheck %s
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/matmul_tma.mlir --kernel=matmul_tma --target=gpu --num-warps=8 --grid=2,2 --arg="f16[64000]=rand" --arg="f16[64000]=rand" --arg="f32[65536]=zeros" --arg=i32=256 --arg=i32=256 --arg=i32=250 --check=none --repeat=2 2>%t.remarks | FileCheck %s --check-prefix=RAGGED
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// CHECK: kernel matmul_tma on Kiln Fake GPU (sm_90a, PTX for the driver, 8 warps, 3 TMA tensor maps), grid 2x2x1
// RAGGED: kernel matmul_tma on Kiln Fake GPU (sm_90a, PTX for the driver, 8 warps, 2 TMA tensor maps), grid 2x2x1
// REMARK: matmul_tma.mlir:33:15: remark: not copied by TMA: the row stride is not known to be a multiple of 16 bytes
