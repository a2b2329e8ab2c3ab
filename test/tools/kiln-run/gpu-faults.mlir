// A GPU run that fails on the device ends in one line naming the driver's
// error and exit status 1, and leaves nothing behind: no report of the run,
// no --save file, and (the stand-in driver says at exit) no device memory,
// module, stream or event, and no reference to the context.
//
// Out of memory: a stand-in device of 64 KiB holds the first array (16 KiB)
// but not the second (80,000 bytes); the first is freed.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_FAKE_CUDA_MEMORY=65536 KILN_FAKE_CUDA_REPORT=1 \
// RUN:   sh -c 'kiln-run %s --target=gpu --kernel=copy --arg="f32[4096]=iota" --arg="f32[20000]=zeros"; echo "exit $?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OOM --implicit-check-not=arg0 --implicit-check-not="per launch"
// OOM: kiln-run: allocating 80000 bytes (cuMemAlloc) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) [2]
// OOM-NEXT: fake CUDA driver at exit: 0 allocations (0 bytes), 0 modules, streams and events, 0 references to the context
// OOM-NEXT: exit 1

// A kernel that faults: the stand-in accepts the launch of a kernel named
// "faulting", then fails the next call with the sticky error a store
// through a bad address leaves, as a GPU does.
// RUN: rm -f %t.npy
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_FAKE_CUDA_REPORT=1 \
// RUN:   sh -c 'kiln-run %s --target=gpu --kernel=faulting --arg="f32[8]=iota" --save=0=%t.npy; echo "exit $?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAULT --implicit-check-not=arg0 --implicit-check-not="per launch"
// RUN: not test -e %t.npy
// FAULT: kiln-run: kernel 'faulting': waiting for the device (cuCtxSynchronize) failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered) [700]
// FAULT-NEXT: fake CUDA driver at exit: 0 allocations (0 bytes), 0 modules, streams and events, 0 references to the context
// FAULT-NEXT: exit 1

// The same run with enough memory and no fault succeeds, saves its array
// and holds nothing at exit either.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_FAKE_CUDA_REPORT=1 \
// RUN:   kiln-run %s --target=gpu --kernel=copy --arg="f32[4096]=iota" --arg="f32[20000]=zeros" --check=none --save=0=%t.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OK
// RUN: test -e %t.npy
// OK: kernel copy on Kiln Fake GPU
// OK: arg0 f32[4096]: sum=8.38656e+06
// OK: fake CUDA driver at exit: 0 allocations (0 bytes), 0 modules, streams and events, 0 references to the context

func.func @copy(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  tile.store %yp, %v : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// On a GPU this kernel runs fine; on the stand-in its name makes it fault.
func.func @faulting(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  tile.store %xp, %v : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
