// RUN: env KILN_CUDA_DRIVER=%t.no-driver KILN_ECHO=%t.no-echo kiln-capi-test 2>&1 | FileCheck %s --implicit-check-not=out-of-range \
// RUN:   --implicit-check-not="broken module parsed" --implicit-check-not=FAILED
//
// The C API used from C: parse, run a pipeline, print, and every failure
// reported as an error object with located diagnostics.

#include "kiln-c/Kiln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printError(KilnError *error) {
  printf("error: %s\n", kilnErrorGetMessage(error));
  for (size_t i = 0; i < kilnErrorGetNumDiagnostics(error); ++i) {
    const KilnDiagnostic *diag = kilnErrorGetDiagnostic(error, i);
    printf("  [%d] %s:%u:%u: %s\n", diag->severity, diag->file, diag->line,
           diag->column, diag->message);
  }
  if (kilnErrorGetDiagnostic(error, kilnErrorGetNumDiagnostics(error)))
    printf("out-of-range diagnostic is not NULL\n");
  kilnErrorDestroy(error);
}

static KilnModule *parseN(KilnContext *context, const char *text,
                          size_t length, const char *name) {
  KilnModule *module = NULL;
  KilnError *error =
      kilnModuleCreateParse(context, text, length, name, &module);
  if (error)
    printError(error);
  return module;
}

static KilnModule *parse(KilnContext *context, const char *text,
                         const char *name) {
  return parseN(context, text, strlen(text), name);
}

int main(void) {
  // CHECK: version 13
  printf("version %d\n", kilnGetAPIVersion());
  KilnContext *context = kilnContextCreate();

  // CHECK-LABEL: valid module
  // CHECK: func.func @f(%arg0: f32) -> tensor<4xf32>
  // CHECK-NEXT: arith.constant 2.000000e+00 : f32
  // CHECK-NEXT: tile.splat
  printf("valid module\n");
  const char *valid =
      "func.func @f(%x: f32) -> tensor<4xf32> {\n"
      "  %c = arith.constant 2.0 : f32\n"
      "  %s = tile.splat %c : f32 -> tensor<4xf32>\n"
      "  %t = tile.splat %x : f32 -> tensor<4xf32>\n"
      "  %u = arith.addf %s, %t : tensor<4xf32>\n"
      "  return %u : tensor<4xf32>\n"
      "}\n";
  KilnModule *module = parse(context, valid, "valid.mlir");
  printf("%s", kilnModuleGetText(module));

  // CHECK-LABEL: after canonicalize
  // CHECK: arith.constant dense<2.000000e+00> : tensor<4xf32>
  KilnError *error =
      kilnModuleRunPipeline(module, "builtin.module(canonicalize,cse)");
  printf("after canonicalize%s\n", error ? " FAILED" : "");
  printf("%s", kilnModuleGetText(module));
  // CHECK-LABEL: remarks of canonicalize:
  // CHECK-NEXT: end of remarks
  printf("remarks of canonicalize:\n%send of remarks\n",
         kilnModuleGetRemarks(module));

  // CHECK-LABEL: unknown pass
  // CHECK: error: invalid pass pipeline 'builtin.module(no-such-pass)': {{.*}}'no-such-pass' does not refer to a registered pass
  printf("unknown pass\n");
  printError(kilnModuleRunPipeline(module, "builtin.module(no-such-pass)"));

  // CHECK-LABEL: wrong anchor
  // CHECK: error: pass pipeline 'func.func(cse)' must be anchored on builtin.module
  printf("wrong anchor\n");
  printError(kilnModuleRunPipeline(module, "func.func(cse)"));
  kilnModuleDestroy(module);

  // A temporary that two transposing users read: kiln-fuse says why it
  // and they are kernels of their own.
  // CHECK-LABEL: remarks of kiln-fuse:
  // CHECK-NEXT: {"column":8,"file":"remarks.mlir","line":4,"message":"not fused with its neighbours: no rule joins a linalg.generic here {{.*}}","severity":"remark"}
  // CHECK-NEXT: {"column":8,"file":"remarks.mlir","line":7,
  // CHECK-NEXT: {"column":8,"file":"remarks.mlir","line":10,
  // CHECK-NEXT: end of remarks
  KilnModule *fused = parse(
      context,
      "func.func @t(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {\n"
      "  %e = math.exp %x : tensor<16x16xf32>\n"
      "  %l = math.log %e : tensor<16x16xf32>\n"
      "  %t = math.tanh %l : tensor<16x16xf32>\n"
      "  %empty = tensor.empty() : tensor<16x16xf32>\n"
      "  %y = linalg.transpose ins(%t : tensor<16x16xf32>) outs(%empty : tensor<16x16xf32>) permutation = [1, 0]\n"
      "  %s = math.sin %y : tensor<16x16xf32>\n"
      "  %empty2 = tensor.empty() : tensor<16x16xf32>\n"
      "  %z = linalg.transpose ins(%t : tensor<16x16xf32>) outs(%empty2 : tensor<16x16xf32>) permutation = [1, 0]\n"
      "  %c = math.cos %z : tensor<16x16xf32>\n"
      "  return %s, %c : tensor<16x16xf32>, tensor<16x16xf32>\n"
      "}\n",
      "remarks.mlir");
  if ((error = kilnModuleRunPipeline(
           fused, "builtin.module(convert-elementwise-to-linalg,kiln-fuse)")))
    printError(error);
  printf("remarks of kiln-fuse:\n%send of remarks\n",
         kilnModuleGetRemarks(fused));
  kilnModuleDestroy(fused);

  // CHECK-LABEL: verifier error
  // CHECK: error: failed to parse bad.mlir
  // CHECK-NEXT: [0] bad.mlir:2:8: 'tile.broadcast' op source shape 2x4 cannot be broadcast to result shape 8x4 (dimension 0 is 2, not 1 or 8)
  printf("verifier error\n");
  const char *bad =
      "func.func @g(%x: tensor<2x4xf32>) {\n"
      "  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>\n"
      "  return\n"
      "}\n";
  if (parse(context, bad, "bad.mlir"))
    printf("a broken module parsed\n");

  // CHECK-LABEL: error with a note
  // CHECK: [0] dup.mlir:2:3: redefinition of SSA value '%a'
  // CHECK-NEXT: [2] dup.mlir:1:{{[0-9]+}}: previously defined here
  printf("error with a note\n");
  const char *dup = "func.func @h(%a: i32) {\n"
                    "  %a = arith.constant 1 : i32\n"
                    "  return\n"
                    "}\n";
  if (parse(context, dup, "dup.mlir"))
    printf("a broken module parsed\n");

  // Text need not be NUL-terminated: only `length` bytes are read.
  // CHECK-LABEL: length
  // CHECK: module {
  // CHECK-NEXT: }
  printf("length\n");
  module = parseN(context, "module {} garbage", 9, "len.mlir");
  printf("%s", module ? kilnModuleGetText(module) : "");
  kilnModuleDestroy(module);

  // A kernel compiled for a chip without a GPU; each stage readable.
  // CHECK-LABEL: gpu binary
  // CHECK-NEXT: 128 threads, 0 bytes of dynamic shared memory, ptx has .entry twice: yes
  // CHECK-NEXT: remarks: 0 bytes
  // CHECK-NEXT: error: no stage 'sass' (llvm, ptx, cubin, ptxas-log, tensor-maps, remarks, timings or passes)
  // CHECK-NEXT: error: compiling for sm_42 failed
  // CHECK-NEXT: [0] twice.mlir:0:0: unknown chip 'sm_42' (known chips: {{.*}}sm_90a{{.*}})
  printf("gpu binary\n");
  const char *twice =
      "func.func @twice(%p: !tile.ptr<f32>) {\n"
      "  %r = tile.range 0 to 128 : tensor<128xi32>\n"
      "  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>\n"
      "  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, "
      "tensor<128xi32>\n"
      "  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>\n"
      "  %w = arith.addf %v, %v : tensor<128xf32>\n"
      "  tile.store %a, %w : tensor<128x!tile.ptr<f32>>, tensor<128xf32>\n"
      "  return\n"
      "}\n";
  module = parse(context, twice, "twice.mlir");
  KilnGPUBinary *binary = NULL;
  error = kilnGPUBinaryCreate(module, "sm_80", NULL, &binary);
  if (error) {
    printError(error);
  } else {
    const char *ptx = NULL;
    size_t size = 0;
    kilnGPUBinaryGetArtifact(binary, "ptx", &ptx, &size);
    printf("%u threads, %u bytes of dynamic shared memory, ptx has .entry "
           "twice: %s\n",
           kilnGPUBinaryGetThreadsPerBlock(binary),
           kilnGPUBinaryGetDynamicSharedBytes(binary),
           size && strstr(ptx, ".entry twice") ? "yes" : "no");
    // A kernel without loops: nothing to remark on.
    kilnGPUBinaryGetArtifact(binary, "remarks", &ptx, &size);
    printf("remarks: %zu bytes\n", size);
    if ((error = kilnGPUBinaryGetArtifact(binary, "sass", &ptx, &size)))
      printError(error);
  }
  KilnGPUBinary *none = NULL;
  KilnGPUOptions options = {4, 3, 0, 1};
  if ((error = kilnGPUBinaryCreate(module, "sm_42", &options, &none)))
    printError(error);
  if (none)
    printf("FAILED: a binary for sm_42\n");
  // CHECK-NEXT: limited to 32 registers: yes, mul.rn: yes
  // CHECK-NEXT: error: maxnreg must be positive, not -1
  const char *scale =
      "func.func @scale(%p: !tile.ptr<f32>) {\n"
      "  %r = tile.range 0 to 128 : tensor<128xi32>\n"
      "  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>\n"
      "  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, "
      "tensor<128xi32>\n"
      "  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>\n"
      "  %w = arith.mulf %v, %v : tensor<128xf32>\n"
      "  %x = arith.addf %w, %v : tensor<128xf32>\n"
      "  tile.store %a, %x : tensor<128x!tile.ptr<f32>>, tensor<128xf32>\n"
      "  return\n"
      "}\n";
  KilnModule *scaled = parse(context, scale, "scale.mlir");
  KilnGPUOptions limited = {4, 3, 32, 0};
  KilnGPUBinary *strict = NULL;
  if ((error = kilnGPUBinaryCreate(scaled, "sm_80", &limited, &strict))) {
    printError(error);
  } else {
    const char *ptx = NULL;
    size_t size = 0;
    kilnGPUBinaryGetArtifact(strict, "ptx", &ptx, &size);
    printf("limited to 32 registers: %s, mul.rn: %s\n",
           strstr(ptx, ".maxnreg 32") ? "yes" : "no",
           strstr(ptx, "mul.rn.f32") && !strstr(ptx, "fma.rn") ? "yes" : "no");
    kilnGPUBinaryDestroy(strict);
  }
  limited.maxRegisters = -1;
  if ((error = kilnGPUBinaryCreate(scaled, "sm_80", &limited, &strict)))
    printError(error);
  kilnModuleDestroy(scaled);

  // A binary from artifacts kept by a cache: they come back as given.
  // CHECK-LABEL: from artifacts
  // CHECK-NEXT: error: a GPU binary needs its PTX and its threads per block
  // CHECK-NEXT: error: tensor map line 1 is not 'kernel parameter dataType elementBytes boxRows boxColumns swizzle' and four source/value pairs: 'k 3 6 2'
  // CHECK-NEXT: ptx back: .version 8.0, 64 threads, 98304 bytes of dynamic shared memory
  // CHECK-NEXT: tensor maps back: k 3 6 2 64 64 128 0 8 -1 100 1 4 1 4
  printf("from artifacts\n");
  KilnGPUBinary *cached = NULL;
  if ((error = kilnGPUBinaryCreateFromArtifacts("", 0, NULL, 0, 64, 0, NULL,
                                                &cached)))
    printError(error);
  if ((error = kilnGPUBinaryCreateFromArtifacts(".version 8.0", 12, NULL, 0,
                                                64, 0, "k 3 6 2", &cached)))
    printError(error);
  if (!kilnGPUBinaryCreateFromArtifacts(
          ".version 8.0", 12, NULL, 0, 64, 98304,
          "k 3 6 2 64 64 128 0 8 -1 100 1 4 1 4\n", &cached)) {
    const char *ptx = NULL, *maps = NULL;
    size_t size = 0, mapsSize = 0;
    kilnGPUBinaryGetArtifact(cached, "ptx", &ptx, &size);
    kilnGPUBinaryGetArtifact(cached, "tensor-maps", &maps, &mapsSize);
    printf("ptx back: %.*s, %u threads, %u bytes of dynamic shared memory\n",
           (int)size, ptx, kilnGPUBinaryGetThreadsPerBlock(cached),
           kilnGPUBinaryGetDynamicSharedBytes(cached));
    printf("tensor maps back: %.*s", (int)mapsSize, maps);
    kilnGPUBinaryDestroy(cached);
  }

  // A launch plan of dynamic sizes, bound to inputs: its size argument
  // and its result's shape, or the input dimension it cannot take.
  // CHECK-LABEL: bind plan
  // CHECK-NEXT: 1 size: 5; result 5x8
  // CHECK-NEXT: error: input 1 of 'add', dimension 0: the function needs 8, not 7
  // CHECK-NEXT: error: input 0 of 'add' must have 2 dimensions, not 1
  // CHECK-NEXT: error: 'add' has 1 sizes and 2 result dimensions, more than there is room for
  printf("bind plan\n");
  KilnModule *plan = parse(
      context,
      "func.func @add(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> "
      "tensor<?x8xf32> {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %n = tensor.dim %x, %c0 : tensor<?x8xf32>\n"
      "  %e = tensor.empty(%n) : tensor<?x8xf32>\n"
      "  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
      "affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], "
      "iterator_types = [\"parallel\", \"parallel\"]} ins(%x, %b : "
      "tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {\n"
      "  ^bb0(%a: f32, %c: f32, %o: f32):\n"
      "    %s = arith.addf %a, %c : f32\n"
      "    linalg.yield %s : f32\n"
      "  } -> tensor<?x8xf32>\n"
      "  return %y : tensor<?x8xf32>\n"
      "}\n",
      "plan.mlir");
  if ((error =
           kilnModuleRunPipeline(plan, "builtin.module(kiln-fuse,kiln-tile)")))
    printError(error);
  size_t ranks[2] = {2, 1}, numSizes = 0;
  int64_t dims[3] = {5, 8, 8}, sizes[1] = {0}, resultDims[2] = {0, 0};
  if ((error = kilnModuleBindLaunchPlan(plan, "add", ranks, 2, dims, sizes, 1,
                                         &numSizes, resultDims, 2)))
    printError(error);
  else
    printf("%zu size: %lld; result %lldx%lld\n", numSizes,
           (long long)sizes[0], (long long)resultDims[0],
           (long long)resultDims[1]);
  int64_t wrong[3] = {5, 8, 7};
  size_t flat[2] = {1, 1};
  KilnError *refusals[3] = {
      kilnModuleBindLaunchPlan(plan, "add", ranks, 2, wrong, sizes, 1,
                               &numSizes, resultDims, 2),
      kilnModuleBindLaunchPlan(plan, "add", flat, 2, dims, sizes, 1, &numSizes,
                               resultDims, 2),
      kilnModuleBindLaunchPlan(plan, "add", ranks, 2, dims, sizes, 1,
                               &numSizes, resultDims, 1)};
  for (int i = 0; i < 3; ++i) {
    if (refusals[i])
      printError(refusals[i]);
    else
      printf("FAILED: bound\n");
  }
  kilnModuleDestroy(plan);

  // Loading needs a driver; without one, that is the error.
  // CHECK-LABEL: load
  // CHECK-NEXT: error: no CUDA driver: cannot open
  printf("load\n");
  KilnCudaModule *loaded = NULL;
  if ((error = kilnCudaModuleCreate(binary, 0, &loaded)))
    printError(error);
  kilnCudaModuleDestroy(loaded);
  kilnGPUBinaryDestroy(binary);
  kilnModuleDestroy(module);

  kilnContextDestroy(context);

  // The toolkit's programs, found as ptxas is: PATH, or $KILN_<NAME> alone
  // where it is set.
  // CHECK-LABEL: cuda programs
  // CHECK-NEXT: true: /{{.*}}/true
  // CHECK-NEXT: echo: none
  // CHECK-NEXT: kiln-no-such-program: none
  printf("cuda programs\n");
  const char *programs[] = {"true", "echo", "kiln-no-such-program"};
  for (size_t i = 0; i < sizeof programs / sizeof *programs; ++i) {
    const char *path = kilnFindCudaProgram(programs[i]);
    printf("%s: %s\n", programs[i], path ? path : "none");
  }

  // The assembler of cubins is the program at $KILN_PTXAS alone where that
  // is set, the PTX compiler library included.
  // CHECK-LABEL: ptx assembler
  // CHECK-NEXT: chosen: /{{.*}}/true
  // CHECK-NEXT: missing: none
  printf("ptx assembler\n");
  setenv("KILN_PTXAS", kilnFindCudaProgram("true"), 1);
  const char *chosen = kilnFindPtxAssembler();
  printf("chosen: %s\n", chosen ? chosen : "none");
  setenv("KILN_PTXAS", "/kiln-no-such-ptxas", 1);
  const char *missing = kilnFindPtxAssembler();
  printf("missing: %s\n", missing ? missing : "none");
  unsetenv("KILN_PTXAS");

  // CHECK: done
  printf("done\n");
  return 0;
}
