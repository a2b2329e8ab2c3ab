// RUN: kiln-capi-test 2>&1 | FileCheck %s --implicit-check-not=out-of-range \
// RUN:   --implicit-check-not="broken module parsed" --implicit-check-not=FAILED
//
// The C API used from C: parse, run a pipeline, print, and every failure
// reported as an error object with located diagnostics.

#include "kiln-c/Kiln.h"

#include <stdio.h>
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
  // CHECK: version 1
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

  // CHECK-LABEL: unknown pass
  // CHECK: error: invalid pass pipeline 'builtin.module(no-such-pass)': {{.*}}'no-such-pass' does not refer to a registered pass
  printf("unknown pass\n");
  printError(kilnModuleRunPipeline(module, "builtin.module(no-such-pass)"));

  // CHECK-LABEL: wrong anchor
  // CHECK: error: pass pipeline 'func.func(cse)' must be anchored on builtin.module
  printf("wrong anchor\n");
  printError(kilnModuleRunPipeline(module, "func.func(cse)"));
  kilnModuleDestroy(module);

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

  kilnContextDestroy(context);
  // CHECK: done
  printf("done\n");
  return 0;
}
