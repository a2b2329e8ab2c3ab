// Without --kernel, kiln-run runs the module's only public function; a
// module of several says which it has (private helpers do not count).
// RUN: not kiln-run %s 2>&1 | FileCheck %s
// CHECK: kiln-run: {{.*}}kernel-choice.mlir has 2 public functions (first, second): name the one to run with --kernel
// RUN: KILN_TARGET=host kiln-run %s --kernel=second | FileCheck %s --check-prefix=NAMED
// NAMED: kernel second on host
func.func @first() {
  return
}
func.func @second() {
  return
}
func.func private @helper() {
  return
}
