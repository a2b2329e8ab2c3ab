//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Kiln's runtime over the CUDA driver API. libcuda.so.1 is opened with
// dlopen, so nothing links against the driver: everything builds and loads
// on a machine without a GPU, and says "no CUDA driver" there. Every driver
// error becomes a message with the error's name and what was being done.
// No LLVM or MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUDADRIVER_H
#define KILN_RUNTIME_CUDADRIVER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/Runtime/TensorMap.h"

namespace kiln::runtime {

/// The driver API's handles and result code, as its ABI defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUgraph = CUgraph_st *;
using CUgraphExec = CUgraphExec_st *;
using CUgraphNode = CUgraphNode_st *;
/// CUDA_SUCCESS.
inline constexpr CUresult kSuccess = 0;

/// A kernel node's parameters (CUDA_KERNEL_NODE_PARAMS_v2).
struct KernelNodeParams {
  CUfunction function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  void **kernelParams;
  void **extra;
  void *kernel;
  CUcontext context;
};

/// The driver's entry points Kiln uses, resolved from the loaded library
/// under the names cuda.h maps them to (cuMemAlloc is cuMemAlloc_v2).
struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuGraphCreate)(CUgraph *, unsigned);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *,
                                   size_t, const KernelNodeParams *);
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode,
                                             const KernelNodeParams *);
  CUresult (*cuGraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  /// Null where the driver predates CUDA 12: launches that need tensor
  /// maps then fail, saying so.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

class Module;
class Stream;
class Graph;
class Event;

/// The CUDA driver, loaded and initialized. One per process.
class CudaDriver {
public:
  /// Opens the driver library ($KILN_CUDA_DRIVER if set, else
  /// libcuda.so.1) and initializes it, once: the first call decides, from
  /// any thread, and later calls return the same driver or the same error.
  /// The driver stays loaded for the life of the process. On failure
  /// returns null and sets `error`, starting "no CUDA driver" when the
  /// library cannot be opened.
  static CudaDriver *get(std::string &error);

  const DriverApi &api() const { return functions; }

  /// "<what> failed: <ERROR_NAME> (<description>)" for a driver result.
  std::string describe(CUresult result, const std::string &what) const;

  int getDeviceCount(std::string &error) const;

private:
  CudaDriver() = default;
  /// Opens, resolves and initializes the driver; null with `error` set on
  /// failure.
  static CudaDriver *load(std::string &error);

  void *library = nullptr;
  DriverApi functions{};
};

/// What a device allows one launch, read once when the device is opened.
struct DeviceLimits {
  /// Threads in a block: in all, and along x, y and z.
  unsigned maxThreadsPerBlock = 0;
  std::array<unsigned, 3> maxBlockDims = {};
  /// Blocks in a grid along x, y and z.
  std::array<unsigned, 3> maxGridDims = {};
  /// Shared memory, static and dynamic together, that a block may opt in
  /// to (more than the default 48 KiB).
  unsigned maxSharedBytesPerBlockOptin = 0;
  /// Streaming multiprocessors, for sizing grids to fill the device.
  unsigned multiprocessorCount = 0;
};

/// One GPU, through its primary context (so pointers from PyTorch, CuPy or
/// any other user of the primary context can be passed straight in).
///
/// Every call makes the context current on the calling thread first (the
/// driver's current context is per thread), so a device, its modules,
/// streams and events can be used from any thread. Modules, streams and
/// events must be destroyed before their device.
class Device {
public:
  /// The device `ordinal`; null and `error` set on failure.
  static std::unique_ptr<Device> open(CudaDriver &driver, int ordinal,
                                      std::string &error);
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  const std::string &getName() const { return name; }
  /// Compute capability as major * 10 + minor (90 for sm_90).
  int getComputeCapability() const { return capability; }
  const DeviceLimits &getLimits() const { return limits; }

  /// Makes the device's context current on the calling thread, for callers
  /// that use the driver's API directly.
  bool makeCurrent(std::string &error);

  /// Loads a module from PTX text or a cubin image; every launch of a
  /// kernel that `tensorMaps` names builds those maps from its arguments
  /// and passes them after them.
  std::unique_ptr<Module>
  loadModule(const std::string &image, std::string &error,
             std::vector<TensorMapSpec> tensorMaps = {});

  /// A stream that orders its work with the default stream's, so copies
  /// made with the methods below are done before its next launch.
  std::unique_ptr<Stream> createStream(std::string &error);
  /// An event for timing work on a stream.
  std::unique_ptr<Event> createEvent(std::string &error);

  /// Device memory: allocation, copies and fills, ordered with the default
  /// stream. Failures set `error`.
  CUdeviceptr allocate(size_t bytes, std::string &error);
  bool free(CUdeviceptr pointer, std::string &error);
  bool copyToDevice(CUdeviceptr to, const void *from, size_t bytes,
                    std::string &error);
  bool copyToHost(void *to, CUdeviceptr from, size_t bytes, std::string &error);
  bool copyOnDevice(CUdeviceptr to, CUdeviceptr from, size_t bytes,
                    std::string &error);
  /// Sets `bytes` bytes from `to` on to `value`.
  bool fill(CUdeviceptr to, unsigned char value, size_t bytes,
            std::string &error);
  bool synchronize(std::string &error);

private:
  friend class Module;
  friend class Stream;
  friend class Event;
  friend class Graph;
  Device(CudaDriver &driver) : driver(driver) {}
  /// For destructors, which have nowhere to report a failure.
  void makeCurrentOrIgnore();

  CudaDriver &driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int capability = 0;
  DeviceLimits limits;
};

/// A kernel launch checked and with its parameters packed
/// (Module::prepare), to launch or to put in a graph.
struct KernelLaunch {
  std::string name;
  KernelNodeParams params{};
  /// The tensor maps the kernel reads, and where it has any, pointers to
  /// the arguments then to the maps.
  std::vector<TensorMap> maps;
  std::vector<void *> pointers;
};

/// A loaded module; functions and their limits are looked up once and
/// cached. Lookups and launches may come from several threads.
class Module {
public:
  ~Module();

  /// The kernel `name`, or null with `error` set.
  CUfunction getFunction(const std::string &name, std::string &error);

  /// Checks a launch of `name` on a grid of blocks of `block` threads
  /// with `sharedBytes` of dynamic shared memory, and packs its parameters
  /// into `launch`. `args` point to the kernel's arguments; the tensor maps
  /// it reads are built from them and passed after them, and `args` must
  /// outlive `launch`. The launch is checked against the device's limits
  /// and the kernel's own (threads per block, shared memory), and an error
  /// names the limit exceeded. The kernel's dynamic shared memory limit (48
  /// KiB less its static shared memory by default) is raised when a launch
  /// needs more.
  bool prepare(const std::string &name, std::array<unsigned, 3> grid,
               std::array<unsigned, 3> block, unsigned sharedBytes,
               std::vector<void *> &args, KernelLaunch &launch,
               std::string &error);

  /// Prepares the launch, then queues it on `stream` (null: the default
  /// stream).
  bool launch(const std::string &name, std::array<unsigned, 3> grid,
              std::array<unsigned, 3> block, unsigned sharedBytes,
              CUstream stream, std::vector<void *> &args, std::string &error);

private:
  friend class Device;
  Module(Device &device, CUmodule module,
         std::vector<TensorMapSpec> tensorMaps)
      : device(device), module(module), tensorMaps(std::move(tensorMaps)) {}

  /// A kernel and the limits its compilation gave it.
  struct Kernel {
    CUfunction function = nullptr;
    unsigned maxThreadsPerBlock = 0;
    unsigned staticSharedBytes = 0;
    /// Dynamic shared memory launches may use now. It is raised as
    /// launches need and never lowered, so that a launch on another thread
    /// that needs less stays valid.
    unsigned maxDynamicSharedBytes = 0;
    /// The tensor maps it reads (of Module::tensorMaps), by parameter.
    std::vector<const TensorMapSpec *> tensorMaps;
  };

  /// The kernel `name`, looked up and queried on first use; the caller
  /// holds `mutex`.
  Kernel *lookup(const std::string &name, std::string &error);

  Device &device;
  CUmodule module;
  /// Guards `kernels`, the kernels looked up so far.
  std::mutex mutex;
  std::map<std::string, Kernel> kernels;
  /// The tensor maps the kernels read.
  std::vector<TensorMapSpec> tensorMaps;
};

/// A stream of work that the device runs in order; destroyed with the
/// object.
class Stream {
public:
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// The driver's handle, for launches and events.
  CUstream get() const { return stream; }

  /// Waits until the work queued on the stream so far is done.
  bool synchronize(std::string &error);

private:
  friend class Device;
  Stream(Device &device, CUstream stream) : device(device), stream(stream) {}

  Device &device;
  CUstream stream;
};

/// Kernels run one after another, replayed by one launch: the driver
/// submits all of them at once, without a launch call per kernel. Built by
/// adding kernels, then instantiated; after that, a kernel's parameters
/// can still be changed for later launches.
class Graph {
public:
  /// An empty graph; null with `error` set on failure.
  static std::unique_ptr<Graph> create(Device &device, std::string &error);
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph();

  /// Appends `launch`, to run once the kernels added before it are done.
  bool addKernel(const KernelLaunch &launch, std::string &error);
  /// Makes the graph launchable; no kernel can be added after.
  bool instantiate(std::string &error);
  /// Gives kernel `index` (in the order they were added) the parameters of
  /// `launch`, which launches the same kernel, from the next launch on.
  bool setKernel(size_t index, const KernelLaunch &launch, std::string &error);

  /// Queues the kernels on `stream`; launches of one graph run in order.
  bool launch(Stream &stream, std::string &error);
  /// The same on a stream of the driver's (null: the default stream).
  bool launch(CUstream stream, std::string &error);

private:
  Graph(Device &device, CUgraph graph) : device(device), graph(graph) {}

  Device &device;
  CUgraph graph;
  CUgraphExec executable = nullptr;
  std::vector<CUgraphNode> kernels;
};

/// A point in a stream's work, recorded for timing; destroyed with the
/// object.
class Event {
public:
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// The driver's handle.
  CUevent get() const { return event; }

  /// Marks the point after the work queued so far on `stream` (null: the
  /// default stream).
  bool record(CUstream stream, std::string &error);
  /// Waits until the work before the recorded point is done.
  bool synchronize(std::string &error);
  /// Sets `milliseconds` to the device time from `start` to this event.
  /// Both must have been recorded and reached (synchronize on this one).
  bool getMillisecondsSince(const Event &start, float &milliseconds,
                            std::string &error) const;

private:
  friend class Device;
  Event(Device &device, CUevent event) : device(device), event(event) {}

  Device &device;
  CUevent event;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CUDADRIVER_H
