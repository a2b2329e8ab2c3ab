// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: func.func @convert
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
// A conversion back and forth folds away; one to the same layout too.
// FOLD-LABEL: func.func @convert
// FOLD-SAME: (%[[X:.*]]: tensor<512xf32, #blocked>)
// FOLD-NEXT: return %[[X]], %[[X]]
func.func @convert(%x: tensor<512xf32, #a>) -> (tensor<512xf32, #a>, tensor<512xf32, #a>) {
  %y = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
  %z = tilegpu.convert_layout %y : tensor<512xf32, #b> -> tensor<512xf32, #a>
  %w = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #a>
  return %z, %w : tensor<512xf32, #a>, tensor<512xf32, #a>
}
