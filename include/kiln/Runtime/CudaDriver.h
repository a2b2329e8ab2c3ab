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
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::runtime {

/// The driver API's handles and result code, as its ABI defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;

/// The driver's entry points Kiln uses, resolved from the loaded library.
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
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

class Module;

/// The CUDA driver, loaded and initialized. One per process.
class CudaDriver {
public:
  /// Opens the driver library ($KILN_CUDA_DRIVER if set, else
  /// libcuda.so.1) and initializes it. The driver stays loaded for the life
  /// of the process; later calls return the same driver. On failure
  /// returns null and sets `error`, starting "no CUDA driver" when the
  /// library cannot be opened.
  static CudaDriver *get(std::string &error);

  const DriverApi &api() const { return functions; }

  /// "<what> failed: <ERROR_NAME> (<description>)" for a driver result.
  std::string describe(CUresult result, const std::string &what) const;

  int getDeviceCount(std::string &error) const;

private:
  CudaDriver() = default;

  void *library = nullptr;
  DriverApi functions{};
};

/// One GPU, through its primary context (so pointers from PyTorch, CuPy or
/// any other user of the primary context can be passed straight in).
class Device {
public:
  /// The device `ordinal`; null and `error` set on failure.
  static std::unique_ptr<Device> open(CudaDriver &driver, int ordinal,
                                      std::string &error);
  ~Device();

  const std::string &getName() const { return name; }
  /// Compute capability as major * 10 + minor (90 for sm_90).
  int getComputeCapability() const { return capability; }

  /// Loads a module from PTX text or a cubin image.
  std::unique_ptr<Module> loadModule(const std::string &image,
                                     std::string &error);

  /// Device memory: allocation and copies. Failures set `error`.
  CUdeviceptr allocate(size_t bytes, std::string &error);
  bool free(CUdeviceptr pointer, std::string &error);
  bool copyToDevice(CUdeviceptr to, const void *from, size_t bytes,
                    std::string &error);
  bool copyToHost(void *to, CUdeviceptr from, size_t bytes,
                  std::string &error);
  bool synchronize(std::string &error);

private:
  Device(CudaDriver &driver) : driver(driver) {}
  bool makeCurrent(std::string &error);

  CudaDriver &driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int capability = 0;
};

/// A loaded module; functions are looked up once and cached.
class Module {
public:
  Module(CudaDriver &driver, CUmodule module) : driver(driver), module(module) {}
  ~Module();

  /// The kernel `name`, or null with `error` set.
  CUfunction getFunction(const std::string &name, std::string &error);

  /// Launches `name` on a grid of blocks of `block` threads with `sharedBytes`
  /// of dynamic shared memory, raising the kernel's shared memory limit when
  /// it needs more than the default 48 KiB. `args` point to the kernel's
  /// parameters.
  bool launch(const std::string &name, std::array<unsigned, 3> grid,
              std::array<unsigned, 3> block, unsigned sharedBytes,
              CUstream stream, std::vector<void *> &args, std::string &error);

private:
  CudaDriver &driver;
  CUmodule module;
  std::map<std::string, CUfunction> functions;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CUDADRIVER_H
