// REQUIRES: libdevice
// Compiling the same kernels twice, in two processes, gives byte-identical
// PTX and LLVM IR: nothing depends on addresses, hash order or time.
// RUN: kiln-translate %kiln_examples/layer_norm.mlir --chip=sm_90a -o %t.first.ptx
// RUN: kiln-translate %kiln_examples/layer_norm.mlir --chip=sm_90a -o %t.second.ptx
// RUN: cmp %t.first.ptx %t.second.ptx
// RUN: kiln-translate %s -split-input-file --emit=llvm -o %t.first.ll
// RUN: kiln-translate %s -split-input-file --emit=llvm -o %t.second.ll
// RUN: cmp %t.first.ll %t.second.ll

// Several shared-memory buffers and reductions in one module: their names
// come from a counter, not from pointers.
func.func @two_sums(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %s = tile.reduce %v axis 0 : tensor<512xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  %m = tile.reduce %v axis 0 : tensor<512xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tile.yield %t : f32
  }
  %sm = arith.addf %s, %m : f32
  tile.store %out, %sm : !tile.ptr<f32>, f32
  return
}

// -----

func.func @second(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %xp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %e = math.exp %v : tensor<64xf32>
  tile.store %xp, %e : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}
