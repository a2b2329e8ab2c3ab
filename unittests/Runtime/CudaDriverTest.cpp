//===- CudaDriverTest.cpp - The runtime against a fake CUDA driver --------===//
//
// The runtime is tested against FakeCudaDriver.c: what it asks of the
// driver (devices, modules, launches with their shared memory limits,
// copies) and how it reports each driver error, with no GPU.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaDriver.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace kiln::runtime;

namespace {
struct FakeLaunch {
  unsigned grid[3], block[3], sharedBytes;
  int maxDynamicShared;
  void **args;
};

/// The driver, opened from the fake library.
CudaDriver &driver() {
  setenv("KILN_CUDA_DRIVER", KILN_FAKE_CUDA_DRIVER, 1);
  std::string error;
  CudaDriver *loaded = CudaDriver::get(error);
  EXPECT_TRUE(loaded) << error;
  return *loaded;
}

const FakeLaunch &lastLaunch() {
  void *library = dlopen(KILN_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  auto get = reinterpret_cast<const FakeLaunch *(*)()>(
      dlsym(library, "fakeCudaLastLaunch"));
  return *get();
}
} // namespace

TEST(CudaDriverTest, FindsTheDevice) {
  std::string error;
  EXPECT_EQ(driver().getDeviceCount(error), 1);
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device) << error;
  EXPECT_EQ(device->getName(), "Kiln Fake GPU");
  EXPECT_EQ(device->getComputeCapability(), 90);
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
  // An error the driver has no name for still gives its number.
  EXPECT_EQ(driver().describe(999, "something"),
            "something failed: unknown CUDA error [999]");
}

TEST(CudaDriverTest, LaunchesForwardTheirConfiguration) {
  std::string error;
  auto device = Device::open(driver(), 0, error);
  ASSERT_TRUE(device);
  auto module = device->loadModule("//fake module", error);
  ASSERT_TRUE(module) << error;
  int value = 7;
  std::vector<void *> args = {&value};
  ASSERT_TRUE(module->launch("kernel", {4, 2, 1}, {128, 1, 1}, 1024, nullptr,
                             args, error))
      << error;
  const FakeLaunch &launch = lastLaunch();
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.sharedBytes, 1024u);
  EXPECT_EQ(*static_cast<int *>(launch.args[0]), 7);
  // More than 48 KiB of shared memory: the limit is raised first.
  ASSERT_TRUE(module->launch("kernel", {1, 1, 1}, {256, 1, 1}, 100 * 1024,
                             nullptr, args, error))
      << error;
  EXPECT_EQ(lastLaunch().maxDynamicShared, 100 * 1024);
  EXPECT_FALSE(module->launch("missing", {1, 1, 1}, {1, 1, 1}, 0, nullptr,
                              args, error));
  EXPECT_EQ(error, "finding kernel 'missing' failed: CUDA_ERROR_NOT_FOUND "
                   "(named symbol not found) [500]");
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
