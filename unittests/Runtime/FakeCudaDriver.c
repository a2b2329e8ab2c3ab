/* A stand-in for libcuda.so.1 with one "Kiln Fake GPU", so that the
 * runtime's use of the driver API is tested on machines without a GPU:
 * memory is host memory, a module loads if its image starts with "//fake",
 * and launches are recorded instead of run. */

#include <stdlib.h>
#include <string.h>

typedef int CUresult;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_IMAGE = 200,
  NOT_FOUND = 500,
  INVALID_PTX = 218,
};

struct FakeLaunch {
  unsigned grid[3], block[3], sharedBytes;
  int maxDynamicShared;
  void **args;
};

static struct FakeLaunch lastLaunch;
static int maxDynamicShared;

/* What the last launch asked for: read by the tests. */
const struct FakeLaunch *fakeCudaLastLaunch(void) { return &lastLaunch; }

CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : SUCCESS; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return SUCCESS; }
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal != 0)
    return INVALID_VALUE;
  *device = 0;
  return SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  strncpy(name, "Kiln Fake GPU", (size_t)length);
  return SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  *value = attribute == 75 ? 9 : attribute == 76 ? 0 : 0;
  return SUCCESS;
}
static int context;
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  *ctx = &context;
  return SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { return SUCCESS; }
CUresult cuCtxSetCurrent(void *ctx) { return ctx == &context ? SUCCESS : INVALID_VALUE; }
CUresult cuCtxSynchronize(void) { return SUCCESS; }
static int module;
CUresult cuModuleLoadData(void **mod, const void *image) {
  if (strncmp((const char *)image, "//fake", 6) != 0)
    return INVALID_PTX;
  *mod = &module;
  return SUCCESS;
}
CUresult cuModuleUnload(void *mod) { return SUCCESS; }
static int function;
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  if (strcmp(name, "kernel") != 0)
    return NOT_FOUND;
  *fn = &function;
  return SUCCESS;
}
CUresult cuFuncSetAttribute(void *fn, int attribute, int value) {
  if (attribute == 8)
    maxDynamicShared = value;
  return SUCCESS;
}
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **args, void **extra) {
  if (shared > 48 * 1024 && (unsigned)maxDynamicShared < shared)
    return INVALID_VALUE;
  struct FakeLaunch launch = {{gx, gy, gz}, {bx, by, bz}, shared,
                              maxDynamicShared, args};
  lastLaunch = launch;
  return SUCCESS;
}
CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (bytes > ((size_t)1 << 40))
    return OUT_OF_MEMORY;
  *pointer = (unsigned long long)(size_t)malloc(bytes);
  return SUCCESS;
}
CUresult cuMemFree_v2(unsigned long long pointer) {
  free((void *)(size_t)pointer);
  return SUCCESS;
}
CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from, size_t n) {
  memcpy((void *)(size_t)to, from, n);
  return SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *to, unsigned long long from, size_t n) {
  memcpy(to, (const void *)(size_t)from, n);
  return SUCCESS;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case SUCCESS: *name = "CUDA_SUCCESS"; return SUCCESS;
  case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return SUCCESS;
  case OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return SUCCESS;
  case INVALID_PTX: *name = "CUDA_ERROR_INVALID_PTX"; return SUCCESS;
  case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return SUCCESS;
  default: *name = 0; return INVALID_VALUE;
  }
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case OUT_OF_MEMORY: *text = "out of memory"; return SUCCESS;
  case INVALID_PTX: *text = "a PTX JIT compilation failed"; return SUCCESS;
  case NOT_FOUND: *text = "named symbol not found"; return SUCCESS;
  case INVALID_VALUE: *text = "invalid argument"; return SUCCESS;
  default: *text = 0; return INVALID_VALUE;
  }
}
