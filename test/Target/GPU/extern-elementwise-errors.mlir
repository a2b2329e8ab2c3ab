// REQUIRES: libdevice
// RUN: kiln-translate %s -split-input-file --chip=sm_90a -verify-diagnostics

// tile.extern_elementwise names its libdevice function as it likes: a name
// libdevice lacks, or a function called with other types than libdevice
// gives it, is an error at the op, not a call ptxas cannot resolve or one
// through the wrong prototype.
func.func @unknown_function(%p: !tile.ptr<f32>, %x: f32) {
  // expected-error-re @+1 {{'__nv_frobnicatef' is not a libdevice function ({{.*}}libdevice.10.bc has none of that name)}}
  %y = tile.extern_elementwise "__nv_frobnicatef" pure %x : (f32) -> f32
  tile.store %p, %y : !tile.ptr<f32>, f32
  return
}

// -----

func.func @wrong_types(%p: !tile.ptr<f64>, %x: f64) {
  // expected-error @+1 {{'__nv_hypotf' is called as 'double (double, double)', but libdevice defines it as 'float (float, float)'}}
  %y = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %x : (f64, f64) -> f64
  tile.store %p, %y : !tile.ptr<f64>, f64
  return
}
