// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @plan(%p: i64) {
  // expected-error @+1 {{launches 'missing', which is not a function of the module}}
  plan.launch @missing[%p]()
  return
}

// -----

func.func @k(%a: !tile.ptr<f32>, %n: i32) {
  return
}

func.func @plan(%p: i64) {
  // expected-error @+1 {{passes 1 arguments to 'k', which takes 2}}
  plan.launch @k[%p](%p) : i64
  return
}

// -----

func.func @k(%a: !tile.ptr<f32>, %n: i32) {
  return
}

func.func @plan(%p: i64, %n: i32) {
  // expected-error @+1 {{argument 0 is a 'i32', but 'k' takes a '!tile.ptr<f32>' (a buffer's i64 address for a pointer)}}
  plan.launch @k[%p](%n, %n) : i32, i32
  return
}

// -----

func.func @plan(%p: i64) {
  // expected-error @+1 {{frees only what plan.alloc gave}}
  plan.free %p
  return
}

// -----

// expected-error @+1 {{'plan.inputs' is an attribute of a launch plan's function}}
module attributes {plan.inputs = [tensor<4xf32>]} {
}

// -----

// expected-error @+1 {{'plan.inputs' must be an array of ranked tensor types}}
func.func @plan(%x: i64) attributes {plan.inputs = [i64], plan.outputs = []} {
  return
}

// -----

// expected-error @+1 {{a launch plan needs 'plan.outputs' with 'plan.inputs'}}
func.func @plan(%x: i64) attributes {plan.inputs = [tensor<4xf32>]} {
  return
}

// -----

// expected-error @+1 {{'plan.sizes' must name a size argument for each of 2 dynamic dimensions, not 1}}
func.func @plan(%x: i64, %y: i64, %n: i64) attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 0>} {
  return
}

// -----

// expected-error @+1 {{'plan.sizes' must number the size arguments in the order the inputs meet them}}
func.func @plan(%x: i64, %y: i64, %n: i64) attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 1, 0>} {
  return
}

// -----

// expected-error @+1 {{a launch plan takes 3 i64s (the buffers' addresses, then the sizes) and returns nothing}}
func.func @plan(%x: i64, %y: i64) attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 0, 0>} {
  return
}

// -----

// expected-error @+1 {{unknown plan attribute 'plan.grid'}}
func.func @plan() attributes {plan.grid = 1} {
  return
}
