// RUN: kiln-translate %s --emit=ptx --split-input-file --verify-diagnostics
// A kernel's name is its PTX entry's: ASCII letters, digits, '_' and '$'.
// LLVM's NVPTX backend aborted the process on a Unicode name, and ptxas
// refused a name with a dot: both are refused at the kernel, by name.
// (Kiln's Python front end spells a Unicode name's other characters
// $x<hex>$, which passes.)

// expected-error @+1 {{'func.func' op target nvptx: the kernel name 'añadir' is not a PTX identifier (ASCII letters, digits, '_' and '$', not starting with a digit)}}
func.func @"añadir"(%p: !tile.ptr<f32>) {
  %v = arith.constant 1.0 : f32
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

// expected-error @+1 {{the kernel name 'a.b' is not a PTX identifier}}
func.func @a.b(%p: !tile.ptr<f32>) {
  %v = arith.constant 1.0 : f32
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

func.func @a$xf1$adir(%p: !tile.ptr<f32>) {
  %v = arith.constant 1.0 : f32
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}
