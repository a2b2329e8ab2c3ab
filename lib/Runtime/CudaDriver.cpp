//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "kiln/Runtime/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace kiln::runtime;

namespace {
/// Driver constants Kiln uses (from the driver API's ABI).
constexpr CUresult kSuccess = 0;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
constexpr int kMaxDynamicSharedSizeBytes = 8;
/// Shared memory a kernel may use without asking for more.
constexpr unsigned kDefaultSharedBytes = 48 * 1024;
} // namespace

/// Resolves `name` from `library` into `slot`; false if it is missing.
template <typename Fn>
static bool resolve(void *library, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  return slot != nullptr;
}

CudaDriver *CudaDriver::get(std::string &error) {
  static std::mutex mutex;
  static std::unique_ptr<CudaDriver> loaded;
  static std::string loadError;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded || !loadError.empty()) {
    error = loadError;
    return loaded.get();
  }
  const char *override = std::getenv("KILN_CUDA_DRIVER");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loadError = "no CUDA driver: cannot open " + path + " (" +
                (why ? why : "unknown reason") + ")";
    error = loadError;
    return nullptr;
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library = library;
  DriverApi &api = driver->functions;
  const char *missing = nullptr;
  auto need = [&](const char *name, auto &slot) {
    if (!missing && !resolve(library, name, slot))
      missing = name;
  };
  need("cuInit", api.cuInit);
  need("cuDeviceGetCount", api.cuDeviceGetCount);
  need("cuDeviceGet", api.cuDeviceGet);
  need("cuDeviceGetName", api.cuDeviceGetName);
  need("cuDeviceGetAttribute", api.cuDeviceGetAttribute);
  need("cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain);
  need("cuDevicePrimaryCtxRelease_v2", api.cuDevicePrimaryCtxRelease);
  need("cuCtxSetCurrent", api.cuCtxSetCurrent);
  need("cuCtxSynchronize", api.cuCtxSynchronize);
  need("cuModuleLoadData", api.cuModuleLoadData);
  need("cuModuleUnload", api.cuModuleUnload);
  need("cuModuleGetFunction", api.cuModuleGetFunction);
  need("cuFuncSetAttribute", api.cuFuncSetAttribute);
  need("cuLaunchKernel", api.cuLaunchKernel);
  need("cuMemAlloc_v2", api.cuMemAlloc);
  need("cuMemFree_v2", api.cuMemFree);
  need("cuMemcpyHtoD_v2", api.cuMemcpyHtoD);
  need("cuMemcpyDtoH_v2", api.cuMemcpyDtoH);
  need("cuGetErrorName", api.cuGetErrorName);
  need("cuGetErrorString", api.cuGetErrorString);
  if (missing) {
    loadError = path + " is not a usable CUDA driver: it has no " +
                std::string(missing);
    dlclose(library);
    error = loadError;
    return nullptr;
  }
  if (CUresult result = api.cuInit(0); result != kSuccess) {
    loadError = driver->describe(result, "cuInit");
    error = loadError;
    // The library stays open (no dlclose): a driver that failed to start
    // may not unload cleanly.
    return nullptr;
  }
  loaded = std::move(driver);
  return loaded.get();
}

std::string CudaDriver::describe(CUresult result,
                                 const std::string &what) const {
  const char *name = nullptr, *description = nullptr;
  if (functions.cuGetErrorName(result, &name) != kSuccess || !name)
    name = "unknown CUDA error";
  if (functions.cuGetErrorString(result, &description) != kSuccess)
    description = nullptr;
  std::string message = what + " failed: " + name;
  if (description)
    message += std::string(" (") + description + ")";
  return message + " [" + std::to_string(result) + "]";
}

int CudaDriver::getDeviceCount(std::string &error) const {
  int count = 0;
  if (CUresult result = functions.cuDeviceGetCount(&count);
      result != kSuccess) {
    error = describe(result, "cuDeviceGetCount");
    return -1;
  }
  return count;
}

std::unique_ptr<Device> Device::open(CudaDriver &driver, int ordinal,
                                     std::string &error) {
  const DriverApi &api = driver.api();
  std::unique_ptr<Device> device(new Device(driver));
  CUresult result = api.cuDeviceGet(&device->device, ordinal);
  if (result != kSuccess) {
    error = driver.describe(result, "cuDeviceGet(" +
                                        std::to_string(ordinal) + ")");
    return nullptr;
  }
  char name[256] = {};
  int major = 0, minor = 0;
  if ((result = api.cuDeviceGetName(name, sizeof(name), device->device)) !=
          kSuccess ||
      (result = api.cuDeviceGetAttribute(&major, kComputeCapabilityMajor,
                                         device->device)) != kSuccess ||
      (result = api.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor,
                                         device->device)) != kSuccess) {
    error = driver.describe(result, "querying device " +
                                        std::to_string(ordinal));
    return nullptr;
  }
  device->name = name;
  device->capability = major * 10 + minor;
  if ((result = api.cuDevicePrimaryCtxRetain(&device->context,
                                             device->device)) != kSuccess) {
    error = driver.describe(result, "retaining the primary context of "
                                    "device " +
                                        std::to_string(ordinal));
    return nullptr;
  }
  return device;
}

Device::~Device() {
  if (context)
    driver.api().cuDevicePrimaryCtxRelease(device);
}

bool Device::makeCurrent(std::string &error) {
  if (CUresult result = driver.api().cuCtxSetCurrent(context);
      result != kSuccess) {
    error = driver.describe(result, "cuCtxSetCurrent");
    return false;
  }
  return true;
}

std::unique_ptr<Module> Device::loadModule(const std::string &image,
                                           std::string &error) {
  if (!makeCurrent(error))
    return nullptr;
  CUmodule module = nullptr;
  if (CUresult result = driver.api().cuModuleLoadData(&module, image.c_str());
      result != kSuccess) {
    error = driver.describe(result, "loading a module (cuModuleLoadData)");
    return nullptr;
  }
  return std::make_unique<Module>(driver, module);
}

CUdeviceptr Device::allocate(size_t bytes, std::string &error) {
  CUdeviceptr pointer = 0;
  if (!makeCurrent(error))
    return 0;
  if (CUresult result = driver.api().cuMemAlloc(&pointer, bytes);
      result != kSuccess) {
    error = driver.describe(result, "allocating " + std::to_string(bytes) +
                                        " bytes (cuMemAlloc)");
    return 0;
  }
  return pointer;
}

bool Device::free(CUdeviceptr pointer, std::string &error) {
  if (CUresult result = driver.api().cuMemFree(pointer); result != kSuccess) {
    error = driver.describe(result, "cuMemFree");
    return false;
  }
  return true;
}

bool Device::copyToDevice(CUdeviceptr to, const void *from, size_t bytes,
                          std::string &error) {
  if (CUresult result = driver.api().cuMemcpyHtoD(to, from, bytes);
      result != kSuccess) {
    error = driver.describe(result, "copying " + std::to_string(bytes) +
                                        " bytes to the device");
    return false;
  }
  return true;
}

bool Device::copyToHost(void *to, CUdeviceptr from, size_t bytes,
                        std::string &error) {
  if (CUresult result = driver.api().cuMemcpyDtoH(to, from, bytes);
      result != kSuccess) {
    error = driver.describe(result, "copying " + std::to_string(bytes) +
                                        " bytes to the host");
    return false;
  }
  return true;
}

bool Device::synchronize(std::string &error) {
  if (CUresult result = driver.api().cuCtxSynchronize(); result != kSuccess) {
    error = driver.describe(result, "waiting for the device "
                                    "(cuCtxSynchronize)");
    return false;
  }
  return true;
}

Module::~Module() { driver.api().cuModuleUnload(module); }

CUfunction Module::getFunction(const std::string &name, std::string &error) {
  auto it = functions.find(name);
  if (it != functions.end())
    return it->second;
  CUfunction function = nullptr;
  if (CUresult result =
          driver.api().cuModuleGetFunction(&function, module, name.c_str());
      result != kSuccess) {
    error = driver.describe(result, "finding kernel '" + name + "'");
    return nullptr;
  }
  return functions[name] = function;
}

bool Module::launch(const std::string &name, std::array<unsigned, 3> grid,
                    std::array<unsigned, 3> block, unsigned sharedBytes,
                    CUstream stream, std::vector<void *> &args,
                    std::string &error) {
  CUfunction function = getFunction(name, error);
  if (!function)
    return false;
  const DriverApi &api = driver.api();
  if (sharedBytes > kDefaultSharedBytes) {
    if (CUresult result = api.cuFuncSetAttribute(
            function, kMaxDynamicSharedSizeBytes, sharedBytes);
        result != kSuccess) {
      error = driver.describe(result, "raising the shared memory limit of '" +
                                          name + "' to " +
                                          std::to_string(sharedBytes) +
                                          " bytes");
      return false;
    }
  }
  if (CUresult result = api.cuLaunchKernel(
          function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
          sharedBytes, stream, args.data(), nullptr);
      result != kSuccess) {
    error = driver.describe(result, "launching '" + name + "'");
    return false;
  }
  return true;
}
