/* A stand-in for libcuda.so.1 with one "Kiln Fake GPU" (an H100's limits),
 * so that the runtime's use of the driver API is tested on machines without
 * a GPU. It exports the names a real driver exports (the _v2 ones where
 * cuda.h maps to them) and answers with the driver's error codes:
 *  - memory is host memory;
 *  - a module loads if its image starts with "//fake" and holds two kernels,
 *    "kernel" (no limits of its own) and "heavy" (256 threads per block and
 *    32 KiB of static shared memory, as register and shared memory use
 *    would limit it);
 *  - launches are checked as the driver checks them, then recorded instead
 *    of run; each one advances a device clock by half a millisecond, which
 *    events read;
 *  - the current context is per thread, and calls that need one fail with
 *    CUDA_ERROR_INVALID_CONTEXT without it.
 * The state shared between threads is behind one lock. */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_PTX = 218,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  LAUNCH_OUT_OF_RESOURCES = 701,
};

/* CU_DEVICE_ATTRIBUTE_* and CU_FUNC_ATTRIBUTE_* values from cuda.h. */
enum {
  DEVICE_MAX_THREADS_PER_BLOCK = 1,
  DEVICE_MAX_BLOCK_DIM_X = 2,
  DEVICE_MAX_GRID_DIM_X = 5,
  DEVICE_MULTIPROCESSOR_COUNT = 16,
  DEVICE_COMPUTE_CAPABILITY_MAJOR = 75,
  DEVICE_COMPUTE_CAPABILITY_MINOR = 76,
  DEVICE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  FUNC_MAX_THREADS_PER_BLOCK = 0,
  FUNC_SHARED_SIZE_BYTES = 1,
  FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

static const unsigned maxBlock[3] = {1024, 1024, 64};
static const unsigned maxGrid[3] = {2147483647u, 65535, 65535};
static const unsigned maxThreadsPerBlock = 1024;
static const int defaultSharedBytes = 48 * 1024;
static const int optinSharedBytes = 227 * 1024;

struct FakeLaunch {
  unsigned grid[3], block[3], sharedBytes;
  int maxDynamicShared;
  void **args;
};

struct FakeFunction {
  const char *name;
  int maxThreadsPerBlock, staticShared, maxDynamicShared;
};

struct FakeModule {
  struct FakeFunction functions[2];
  /* A PTX module's first entry point, which takes the place of "kernel". */
  char entry[256];
};

struct FakeEvent {
  int recorded;
  double milliseconds;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct FakeLaunch lastLaunch;
static int launchCount;
static double clockMilliseconds;
static int liveHandles;
static int context;
static _Thread_local void *current;

/* What the last launch asked for, how many launches there were, and how
 * many modules, streams and events are alive: read by the tests. */
const struct FakeLaunch *fakeCudaLastLaunch(void) { return &lastLaunch; }
int fakeCudaLaunchCount(void) {
  pthread_mutex_lock(&lock);
  int count = launchCount;
  pthread_mutex_unlock(&lock);
  return count;
}
int fakeCudaLiveHandles(void) {
  pthread_mutex_lock(&lock);
  int count = liveHandles;
  pthread_mutex_unlock(&lock);
  return count;
}

static void *makeHandle(size_t bytes) {
  void *handle = calloc(1, bytes);
  pthread_mutex_lock(&lock);
  ++liveHandles;
  pthread_mutex_unlock(&lock);
  return handle;
}
static void freeHandle(void *handle) {
  free(handle);
  pthread_mutex_lock(&lock);
  --liveHandles;
  pthread_mutex_unlock(&lock);
}

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
  if (device != 0)
    return INVALID_VALUE;
  switch (attribute) {
  case DEVICE_MAX_THREADS_PER_BLOCK: *value = (int)maxThreadsPerBlock; break;
  case DEVICE_MAX_BLOCK_DIM_X:
  case DEVICE_MAX_BLOCK_DIM_X + 1:
  case DEVICE_MAX_BLOCK_DIM_X + 2:
    *value = (int)maxBlock[attribute - DEVICE_MAX_BLOCK_DIM_X];
    break;
  case DEVICE_MAX_GRID_DIM_X:
  case DEVICE_MAX_GRID_DIM_X + 1:
  case DEVICE_MAX_GRID_DIM_X + 2:
    *value = (int)maxGrid[attribute - DEVICE_MAX_GRID_DIM_X];
    break;
  case DEVICE_MULTIPROCESSOR_COUNT: *value = 132; break;
  case DEVICE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
  case DEVICE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
  case DEVICE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = optinSharedBytes;
    break;
  default: return INVALID_VALUE;
  }
  return SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  *ctx = &context;
  return SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { return SUCCESS; }
CUresult cuCtxSetCurrent(void *ctx) {
  if (ctx && ctx != &context)
    return INVALID_CONTEXT;
  current = ctx;
  return SUCCESS;
}
CUresult cuCtxSynchronize(void) { return current ? SUCCESS : INVALID_CONTEXT; }

CUresult cuModuleLoadData(void **mod, const void *image) {
  if (!current)
    return INVALID_CONTEXT;
  /* PTX text is accepted too, so that compiled kernels can be loaded and
     launched (as no-ops) through the whole host side of a GPU run. */
  const char *entry = strstr((const char *)image, ".entry ");
  if (strncmp((const char *)image, "//fake", 6) != 0 && !entry)
    return INVALID_PTX;
  struct FakeModule *module = makeHandle(sizeof(struct FakeModule));
  struct FakeFunction kernel = {"kernel", 1024, 0, defaultSharedBytes};
  if (entry) {
    entry += strlen(".entry ");
    size_t length = strcspn(entry, "( \n");
    if (length >= sizeof(module->entry))
      length = sizeof(module->entry) - 1;
    memcpy(module->entry, entry, length);
    module->entry[length] = 0;
    kernel.name = module->entry;
  }
  struct FakeFunction heavy = {"heavy", 256, 32 * 1024,
                               defaultSharedBytes - 32 * 1024};
  module->functions[0] = kernel;
  module->functions[1] = heavy;
  *mod = module;
  return SUCCESS;
}
CUresult cuModuleUnload(void *mod) {
  freeHandle(mod);
  return SUCCESS;
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  struct FakeModule *module = mod;
  for (int i = 0; i < 2; ++i) {
    if (strcmp(name, module->functions[i].name) == 0) {
      *fn = &module->functions[i];
      return SUCCESS;
    }
  }
  return NOT_FOUND;
}
CUresult cuFuncGetAttribute(int *value, int attribute, void *fn) {
  const struct FakeFunction *function = fn;
  pthread_mutex_lock(&lock);
  CUresult result = SUCCESS;
  switch (attribute) {
  case FUNC_MAX_THREADS_PER_BLOCK: *value = function->maxThreadsPerBlock; break;
  case FUNC_SHARED_SIZE_BYTES: *value = function->staticShared; break;
  case FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = function->maxDynamicShared;
    break;
  default: result = INVALID_VALUE;
  }
  pthread_mutex_unlock(&lock);
  return result;
}
CUresult cuFuncSetAttribute(void *fn, int attribute, int value) {
  struct FakeFunction *function = fn;
  if (attribute != FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      value + function->staticShared > optinSharedBytes)
    return INVALID_VALUE;
  pthread_mutex_lock(&lock);
  function->maxDynamicShared = value;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **args, void **extra) {
  const struct FakeFunction *function = fn;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  if (!current)
    return INVALID_CONTEXT;
  for (int i = 0; i < 3; ++i)
    if (!grid[i] || grid[i] > maxGrid[i] || !block[i] ||
        block[i] > maxBlock[i])
      return INVALID_VALUE;
  unsigned long long threads = (unsigned long long)bx * by * bz;
  if (threads > maxThreadsPerBlock)
    return INVALID_VALUE;
  pthread_mutex_lock(&lock);
  CUresult result = SUCCESS;
  if (threads > (unsigned long long)function->maxThreadsPerBlock)
    result = LAUNCH_OUT_OF_RESOURCES;
  else if (shared > (unsigned)function->maxDynamicShared)
    result = INVALID_VALUE;
  if (result == SUCCESS) {
    struct FakeLaunch launch = {{gx, gy, gz}, {bx, by, bz}, shared,
                                function->maxDynamicShared, args};
    lastLaunch = launch;
    ++launchCount;
    clockMilliseconds += 0.5;
  }
  pthread_mutex_unlock(&lock);
  return result;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  if (!current)
    return INVALID_CONTEXT;
  if (flags > 1)
    return INVALID_VALUE;
  *stream = makeHandle(1);
  return SUCCESS;
}
CUresult cuStreamSynchronize(void *stream) { return SUCCESS; }
CUresult cuStreamDestroy_v2(void *stream) {
  if (!stream)
    return INVALID_HANDLE;
  freeHandle(stream);
  return SUCCESS;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  if (!current)
    return INVALID_CONTEXT;
  *event = makeHandle(sizeof(struct FakeEvent));
  return SUCCESS;
}
CUresult cuEventRecord(void *ev, void *stream) {
  struct FakeEvent *event = ev;
  pthread_mutex_lock(&lock);
  event->recorded = 1;
  event->milliseconds = clockMilliseconds;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuEventSynchronize(void *event) { return SUCCESS; }
CUresult cuEventElapsedTime_v2(float *milliseconds, void *start, void *end) {
  const struct FakeEvent *from = start, *to = end;
  pthread_mutex_lock(&lock);
  CUresult result = INVALID_HANDLE;
  if (from->recorded && to->recorded) {
    *milliseconds = (float)(to->milliseconds - from->milliseconds);
    result = SUCCESS;
  }
  pthread_mutex_unlock(&lock);
  return result;
}
CUresult cuEventDestroy_v2(void *event) {
  freeHandle(event);
  return SUCCESS;
}

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (!current)
    return INVALID_CONTEXT;
  if (bytes > ((size_t)1 << 40))
    return OUT_OF_MEMORY;
  *pointer = (unsigned long long)(size_t)malloc(bytes);
  return SUCCESS;
}
CUresult cuMemFree_v2(unsigned long long pointer) {
  if (!current)
    return INVALID_CONTEXT;
  free((void *)(size_t)pointer);
  return SUCCESS;
}
CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from, size_t n) {
  if (!current)
    return INVALID_CONTEXT;
  memcpy((void *)(size_t)to, from, n);
  return SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *to, unsigned long long from, size_t n) {
  if (!current)
    return INVALID_CONTEXT;
  memcpy(to, (const void *)(size_t)from, n);
  return SUCCESS;
}
CUresult cuMemcpyDtoD_v2(unsigned long long to, unsigned long long from,
                         size_t n) {
  if (!current)
    return INVALID_CONTEXT;
  if (!to || !from)
    return INVALID_VALUE;
  memmove((void *)(size_t)to, (const void *)(size_t)from, n);
  return SUCCESS;
}
CUresult cuMemsetD8_v2(unsigned long long to, unsigned char value, size_t n) {
  if (!current)
    return INVALID_CONTEXT;
  if (!to)
    return INVALID_VALUE;
  memset((void *)(size_t)to, value, n);
  return SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case SUCCESS: *name = "CUDA_SUCCESS"; return SUCCESS;
  case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return SUCCESS;
  case OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return SUCCESS;
  case INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; return SUCCESS;
  case INVALID_PTX: *name = "CUDA_ERROR_INVALID_PTX"; return SUCCESS;
  case INVALID_HANDLE: *name = "CUDA_ERROR_INVALID_HANDLE"; return SUCCESS;
  case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return SUCCESS;
  case LAUNCH_OUT_OF_RESOURCES:
    *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    return SUCCESS;
  default: *name = 0; return INVALID_VALUE;
  }
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case OUT_OF_MEMORY: *text = "out of memory"; return SUCCESS;
  case INVALID_CONTEXT: *text = "invalid device context"; return SUCCESS;
  case INVALID_PTX: *text = "a PTX JIT compilation failed"; return SUCCESS;
  case INVALID_HANDLE: *text = "invalid resource handle"; return SUCCESS;
  case NOT_FOUND: *text = "named symbol not found"; return SUCCESS;
  case INVALID_VALUE: *text = "invalid argument"; return SUCCESS;
  case LAUNCH_OUT_OF_RESOURCES:
    *text = "too many resources requested for launch";
    return SUCCESS;
  default: *text = 0; return INVALID_VALUE;
  }
}
