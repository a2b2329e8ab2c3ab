//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "kiln/Runtime/CudaDriver.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>

using namespace kiln::runtime;

namespace {
/// Driver constants Kiln uses (from the driver API's ABI).
constexpr int kFuncMaxThreadsPerBlock = 0;
constexpr int kFuncSharedSizeBytes = 1;
constexpr int kFuncMaxDynamicSharedSizeBytes = 8;
constexpr unsigned kStreamDefault = 0;
constexpr unsigned kEventDefault = 0;
} // namespace

/// Resolves `name` from `library` into `slot`; false if it is missing.
template <typename Fn>
static bool resolve(void *library, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  return slot != nullptr;
}

CudaDriver *CudaDriver::get(std::string &error) {
  // Function-local statics are initialized once even when several threads
  // get here first, and every later call sees the same outcome. The driver
  // is never destroyed: devices and modules released by other static
  // destructors at exit still call through it.
  static std::string loadError;
  static CudaDriver *const loaded = load(loadError);
  if (!loaded)
    error = loadError;
  return loaded;
}

CudaDriver *CudaDriver::load(std::string &error) {
  const char *override = std::getenv("KILN_CUDA_DRIVER");
  std::string path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    error = "no CUDA driver: cannot open " + path + " (" +
            (why ? why : "unknown reason") + ")";
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
  need("cuFuncGetAttribute", api.cuFuncGetAttribute);
  need("cuFuncSetAttribute", api.cuFuncSetAttribute);
  need("cuLaunchKernel", api.cuLaunchKernel);
  need("cuStreamCreate", api.cuStreamCreate);
  need("cuStreamSynchronize", api.cuStreamSynchronize);
  need("cuStreamDestroy_v2", api.cuStreamDestroy);
  need("cuGraphCreate", api.cuGraphCreate);
  // Drivers before CUDA 12 export only the original names, whose
  // parameters are the leading fields of KernelNodeParams.
  if (!resolve(library, "cuGraphAddKernelNode_v2", api.cuGraphAddKernelNode))
    need("cuGraphAddKernelNode", api.cuGraphAddKernelNode);
  if (!resolve(library, "cuGraphExecKernelNodeSetParams_v2",
               api.cuGraphExecKernelNodeSetParams))
    need("cuGraphExecKernelNodeSetParams", api.cuGraphExecKernelNodeSetParams);
  need("cuGraphInstantiateWithFlags", api.cuGraphInstantiate);
  need("cuGraphLaunch", api.cuGraphLaunch);
  need("cuGraphExecDestroy", api.cuGraphExecDestroy);
  need("cuGraphDestroy", api.cuGraphDestroy);
  need("cuEventCreate", api.cuEventCreate);
  need("cuEventRecord", api.cuEventRecord);
  need("cuEventSynchronize", api.cuEventSynchronize);
  // Recent cuda.h headers map cuEventElapsedTime to the _v2 name; older
  // drivers export only the original, which takes the same arguments.
  if (!resolve(library, "cuEventElapsedTime_v2", api.cuEventElapsedTime))
    need("cuEventElapsedTime", api.cuEventElapsedTime);
  need("cuEventDestroy_v2", api.cuEventDestroy);
  need("cuMemAlloc_v2", api.cuMemAlloc);
  need("cuMemFree_v2", api.cuMemFree);
  need("cuMemcpyHtoD_v2", api.cuMemcpyHtoD);
  need("cuMemcpyDtoH_v2", api.cuMemcpyDtoH);
  need("cuMemcpyDtoD_v2", api.cuMemcpyDtoD);
  need("cuMemsetD8_v2", api.cuMemsetD8);
  resolve(library, "cuTensorMapEncodeTiled", api.cuTensorMapEncodeTiled);
  need("cuGetErrorName", api.cuGetErrorName);
  need("cuGetErrorString", api.cuGetErrorString);
  if (missing) {
    error = path + " is not a usable CUDA driver: it has no " +
            std::string(missing);
    dlclose(library);
    return nullptr;
  }
  if (CUresult result = api.cuInit(0); result != kSuccess) {
    error = driver->describe(result, "cuInit");
    // The library stays open (no dlclose): a driver that failed to start
    // may not unload cleanly.
    return nullptr;
  }
  return driver.release();
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
    error =
        driver.describe(result, "cuDeviceGet(" + std::to_string(ordinal) + ")");
    return nullptr;
  }
  char name[256] = {};
  if ((result = api.cuDeviceGetName(name, sizeof(name), device->device)) !=
      kSuccess) {
    error =
        driver.describe(result, "querying device " + std::to_string(ordinal));
    return nullptr;
  }
  device->name = name;
  // The limits are read once here, so that launches are checked against
  // them without asking the driver each time.
  unsigned major = 0, minor = 0;
  DeviceLimits &limits = device->limits;
  const struct {
    int id;
    const char *name;
    unsigned *value;
  } attributes[] = {
      {75, "COMPUTE_CAPABILITY_MAJOR", &major},
      {76, "COMPUTE_CAPABILITY_MINOR", &minor},
      {1, "MAX_THREADS_PER_BLOCK", &limits.maxThreadsPerBlock},
      {2, "MAX_BLOCK_DIM_X", &limits.maxBlockDims[0]},
      {3, "MAX_BLOCK_DIM_Y", &limits.maxBlockDims[1]},
      {4, "MAX_BLOCK_DIM_Z", &limits.maxBlockDims[2]},
      {5, "MAX_GRID_DIM_X", &limits.maxGridDims[0]},
      {6, "MAX_GRID_DIM_Y", &limits.maxGridDims[1]},
      {7, "MAX_GRID_DIM_Z", &limits.maxGridDims[2]},
      {97, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
       &limits.maxSharedBytesPerBlockOptin},
      {16, "MULTIPROCESSOR_COUNT", &limits.multiprocessorCount},
  };
  for (const auto &attribute : attributes) {
    int value = 0;
    if ((result = api.cuDeviceGetAttribute(&value, attribute.id,
                                           device->device)) != kSuccess) {
      error =
          driver.describe(result, "querying CU_DEVICE_ATTRIBUTE_" +
                                      std::string(attribute.name) +
                                      " of device " + std::to_string(ordinal));
      return nullptr;
    }
    *attribute.value = static_cast<unsigned>(value);
  }
  device->capability = static_cast<int>(major * 10 + minor);
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
    error = driver.describe(result, "making the device's context current "
                                    "(cuCtxSetCurrent)");
    return false;
  }
  return true;
}

void Device::makeCurrentOrIgnore() { driver.api().cuCtxSetCurrent(context); }

std::unique_ptr<Module>
Device::loadModule(const std::string &image, std::string &error,
                   std::vector<TensorMapSpec> tensorMaps) {
  if (!makeCurrent(error))
    return nullptr;
  CUmodule module = nullptr;
  if (CUresult result = driver.api().cuModuleLoadData(&module, image.c_str());
      result != kSuccess) {
    error = driver.describe(result, "loading a module (cuModuleLoadData)");
    return nullptr;
  }
  return std::unique_ptr<Module>(
      new Module(*this, module, std::move(tensorMaps)));
}

std::unique_ptr<Stream> Device::createStream(std::string &error) {
  if (!makeCurrent(error))
    return nullptr;
  CUstream stream = nullptr;
  if (CUresult result = driver.api().cuStreamCreate(&stream, kStreamDefault);
      result != kSuccess) {
    error = driver.describe(result, "creating a stream (cuStreamCreate)");
    return nullptr;
  }
  return std::unique_ptr<Stream>(new Stream(*this, stream));
}

std::unique_ptr<Event> Device::createEvent(std::string &error) {
  if (!makeCurrent(error))
    return nullptr;
  CUevent event = nullptr;
  if (CUresult result = driver.api().cuEventCreate(&event, kEventDefault);
      result != kSuccess) {
    error = driver.describe(result, "creating an event (cuEventCreate)");
    return nullptr;
  }
  return std::unique_ptr<Event>(new Event(*this, event));
}

CUdeviceptr Device::allocate(size_t bytes, std::string &error) {
  if (!makeCurrent(error))
    return 0;
  CUdeviceptr pointer = 0;
  if (CUresult result = driver.api().cuMemAlloc(&pointer, bytes);
      result != kSuccess) {
    error = driver.describe(result, "allocating " + std::to_string(bytes) +
                                        " bytes (cuMemAlloc)");
    return 0;
  }
  return pointer;
}

bool Device::free(CUdeviceptr pointer, std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuMemFree(pointer); result != kSuccess) {
    error = driver.describe(result, "freeing device memory (cuMemFree)");
    return false;
  }
  return true;
}

bool Device::copyToDevice(CUdeviceptr to, const void *from, size_t bytes,
                          std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuMemcpyHtoD(to, from, bytes);
      result != kSuccess) {
    error = driver.describe(result, "copying " + std::to_string(bytes) +
                                        " bytes to the device (cuMemcpyHtoD)");
    return false;
  }
  return true;
}

bool Device::copyToHost(void *to, CUdeviceptr from, size_t bytes,
                        std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuMemcpyDtoH(to, from, bytes);
      result != kSuccess) {
    error = driver.describe(result, "copying " + std::to_string(bytes) +
                                        " bytes to the host (cuMemcpyDtoH)");
    return false;
  }
  return true;
}

bool Device::copyOnDevice(CUdeviceptr to, CUdeviceptr from, size_t bytes,
                          std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuMemcpyDtoD(to, from, bytes);
      result != kSuccess) {
    error = driver.describe(result, "copying " + std::to_string(bytes) +
                                        " bytes within the device "
                                        "(cuMemcpyDtoD)");
    return false;
  }
  return true;
}

bool Device::fill(CUdeviceptr to, unsigned char value, size_t bytes,
                  std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuMemsetD8(to, value, bytes);
      result != kSuccess) {
    error = driver.describe(result, "setting " + std::to_string(bytes) +
                                        " bytes to " + std::to_string(value) +
                                        " (cuMemsetD8)");
    return false;
  }
  return true;
}

bool Device::synchronize(std::string &error) {
  if (!makeCurrent(error))
    return false;
  if (CUresult result = driver.api().cuCtxSynchronize(); result != kSuccess) {
    error = driver.describe(result, "waiting for the device "
                                    "(cuCtxSynchronize)");
    return false;
  }
  return true;
}

Module::~Module() {
  device.makeCurrentOrIgnore();
  device.driver.api().cuModuleUnload(module);
}

Module::Kernel *Module::lookup(const std::string &name, std::string &error) {
  auto it = kernels.find(name);
  if (it != kernels.end())
    return &it->second;
  const DriverApi &api = device.driver.api();
  Kernel kernel;
  CUresult result =
      api.cuModuleGetFunction(&kernel.function, module, name.c_str());
  if (result != kSuccess) {
    error = device.driver.describe(result, "finding kernel '" + name + "'");
    return nullptr;
  }
  const std::pair<int, unsigned *> attributes[] = {
      {kFuncMaxThreadsPerBlock, &kernel.maxThreadsPerBlock},
      {kFuncSharedSizeBytes, &kernel.staticSharedBytes},
      {kFuncMaxDynamicSharedSizeBytes, &kernel.maxDynamicSharedBytes},
  };
  for (auto [attribute, field] : attributes) {
    int value = 0;
    if ((result = api.cuFuncGetAttribute(&value, attribute, kernel.function)) !=
        kSuccess) {
      error =
          device.driver.describe(result, "querying the limits of kernel '" +
                                             name + "' (cuFuncGetAttribute)");
      return nullptr;
    }
    *field = static_cast<unsigned>(value);
  }
  for (const TensorMapSpec &spec : tensorMaps)
    if (spec.kernel == name)
      kernel.tensorMaps.push_back(&spec);
  std::sort(kernel.tensorMaps.begin(), kernel.tensorMaps.end(),
            [](const TensorMapSpec *a, const TensorMapSpec *b) {
              return a->parameter < b->parameter;
            });
  return &(kernels[name] = kernel);
}

CUfunction Module::getFunction(const std::string &name, std::string &error) {
  if (!device.makeCurrent(error))
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  Kernel *kernel = lookup(name, error);
  return kernel ? kernel->function : nullptr;
}

/// Why blocks of `block` threads on a grid of `grid` blocks with
/// `sharedBytes` of dynamic shared memory cannot run on a device with
/// `limits`, given the kernel's own `kernelMaxThreads` per block and its
/// `staticSharedBytes`; empty if they can. The driver would refuse most of
/// these with CUDA_ERROR_INVALID_VALUE alone, without saying which limit.
static std::string
checkLaunch(const DeviceLimits &limits, unsigned kernelMaxThreads,
            unsigned staticSharedBytes, std::array<unsigned, 3> grid,
            std::array<unsigned, 3> block, unsigned sharedBytes) {
  const char *axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    if (!block[i])
      return std::string("block dimension ") + axes[i] + " is zero";
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (threads > limits.maxThreadsPerBlock)
    return "block of " + std::to_string(threads) +
           " threads exceeds the device's " +
           std::to_string(limits.maxThreadsPerBlock) + " threads per block";
  for (int i = 0; i < 3; ++i)
    if (block[i] > limits.maxBlockDims[i])
      return std::string("block dimension ") + axes[i] + " of " +
             std::to_string(block[i]) + " exceeds the device's maximum of " +
             std::to_string(limits.maxBlockDims[i]);
  for (int i = 0; i < 3; ++i) {
    if (!grid[i])
      return std::string("grid dimension ") + axes[i] + " is zero";
    if (grid[i] > limits.maxGridDims[i])
      return std::string("grid dimension ") + axes[i] + " of " +
             std::to_string(grid[i]) + " exceeds the device's maximum of " +
             std::to_string(limits.maxGridDims[i]);
  }
  if (sharedBytes > limits.maxSharedBytesPerBlockOptin)
    return std::to_string(sharedBytes) +
           " bytes of dynamic shared memory exceed the device's " +
           std::to_string(limits.maxSharedBytesPerBlockOptin) +
           " bytes per block";
  if (threads > kernelMaxThreads)
    return "block of " + std::to_string(threads) +
           " threads exceeds the kernel's " + std::to_string(kernelMaxThreads) +
           " threads per block";
  if (uint64_t(staticSharedBytes) + sharedBytes >
      limits.maxSharedBytesPerBlockOptin)
    return std::to_string(staticSharedBytes) + " bytes of static and " +
           std::to_string(sharedBytes) +
           " bytes of dynamic shared memory exceed the device's " +
           std::to_string(limits.maxSharedBytesPerBlockOptin) +
           " bytes per block";
  return {};
}

bool Module::prepare(const std::string &name, std::array<unsigned, 3> grid,
                     std::array<unsigned, 3> block, unsigned sharedBytes,
                     std::vector<void *> &args, KernelLaunch &launch,
                     std::string &error) {
  if (!device.makeCurrent(error))
    return false;
  const DriverApi &api = device.driver.api();
  const std::vector<const TensorMapSpec *> *tensorMapSpecs = nullptr;
  launch.name = name;
  launch.params = KernelNodeParams{};
  {
    // Only the cache and the kernel's shared memory limit are shared
    // between threads.
    std::lock_guard<std::mutex> lock(mutex);
    Kernel *kernel = lookup(name, error);
    if (!kernel)
      return false;
    std::string problem =
        checkLaunch(device.limits, kernel->maxThreadsPerBlock,
                    kernel->staticSharedBytes, grid, block, sharedBytes);
    if (!problem.empty()) {
      error = "cannot launch kernel '" + name + "': " + problem;
      return false;
    }
    if (sharedBytes > kernel->maxDynamicSharedBytes) {
      if (CUresult result = api.cuFuncSetAttribute(
              kernel->function, kFuncMaxDynamicSharedSizeBytes, sharedBytes);
          result != kSuccess) {
        error = device.driver.describe(
            result, "raising the shared memory limit of '" + name + "' to " +
                        std::to_string(sharedBytes) + " bytes");
        return false;
      }
      kernel->maxDynamicSharedBytes = sharedBytes;
    }
    launch.params.function = kernel->function;
    // Kernels are never removed from `kernels`: this stays valid.
    tensorMapSpecs = &kernel->tensorMaps;
  }
  // The kernel's tensor maps, built from its arguments and passed after
  // them.
  launch.maps.assign(tensorMapSpecs->size(), TensorMap{});
  launch.pointers.clear();
  if (!launch.maps.empty())
    launch.pointers = args;
  for (size_t i = 0; i < launch.maps.size(); ++i) {
    const TensorMapSpec &spec = *(*tensorMapSpecs)[i];
    if (spec.parameter != args.size() + i) {
      error = "cannot launch kernel '" + name + "': its tensor map " +
              "parameter " + std::to_string(spec.parameter) +
              " does not follow its " + std::to_string(args.size()) +
              " arguments";
      return false;
    }
    if (!encodeTensorMap(device.driver, spec, args, launch.maps[i], error))
      return false;
    launch.pointers.push_back(&launch.maps[i]);
  }
  std::copy(grid.begin(), grid.end(), launch.params.grid);
  std::copy(block.begin(), block.end(), launch.params.block);
  launch.params.sharedBytes = sharedBytes;
  launch.params.kernelParams =
      launch.maps.empty() ? args.data() : launch.pointers.data();
  return true;
}

bool Module::launch(const std::string &name, std::array<unsigned, 3> grid,
                    std::array<unsigned, 3> block, unsigned sharedBytes,
                    CUstream stream, std::vector<void *> &args,
                    std::string &error) {
  KernelLaunch prepared;
  if (!prepare(name, grid, block, sharedBytes, args, prepared, error))
    return false;
  const KernelNodeParams &p = prepared.params;
  if (CUresult result = device.driver.api().cuLaunchKernel(
          p.function, p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1],
          p.block[2], p.sharedBytes, stream, p.kernelParams, nullptr);
      result != kSuccess) {
    error = device.driver.describe(result, "launching '" + name + "'");
    return false;
  }
  return true;
}

Stream::~Stream() {
  device.makeCurrentOrIgnore();
  device.driver.api().cuStreamDestroy(stream);
}

bool Stream::synchronize(std::string &error) {
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuStreamSynchronize(stream);
      result != kSuccess) {
    error = device.driver.describe(result, "waiting for a stream "
                                           "(cuStreamSynchronize)");
    return false;
  }
  return true;
}

std::unique_ptr<Graph> Graph::create(Device &device, std::string &error) {
  if (!device.makeCurrent(error))
    return nullptr;
  CUgraph graph = nullptr;
  if (CUresult result = device.driver.api().cuGraphCreate(&graph, 0);
      result != kSuccess) {
    error = device.driver.describe(result, "creating a graph (cuGraphCreate)");
    return nullptr;
  }
  return std::unique_ptr<Graph>(new Graph(device, graph));
}

Graph::~Graph() {
  device.makeCurrentOrIgnore();
  if (executable)
    device.driver.api().cuGraphExecDestroy(executable);
  device.driver.api().cuGraphDestroy(graph);
}

bool Graph::addKernel(const KernelLaunch &launch, std::string &error) {
  if (executable) {
    error = "cannot add kernel '" + launch.name +
            "' to a graph already instantiated";
    return false;
  }
  if (!device.makeCurrent(error))
    return false;
  CUgraphNode node = nullptr;
  size_t dependencies = kernels.empty() ? 0 : 1;
  if (CUresult result = device.driver.api().cuGraphAddKernelNode(
          &node, graph, dependencies ? &kernels.back() : nullptr, dependencies,
          &launch.params);
      result != kSuccess) {
    error = device.driver.describe(result, "adding '" + launch.name +
                                               "' to a graph "
                                               "(cuGraphAddKernelNode)");
    return false;
  }
  kernels.push_back(node);
  return true;
}

bool Graph::instantiate(std::string &error) {
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result =
          device.driver.api().cuGraphInstantiate(&executable, graph, 0);
      result != kSuccess) {
    executable = nullptr;
    error = device.driver.describe(result, "instantiating a graph "
                                           "(cuGraphInstantiate)");
    return false;
  }
  return true;
}

bool Graph::setKernel(size_t index, const KernelLaunch &launch,
                      std::string &error) {
  if (!executable || index >= kernels.size()) {
    error = "cannot set kernel " + std::to_string(index) + " of a graph of " +
            std::to_string(kernels.size()) +
            (executable ? "" : ", not instantiated");
    return false;
  }
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuGraphExecKernelNodeSetParams(
          executable, kernels[index], &launch.params);
      result != kSuccess) {
    error = device.driver.describe(result,
                                   "setting the parameters of '" + launch.name +
                                       "' in a graph "
                                       "(cuGraphExecKernelNodeSetParams)");
    return false;
  }
  return true;
}

bool Graph::launch(Stream &stream, std::string &error) {
  return launch(stream.get(), error);
}

bool Graph::launch(CUstream stream, std::string &error) {
  if (!executable) {
    error = "cannot launch a graph that is not instantiated";
    return false;
  }
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuGraphLaunch(executable, stream);
      result != kSuccess) {
    error = device.driver.describe(result, "launching a graph "
                                           "(cuGraphLaunch)");
    return false;
  }
  return true;
}

Event::~Event() {
  device.makeCurrentOrIgnore();
  device.driver.api().cuEventDestroy(event);
}

bool Event::record(CUstream stream, std::string &error) {
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuEventRecord(event, stream);
      result != kSuccess) {
    error = device.driver.describe(result, "recording an event "
                                           "(cuEventRecord)");
    return false;
  }
  return true;
}

bool Event::synchronize(std::string &error) {
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuEventSynchronize(event);
      result != kSuccess) {
    error = device.driver.describe(result, "waiting for an event "
                                           "(cuEventSynchronize)");
    return false;
  }
  return true;
}

bool Event::getMillisecondsSince(const Event &start, float &milliseconds,
                                 std::string &error) const {
  if (!device.makeCurrent(error))
    return false;
  if (CUresult result = device.driver.api().cuEventElapsedTime(
          &milliseconds, start.event, event);
      result != kSuccess) {
    error = device.driver.describe(result, "timing between events "
                                           "(cuEventElapsedTime)");
    return false;
  }
  return true;
}
