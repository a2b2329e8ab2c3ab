//===- kiln-run.cpp - Compile and run one tile kernel ---------------------===//
//
// kiln-run FILE [--kernel=NAME] --grid=X[,Y[,Z]] --arg=SPEC... [--target=host|gpu]
//
// Each --arg gives one kernel argument, in order:
//   TYPE[COUNT]=INIT  a fresh array of COUNT elements for a pointer argument;
//                     INIT is zeros, iota (0, 1, 2, ...) or rand (uniform in
//                     [-1, 1), seeded)
//   TYPE=VALUE        a scalar
//   @FILE.npy         an array read from a .npy file (type and size from it)
// TYPE is one of i8 i16 i32 i64 f16 bf16 f32 f64. After the launches every array is
// summarised (sum, minimum, maximum, first elements), and the median time of
// a launch is printed.
//
// The target is --target, else $KILN_TARGET, else the GPU where a CUDA
// driver and device are found and the host otherwise. On the GPU the
// kernel is specialized for the launch (arrays are 16-byte aligned, integer
// arguments divisible by 16 are marked so), compiled for the device's chip
// with --num-warps warps per program, run once and checked against the
// host target on the same inputs (--check=none skips that), then timed with
// device events over --repeat launches (default 5): median time, GB/s
// counting every array once, and TFLOP/s when --flops gives the kernel's
// FLOP count. On either target the first launch warms up and is the one
// checked and summarized; only the launches after it are timed.
// Asked for the GPU without one, it says so in one line and exits with 77.
//
// --expect=I=FILE.npy compares array argument I after the first launch with
// the file (within --tolerance) on either target; a mismatch exits with 1.
// --save=I=FILE.npy writes array argument I after the first launch.
//
// kiln-run FILE --kernel=NAME --init=rand|iota|zeros [--dims=N,...] [--report]
//
// When NAME is an array function (arguments and results are tensors), it is
// fused, tiled and run as a launch plan on generated inputs instead, on the
// host or (its tile kernels compiled for the device, its temporaries in
// device memory) on the GPU, checked against the host there; its results
// are summarised, and --report prints the cost report before and after
// fusion. --dims gives the sizes of the inputs' dynamic dimensions, in
// order; the plan checks they agree and gives the results' shapes.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "kiln/Array/CostModel.h"
#include "kiln/Array/LaunchPlan.h"
#include "kiln/Array/Pipeline.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/Passes.h"
#include "kiln/InitAll.h"
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/PlanExecutor.h"
#include "kiln/Support/CommandLine.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Support/Version.h"
#include "kiln/Target/GPU/GPUCompiler.h"
#include "kiln/Target/Host/HostExecutable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory kernelOptions("The kernel and its arguments");
static cl::OptionCategory targetOptions("Where it runs");
static cl::OptionCategory checkOptions("Checking and timing");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::Required, cl::cat(kernelOptions));
static cl::opt<std::string>
    kernelName("kernel",
               cl::value_desc("name"),
               cl::desc("The function to run (default: the module's only "
                        "public function)"),
               cl::cat(kernelOptions));
static cl::opt<std::string>
    gridSpec("grid", cl::value_desc("x[,y[,z]]"),
             cl::desc("Programs along each axis (default 1)"),
             cl::init("1"), cl::cat(kernelOptions));
static cl::list<std::string> argSpecs(
    "arg",
    cl::value_desc("spec"),
    cl::desc("One per kernel argument, in order: TYPE[N]=INIT a new array "
             "of N elements (INIT rand, iota or zeros: f32[4096]=rand), "
             "TYPE=VALUE a scalar (i32=7, f32=0.5), @FILE.npy an array read "
             "from a file; TYPE is i8 i16 i32 i64 f16 bf16 f32 f64"),
    cl::ZeroOrMore, cl::cat(kernelOptions));
static cl::opt<unsigned> seed("seed",
                              cl::value_desc("n"),
                              cl::desc("Seed of the rand arrays"),
                              cl::init(0), cl::cat(kernelOptions));
static cl::opt<std::string>
    initName("init",
             cl::value_desc("rand|iota|zeros"),
             cl::desc("Inputs of an array function (default rand)"),
             cl::init("rand"), cl::cat(kernelOptions));
static cl::list<int64_t> dynamicSizes(
    "dims",
    cl::value_desc("n,..."),
    cl::desc("Sizes of the dynamic dimensions of an array function's "
             "inputs, in order"),
    cl::CommaSeparated, cl::cat(kernelOptions));
static cl::opt<std::string> targetName(
    "target",
    cl::value_desc("host|gpu"),
    cl::desc("Where the kernel runs (default: $KILN_TARGET, else the GPU "
             "where the CUDA driver finds one, else the host)"),
    cl::init(""), cl::cat(targetOptions));
static cl::opt<bool> checkBounds(
    "check-bounds",
    cl::desc("Host target: check every memory access against the array its "
             "pointer came from (default; --check-bounds=false turns it off)"),
    cl::init(true), cl::cat(targetOptions));
static cl::opt<unsigned>
    threads("launch-threads",
            cl::value_desc("n"),
            cl::desc("Host target: threads a launch runs on (default 1)"),
            cl::init(1), cl::cat(targetOptions));
static cl::opt<int64_t>
    numWarps("num-warps",
             cl::value_desc("n"),
             cl::desc("GPU: warps per program, a power of two (default 4)"),
             cl::init(4), cl::cat(targetOptions));
static cl::opt<int64_t>
    numStages("num-stages",
              cl::value_desc("n"),
              cl::desc("GPU: depth of the software pipeline of loops "
                       "feeding tensor cores (default 3; 1 turns it off)"),
              cl::init(3), cl::cat(targetOptions));
static cl::opt<unsigned> repeat(
    "repeat", cl::value_desc("n"),
    cl::desc("Launches timed after the first, which warms up and is the one "
             "checked and summarized; their median is printed (default 5)"),
    cl::init(5), cl::cat(checkOptions));
static cl::opt<double> flops("flops",
                             cl::value_desc("n"),
                             cl::desc("FLOPs of one launch, for TFLOP/s"),
                             cl::init(0), cl::cat(checkOptions));
static cl::opt<std::string> checkMode(
    "check",
    cl::value_desc("host|none"),
    cl::desc("GPU: compare the first launch's arrays with the host "
             "target's (default host)"),
    cl::init("host"), cl::cat(checkOptions));
static cl::opt<double> tolerance(
    "tolerance",
    cl::value_desc("x"),
    cl::desc("Largest error --check and --expect accept, relative "
             "(absolute below 1; default 1e-5)"),
    cl::init(1e-5), cl::cat(checkOptions));
static cl::list<std::string>
    expectations("expect",
                 cl::value_desc("i=file.npy"),
                 cl::desc("What array argument I must hold after the first "
                          "launch, on either target"),
                 cl::cat(checkOptions));
static cl::list<std::string>
    saves("save",
          cl::value_desc("i=file.npy"),
          cl::desc("Write array argument I after the first launch"),
          cl::cat(checkOptions));
static cl::opt<bool> report("report",
                            cl::desc("Print the cost report of an array "
                                     "function before and after fusion"),
                            cl::init(false), cl::cat(checkOptions));

namespace {
/// One kernel argument: an array (bytes held here) or a scalar (its bytes).
struct Argument {
  std::string spec;
  std::string type;
  bool isArray = false;
  int64_t count = 1;
  std::vector<char> bytes;
  int64_t address = 0; // for arrays, what the kernel receives
};
} // namespace

/// The median wall-clock seconds of `times` runs of `run` (0 for none),
/// or failure when a run fails.
static FailureOr<double> timeOnHost(unsigned times,
                                    llvm::function_ref<bool()> run) {
  std::vector<double> seconds;
  for (unsigned i = 0; i < times; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!run())
      return failure();
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  if (seconds.empty())
    return 0.0;
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

static int elementBytes(StringRef type) {
  return llvm::StringSwitch<int>(type)
      .Case("i8", 1)
      .Cases({"i16", "f16", "bf16"}, 2)
      .Cases({"i32", "f32"}, 4)
      .Cases({"i64", "f64"}, 8)
      .Default(0);
}

/// Stores `value` as element `i` of `bytes`, in `type`.
static void storeElement(std::vector<char> &bytes, StringRef type, int64_t i,
                         double value) {
  char *at = bytes.data() + i * elementBytes(type);
  auto put = [&](auto v) { std::memcpy(at, &v, sizeof(v)); };
  if (type == "i8")
    put(static_cast<int8_t>(value));
  else if (type == "i16")
    put(static_cast<int16_t>(value));
  else if (type == "i32")
    put(static_cast<int32_t>(value));
  else if (type == "i64")
    put(static_cast<int64_t>(value));
  else if (type == "f32")
    put(static_cast<float>(value));
  else if (type == "f16" || type == "bf16") {
    llvm::APFloat half(value);
    bool lossy;
    half.convert(type == "f16" ? llvm::APFloat::IEEEhalf()
                               : llvm::APFloat::BFloat(),
                 llvm::APFloat::rmNearestTiesToEven, &lossy);
    put(static_cast<uint16_t>(half.bitcastToAPInt().getZExtValue()));
  }
  else
    put(value);
}

static double loadElement(const std::vector<char> &bytes, StringRef type,
                          int64_t i) {
  const char *at = bytes.data() + i * elementBytes(type);
  auto get = [&](auto v) {
    std::memcpy(&v, at, sizeof(v));
    return static_cast<double>(v);
  };
  if (type == "i8")
    return get(int8_t());
  if (type == "i16")
    return get(int16_t());
  if (type == "i32")
    return get(int32_t());
  if (type == "i64")
    return get(int64_t());
  if (type == "f32")
    return get(float());
  if (type == "f16" || type == "bf16") {
    uint16_t bits;
    std::memcpy(&bits, at, sizeof(bits));
    return llvm::APFloat(type == "f16" ? llvm::APFloat::IEEEhalf()
                                       : llvm::APFloat::BFloat(),
                         llvm::APInt(16, bits))
        .convertToDouble();
  }
  return get(double());
}

/// The machine's physical memory, in bytes.
static uint64_t hostMemoryBytes() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
}

/// Parses the value of a scalar --arg of `type` into `arg`'s bytes: an
/// integer exactly, a float rounded to the type; on failure (not a number,
/// or out of the type's range) returns a message.
static std::optional<std::string> parseScalar(StringRef text, Argument &arg) {
  StringRef type = arg.type;
  arg.bytes.resize(elementBytes(type));
  if (type.starts_with("i")) {
    int64_t integer;
    unsigned bits = elementBytes(type) * 8;
    if (text.getAsInteger(0, integer) ||
        (bits < 64 && (integer < -(int64_t(1) << (bits - 1)) ||
                       integer >= (int64_t(1) << (bits - 1)))))
      return "'" + text.str() + "' is not an integer that fits in " +
             type.str();
    // Little-endian: the low bytes are the narrower integer.
    std::memcpy(arg.bytes.data(), &integer, arg.bytes.size());
    return std::nullopt;
  }
  double value;
  if (text.getAsDouble(value))
    return "'" + text.str() + "' is not a number";
  llvm::APFloat rounded(value);
  bool lossy;
  rounded.convert(type == "f16"    ? llvm::APFloat::IEEEhalf()
                  : type == "bf16" ? llvm::APFloat::BFloat()
                  : type == "f32"  ? llvm::APFloat::IEEEsingle()
                                   : llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &lossy);
  if (std::isfinite(value) && rounded.isInfinity())
    return "'" + text.str() + "' does not fit in " + type.str();
  storeElement(arg.bytes, type, 0, value);
  return std::nullopt;
}

/// Parses one --arg; on failure returns a message.
static std::optional<std::string> parseArgument(StringRef spec,
                                                std::mt19937_64 &rng,
                                                Argument &arg) {
  arg.spec = spec.str();
  if (spec.starts_with("@")) {
    kiln::npy::Array array;
    if (auto error = kiln::npy::read(spec.drop_front(), array))
      return error;
    arg.type = array.type;
    arg.isArray = true;
    arg.count = arg.type.empty() ? 0 : array.bytes.size() / elementBytes(arg.type);
    if (arg.count == 0)
      return "the array is empty";
    arg.bytes = std::move(array.bytes);
    arg.address = reinterpret_cast<int64_t>(arg.bytes.data());
    return std::nullopt;
  }
  auto [lhs, rhs] = spec.split('=');
  if (rhs.empty() && !spec.contains('='))
    return "expected TYPE[COUNT]=INIT or TYPE=VALUE";
  size_t bracket = lhs.find('[');
  arg.type = lhs.take_front(bracket).str();
  if (!elementBytes(arg.type))
    return "unknown type '" + arg.type + "'";
  if (bracket == StringRef::npos)
    return parseScalar(rhs, arg);
  arg.isArray = true;
  StringRef count = lhs.drop_front(bracket + 1);
  if (!count.consume_back("]") || count.getAsInteger(10, arg.count) ||
      arg.count <= 0)
    return "expected a positive element count in brackets";
  // The array is built in host memory first: one that cannot be is an
  // error here, not an abort in the allocator.
  int64_t bytes;
  if (llvm::MulOverflow(arg.count,
                        static_cast<int64_t>(elementBytes(arg.type)), bytes))
    return "the array's size overflows";
  if (static_cast<uint64_t>(bytes) > hostMemoryBytes())
    return std::to_string(bytes) + " bytes do not fit in host memory";
  arg.bytes.resize(bytes);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t i = 0; i < arg.count; ++i) {
    if (rhs == "zeros")
      storeElement(arg.bytes, arg.type, i, 0);
    else if (rhs == "iota")
      storeElement(arg.bytes, arg.type, i, static_cast<double>(i));
    else if (rhs == "rand")
      storeElement(arg.bytes, arg.type, i, uniform(rng));
    else
      return "unknown initializer '" + rhs.str() +
             "' (zeros, iota or rand)";
  }
  arg.address = reinterpret_cast<int64_t>(arg.bytes.data());
  return std::nullopt;
}

static int fail(const llvm::Twine &message) {
  llvm::errs() << "kiln-run: " << message << "\n";
  return 1;
}

/// Prints sum, minimum, maximum and the first elements of `arg`.
static void summarize(StringRef name, const Argument &arg) {
  double sum = 0, low = loadElement(arg.bytes, arg.type, 0), high = low;
  for (int64_t j = 0; j < arg.count; ++j) {
    double v = loadElement(arg.bytes, arg.type, j);
    sum += v;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  llvm::outs() << name << " " << arg.type << "[" << arg.count
               << "]: sum=" << llvm::format("%.6g", sum)
               << " min=" << llvm::format("%.6g", low)
               << " max=" << llvm::format("%.6g", high) << " first=[";
  for (int64_t j = 0; j < std::min<int64_t>(arg.count, 4); ++j)
    llvm::outs() << (j ? ", " : "")
                 << llvm::format("%.6g", loadElement(arg.bytes, arg.type, j));
  llvm::outs() << "]\n";
}

/// A buffer for a tensor of `shape` and `element` type, or a message saying
/// why not.
static std::optional<std::string> makeBuffer(ArrayRef<int64_t> shape,
                                             Type element, StringRef init,
                                             std::mt19937_64 &rng,
                                             Argument &buffer) {
  std::string spec;
  llvm::raw_string_ostream os(spec);
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  os << element << "[" << count << "]=" << init;
  return parseArgument(spec, rng, buffer);
}

static int runArrayOnGPU(ModuleOp module, StringRef plan,
                         SmallVector<Argument> &buffers, size_t numInputs,
                         ArrayRef<int64_t> sizes);

/// Fuses, tiles and runs the array function `func` on generated inputs, on
/// the GPU or the host; --dims gives the sizes of its inputs' dynamic
/// dimensions.
static int runArrayFunction(ModuleOp module, func::FuncOp func,
                            std::mt19937_64 &rng, bool onGPU) {
  std::string name = func.getSymName().str();
  if (checkBounds.getNumOccurrences() || threads != 1)
    return fail("--check-bounds and --launch-threads apply to kernels; an "
                "array function's plan runs unchecked, on one thread");
  size_t numInputs = func.getNumArguments();
  SmallVector<SmallVector<int64_t>> inputShapes;
  SmallVector<Type> inputElements;
  size_t numDynamic = 0;
  for (Type type : func.getArgumentTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(tensor.getShape());
    for (int64_t &size : shape) {
      if (!ShapedType::isDynamic(size))
        continue;
      if (numDynamic < dynamicSizes.size() && dynamicSizes[numDynamic] < 1)
        return fail("--dims: kiln-run generates inputs of at least one "
                    "element, so sizes are positive, not " +
                    llvm::Twine(dynamicSizes[numDynamic]));
      size = numDynamic < dynamicSizes.size() ? dynamicSizes[numDynamic] : 1;
      ++numDynamic;
    }
    inputShapes.push_back(std::move(shape));
    inputElements.push_back(tensor.getElementType());
  }
  if (numDynamic != dynamicSizes.size())
    return fail("array function '" + name + "' has " +
                llvm::Twine(numDynamic) +
                " dynamic input dimension(s), but --dims gives " +
                llvm::Twine(dynamicSizes.size()));
  // The report counts the dynamic dimensions as the largest given.
  int64_t reportSize = 1;
  for (int64_t size : dynamicSizes)
    reportSize = std::max(reportSize, size);
  SmallVector<Type> outputElements;
  for (Type type : func.getResultTypes())
    outputElements.push_back(getElementTypeOrSelf(type));
  std::optional<kiln::TargetPeaks> peaks = kiln::lookupTarget("h100");
  if (report) {
    llvm::outs() << "before fusion:\n";
    kiln::printCostReport(module, *peaks, reportSize, llvm::outs());
  }
  auto runPipeline =
      [&](llvm::function_ref<void(OpPassManager &)> build) -> LogicalResult {
    PassManager pm(module.getContext());
    build(pm);
    return pm.run(module);
  };
  if (failed(runPipeline(kiln::buildArrayFusionPipeline)))
    return 1;
  if (report) {
    llvm::outs() << "after fusion:\n";
    kiln::printCostReport(module, *peaks, reportSize, llvm::outs());
  }
  if (failed(runPipeline(
          [](OpPassManager &pm) { kiln::buildArrayTilingPipeline(pm); })))
    return 1;
  std::string error;
  FailureOr<kiln::PlanCall> call = kiln::bindLaunchPlan(
      module.lookupSymbol<func::FuncOp>(name), inputShapes, error);
  if (failed(call))
    return fail(error);
  SmallVector<Argument> buffers;
  for (auto [i, shape] : llvm::enumerate(
           llvm::concat<const SmallVector<int64_t>>(inputShapes,
                                                    call->outputShapes))) {
    bool isInput = i < numInputs;
    Argument buffer;
    if (auto error = makeBuffer(
            shape, isInput ? inputElements[i] : outputElements[i - numInputs],
            isInput ? StringRef(initName) : StringRef("zeros"), rng, buffer))
      return fail("array function '" + name + "': " + *error);
    buffers.push_back(std::move(buffer));
  }
  if (onGPU)
    return runArrayOnGPU(module, name, buffers, numInputs, call->sizes);
  auto executable = kiln::host::HostExecutable::create(module, checkBounds);
  if (failed(executable))
    return 1;
  (*executable)->setThreads(threads);
  SmallVector<int64_t> arguments;
  for (Argument &buffer : buffers)
    arguments.push_back(buffer.address);
  llvm::append_range(arguments, call->sizes);
  auto runPlan = [&] {
    return succeeded((*executable)->runPlan(name, arguments, error));
  };
  // The first run warms up; its results are the ones summarized (a plan
  // computes them anew each run).
  if (!runPlan())
    return fail(error);
  FailureOr<double> median = timeOnHost(repeat, runPlan);
  if (failed(median))
    return fail(error);
  llvm::outs() << "array function " << name << " on host: "
               << llvm::format("%.3f", *median * 1e3)
               << " ms per run (median of " << repeat << ")\n";
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    bool isInput = i < numInputs;
    summarize((isInput ? "input" : "result") +
                  std::to_string(isInput ? i : i - numInputs),
              buffer);
  }
  return 0;
}

/// Exit status of a run asked for the GPU on a machine without one.
static constexpr int kNoGPU = 77;

/// Runs `kernelName` on the host target over `args` once (the launch that
/// is checked and summarized: `afterFirst`, when given, runs after it),
/// then `times` more, timed, after which the arrays hold what the first
/// left (a kernel may update them in place); the median seconds per timed
/// launch.
static FailureOr<double>
launchOnHost(ModuleOp module, std::vector<Argument> &args,
             std::array<uint32_t, 3> grid, unsigned times,
             llvm::function_ref<void()> afterFirst = nullptr) {
  auto executable = kiln::host::HostExecutable::create(module, checkBounds);
  if (failed(executable))
    return failure();
  (*executable)->setThreads(threads);
  SmallVector<void *> pointers;
  SmallVector<kiln::host::MemoryRange> ranges;
  for (auto [position, arg] : llvm::enumerate(args)) {
    if (arg.isArray) {
      arg.address = reinterpret_cast<int64_t>(arg.bytes.data());
      pointers.push_back(&arg.address);
      ranges.push_back({static_cast<uint64_t>(arg.address),
                        static_cast<uint64_t>(arg.address) + arg.bytes.size(),
                        /*name=*/nullptr, static_cast<int32_t>(position),
                        /*readOnly=*/0});
    } else {
      pointers.push_back(arg.bytes.data());
    }
  }
  std::string error;
  auto launch = [&] {
    return succeeded(
        (*executable)->launch(kernelName, grid, pointers, ranges, error));
  };
  if (!launch()) {
    fail(error);
    return failure();
  }
  if (afterFirst)
    afterFirst();
  std::vector<std::vector<char>> first;
  for (const Argument &arg : args)
    first.push_back(arg.isArray ? arg.bytes : std::vector<char>());
  FailureOr<double> median = timeOnHost(times, launch);
  if (failed(median)) {
    fail(error);
    return failure();
  }
  for (auto [arg, bytes] : llvm::zip(args, first))
    if (arg.isArray)
      std::copy(bytes.begin(), bytes.end(), arg.bytes.begin());
  return median;
}

/// The largest error of `got` against `expected`, relative (absolute below
/// one), over every element.
static double maxError(const Argument &got, const Argument &expected) {
  double worst = 0;
  for (int64_t i = 0; i < got.count; ++i) {
    double g = loadElement(got.bytes, got.type, i);
    double e = loadElement(expected.bytes, expected.type, i);
    if (std::isnan(g) != std::isnan(e))
      return INFINITY;
    if (!std::isnan(g))
      worst = std::max(worst, std::abs(g - e) / std::max(1.0, std::abs(e)));
  }
  return worst;
}

/// Prints how far `got` is from `expected` (`label` against `reference`)
/// and whether that is within --tolerance.
static bool reportError(const llvm::Twine &label, const llvm::Twine &reference,
                        const Argument &got, const Argument &expected) {
  double error = maxError(got, expected);
  bool ok = error <= tolerance;
  llvm::outs() << label << " against " << reference << ": max error "
               << llvm::format("%.3g", error) << (ok ? " ok" : " WRONG")
               << "\n";
  return ok;
}

/// Writes the arrays --save names and compares the ones --expect names with
/// their files; false (after saying why) when one differs or a file cannot
/// be read or written.
static bool meetsExpectations(const std::vector<Argument> &args) {
  bool met = true;
  for (StringRef spec : saves) {
    auto [indexText, path] = spec.split('=');
    size_t index;
    if (indexText.getAsInteger(10, index) || index >= args.size() ||
        !args[index].isArray) {
      fail("--save=" + spec + ": no array argument " + indexText);
      met = false;
      continue;
    }
    kiln::npy::Array array{args[index].type, {args[index].count},
                           args[index].bytes};
    if (auto error = kiln::npy::write(path, array)) {
      fail("--save=" + spec + ": " + *error);
      met = false;
    }
  }
  for (StringRef spec : expectations) {
    auto [indexText, path] = spec.split('=');
    size_t index;
    kiln::npy::Array array;
    if (indexText.getAsInteger(10, index) || index >= args.size() ||
        !args[index].isArray) {
      fail("--expect=" + spec + ": no array argument " + indexText);
      met = false;
      continue;
    }
    if (auto error = kiln::npy::read(path, array)) {
      fail("--expect=" + spec + ": " + *error);
      met = false;
      continue;
    }
    Argument expected;
    expected.type = array.type;
    expected.bytes = std::move(array.bytes);
    expected.count = expected.bytes.size() / elementBytes(expected.type);
    if (expected.count != args[index].count) {
      fail("--expect=" + spec + ": the file holds " +
           llvm::Twine(expected.count) + " elements, argument " +
           llvm::Twine(index) + " " + llvm::Twine(args[index].count));
      met = false;
      continue;
    }
    met &= reportError("arg" + llvm::Twine(index), path, args[index],
                       expected);
  }
  return met;
}

/// Device copies of the arrays among some arguments (address 0 for a
/// scalar), freed with this object.
class DeviceArrays {
public:
  explicit DeviceArrays(kiln::runtime::Device &device) : device(device) {}
  ~DeviceArrays() {
    std::string ignored;
    for (uint64_t address : addresses)
      if (address)
        device.free(address, ignored);
  }

  /// Allocates and fills the copies of the arrays among `args`.
  bool copyIn(ArrayRef<Argument> args, std::string &error) {
    addresses.assign(args.size(), 0);
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (!arg.isArray)
        continue;
      // cuMemAlloc refuses 0 bytes (an array of no elements).
      addresses[i] =
          device.allocate(std::max<size_t>(arg.bytes.size(), 1), error);
      if (!addresses[i] || !device.copyToDevice(addresses[i], arg.bytes.data(),
                                                arg.bytes.size(), error))
        return false;
    }
    return true;
  }

  /// Copies the arrays back into `args`.
  bool copyOut(MutableArrayRef<Argument> args, std::string &error) {
    for (auto [i, arg] : llvm::enumerate(args))
      if (arg.isArray && !device.copyToHost(arg.bytes.data(), addresses[i],
                                            arg.bytes.size(), error))
        return false;
    return true;
  }

  std::vector<uint64_t> addresses;

private:
  kiln::runtime::Device &device;
};

/// The median device time of `run` over --repeat runs, by events; an error
/// of `run` or of the timing is left in `error`.
static FailureOr<double> timeOnDevice(kiln::runtime::Device &device,
                                      llvm::function_ref<bool()> run,
                                      std::string &error) {
  std::unique_ptr<kiln::runtime::Event> start = device.createEvent(error);
  std::unique_ptr<kiln::runtime::Event> stop =
      start ? device.createEvent(error) : nullptr;
  if (!stop)
    return failure();
  std::vector<double> seconds;
  for (unsigned i = 0; i < repeat; ++i) {
    float milliseconds = 0;
    if (!start->record(nullptr, error) || !run() ||
        !stop->record(nullptr, error) || !stop->synchronize(error) ||
        !stop->getMillisecondsSince(*start, milliseconds, error))
      return failure();
    seconds.push_back(milliseconds * 1e-3);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

/// Opens device 0 into `device`; else says why and returns kNoGPU (no
/// driver or device) or 1.
static int openDevice(std::unique_ptr<kiln::runtime::Device> &device) {
  namespace rt = kiln::runtime;
  std::string error;
  rt::CudaDriver *driver = rt::CudaDriver::get(error);
  if (driver && driver->getDeviceCount(error) <= 0 && error.empty())
    error = "the CUDA driver sees no device";
  if (!driver || !error.empty()) {
    llvm::errs() << "kiln-run: no GPU to run on: " << error << "\n";
    return kNoGPU;
  }
  device = rt::Device::open(*driver, 0, error);
  if (!device)
    return fail(error);
  if (checkMode != "host" && checkMode != "none")
    return fail("--check=" + checkMode + ": expected host or none");
  return 0;
}

/// Compiles the kernel for the device, checks one launch against the host
/// target and times `repeat` more.
static int runOnGPU(ModuleOp module, std::vector<Argument> &args,
                    std::array<uint32_t, 3> grid) {
  namespace rt = kiln::runtime;
  std::unique_ptr<rt::Device> device;
  if (int status = openDevice(device))
    return status;
  std::string error;

  // The reference: the host target on copies of the inputs.
  std::vector<Argument> expected = args;
  if (checkMode == "host") {
    OwningOpRef<ModuleOp> hostModule = module.clone();
    if (failed(launchOnHost(*hostModule, expected, grid, 0)))
      return 1;
  }

  // What this launch guarantees: device arrays are 256-byte aligned.
  kiln::tilegpu::TileSpecializeArgumentsPassOptions facts;
  facts.kernel = kernelName;
  for (auto [i, arg] : llvm::enumerate(args)) {
    bool isInteger = !arg.isArray && arg.type[0] == 'i';
    if (arg.isArray ||
        (isInteger && static_cast<int64_t>(loadElement(arg.bytes, arg.type,
                                                       0)) %
                              16 ==
                          0))
      facts.divisible.push_back(i);
  }
  PassManager pm(module.getContext());
  pm.addPass(kiln::tilegpu::createTileSpecializeArgumentsPass(facts));
  if (failed(pm.run(module)))
    return 1;
  kiln::gpu::GPUCompileOptions options;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.target.chip =
      kiln::gpu::getChipForCapability(device->getComputeCapability());
  auto compileStart = std::chrono::steady_clock::now();
  FailureOr<kiln::gpu::GPUBinary> binary =
      kiln::gpu::compileForGPU(module, options);
  if (failed(binary))
    return 1;
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  std::unique_ptr<rt::Module> loaded =
      device->loadModule(binary->getImage(), error, binary->tensorMaps);
  if (!loaded)
    return fail(error);

  DeviceArrays arrays(*device);
  if (!arrays.copyIn(args, error))
    return fail(error);
  std::vector<void *> params;
  double bytesMoved = 0;
  for (auto [i, arg] : llvm::enumerate(args)) {
    params.push_back(arg.isArray ? static_cast<void *>(&arrays.addresses[i])
                                 : arg.bytes.data());
    if (arg.isArray)
      bytesMoved += arg.bytes.size();
  }
  std::array<unsigned, 3> blocks = {grid[0], grid[1], grid[2]};
  std::array<unsigned, 3> block = {
      static_cast<unsigned>(binary->threadsPerBlock), 1, 1};
  auto launch = [&] {
    return loaded->launch(kernelName, blocks, block,
                          static_cast<unsigned>(binary->dynamicSharedBytes),
                          nullptr, params, error);
  };
  if (!launch() || !device->synchronize(error))
    return fail("kernel '" + kernelName + "': " + error);
  if (!arrays.copyOut(args, error))
    return fail(error);
  bool met = meetsExpectations(args);
  FailureOr<double> median = timeOnDevice(*device, launch, error);
  if (failed(median))
    return fail(error);

  llvm::outs() << "kernel " << kernelName << " on " << device->getName()
               << " (" << options.target.chip << ", "
               << (binary->cubin.empty() ? "PTX for the driver" : "cubin")
               << ", " << numWarps << " warps";
  if (size_t maps = binary->tensorMaps.size())
    llvm::outs() << ", " << maps << " TMA tensor map" << (maps > 1 ? "s" : "");
  llvm::outs() << "), grid " << grid[0] << "x"
               << grid[1] << "x" << grid[2] << ": compiled in "
               << llvm::format("%.0f", compileSeconds * 1e3) << " ms, "
               << llvm::format("%.4f", *median * 1e3)
               << " ms per launch (median of "
               << repeat << "), "
               << llvm::format("%.1f", bytesMoved / *median / 1e9)
               << " GB/s (each array once)";
  if (flops > 0)
    llvm::outs() << ", " << llvm::format("%.2f", flops / *median / 1e12)
                 << " TFLOP/s";
  llvm::outs() << "\n";
  bool wrong = false;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg.isArray)
      continue;
    summarize("arg" + std::to_string(i), arg);
    if (checkMode != "host")
      continue;
    wrong |= !reportError("arg" + llvm::Twine(i), "the host", arg,
                          expected[i]);
  }
  return wrong || !met ? 1 : 0;
}

/// Runs the launch plan `plan` (after fusion and tiling) on the GPU: its
/// tile kernels compiled for the device, its buffers in device memory, one
/// run checked against the host target, then `repeat` runs timed.
static int runArrayOnGPU(ModuleOp module, StringRef plan,
                         SmallVector<Argument> &buffers, size_t numInputs,
                         ArrayRef<int64_t> sizes) {
  namespace rt = kiln::runtime;
  std::unique_ptr<rt::Device> device;
  if (int status = openDevice(device))
    return status;
  std::string error;
  SmallVector<Argument> expected = buffers;
  if (checkMode == "host") {
    auto executable = kiln::host::HostExecutable::create(module, false);
    if (failed(executable))
      return 1;
    SmallVector<int64_t> arguments;
    for (Argument &buffer : expected)
      arguments.push_back(reinterpret_cast<int64_t>(buffer.bytes.data()));
    llvm::append_range(arguments, sizes);
    if (failed((*executable)->runPlan(plan, arguments, error)))
      return fail(error);
  }
  auto planOp = module.lookupSymbol<func::FuncOp>(plan);
  OwningOpRef<ModuleOp> kernels = kiln::extractTileKernels(module, planOp);
  kiln::gpu::GPUCompileOptions options;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.target.chip =
      kiln::gpu::getChipForCapability(device->getComputeCapability());
  FailureOr<kiln::gpu::GPUBinary> binary =
      kiln::gpu::compileForGPU(*kernels, options);
  if (failed(binary))
    return 1;
  std::unique_ptr<rt::Module> loaded =
      device->loadModule(binary->getImage(), error, binary->tensorMaps);
  if (!loaded)
    return fail(error);
  DeviceArrays arrays(*device);
  if (!arrays.copyIn(buffers, error))
    return fail(error);
  SmallVector<uint64_t> arguments(arrays.addresses.begin(),
                                  arrays.addresses.end());
  llvm::append_range(arguments, sizes);
  auto run = [&] {
    return succeeded(kiln::runPlanOnGPU(planOp, *device, *loaded,
                                        binary->threadsPerBlock,
                                        binary->dynamicSharedBytes,
                                        arguments, nullptr, error));
  };
  if (!run() || !device->synchronize(error) ||
      !arrays.copyOut(buffers, error))
    return fail(error);
  FailureOr<double> median = timeOnDevice(*device, run, error);
  if (failed(median))
    return fail(error);
  double bytes = 0;
  for (const Argument &buffer : buffers)
    bytes += buffer.bytes.size();
  llvm::outs() << "array function " << plan << " on " << device->getName()
               << " (" << options.target.chip << "): "
               << llvm::format("%.4f", *median * 1e3)
               << " ms per run (median of " << repeat
               << "), " << llvm::format("%.1f", bytes / *median / 1e9)
               << " GB/s (inputs and results once)\n";
  bool wrong = false;
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    bool isInput = i < numInputs;
    std::string label = (isInput ? "input" : "result") +
                        std::to_string(isInput ? i : i - numInputs);
    summarize(label, buffer);
    if (isInput || checkMode != "host")
      continue;
    wrong |= !reportError(label, "the host", buffer, expected[i]);
  }
  return wrong ? 1 : 0;
}

/// Everything after the command line, on a large stack (see
/// kiln/Support/InputLimits.h); the exit status.
static int run() {
  std::string target = targetName;
  if (target.empty()) {
    const char *env = std::getenv("KILN_TARGET");
    target = env && *env ? env : "";
  }
  if (target.empty()) {
    std::string ignored;
    kiln::runtime::CudaDriver *driver =
        kiln::runtime::CudaDriver::get(ignored);
    target = driver && driver->getDeviceCount(ignored) > 0 ? "gpu" : "host";
  }
  if (target != "host" && target != "gpu")
    return fail("unknown target '" + target + "' (host or gpu)");
  if (repeat == 0)
    return fail("--repeat takes 1 or more launches to time");

  std::array<uint32_t, 3> grid = {1, 1, 1};
  SmallVector<StringRef> sizes;
  StringRef(gridSpec).split(sizes, ',');
  if (sizes.size() > 3)
    return fail("--grid takes at most three sizes");
  for (auto [i, size] : llvm::enumerate(sizes))
    if (size.trim().getAsInteger(10, grid[i]))
      return fail("--grid: '" + size + "' is not a size");

  std::mt19937_64 rng(seed);
  std::vector<Argument> args(argSpecs.size());
  for (auto [i, spec] : llvm::enumerate(argSpecs))
    if (auto error = parseArgument(spec, rng, args[i]))
      return fail("--arg=" + spec + ": " + *error);

  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = kiln::openRegularInputFile(inputFile, error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (failed(kiln::checkNestingDepth(sourceMgr, &context)))
    return 1;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  if (kernelName.empty()) {
    SmallVector<StringRef> names;
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        names.push_back(func.getName());
    if (names.size() != 1)
      return fail(inputFile + " has " + Twine(names.size()) +
                  " public functions (" + llvm::join(names, ", ") +
                  "): name the one to run with --kernel");
    kernelName.setValue(names.front().str());
  }
  auto kernel = module->lookupSymbol<func::FuncOp>(kernelName);
  if (!kernel)
    return fail("no kernel named '" + kernelName + "' in " + inputFile);
  bool arrayFunction =
      kernel.getNumArguments() > 0 &&
      llvm::all_of(kernel.getArgumentTypes(),
                   [](Type t) { return isa<RankedTensorType>(t); });
  if (arrayFunction)
    return runArrayFunction(*module, kernel, rng, target == "gpu");
  if (kernel.getNumArguments() != args.size())
    return fail("'" + kernelName + "' takes " +
                llvm::Twine(kernel.getNumArguments()) + " arguments, but " +
                llvm::Twine(args.size()) + " --arg were given");
  for (auto [i, arg] : llvm::enumerate(args)) {
    Type type = kernel.getArgument(i).getType();
    std::string expected;
    llvm::raw_string_ostream os(expected);
    if (auto ptr = dyn_cast<kiln::tile::PointerType>(type))
      os << ptr.getPointeeType();
    else
      os << type;
    if (isa<kiln::tile::PointerType>(type) != arg.isArray ||
        expected != arg.type) {
      std::string typeText;
      llvm::raw_string_ostream typeStream(typeText);
      typeStream << type;
      return fail("--arg=" + arg.spec + " does not match argument " +
                  llvm::Twine(i) + " of type " + typeText);
    }
  }

  if (target == "gpu") {
    if (checkBounds.getNumOccurrences() || threads != 1)
      return fail("--check-bounds and --launch-threads apply to the host "
                  "target");
    return runOnGPU(*module, args, grid);
  }
  bool met = true;
  FailureOr<double> median = launchOnHost(
      *module, args, grid, repeat, [&] { met = meetsExpectations(args); });
  if (failed(median))
    return 1;
  llvm::outs() << "kernel " << kernelName << " on host (" << threads
               << (threads == 1 ? " thread" : " threads") << "), grid "
               << grid[0]
               << "x" << grid[1] << "x" << grid[2] << ": "
               << llvm::format("%.3f", *median * 1e3)
               << " ms per launch (median of "
               << repeat << ")\n";
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.isArray)
      summarize("arg" + std::to_string(i), arg);
  return met ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  kiln::registerVersionPrinter();
  kiln::moveOtherOptionsToHelpHidden(
      {&kernelOptions, &targetOptions, &checkOptions});
  cl::ParseCommandLineOptions(argc, argv, "Kiln: run one tile kernel\n");
  int status = 1;
  kiln::runOnLargeStack([&] { status = run(); });
  return status;
}
