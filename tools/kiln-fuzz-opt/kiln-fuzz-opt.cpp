//===- kiln-fuzz-opt.cpp - libFuzzer target over Kiln's pipeline ----------===//
//
// Each input is tile IR text, taken through Kiln as kiln-opt,
// kiln-translate and kiln-run would take it. Diagnostics and failures are
// the right answer to broken input and are dropped; what the fuzzer
// reports is a bug: a crash, a sanitizer report, a pass that succeeds but
// leaves IR that does not verify, or printed IR that does not parse again.
//
// The stages, all run by default; `--stages=parse,passes` (any of them,
// comma-separated) runs some, and `--passes=canonicalize,kiln-fuse` some of
// the passes stage's passes (named by their kiln-opt argument). libFuzzer
// leaves flags with two dashes to the target.
//   parse   parse and verify in a fresh context, print, parse the print.
//   passes  each Kiln pass alone on a copy, with canonicalize and cse
//           (which run the tile dialect's folds and patterns).
//   gpu     kiln-gpu-lowering, then LLVM IR and PTX, for sm_80 and for
//           sm_90a (no cubin: ptxas is not Kiln's to fuzz).
//   host    kiln-host-lowering, then LLVM IR.
//   array   convert-elementwise-to-linalg, kiln-fuse, kiln-tile and
//           canonicalize, then, when that made a launch plan, the host
//           lowering and LLVM IR, as kiln-run does for an array function.
//
//===----------------------------------------------------------------------===//

#include "kiln/Array/Passes.h"
#include "kiln/Array/Pipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/Passes.h"
#include "kiln/InitAll.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Target/GPU/GPUCompiler.h"
#include "kiln/Target/GPU/GPUPipeline.h"
#include "kiln/Target/Host/HostPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <unistd.h>

using namespace mlir;

namespace {

enum Stage : unsigned {
  ParseStage = 1 << 0,
  PassesStage = 1 << 1,
  GPUStage = 1 << 2,
  HostStage = 1 << 3,
  ArrayStage = 1 << 4,
  AllStages = (1 << 5) - 1,
};

/// A pass manager's own verifier turns a pass that breaks the IR into a
/// diagnostic, which the fuzzer drops; this makes it a crash instead.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    ScopedDiagnosticHandler collect(op->getContext(), [&](Diagnostic &diag) {
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "kiln-fuzz-opt: pass '"
                 << (pass->getArgument().empty() ? pass->getName()
                                                 : pass->getArgument())
                 << "' succeeded but left IR that does not verify:\n"
                 << errors;
    abort();
  }
};

} // namespace

static unsigned selectedStages = AllStages;
/// The passes stage's passes to run, by argument; empty runs all.
static llvm::StringSet<> selectedPasses;

static const DialectRegistry &getRegistry() {
  static const DialectRegistry registry = [] {
    DialectRegistry registry;
    kiln::registerAllDialects(registry);
    return registry;
  }();
  return registry;
}

/// Runs the passes `build` adds on a copy of `module`. Returns the copy, or
/// null when a pass failed.
static OwningOpRef<ModuleOp>
runOnCopy(ModuleOp module, llvm::function_ref<void(OpPassManager &)> build) {
  OwningOpRef<ModuleOp> copy(module.clone());
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  build(pm);
  if (failed(pm.run(*copy)))
    return nullptr;
  return copy;
}

/// Skips blanks and `//` comments, as MLIR's lexer does.
static StringRef skipBlanks(StringRef text) {
  for (text = text.ltrim(); text.starts_with("//"); text = text.ltrim())
    text = text.drop_until([](char c) { return c == '\n'; });
  return text;
}

/// Whether `text` starts with `[`, integers that fit in 64 bits separated by
/// commas, and `]`.
static bool startsWithIntegerList(StringRef text) {
  if (!text.consume_front("["))
    return false;
  for (text = skipBlanks(text); !text.consume_front("]");) {
    text.consume_front("-");
    bool hex = text.consume_front("0x");
    size_t digits = text.find_if_not(
        [&](char c) { return hex ? llvm::isHexDigit(c) : llvm::isDigit(c); });
    if (digits == 0 || digits == StringRef::npos || digits > 15 ||
        llvm::isAlnum(text[digits]) || text[digits] == '_')
      return false;
    text = skipBlanks(text.drop_front(digits));
    if (text.consume_front(","))
      text = skipBlanks(text);
    else if (!text.starts_with("]"))
      return false;
  }
  return true;
}

/// Whether `text` may reach a crash in MLIR 22's own parser, which Kiln
/// cannot intercept (docs/robustness.md): a dense array of `index` elements,
/// spelled or through a type alias (llvm/llvm-project#179045), or a
/// `permutation` or `dimensions` of the linalg ops that is not a list of
/// integers, or properties of a linalg op that are not a dictionary
/// (`linalg.tanh<6>`: its parser takes them for one).
static bool reachesKnownMLIRCrash(StringRef text) {
  for (size_t at = text.find("linalg."); at != StringRef::npos;
       at = text.find("linalg.", at + 1)) {
    // An op, not an attribute (#linalg.iterator_type<parallel>).
    if (at > 0 && text[at - 1] == '#')
      continue;
    StringRef rest = text.drop_front(at + 7).drop_while(
        [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
    rest = skipBlanks(rest);
    if (rest.starts_with("{")) {
      // Past the attribute dictionary, its braces balanced.
      int depth = 0;
      size_t end = 0;
      for (; end < rest.size(); ++end)
        if (rest[end] == '{')
          ++depth;
        else if (rest[end] == '}' && --depth == 0)
          break;
      // An unclosed dictionary: a parse error, not the crash.
      if (end == rest.size())
        continue;
      rest = skipBlanks(rest.drop_front(end + 1));
    }
    if (rest.consume_front("<") && !skipBlanks(rest).starts_with("{"))
      return true;
  }
  for (size_t at = text.find("array"); at != StringRef::npos;
       at = text.find("array", at + 1)) {
    StringRef rest = skipBlanks(text.drop_front(at + 5));
    if (rest.consume_front("<") && (skipBlanks(rest).starts_with("index") ||
                                    skipBlanks(rest).starts_with("!")))
      return true;
  }
  for (StringRef keyword : {"permutation", "dimensions"})
    for (size_t at = text.find(keyword); at != StringRef::npos;
         at = text.find(keyword, at + 1)) {
      StringRef rest = skipBlanks(text.drop_front(at + keyword.size()));
      if (rest.consume_front("=") && !startsWithIntegerList(skipBlanks(rest)))
        return true;
    }
  return false;
}

static void checkRoundTrip(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (parseSourceString<ModuleOp>(text, ParserConfig(module.getContext())))
    return;
  llvm::errs() << "kiln-fuzz-opt: the printed module does not parse again:\n"
               << text;
  abort();
}

using PassFactory = std::function<std::unique_ptr<Pass>()>;

/// The passes stage's passes.
static ArrayRef<PassFactory> getPassFactories() {
  static const PassFactory factories[] = {
      [] { return createCanonicalizerPass(); },
      [] { return createCSEPass(); },
      [] {
        kiln::KilnFusePassOptions options;
        options.report = true;
        return kiln::createKilnFusePass(options);
      },
      [] { return kiln::createKilnTilePass(); },
      [] { return kiln::createKilnCostReportPass(); },
      [] { return kiln::tilegpu::createTileAssignLayoutsPass(); },
      [] {
        kiln::tilegpu::TileSpecializeArgumentsPassOptions options;
        options.divisible.push_back(0);
        return kiln::tilegpu::createTileSpecializeArgumentsPass(options);
      },
      [] { return kiln::createConvertTileToHostPass(); },
      [] {
        kiln::ConvertTileToHostPassOptions options;
        options.boundsCheck = true;
        return kiln::createConvertTileToHostPass(options);
      },
      [] { return kiln::createConvertTileToGPUPass(); },
  };
  return factories;
}

static void runEachPass(ModuleOp module) {
  for (const PassFactory &factory : getPassFactories()) {
    std::unique_ptr<Pass> pass = factory();
    if (!selectedPasses.empty() && !selectedPasses.count(pass->getArgument()))
      continue;
    runOnCopy(module, [&](OpPassManager &pm) { pm.addPass(std::move(pass)); });
  }
}

/// Lowers and compiles for each chip the test suite checks: the lowering
/// depends on the chip (tensor cores).
static void compileForGPU(ModuleOp module) {
  for (StringRef chip : {"sm_80", "sm_90a"}) {
    kiln::gpu::GPUCompileOptions options;
    options.target.chip = chip.str();
    options.assemble = false;
    OwningOpRef<ModuleOp> lowered = runOnCopy(module, [&](OpPassManager &pm) {
      kiln::gpu::GPULoweringOptions lowering;
      lowering.numWarps = options.numWarps;
      lowering.computeCapability = kiln::gpu::getCapabilityOfChip(chip);
      kiln::gpu::buildGPULoweringPipeline(pm, lowering);
    });
    if (lowered)
      (void)kiln::gpu::compileForGPU(*lowered, options);
  }
}

/// Runs the passes `build` adds, then the host lowering, and translates the
/// result to LLVM IR, as the host target does before its JIT.
static void
compileForHost(ModuleOp module,
               llvm::function_ref<void(OpPassManager &)> build = {}) {
  OwningOpRef<ModuleOp> lowered = runOnCopy(module, [&](OpPassManager &pm) {
    if (build)
      build(pm);
    kiln::host::buildHostLoweringPipeline(pm,
                                          kiln::host::HostLoweringOptions());
  });
  if (!lowered)
    return;
  llvm::LLVMContext llvmContext;
  (void)translateModuleToLLVMIR(*lowered, llvmContext);
}

static void compileArrayProgram(ModuleOp module) {
  OwningOpRef<ModuleOp> tiled = runOnCopy(
      module, [](OpPassManager &pm) { kiln::buildArrayPipeline(pm); });
  // A module of tile kernels alone is the host stage's.
  if (!tiled ||
      llvm::none_of(tiled->getOps<func::FuncOp>(),
                    [](func::FuncOp func) { return kiln::plan::isPlan(func); }))
    return;
  compileForHost(*tiled);
}

/// Calls `add` with each name of a comma-separated list flag `--<flag>=`;
/// exits when `add` refuses one.
static void parseListFlag(StringRef arg, StringRef flag, StringRef known,
                          llvm::function_ref<bool(StringRef)> add) {
  SmallVector<StringRef> names;
  arg.split(names, ',');
  for (StringRef name : names) {
    if (add(name))
      continue;
    llvm::errs() << "kiln-fuzz-opt: unknown name '" << name << "' in --" << flag
                 << " (" << known << ")\n";
    exit(1);
  }
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  std::string passNames;
  llvm::StringSet<> knownPasses;
  for (const PassFactory &factory : getPassFactories()) {
    StringRef name = factory()->getArgument();
    if (knownPasses.insert(name).second)
      passNames += (passNames.empty() ? "" : ", ") + name.str();
  }
  for (int i = 1; i < *argc; ++i) {
    StringRef arg((*argv)[i]);
    if (arg.consume_front("--stages=")) {
      selectedStages = 0;
      parseListFlag(arg, "stages", "parse, passes, gpu, host, array",
                    [](StringRef name) {
                      unsigned stage = llvm::StringSwitch<unsigned>(name)
                                           .Case("parse", ParseStage)
                                           .Case("passes", PassesStage)
                                           .Case("gpu", GPUStage)
                                           .Case("host", HostStage)
                                           .Case("array", ArrayStage)
                                           .Default(0);
                      selectedStages |= stage;
                      return stage != 0;
                    });
    } else if (arg.consume_front("--passes=")) {
      parseListFlag(arg, "passes", passNames, [&](StringRef name) {
        selectedPasses.insert(name);
        return knownPasses.contains(name);
      });
    }
  }
  // The cost report passes print to stdout; libFuzzer reports on stderr.
  int devNull = open("/dev/null", O_WRONLY);
  if (devNull >= 0) {
    dup2(devNull, STDOUT_FILENO);
    close(devNull);
  }
  getRegistry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef text(reinterpret_cast<const char *>(data), size);
  if (reachesKnownMLIRCrash(text))
    return -1;
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler dropDiagnostics(
      &context, [](Diagnostic &) { return success(); });
  // The lexer relies on the terminating NUL that the copy adds.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "input"), llvm::SMLoc());
  // As Kiln's tools and C API do: input nested too deep is refused.
  if (failed(kiln::checkNestingDepth(sourceMgr, &context)))
    return 0;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 0;
  if (selectedStages & ParseStage)
    checkRoundTrip(*module);
  if (selectedStages & PassesStage)
    runEachPass(*module);
  if (selectedStages & GPUStage)
    compileForGPU(*module);
  if (selectedStages & HostStage)
    compileForHost(*module);
  if (selectedStages & ArrayStage)
    compileArrayProgram(*module);
  return 0;
}
