// tile.extern_elementwise run on the host target: each element a call of
// the C math library's function that the op names with `host`, resolved
// from the process by the host executable; checked against Python's math
// module and (for jn, which it lacks) libm through ctypes, computed in
// double precision. Two operands of one type (hypotf), one (lgammaf), an
// i32 and an f32 in either order (jnf, ldexpf), and scalars.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 -c "import ctypes, ctypes.util, math, numpy as np; libm = ctypes.CDLL(ctypes.util.find_library('m')); libm.jn.restype = ctypes.c_double; libm.jn.argtypes = [ctypes.c_int, ctypes.c_double]; rng = np.random.default_rng(11); x = rng.uniform(0.25, 8, 64).astype(np.float32); y = rng.uniform(-5, 5, 64).astype(np.float32); n = rng.integers(-3, 6, 64).astype(np.int32); [np.save('%t/' + name + '.npy', value) for name, value in [('x', x), ('y', y), ('n', n), ('h', [math.hypot(a, b) for a, b in zip(x.tolist(), y.tolist())]), ('g', [math.lgamma(a) for a in x.tolist()]), ('j', [libm.jn(k, a) for k, a in zip(n.tolist(), x.tolist())]), ('l', [math.ldexp(a, k) for a, k in zip(x.tolist(), n.tolist())]), ('s', [math.hypot(3, 4), math.ldexp(3, 4)])]]"
// RUN: kiln-run %s --kernel=libm_calls --arg=@%t/x.npy --arg=@%t/y.npy --arg=@%t/n.npy --arg='f32[64]=zeros' --arg='f32[64]=zeros' --arg='f32[64]=zeros' --arg='f32[64]=zeros' --expect=3=%t/h.npy --expect=4=%t/g.npy --expect=5=%t/j.npy --expect=6=%t/l.npy | FileCheck %s --check-prefix=TILES
// RUN: kiln-run %s --kernel=scalar_calls --arg='f32[2]=zeros' --arg=f32=3 --arg=f32=4 --arg=i32=4 --expect=0=%t/s.npy | FileCheck %s --check-prefix=SCALARS

// TILES: arg3 against {{.*}}h.npy: max error {{.*}} ok
// TILES: arg4 against {{.*}}g.npy: max error {{.*}} ok
// TILES: arg5 against {{.*}}j.npy: max error {{.*}} ok
// TILES: arg6 against {{.*}}l.npy: max error {{.*}} ok
func.func @libm_calls(%px: !tile.ptr<f32>, %py: !tile.ptr<f32>, %pn: !tile.ptr<i32>,
                      %ph: !tile.ptr<f32>, %pg: !tile.ptr<f32>, %pj: !tile.ptr<f32>, %pl: !tile.ptr<f32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %xp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %ys = tile.splat %py : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %y = tile.load %yp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %ns = tile.splat %pn : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %np = tile.addptr %ns, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %n = tile.load %np : tensor<64x!tile.ptr<i32>> -> tensor<64xi32>
  %h = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %y : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %g = tile.extern_elementwise "__nv_lgammaf" host "lgammaf" pure %x : (tensor<64xf32>) -> tensor<64xf32>
  %j = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %x : (tensor<64xi32>, tensor<64xf32>) -> tensor<64xf32>
  %l = tile.extern_elementwise "__nv_ldexpf" host "ldexpf" pure %x, %n : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32>
  %hs = tile.splat %ph : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %hp = tile.addptr %hs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %hp, %h : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  %gs = tile.splat %pg : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %gp = tile.addptr %gs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %gp, %g : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  %js = tile.splat %pj : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %jp = tile.addptr %js, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %jp, %j : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  %ls = tile.splat %pl : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %lp = tile.addptr %ls, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %lp, %l : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// hypotf(3, 4) and ldexpf(3, 4) on scalars.
// SCALARS: arg0 against {{.*}}s.npy: max error 0 ok
func.func @scalar_calls(%p: !tile.ptr<f32>, %a: f32, %b: f32, %k: i32) {
  %h = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %a, %b : (f32, f32) -> f32
  %l = tile.extern_elementwise "__nv_ldexpf" host "ldexpf" pure %a, %k : (f32, i32) -> f32
  tile.store %p, %h : !tile.ptr<f32>, f32
  %c1 = arith.constant 1 : i32
  %q = tile.addptr %p, %c1 : !tile.ptr<f32>, i32
  tile.store %q, %l : !tile.ptr<f32>, f32
  return
}
