// Each tool's --help lists its own options, by category, and MLIR's where
// it takes them; LLVM's own (its code generators', Polly's), registered by
// the libraries the tools link, are under --help-hidden, where they still
// work.
// RUN: kiln-opt --help | FileCheck %s --check-prefix=OPT
// RUN: kiln-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: kiln-translate --help | FileCheck %s --check-prefix=TRANSLATE
// RUN: kiln-translate --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: kiln-run --help | FileCheck %s --check-prefix=LAUNCHER
// RUN: kiln-run --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: kiln-opt %s --amdgpu-dpp-combine | FileCheck %s --check-prefix=STILL

// OPT: General options:
// OPT-NOT: --amdgpu
// OPT-NOT: --polly
// OPT: Compiler passes to run
// OPT: --tile-assign-layouts
// OPT: --tile-pipeline-loops
// OPT: --mlir-print-ir-after-all
// OPT: --mlir-timing
// OPT: Generic Options:
// OPT: --version
// OPT-NOT: --amdgpu
// OPT-NOT: --polly

// HIDDEN: --amdgpu-dpp-combine

// TRANSLATE-NOT: --amdgpu
// TRANSLATE: --mlir-print-ir-after-all
// TRANSLATE: --mlir-timing
// TRANSLATE: kiln-translate options:
// TRANSLATE: --chip=<string>
// TRANSLATE: --num-stages=
// TRANSLATE-NOT: --amdgpu

// LAUNCHER-NOT: --amdgpu
// LAUNCHER: Checking and timing:
// LAUNCHER: --check=<host|none>
// LAUNCHER: --expect=<i=file.npy>
// LAUNCHER: --repeat=<n>
// LAUNCHER: Generic Options:
// LAUNCHER: The kernel and its arguments:
// LAUNCHER: --arg=<spec> - One per kernel argument, in order: TYPE[N]=INIT a new array of N elements (INIT rand, iota or zeros: f32[4096]=rand), TYPE=VALUE a scalar (i32=7, f32=0.5), @FILE.npy an array read from a file
// LAUNCHER: --kernel=<name> - The function to run (default: the module's only public function)
// LAUNCHER: Where it runs:
// LAUNCHER: --target=<host|gpu> - Where the kernel runs (default: $KILN_TARGET, else the GPU where the CUDA driver finds one, else the host)
// LAUNCHER-NOT: --amdgpu

// STILL: func.func @f
func.func @f() {
  return
}
