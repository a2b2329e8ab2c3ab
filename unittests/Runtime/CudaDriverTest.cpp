//===- CudaDriverTest.cpp - The runtime against a fake CUDA driver --------===//
//
// The runtime is tested against FakeCudaDriver.c: what it asks of the
// driver (devices and their limits, modules, launches with their checks and
// shared memory limits, copies and fills, streams and events, the current
// context on every thread) and how it reports each error, a kernel's fault
// included, with no GPU.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaDriver.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <thread>

using namespace kiln::runtime;

namespace {
/// FakeCudaDriver.c's records.
struct FakeTensorMap {
  char magic[8];
  unsigned long long base, dims[2], rowBytes;
  unsigned box[2];
  int dataType, swizzle;
};
struct FakeLaunch {
  unsigned grid[3], block[3], sharedBytes;
  int maxDynamicShared;
  void **args;
  int tensorMaps;
  FakeTensorMap maps[4];
  int params;
  unsigned long long values[16];
  void *stream;
};

/// Points the runtime at the fake library, for the driver's first load.
void useFakeDriver() { setenv("KILN_CUDA_DRIVER", KILN_FAKE_CUDA_DRIVER, 1); }

/// The driver, opened from the fake library.
CudaDriver &driver() {
  useFakeDriver();
  std::string error;
  CudaDriver *loaded = CudaDriver::get(error);
  EXPECT_TRUE(loaded) << error;
  return *loaded;
}

/// The fake driver's function `name`, for what it records.
template <typename Fn> Fn *fake(const char *name) {
  void *library = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  return reinterpret_cast<Fn *>(dlsym(library, name));
}

const FakeLaunch &lastLaunch() {
  return *fake<const FakeLaunch *()>("fakeCudaLastLaunch")();
}
int launchCount() { return fake<int()>("fakeCudaLaunchCount")(); }
int graphLaunchCount() { return fake<int()>("fakeCudaGraphLaunchCount")(); }
/// Kernel nodes of instantiated graphs whose parameters were set.
int nodeUpdates() { return fake<int()>("fakeCudaNodeUpdates")(); }
/// Modules, streams and events the fake driver holds.
int liveHandles() { return fake<int()>("fakeCudaLiveHandles")(); }
/// Allocations of device memory the fake driver holds.
int liveAllocations() { return fake<int()>("fakeCudaLiveAllocations")(); }

/// The fake device with a module holding "kernel" and "heavy".
struct Loaded {
  std::unique_ptr<Device> device;
  std::unique_ptr<Module> module;
};
Loaded load() {
  std::string error;
  Loaded loaded;
  loaded.device = Device::open(driver(), 0, error);
  EXPECT_TRUE(loaded.device) << error;
  if (loaded.device)
    loaded.module = loaded.device->loadModule("//fake module", error);
  EXPECT_TRUE(loaded.module) << error;
  return loaded;
}
} // namespace

/// A PTX kernel "tma" of a pointer, an i32 and a tensor map, and how its
/// launches build the map: base argument 0, 64 rows, argument 1 columns,
/// rows argument 1 elements apart; f16 in 64x64 boxes, 128-byte swizzle.
constexpr const char *kTensorMapKernel =
    ".version 8.0\n.target sm_90a\n.visible .entry tma(\n"
    "\t.param .u64 tma_param_0,\n\t.param .u32 tma_param_1,\n"
    "\t.param .align 64 .b8 tma_param_2[128]\n)\n{\n\tret;\n}\n";
TensorMapSpec tensorMapSpec() {
  TensorMapSpec spec;
  spec.kernel = "tma";
  spec.parameter = 2;
  spec.dataType = 6;
  spec.elementBytes = 2;
  spec.boxRows = spec.boxColumns = 64;
  spec.swizzle = 128;
  spec.sources = {0, -1, 1, 1};
  spec.values = {8, 64, 4, 4};
  return spec;
}

TEST(CudaDriverTest, TensorMapSpecsRoundTripAsText) {
  std::vector<TensorMapSpec> specs = {tensorMapSpec(), tensorMapSpec()};
  specs[1].kernel = "other";
  specs[1].parameter = 5;
  std::string text = printTensorMapSpecs(specs);
  EXPECT_EQ(text, "tma 2 6 2 64 64 128 0 8 -1 64 1 4 1 4\n"
                  "other 5 6 2 64 64 128 0 8 -1 64 1 4 1 4\n");
  std::vector<TensorMapSpec> parsed;
  std::string error;
  ASSERT_TRUE(parseTensorMapSpecs(text, parsed, error)) << error;
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(printTensorMapSpecs(parsed), text);
  parsed.clear();
  EXPECT_FALSE(parseTensorMapSpecs(text + "tma 2 6 2 64\n", parsed, error));
  EXPECT_EQ(error, "tensor map line 3 is not 'kernel parameter dataType "
                   "elementBytes boxRows boxColumns swizzle' and four "
                   "source/value pairs: 'tma 2 6 2 64'");
}

TEST(CudaDriverTest, LaunchesBuildTheTensorMapsAfterTheArguments) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  auto module = device->loadModule(kTensorMapKernel, error, {tensorMapSpec()});
  ASSERT_TRUE(module) << error;
  CUdeviceptr base = device->allocate(64 * 200 * 2, error);
  ASSERT_NE(base, 0u) << error;
  int32_t columns = 200;
  std::vector<void *> args = {&base, &columns};
  ASSERT_TRUE(module->launch("tma", {1, 1, 1}, {128, 1, 1}, 0, nullptr, args,
                             error))
      << error;
  const FakeLaunch &launch = lastLaunch();
  ASSERT_EQ(launch.tensorMaps, 1);
  const FakeTensorMap &map = launch.maps[0];
  EXPECT_EQ(map.base, base);
  // Innermost dimension first, as cuTensorMapEncodeTiled takes them.
  EXPECT_EQ(map.dims[0], 200u);
  EXPECT_EQ(map.dims[1], 64u);
  EXPECT_EQ(map.rowBytes, 400u);
  EXPECT_EQ(map.box[0], 64u);
  EXPECT_EQ(map.box[1], 64u);
  EXPECT_EQ(map.dataType, 6);
  EXPECT_EQ(map.swizzle, 128);
  EXPECT_EQ(args.size(), 2u);

  // TMA's rules, checked before the driver, name what broke.
  columns = 100;
  EXPECT_FALSE(module->launch("tma", {1, 1, 1}, {128, 1, 1}, 0, nullptr, args,
                              error));
  EXPECT_NE(error.find("cannot build the tensor map of parameter 2 of 'tma' "
                       "(64 x 100 elements at 0x"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("rows 200 bytes apart): the row stride is not a "
                       "multiple of 16 bytes"),
            std::string::npos)
      << error;
  columns = 200;
  CUdeviceptr unaligned = base + 8;
  std::vector<void *> shifted = {&unaligned, &columns};
  EXPECT_FALSE(module->launch("tma", {1, 1, 1}, {128, 1, 1}, 0, nullptr,
                              shifted, error));
  EXPECT_NE(error.find("the base address is not 16-byte aligned"),
            std::string::npos)
      << error;
  // A launch that gives fewer arguments than the map is built from.
  std::vector<void *> missing = {&base};
  EXPECT_FALSE(module->launch("tma", {1, 1, 1}, {128, 1, 1}, 0, nullptr,
                              missing, error));
  EXPECT_EQ(error, "cannot launch kernel 'tma': its tensor map parameter 2 "
                   "does not follow its 1 arguments");
  ASSERT_TRUE(device->free(base, error)) << error;
}

TEST(CudaDriverTest, AKernelLoadedWithoutItsTensorMapsIsRefused) {
  // The stand-in checks the 128-byte parameters hold maps, as a real
  // kernel would need them to.
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  auto module = device->loadModule(kTensorMapKernel, error);
  ASSERT_TRUE(module) << error;
  CUdeviceptr base = 0;
  int32_t columns = 200;
  TensorMap garbage{};
  std::vector<void *> args = {&base, &columns, &garbage};
  EXPECT_FALSE(module->launch("tma", {1, 1, 1}, {128, 1, 1}, 0, nullptr, args,
                              error));
  EXPECT_NE(error.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << error;
}

TEST(CudaDriverTest, EveryEntryPointOfAModuleIsFound) {
  // A module compiled from a launch plan holds each of its kernels.
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  auto module = device->loadModule(
      ".version 8.0\n.target sm_90a\n"
      ".visible .entry first(\n\t.param .u64 first_param_0\n)\n{\n\tret;\n}\n"
      ".visible .entry second(\n\t.param .u64 second_param_0\n)\n{\n"
      "\tret;\n}\n",
      error);
  ASSERT_TRUE(module) << error;
  EXPECT_TRUE(module->getFunction("first", error)) << error;
  EXPECT_TRUE(module->getFunction("second", error)) << error;
  EXPECT_FALSE(module->getFunction("third", error));
  EXPECT_NE(error.find("CUDA_ERROR_NOT_FOUND"), std::string::npos) << error;
}

TEST(CudaDriverTest, FindsTheDevice) {
  std::string error;
  EXPECT_EQ(driver().getDeviceCount(error), 1);
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  EXPECT_EQ(device->getName(), "Kiln Fake GPU");
  EXPECT_EQ(device->getComputeCapability(), 90);
}

TEST(CudaDriverTest, ReadsTheDeviceLimitsWhenOpened) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  const DeviceLimits &limits = device->getLimits();
  EXPECT_EQ(limits.maxThreadsPerBlock, 1024u);
  EXPECT_EQ(limits.maxBlockDims, (std::array<unsigned, 3>{1024, 1024, 64}));
  EXPECT_EQ(limits.maxGridDims,
            (std::array<unsigned, 3>{2147483647u, 65535, 65535}));
  EXPECT_EQ(limits.maxSharedBytesPerBlockOptin, 227u * 1024);
  EXPECT_EQ(limits.multiprocessorCount, 132u);
}

TEST(CudaDriverTest, DriverErrorsNameTheErrorAndTheAction) {
  std::string error;
  EXPECT_FALSE(Device::open(driver(), 3, error));
  EXPECT_EQ(error, "cuDeviceGet(3) failed: CUDA_ERROR_INVALID_VALUE "
                   "(invalid argument) [1]");
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device);
  EXPECT_FALSE(device->loadModule(".version 8.0 garbage", error));
  EXPECT_EQ(error, "loading a module (cuModuleLoadData) failed: "
                   "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed) "
                   "[218]");
  EXPECT_EQ(device->allocate(size_t(1) << 50, error), 0u);
  EXPECT_EQ(error, "allocating 1125899906842624 bytes (cuMemAlloc) failed: "
                   "CUDA_ERROR_OUT_OF_MEMORY (out of memory) [2]");
  EXPECT_FALSE(device->fill(0, 0xab, 16, error));
  EXPECT_EQ(error, "setting 16 bytes to 171 (cuMemsetD8) failed: "
                   "CUDA_ERROR_INVALID_VALUE (invalid argument) [1]");
  EXPECT_FALSE(device->copyOnDevice(0, 0, 16, error));
  EXPECT_EQ(error, "copying 16 bytes within the device (cuMemcpyDtoD) "
                   "failed: CUDA_ERROR_INVALID_VALUE (invalid argument) [1]");
  // An error the driver has no name for still gives its number.
  EXPECT_EQ(driver().describe(999, "something"),
            "something failed: unknown CUDA error [999]");
}

TEST(CudaDriverTest, LaunchesForwardTheirConfiguration) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  Module &module = *loaded.module;
  std::string error;
  int value = 7;
  std::vector<void *> args = {&value};
  ASSERT_TRUE(module.launch("kernel", {4, 2, 1}, {128, 1, 1}, 1024, nullptr,
                            args, error))
      << error;
  const FakeLaunch &launch = lastLaunch();
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.sharedBytes, 1024u);
  EXPECT_EQ(*static_cast<int *>(launch.args[0]), 7);
  EXPECT_FALSE(
      module.launch("missing", {1, 1, 1}, {1, 1, 1}, 0, nullptr, args, error));
  EXPECT_EQ(error, "finding kernel 'missing' failed: CUDA_ERROR_NOT_FOUND "
                   "(named symbol not found) [500]");
}

TEST(CudaDriverTest, SharedMemoryLimitIsRaisedWhenALaunchNeedsMore) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  Module &module = *loaded.module;
  std::string error;
  std::vector<void *> args;
  // More than 48 KiB of dynamic shared memory: the limit is raised first.
  ASSERT_TRUE(module.launch("kernel", {1, 1, 1}, {256, 1, 1}, 100 * 1024,
                            nullptr, args, error))
      << error;
  EXPECT_EQ(lastLaunch().maxDynamicShared, 100 * 1024);
  // A later launch that needs less leaves it raised: a launch on another
  // thread may rely on it.
  ASSERT_TRUE(module.launch("kernel", {1, 1, 1}, {256, 1, 1}, 60 * 1024,
                            nullptr, args, error))
      << error;
  EXPECT_EQ(lastLaunch().maxDynamicShared, 100 * 1024);
  // 32 KiB of static shared memory leave 16 KiB of dynamic by default:
  // 20 KiB needs the limit raised, though it is under 48 KiB.
  ASSERT_TRUE(module.launch("heavy", {1, 1, 1}, {256, 1, 1}, 20 * 1024, nullptr,
                            args, error))
      << error;
  EXPECT_EQ(lastLaunch().maxDynamicShared, 20 * 1024);
}

TEST(CudaDriverTest, LaunchesOverTheDeviceLimitsNameTheLimit) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  Module &module = *loaded.module;
  std::vector<void *> args;
  int launches = launchCount();
  auto refusal = [&](std::array<unsigned, 3> grid,
                     std::array<unsigned, 3> block, unsigned sharedBytes) {
    std::string error;
    EXPECT_FALSE(module.launch("kernel", grid, block, sharedBytes, nullptr,
                               args, error));
    return error;
  };
  EXPECT_EQ(refusal({1, 1, 1}, {2048, 1, 1}, 0),
            "cannot launch kernel 'kernel': block of 2048 threads exceeds the "
            "device's 1024 threads per block");
  EXPECT_EQ(refusal({1, 1, 1}, {64, 32, 2}, 0),
            "cannot launch kernel 'kernel': block of 4096 threads exceeds the "
            "device's 1024 threads per block");
  EXPECT_EQ(refusal({1, 1, 1}, {1, 1, 128}, 0),
            "cannot launch kernel 'kernel': block dimension z of 128 exceeds "
            "the device's maximum of 64");
  EXPECT_EQ(refusal({1, 1, 1}, {32, 0, 1}, 0),
            "cannot launch kernel 'kernel': block dimension y is zero");
  EXPECT_EQ(refusal({0, 1, 1}, {32, 1, 1}, 0),
            "cannot launch kernel 'kernel': grid dimension x is zero");
  EXPECT_EQ(refusal({1, 70000, 1}, {32, 1, 1}, 0),
            "cannot launch kernel 'kernel': grid dimension y of 70000 exceeds "
            "the device's maximum of 65535");
  EXPECT_EQ(refusal({1, 1, 65536}, {32, 1, 1}, 0),
            "cannot launch kernel 'kernel': grid dimension z of 65536 exceeds "
            "the device's maximum of 65535");
  EXPECT_EQ(refusal({1, 1, 1}, {32, 1, 1}, 228 * 1024),
            "cannot launch kernel 'kernel': 233472 bytes of dynamic shared "
            "memory exceed the device's 232448 bytes per block");
  // None of them reached the driver.
  EXPECT_EQ(launchCount(), launches);
  // The largest grid along x is fine.
  std::string error;
  EXPECT_TRUE(module.launch("kernel", {2147483647u, 1, 1}, {1024, 1, 1},
                            227 * 1024, nullptr, args, error))
      << error;
}

TEST(CudaDriverTest, LaunchesOverTheKernelLimitsNameTheLimit) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  Module &module = *loaded.module;
  std::vector<void *> args;
  int launches = launchCount();
  std::string error;
  // "heavy" takes at most 256 threads per block and has 32 KiB of static
  // shared memory.
  EXPECT_FALSE(
      module.launch("heavy", {1, 1, 1}, {512, 1, 1}, 0, nullptr, args, error));
  EXPECT_EQ(error, "cannot launch kernel 'heavy': block of 512 threads "
                   "exceeds the kernel's 256 threads per block");
  EXPECT_FALSE(module.launch("heavy", {1, 1, 1}, {256, 1, 1}, 200 * 1024,
                             nullptr, args, error));
  EXPECT_EQ(error, "cannot launch kernel 'heavy': 32768 bytes of static and "
                   "204800 bytes of dynamic shared memory exceed the "
                   "device's 232448 bytes per block");
  EXPECT_EQ(launchCount(), launches);
  EXPECT_TRUE(module.launch("heavy", {1, 1, 1}, {256, 1, 1}, 195 * 1024,
                            nullptr, args, error))
      << error;
}

TEST(CudaDriverTest, CopiesRoundTrip) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device);
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  CUdeviceptr buffer = device->allocate(sizeof(in), error);
  ASSERT_NE(buffer, 0u) << error;
  ASSERT_TRUE(device->copyToDevice(buffer, in, sizeof(in), error));
  ASSERT_TRUE(device->copyToHost(out, buffer, sizeof(out), error));
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  EXPECT_TRUE(device->synchronize(error));
  EXPECT_TRUE(device->free(buffer, error));
}

TEST(CudaDriverTest, FillsAndCopiesOnTheDevice) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device);
  unsigned char out[8] = {};
  CUdeviceptr from = device->allocate(sizeof(out), error);
  CUdeviceptr to = device->allocate(sizeof(out), error);
  ASSERT_TRUE(from && to) << error;
  ASSERT_TRUE(device->fill(from, 0x5a, sizeof(out), error)) << error;
  ASSERT_TRUE(device->fill(to, 0, sizeof(out), error)) << error;
  ASSERT_TRUE(device->copyOnDevice(to, from, 4, error)) << error;
  ASSERT_TRUE(device->copyToHost(out, to, sizeof(out), error));
  const unsigned char expected[8] = {0x5a, 0x5a, 0x5a, 0x5a, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(out, expected, sizeof(out)), 0);
  EXPECT_TRUE(device->free(from, error));
  EXPECT_TRUE(device->free(to, error));
}

TEST(CudaDriverTest, EventsTimeTheWorkOnAStream) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  int handles = liveHandles();
  std::string error;
  {
    auto stream = loaded.device->createStream(error);
    ASSERT_TRUE(stream) << error;
    auto start = loaded.device->createEvent(error);
    auto end = loaded.device->createEvent(error);
    ASSERT_TRUE(start && end) << error;
    EXPECT_EQ(liveHandles(), handles + 3);
    std::vector<void *> args;
    ASSERT_TRUE(start->record(stream->get(), error)) << error;
    // The fake device's clock advances half a millisecond per launch.
    for (int i = 0; i < 4; ++i)
      ASSERT_TRUE(loaded.module->launch("kernel", {1, 1, 1}, {32, 1, 1}, 0,
                                        stream->get(), args, error))
          << error;
    ASSERT_TRUE(end->record(stream->get(), error)) << error;
    ASSERT_TRUE(end->synchronize(error)) << error;
    ASSERT_TRUE(stream->synchronize(error)) << error;
    float milliseconds = 0;
    ASSERT_TRUE(end->getMillisecondsSince(*start, milliseconds, error))
        << error;
    EXPECT_FLOAT_EQ(milliseconds, 2.0f);
  }
  // Streams and events are destroyed with their objects.
  EXPECT_EQ(liveHandles(), handles);
}

TEST(CudaDriverTest, GraphsReplayTheKernelsAddedToThem) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  Module &module = *loaded.module;
  int handles = liveHandles();
  std::string error;
  {
    auto stream = loaded.device->createStream(error);
    ASSERT_TRUE(stream) << error;
    std::unique_ptr<Graph> graph = Graph::create(*loaded.device, error);
    ASSERT_TRUE(graph) << error;
    std::vector<void *> args;
    int launches = launchCount(), graphLaunches = graphLaunchCount();
    // Added, the three kernels do not run...
    for (unsigned programs = 1; programs <= 3; ++programs) {
      KernelLaunch launch;
      ASSERT_TRUE(module.prepare("kernel", {programs, 1, 1}, {32, 1, 1}, 0,
                                 args, launch, error))
          << error;
      ASSERT_TRUE(graph->addKernel(launch, error)) << error;
    }
    EXPECT_EQ(launchCount(), launches);
    EXPECT_FALSE(graph->launch(*stream, error));
    EXPECT_EQ(error, "cannot launch a graph that is not instantiated");
    ASSERT_TRUE(graph->instantiate(error)) << error;
    // ...until the graph is launched, in order, as often as it is.
    ASSERT_TRUE(graph->launch(*stream, error)) << error;
    ASSERT_TRUE(graph->launch(*stream, error)) << error;
    ASSERT_TRUE(stream->synchronize(error)) << error;
    EXPECT_EQ(launchCount(), launches + 6);
    EXPECT_EQ(graphLaunchCount(), graphLaunches + 2);
    EXPECT_EQ(lastLaunch().grid[0], 3u);
    EXPECT_EQ(lastLaunch().stream, stream->get());

    // The last kernel's grid changed: later launches take it.
    KernelLaunch wider;
    ASSERT_TRUE(
        module.prepare("kernel", {7, 1, 1}, {64, 1, 1}, 0, args, wider, error))
        << error;
    int updates = nodeUpdates();
    ASSERT_TRUE(graph->setKernel(2, wider, error)) << error;
    EXPECT_EQ(nodeUpdates(), updates + 1);
    EXPECT_EQ(lastLaunch().grid[0], 3u);
    ASSERT_TRUE(graph->launch(nullptr, error)) << error;
    EXPECT_EQ(lastLaunch().grid[0], 7u);
    EXPECT_EQ(lastLaunch().block[0], 64u);

    // Nothing is added once instantiated, and a kernel it does not have,
    // or another function, is refused.
    EXPECT_FALSE(graph->addKernel(wider, error));
    EXPECT_EQ(error, "cannot add kernel 'kernel' to a graph already "
                     "instantiated");
    EXPECT_FALSE(graph->setKernel(3, wider, error));
    EXPECT_EQ(error, "cannot set kernel 3 of a graph of 3");
    KernelLaunch heavy;
    ASSERT_TRUE(
        module.prepare("heavy", {1, 1, 1}, {32, 1, 1}, 0, args, heavy, error))
        << error;
    EXPECT_FALSE(graph->setKernel(0, heavy, error));
    EXPECT_EQ(error, "setting the parameters of 'heavy' in a graph "
                     "(cuGraphExecKernelNodeSetParams) failed: "
                     "CUDA_ERROR_INVALID_VALUE (invalid argument) [1]");
    // A launch the kernel cannot make is refused before the graph.
    EXPECT_FALSE(module.prepare("heavy", {1, 1, 1}, {1024, 1, 1}, 0, args,
                                heavy, error));
    EXPECT_NE(error.find("cannot launch kernel 'heavy'"), std::string::npos)
        << error;
  }
  // Graphs go with their objects, like streams.
  EXPECT_EQ(liveHandles(), handles);
}

TEST(CudaDriverTest, TimingAnUnrecordedEventIsAnError) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device);
  auto start = device->createEvent(error);
  auto end = device->createEvent(error);
  ASSERT_TRUE(start && end) << error;
  ASSERT_TRUE(end->record(nullptr, error)) << error;
  float milliseconds = 0;
  EXPECT_FALSE(end->getMillisecondsSince(*start, milliseconds, error));
  EXPECT_EQ(error, "timing between events (cuEventElapsedTime) failed: "
                   "CUDA_ERROR_INVALID_HANDLE (invalid resource handle) "
                   "[400]");
}

TEST(CudaDriverTest, AFaultFailsEveryLaterCallUntilTheContextIsReleased) {
  driver();
  int handles = liveHandles(), allocations = liveAllocations();
  {
    Loaded loaded = load();
    ASSERT_TRUE(loaded.module);
    Device &device = *loaded.device;
    std::string error;
    CUdeviceptr buffer = device.allocate(16, error);
    ASSERT_NE(buffer, 0u) << error;
    auto stream = device.createStream(error);
    auto start = device.createEvent(error);
    auto end = device.createEvent(error);
    ASSERT_TRUE(stream && start && end) << error;
    ASSERT_TRUE(start->record(stream->get(), error)) << error;
    std::vector<void *> args = {&buffer};
    // The launch is accepted: the kernel faults while it runs, and the
    // calls after it report the fault.
    ASSERT_TRUE(loaded.module->launch("faulting", {1, 1, 1}, {32, 1, 1}, 0,
                                      stream->get(), args, error))
        << error;
    int launches = launchCount();
    const std::string fault = " failed: CUDA_ERROR_ILLEGAL_ADDRESS (an "
                              "illegal memory access was encountered) [700]";
    EXPECT_FALSE(device.synchronize(error));
    EXPECT_EQ(error, "waiting for the device (cuCtxSynchronize)" + fault);
    EXPECT_FALSE(stream->synchronize(error));
    EXPECT_EQ(error, "waiting for a stream (cuStreamSynchronize)" + fault);
    EXPECT_FALSE(end->record(stream->get(), error));
    EXPECT_EQ(error, "recording an event (cuEventRecord)" + fault);
    EXPECT_FALSE(end->synchronize(error));
    EXPECT_EQ(error, "waiting for an event (cuEventSynchronize)" + fault);
    float milliseconds = 0;
    EXPECT_FALSE(end->getMillisecondsSince(*start, milliseconds, error));
    EXPECT_EQ(error, "timing between events (cuEventElapsedTime)" + fault);
    float values[4] = {};
    EXPECT_FALSE(device.copyToHost(values, buffer, sizeof(values), error));
    EXPECT_EQ(error, "copying 16 bytes to the host (cuMemcpyDtoH)" + fault);
    EXPECT_FALSE(device.copyToDevice(buffer, values, sizeof(values), error));
    EXPECT_EQ(error, "copying 16 bytes to the device (cuMemcpyHtoD)" + fault);
    EXPECT_FALSE(device.copyOnDevice(buffer, buffer, 16, error));
    EXPECT_EQ(error,
              "copying 16 bytes within the device (cuMemcpyDtoD)" + fault);
    EXPECT_FALSE(device.fill(buffer, 0, 16, error));
    EXPECT_EQ(error, "setting 16 bytes to 0 (cuMemsetD8)" + fault);
    EXPECT_FALSE(loaded.module->launch("kernel", {1, 1, 1}, {32, 1, 1}, 0,
                                       stream->get(), args, error));
    EXPECT_EQ(error, "launching 'kernel'" + fault);
    EXPECT_EQ(launchCount(), launches);
    EXPECT_EQ(device.allocate(16, error), 0u);
    EXPECT_EQ(error, "allocating 16 bytes (cuMemAlloc)" + fault);
    EXPECT_FALSE(device.loadModule("//fake module", error));
    EXPECT_EQ(error, "loading a module (cuModuleLoadData)" + fault);
    EXPECT_FALSE(device.createStream(error));
    EXPECT_EQ(error, "creating a stream (cuStreamCreate)" + fault);
    EXPECT_FALSE(device.createEvent(error));
    EXPECT_EQ(error, "creating an event (cuEventCreate)" + fault);
    // Freeing reports the fault too, and frees all the same.
    EXPECT_FALSE(device.free(buffer, error));
    EXPECT_EQ(error, "freeing device memory (cuMemFree)" + fault);
  }
  // Nothing is left: not the memory, not the module, stream and events,
  // and not the fault, which went with the context's last reference.
  EXPECT_EQ(liveHandles(), handles);
  EXPECT_EQ(liveAllocations(), allocations);
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  std::string error;
  std::vector<void *> args;
  EXPECT_TRUE(loaded.module->launch("kernel", {1, 1, 1}, {32, 1, 1}, 0,
                                    nullptr, args, error))
      << error;
  EXPECT_TRUE(loaded.device->synchronize(error)) << error;
}

TEST(CudaDriverTest, EveryCallMakesTheContextCurrent) {
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  // Another library on this thread may have left no context current; the
  // fake then refuses calls that need one, as the driver does.
  auto setCurrent = fake<CUresult(CUcontext)>("cuCtxSetCurrent");
  std::string error;
  std::vector<void *> args;
  ASSERT_EQ(setCurrent(nullptr), 0);
  EXPECT_TRUE(loaded.module->launch("kernel", {1, 1, 1}, {32, 1, 1}, 0, nullptr,
                                    args, error))
      << error;
  ASSERT_EQ(setCurrent(nullptr), 0);
  CUdeviceptr buffer = loaded.device->allocate(16, error);
  EXPECT_NE(buffer, 0u) << error;
  ASSERT_EQ(setCurrent(nullptr), 0);
  EXPECT_TRUE(loaded.device->free(buffer, error)) << error;
  ASSERT_EQ(setCurrent(nullptr), 0);
  EXPECT_TRUE(loaded.device->createStream(error)) << error;
  ASSERT_EQ(setCurrent(nullptr), 0);
  EXPECT_TRUE(loaded.device->synchronize(error)) << error;
}

TEST(CudaDriverTest, ThreadsLookUpAndLaunchConcurrently) {
  // The module is loaded here; each thread starts with no current context
  // and shares the module's cache of kernels.
  Loaded loaded = load();
  ASSERT_TRUE(loaded.module);
  constexpr int kThreads = 8, kRounds = 50;
  int launches = launchCount();
  std::atomic<int> failures{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string &error = errors[t];
      std::vector<void *> args;
      for (int round = 0; round < kRounds; ++round) {
        const char *name = (t + round) % 2 ? "kernel" : "heavy";
        // Threads ask for different shared memory sizes, so the limit is
        // raised while others launch.
        unsigned sharedBytes = (16 + (t * kRounds + round) % 64) * 1024;
        unsigned char byte = 0;
        CUdeviceptr buffer = 0;
        if (!loaded.module->getFunction(name, error) ||
            !loaded.module->launch(name, {2, 1, 1}, {256, 1, 1}, sharedBytes,
                                   nullptr, args, error) ||
            !(buffer = loaded.device->allocate(1, error)) ||
            !loaded.device->fill(buffer, static_cast<unsigned char>(t), 1,
                                 error) ||
            !loaded.device->copyToHost(&byte, buffer, 1, error) ||
            !loaded.device->free(buffer, error) || byte != t) {
          ++failures;
          return;
        }
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string &error : errors)
    EXPECT_EQ(error, "");
  EXPECT_EQ(launchCount(), launches + kThreads * kRounds);
}

TEST(CudaDriverTest, TheDriverLoadsOnceForAllThreads) {
  // Run on its own (as ctest runs each test), the threads race to load it.
  useFakeDriver();
  std::vector<CudaDriver *> loaded(8);
  std::vector<std::thread> threads;
  for (CudaDriver *&slot : loaded)
    threads.emplace_back([&slot] {
      std::string error;
      slot = CudaDriver::get(error);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (CudaDriver *slot : loaded)
    EXPECT_EQ(slot, &driver());
}

// The driver is loaded once per process, so a missing one is tried in a
// fresh process: the "threadsafe" death test style runs the statement in a
// new run of this binary.
TEST(CudaDriverDeathTest, AMissingDriverIsOneClearSentence) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("KILN_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        std::string error;
        CudaDriver *loaded = CudaDriver::get(error);
        std::fprintf(stderr, "%s\n", error.c_str());
        std::exit(loaded ? 1 : 0);
      },
      testing::ExitedWithCode(0),
      "^no CUDA driver: cannot open /nonexistent/libcuda.so.1 \\([^\n]*\\)\n$");
}
