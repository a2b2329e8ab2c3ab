//===- kiln-launch-overhead.cpp - Launch overhead through the runtime -----===//
//
// kiln-launch-overhead [--launches=N] [--repeat=R] [--json=FILE]
//
// Microseconds per launch, through Kiln's CUDA runtime
// (kiln/Runtime/CudaDriver.h) on device 0, of two Kiln kernels: an empty
// one and a one-element add (empty.mlir and add_one.mlir beside this file,
// compiled to PTX at build time; bench/gpu_suite.py launches the same
// kernels from Python). Each is launched as one program of 128 threads,
// N times back to back on one stream, R times over; the table gives the
// medians, per launch, of
//  - host: the launch calls alone, what the caller's thread pays;
//  - with sync: the launches and the stream's synchronize;
//  - device: the time between events recorded before and after the
//    launches, the device's rate of back-to-back launches;
// for three paths: Module::launch (the runtime: limits checked, the kernel
// looked up in its cache under a lock), cuLaunchKernel called directly on
// the function the runtime looked up (the driver alone), and Graph::launch
// of a CUDA graph holding --graph-kernels launches captured from
// Module::launch (Stream::capture), per kernel in the graph.
//
// Without a CUDA driver or device it says so in one line and exits with 77.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaDriver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// emptyPtx and add_onePtx: the kernels, as kiln-translate compiled them.
#include "add_one.ptx.inc"
#include "empty.ptx.inc"

namespace cl = llvm::cl;
namespace rt = kiln::runtime;

static cl::opt<unsigned> launches("launches",
                                  cl::desc("Back-to-back launches timed "
                                           "together"),
                                  cl::init(1000));
static cl::opt<unsigned> repeat("repeat",
                                cl::desc("Times each row is measured (the "
                                         "median is reported)"),
                                cl::init(5));
static cl::opt<unsigned> graphKernels("graph-kernels",
                                      cl::desc("Launches captured in each "
                                               "CUDA graph"),
                                      cl::init(100));
static cl::opt<std::string> jsonFile("json",
                                     cl::desc("Also write the results as "
                                              "JSON to this file"),
                                     cl::value_desc("file"));

/// The block the kernels were compiled for (kiln-translate's four warps).
static constexpr unsigned kThreadsPerBlock = 128;
/// Launches before timing: the first looks the kernel up and may wait for
/// the driver to finish compiling the PTX.
static constexpr unsigned kWarmUpLaunches = 10;
/// Exit status when there is no GPU, as kiln-run's.
static constexpr int kNoGPU = 77;

namespace {
/// Medians, in microseconds per launch, of one kernel launched one way.
struct Row {
  std::string kernel;
  std::string path;
  double hostMicroseconds = 0;
  double syncMicroseconds = 0;
  double deviceMicroseconds = 0;
};
} // namespace

static int fail(const llvm::Twine &message) {
  llvm::errs() << "kiln-launch-overhead: " << message << "\n";
  return 1;
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Times `launch` (one call, which launches `kernelsPerCall` kernels;
/// false with `error` set on failure) on `stream` as the file comment
/// says, into `row`, per kernel.
static bool timeLaunches(rt::Device &device, rt::Stream &stream,
                         llvm::function_ref<bool()> launch,
                         unsigned kernelsPerCall, Row &row,
                         std::string &error) {
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<rt::Event> start = device.createEvent(error);
  std::unique_ptr<rt::Event> stop = start ? device.createEvent(error) : nullptr;
  if (!stop)
    return false;
  for (unsigned i = 0; i < kWarmUpLaunches; ++i)
    if (!launch())
      return false;
  if (!stream.synchronize(error))
    return false;
  const unsigned calls = std::max(1u, launches / kernelsPerCall);
  const double kernels = double(calls) * kernelsPerCall;
  auto perLaunch = [&](Clock::duration duration) {
    return std::chrono::duration<double, std::micro>(duration).count() /
           kernels;
  };
  std::vector<double> host, sync, onDevice;
  for (unsigned r = 0; r < repeat; ++r) {
    if (!start->record(stream.get(), error))
      return false;
    Clock::time_point begin = Clock::now();
    for (unsigned i = 0; i < calls; ++i)
      if (!launch())
        return false;
    Clock::time_point enqueued = Clock::now();
    if (!stop->record(stream.get(), error) || !stream.synchronize(error))
      return false;
    Clock::time_point done = Clock::now();
    float milliseconds = 0;
    if (!stop->getMillisecondsSince(*start, milliseconds, error))
      return false;
    host.push_back(perLaunch(enqueued - begin));
    sync.push_back(perLaunch(done - begin));
    onDevice.push_back(milliseconds * 1e3 / kernels);
  }
  row.hostMicroseconds = median(host);
  row.syncMicroseconds = median(sync);
  row.deviceMicroseconds = median(onDevice);
  return true;
}

/// Times kernel `name` of `ptx`, launched with `params`, through the
/// runtime and through the driver alone; appends a row for each.
static bool measureKernel(rt::CudaDriver &driver, rt::Device &device,
                          rt::Stream &stream, const std::string &name,
                          const char *ptx, std::vector<void *> &params,
                          std::vector<Row> &rows, std::string &error) {
  // One module per kernel, as @kiln.jit loads them.
  std::unique_ptr<rt::Module> module = device.loadModule(ptx, error);
  if (!module)
    return false;
  const std::array<unsigned, 3> grid = {1, 1, 1};
  const std::array<unsigned, 3> block = {kThreadsPerBlock, 1, 1};
  Row runtime{name, "Module::launch"};
  if (!timeLaunches(
          device, stream,
          [&] {
            return module->launch(name, grid, block, /*sharedBytes=*/0,
                                  stream.get(), params, error);
          },
          1, runtime, error))
    return false;
  rows.push_back(runtime);

  rt::CUfunction function = module->getFunction(name, error);
  if (!function || !device.makeCurrent(error))
    return false;
  const rt::DriverApi &api = driver.api();
  Row direct{name, "cuLaunchKernel"};
  if (!timeLaunches(
          device, stream,
          [&] {
            rt::CUresult result = api.cuLaunchKernel(
                function, grid[0], grid[1], grid[2], block[0], block[1],
                block[2], /*sharedMemBytes=*/0, stream.get(), params.data(),
                /*extra=*/nullptr);
            if (result == 0)
              return true;
            error = driver.describe(result, "launching '" + name + "'");
            return false;
          },
          1, direct, error))
    return false;
  rows.push_back(direct);

  std::unique_ptr<rt::Graph> graph = rt::Graph::create(device, error);
  if (!graph)
    return false;
  for (unsigned i = 0; i < graphKernels; ++i) {
    rt::KernelLaunch launch;
    if (!module->prepare(name, grid, block, /*sharedBytes=*/0, params, launch,
                         error) ||
        !graph->addKernel(launch, error))
      return false;
  }
  if (!graph->instantiate(error))
    return false;
  Row graphed{name, "Graph::launch"};
  if (!timeLaunches(
          device, stream, [&] { return graph->launch(stream, error); },
          graphKernels, graphed, error))
    return false;
  rows.push_back(graphed);
  return true;
}

static void printTable(const rt::Device &device, llvm::ArrayRef<Row> rows) {
  int capability = device.getComputeCapability();
  llvm::outs() << "Launch overhead through Kiln's runtime on "
               << device.getName() << " (compute capability "
               << capability / 10 << "." << capability % 10 << "): medians of "
               << repeat << " runs of " << launches
               << " back-to-back launches of one program of "
               << kThreadsPerBlock << " threads\n\n"
               << "| kernel | path | host us/launch | with sync us/launch "
                  "| device us/launch |\n"
               << "|---|---|---:|---:|---:|\n";
  for (const Row &row : rows)
    llvm::outs() << "| " << row.kernel << " | " << row.path << " | "
                 << llvm::format("%.2f", row.hostMicroseconds) << " | "
                 << llvm::format("%.2f", row.syncMicroseconds) << " | "
                 << llvm::format("%.2f", row.deviceMicroseconds) << " |\n";
  llvm::outs() << "\nGraph::launch: CUDA graphs of " << graphKernels
               << " kernels, per kernel\n";
}

static bool writeJson(const rt::Device &device, llvm::ArrayRef<Row> rows,
                      std::string &error) {
  std::error_code code;
  llvm::raw_fd_ostream os(jsonFile, code, llvm::sys::fs::OF_Text);
  if (code) {
    error = "cannot write " + jsonFile + ": " + code.message();
    return false;
  }
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("device", device.getName());
    json.attribute("compute_capability", device.getComputeCapability());
    json.attribute("launches", launches.getValue());
    json.attribute("repeat", repeat.getValue());
    json.attribute("threads_per_block", kThreadsPerBlock);
    json.attributeArray("rows", [&] {
      for (const Row &row : rows)
        json.object([&] {
          json.attribute("kernel", row.kernel);
          json.attribute("path", row.path);
          json.attribute("host_us", row.hostMicroseconds);
          json.attribute("sync_us", row.syncMicroseconds);
          json.attribute("device_us", row.deviceMicroseconds);
        });
    });
    json.attribute("graph_kernels", graphKernels.getValue());
  });
  os << "\n";
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv, "Kiln: launch overhead through the CUDA runtime\n");
  if (!launches || !repeat || !graphKernels)
    return fail("--launches, --repeat and --graph-kernels must be at least 1");

  std::string error;
  rt::CudaDriver *driver = rt::CudaDriver::get(error);
  if (driver && driver->getDeviceCount(error) <= 0 && error.empty())
    error = "the CUDA driver sees no device";
  if (!driver || !error.empty()) {
    llvm::errs() << "kiln-launch-overhead: no GPU to run on: " << error
                 << "\n";
    return kNoGPU;
  }
  std::unique_ptr<rt::Device> device = rt::Device::open(*driver, 0, error);
  if (!device)
    return fail(error);
  std::unique_ptr<rt::Stream> stream = device->createStream(error);
  if (!stream)
    return fail(error);

  // One float array for both kernels; add_one touches its first element.
  rt::CUdeviceptr x = device->allocate(32 * sizeof(float), error);
  if (!x || !device->fill(x, 0, 32 * sizeof(float), error))
    return fail(error);
  int32_t n = 1;
  std::vector<void *> emptyParams = {&x};
  std::vector<void *> addParams = {&x, &n};
  std::vector<Row> rows;
  bool measured =
      measureKernel(*driver, *device, *stream, "empty", emptyPtx, emptyParams,
                    rows, error) &&
      measureKernel(*driver, *device, *stream, "add_one", add_onePtx,
                    addParams, rows, error);
  std::string ignored;
  device->free(x, ignored);
  if (!measured)
    return fail(error);

  printTable(*device, rows);
  if (!jsonFile.empty() && !writeJson(*device, rows, error))
    return fail(error);
  return 0;
}
