// RUN: kiln-opt %s -split-input-file -tile-test-print-axis-info -verify-diagnostics

// The offsets of Triton's matmul tutorial, wrapped to stay in bounds:
// (pid * 128 + range) % n with n divisible by 16 keeps runs of 16 that
// start at multiples of 16, so fp16 rows still load 16 bytes at a time.
func.func @wrapped_offsets(%n: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [1], constant = 128}}
  %c128 = arith.constant 128 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id x
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [1]}}
  %start = arith.muli %pid, %c128 : i32
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [128], constancy = [128]}}
  %s = tile.splat %start : i32 -> tensor<128xi32>
  // expected-remark @+1 {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %offs = arith.addi %s, %r : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %wrapped = arith.remsi %offs, %ns : tensor<128xi32>
  // The quotient is constant over the same pieces.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %rows = arith.divsi %offs, %ns : tensor<128xi32>
  return
}

// -----

// A remainder by a constant larger than the block keeps the whole run; a
// dividend that is no run (a run times 2) leaves no run, and only what
// divides every element of both operands.
func.func @remainders(%x: tensor<64xi32>) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [256], constancy = [64], constant = 256}}
  %c256 = arith.constant dense<256> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [256], constancy = [1]}}
  %m = arith.remui %r, %c256 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [64], constant = 2}}
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [1]}}
  %even = arith.muli %r, %c2 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [1]}}
  %e = arith.remsi %even, %c256 : tensor<64xi32>
  // Nothing is known of a run's remainder by an unknown tile.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %u = arith.remsi %r, %x : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [64], constant = 1}}
  %c1 = arith.constant dense<1> : tensor<64xi32>
  // x % 1 is 0 everywhere; x / 1 is x.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [64]}}
  %zero = arith.remsi %r, %c1 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %same = arith.divsi %r, %c1 : tensor<64xi32>
  return
}

// -----

// min and max keep runs only where both operands are runs, and what
// divides both at the shorter runs' starts.
func.func @min_max(%a: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %s = tile.splat %a : i32 -> tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %run = arith.addi %r, %s : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %both = arith.maxsi %run, %r : tensor<64xi32>
  // A run against a splat: no run, and the run's elements divide by 1.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mixed = arith.minsi %r, %s : tensor<64xi32>
  // Two splats: what divides both.
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %splats = arith.minui %s, %s : tensor<64xi32>
  return
}

// -----

// select takes whole pieces from either side where its condition is
// constant over them; a scalar condition is constant over the tile.
func.func @selects(%a: i32 {tile.divisibility = 64 : i64}, %c: i1) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64]}}
  %s = tile.splat %a : i32 -> tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
  %run = arith.addi %r, %s : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
  %either = arith.select %c, %run, %r : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64], constant = 16}}
  %c16 = arith.constant dense<16> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %lt = arith.cmpi slt, %r, %c16 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %pieces = arith.select %lt, %run, %r : tensor<64xi1>, tensor<64xi32>
  return
}

// -----

// Hints replace what is derived: Triton's multiple_of and max_contiguous
// on an offset the analysis knows nothing of.
func.func @hints(%x: tensor<128xi32>, %p: !tile.ptr<f16>) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [128], constancy = [1]}}
  %h = tile.assume %x {contiguity = array<i64: 128>, divisibility = array<i64: 128>} : tensor<128xi32>
  // A divisibility that is no power of two counts as the power in it.
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [1]}}
  %d = tile.assume %x {divisibility = array<i64: 24>} : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %q = tile.assume %p {divisibility = array<i64: 16>} : !tile.ptr<f16>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [32]}}
  %k = tile.assume %x {constancy = array<i64: 32>} : tensor<128xi32>
  return
}

// -----

// Integer casts keep what is known of their source.
func.func @casts() {
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 32 : tensor<32xi32>
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %w = arith.extui %r : tensor<32xi32> to tensor<32xi64>
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %n = arith.trunci %w : tensor<32xi64> to tensor<32xi16>
  return
}

// -----

// In a K loop: the mask against K - k * 64 is constant over pieces of 16
// (what K's divisibility allows), and a pointer advanced by a
// loop-invariant step keeps what its start and the step share.
func.func @k_loop(%p: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %K: i32 {tile.divisibility = 16 : i64}, %n: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1], constant = 64}}
  %c64 = arith.constant 64 : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %p0 = tile.addptr %ps, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64], constant = 64}}
  %step = arith.constant dense<64> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%ptr = %p0) -> (tensor<64x!tile.ptr<f16>>) : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [1]}}
    %done = arith.muli %k, %c64 : i32
    // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
    %left = arith.subi %K, %done : i32
    // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
    %lefts = tile.splat %left : i32 -> tensor<64xi32>
    // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
    %mask = arith.cmpi slt, %r, %lefts : tensor<64xi32>
    // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
    %next = tile.addptr %ptr, %step : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f16>>
  }
  return
}

// -----

// Tutorial 08 states a hint on a loop-carried pointer before advancing it
// (`tl.multiple_of(a_ptrs, [16])` then `a_ptrs += BLOCK`): the argument
// keeps its contiguity through the hint, which adds its divisibility.
func.func @hinted_loop_pointer(%p: !tile.ptr<f16>, %n: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [64]}}
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1], constancy = [1]}}
  %p0 = tile.addptr %ps, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [64], constant = 64}}
  %step = arith.constant dense<64> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1], constancy = [1]}}
  %last = scf.for %k = %c0 to %n step %c1 iter_args(%ptr = %p0) -> (tensor<64x!tile.ptr<f16>>) : i32 {
    // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
    %hinted = tile.assume %ptr {divisibility = array<i64: 16>} : tensor<64x!tile.ptr<f16>>
    // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
    %next = tile.addptr %hinted, %step : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f16>>
  }
  return
}

// -----

// A transpose permutes the facts with the dimensions: a mask compared
// along rows (constant across each row) transposed is constant down each
// column, so a transposing copy's store (`mask=tl.trans(mask)`) stays
// vectorized.
func.func @transposed(%n: i32 {tile.divisibility = 16 : i64}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %rows = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark @+1 {{contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 32]}}
  %b = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 32]}}
  %ns = tile.splat %n : i32 -> tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [16, 32]}}
  %mask = arith.cmpi slt, %b, %ns : tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 16]}}
  %t = tile.trans %mask [1, 0] : tensor<64x32xi1> -> tensor<32x64xi1>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [32, 1]}}
  %tb = tile.trans %b [1, 0] : tensor<64x32xi32> -> tensor<32x64xi32>
  return
}
