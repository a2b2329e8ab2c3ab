/* A stand-in for libcuda.so.1 with one "Kiln Fake GPU" (an H100's limits),
 * so that the runtime's use of the driver API is tested on machines without
 * a GPU. It exports the names a real driver exports (the _v2 ones where
 * cuda.h maps to them) and answers with the driver's error codes:
 *  - memory is host memory, 1 TiB of it (KILN_FAKE_CUDA_MEMORY bytes where
 *    that is set when cuInit runs): an allocation larger than what is free
 *    fails with CUDA_ERROR_OUT_OF_MEMORY;
 *  - a module loads if its image starts with "//fake" and holds three
 *    kernels, "kernel" (no limits of its own), "heavy" (256 threads per
 *    block and 32 KiB of static shared memory, as register and shared
 *    memory use would limit it) and "faulting" (like "kernel", but it
 *    faults, below);
 *  - launches are checked as the driver checks them, then recorded instead
 *    of run; each one advances a device clock by half a millisecond, which
 *    events read;
 *  - a graph holds a chain of kernel nodes, each checked and recorded as
 *    a launch is when added (or its parameters set, in an instantiated
 *    graph: the function may not change); launching the instantiated
 *    graph records each node as a launch, in order (and faults as they
 *    would);
 *  - a launch of a kernel named "faulting" (a PTX entry point of that name
 *    too) is accepted, then faults as a kernel that stores through a bad
 *    address does: the context's sticky error becomes
 *    CUDA_ERROR_ILLEGAL_ADDRESS, which every later call that needs the
 *    context returns (synchronizing, events, copies and fills, launches,
 *    allocations, loading modules, creating streams and events); freeing
 *    memory and destroying modules, streams and events return it too but
 *    free them all the same, so nothing leaks. The error goes with the
 *    primary context, when its last reference is released;
 *  - the current context is per thread, and calls that need one fail with
 *    CUDA_ERROR_INVALID_CONTEXT without it;
 *  - cuTensorMapEncodeTiled checks its arguments as the driver documents
 *    them and writes what it was given into the map (FakeTensorMap); a
 *    launch of a PTX entry point checks that each of its 128-byte
 *    parameters (the __grid_constant__ tensor maps) holds such a map, and
 *    records them.
 * The state shared between threads is behind one lock. With
 * KILN_FAKE_CUDA_REPORT set, what is still held at exit (device memory,
 * handles, references to the primary context) is printed to stderr. */

#include <pthread.h>
#include <stdio.h>
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
  ILLEGAL_ADDRESS = 700,
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

/* What cuTensorMapEncodeTiled was given, in the 128 bytes of the map. */
struct FakeTensorMap {
  char magic[8]; /* "fakemap" */
  unsigned long long base, dims[2], rowBytes;
  unsigned box[2];
  int dataType, swizzle;
};

enum { maxTensorMaps = 4, maxParams = 16 };

struct FakeLaunch {
  unsigned grid[3], block[3], sharedBytes;
  int maxDynamicShared;
  void **args;
  /* The tensor-map parameters of a PTX entry point, in order. */
  int tensorMaps;
  struct FakeTensorMap maps[maxTensorMaps];
  /* The first scalar and pointer parameters' values, zero-extended (the
     caller's buffers may be gone when a test reads them). */
  int params;
  unsigned long long values[maxParams];
  void *stream;
  /* The device whose context was current. */
  int device;
};

struct FakeFunction {
  const char *name;
  int maxThreadsPerBlock, staticShared, maxDynamicShared;
  /* Whether a launch faults (the kernel is named "faulting"). */
  int faults;
  /* Parameters of a PTX entry point that are tensor maps. */
  int tensorMaps, tensorMapParams[maxTensorMaps];
  /* The bytes of its first parameters (0 for a tensor map). */
  int params, paramBytes[maxParams];
  /* The context its module was loaded in. */
  const void *context;
};

/* The bytes of the PTX parameter declared from `param` to `stop`, at most
   8 (what a launch record keeps): its type's width (".u64", ".f32",
   ".pred"; ".align N" skipped) times its array length (".b8 x[2]"). */
static int paramBytes(const char *param, const char *stop) {
  int bits = 8, count = 1;
  for (const char *at = param + strlen(".param"); at < stop; ++at) {
    if (*at != '.' || at + 1 >= stop)
      continue;
    char kind = at[1];
    if ((kind == 'b' || kind == 'u' || kind == 's' || kind == 'f') &&
        at + 2 < stop && at[2] >= '0' && at[2] <= '9') {
      bits = atoi(at + 2);
      break;
    }
    if (strncmp(at, ".pred", 5) == 0)
      break;
  }
  const char *bracket = memchr(param, '[', (size_t)(stop - param));
  if (bracket)
    count = atoi(bracket + 1);
  int bytes = bits / 8 * count;
  return bytes < 1 ? 1 : bytes > 8 ? 8 : bytes;
}

/* A module holds its PTX entry points (or "kernel" when it has none),
   then "heavy" and "faulting". */
enum { maxEntries = 8, maxFunctions = maxEntries + 2 };

struct FakeModule {
  struct FakeFunction functions[maxFunctions];
  int numFunctions;
  char entries[maxEntries][256];
};

/* A graph: its kernels, each to run after the one before, as launched
   (the tensor maps and parameter values copied when the node was set). */
enum { maxNodes = 32 };
struct FakeNode {
  const struct FakeFunction *function;
  struct FakeLaunch launch;
};
struct FakeGraph {
  int nodes;
  struct FakeNode node[maxNodes];
};

/* A kernel node's parameters (CUDA_KERNEL_NODE_PARAMS_v2). */
struct KernelNodeParams {
  void *function;
  unsigned grid[3], block[3], sharedBytes;
  void **kernelParams, **extra;
  void *kernel, *context;
};

struct FakeEvent {
  int recorded;
  double milliseconds;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct FakeLaunch lastLaunch;
static int launchCount;
/* Graph launches, and kernel nodes whose parameters were set. */
static int graphLaunchCount, nodeUpdates;
static double clockMilliseconds;
static int liveHandles;
/* One primary context per device: $KILN_FAKE_CUDA_DEVICES of them (1 to
   maxDevices; default 1). */
enum { maxDevices = 8 };
static int deviceCount = 1;
static int contexts[maxDevices];
static _Thread_local void *current;
/* References to the primary context, and its sticky error (SUCCESS until a
 * kernel faults). */
static int contextReferences;
static CUresult contextError;
/* Device memory: its size, and what allocations hold. */
static unsigned long long memoryBytes = 1ull << 40;
static unsigned long long allocatedBytes;
static int liveAllocations;

/* What the last launch asked for, how many launches there were, and how
 * many modules, streams and events are alive: read by the tests. */
const struct FakeLaunch *fakeCudaLastLaunch(void) { return &lastLaunch; }
/* The device the last launch ran on (its context was current). */
int fakeCudaLastLaunchDevice(void) { return lastLaunch.device; }
/* `*counter`, read under the lock. */
static int readLocked(const int *counter) {
  pthread_mutex_lock(&lock);
  int count = *counter;
  pthread_mutex_unlock(&lock);
  return count;
}
int fakeCudaGraphLaunchCount(void) { return readLocked(&graphLaunchCount); }
int fakeCudaNodeUpdates(void) { return readLocked(&nodeUpdates); }
int fakeCudaLaunchCount(void) { return readLocked(&launchCount); }
int fakeCudaLiveHandles(void) { return readLocked(&liveHandles); }
/* How many allocations of device memory are alive. */
int fakeCudaLiveAllocations(void) { return readLocked(&liveAllocations); }

__attribute__((destructor)) static void reportAtExit(void) {
  if (!getenv("KILN_FAKE_CUDA_REPORT"))
    return;
  fprintf(stderr,
          "fake CUDA driver at exit: %d allocations (%llu bytes), %d "
          "modules, streams and events, %d references to the context\n",
          liveAllocations, allocatedBytes, liveHandles, contextReferences);
}

/* The context's sticky error: SUCCESS until a kernel faults. */
static CUresult stickyError(void) {
  pthread_mutex_lock(&lock);
  CUresult error = contextError;
  pthread_mutex_unlock(&lock);
  return error;
}
/* What a call that needs the current context answers before its own
 * checks: INVALID_CONTEXT without one, the sticky error after a fault. */
static CUresult contextState(void) {
  return current ? stickyError() : INVALID_CONTEXT;
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

CUresult cuInit(unsigned flags) {
  if (flags)
    return INVALID_VALUE;
  const char *bytes = getenv("KILN_FAKE_CUDA_MEMORY");
  if (bytes && *bytes)
    memoryBytes = strtoull(bytes, 0, 10);
  const char *devices = getenv("KILN_FAKE_CUDA_DEVICES");
  if (devices && *devices) {
    int count = atoi(devices);
    deviceCount = count < 1 ? 1 : count > maxDevices ? maxDevices : count;
  }
  return SUCCESS;
}
CUresult cuDeviceGetCount(int *count) { *count = deviceCount; return SUCCESS; }
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount)
    return INVALID_VALUE;
  *device = ordinal;
  return SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  strncpy(name, "Kiln Fake GPU", (size_t)length);
  return SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  if (device < 0 || device >= deviceCount)
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
  pthread_mutex_lock(&lock);
  ++contextReferences;
  pthread_mutex_unlock(&lock);
  if (device < 0 || device >= deviceCount)
    return INVALID_VALUE;
  *ctx = &contexts[device];
  return SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  pthread_mutex_lock(&lock);
  /* Releasing the last reference resets the context, as the driver does. */
  if (contextReferences > 0 && --contextReferences == 0)
    contextError = SUCCESS;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuCtxSetCurrent(void *ctx) {
  if (ctx && ((int *)ctx < contexts || (int *)ctx >= contexts + deviceCount))
    return INVALID_CONTEXT;
  current = ctx;
  return SUCCESS;
}
CUresult cuCtxSynchronize(void) { return contextState(); }

CUresult cuModuleLoadData(void **mod, const void *image) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  /* PTX text is accepted too, so that compiled kernels can be loaded and
     launched (as no-ops) through the whole host side of a GPU run. */
  const char *entry = strstr((const char *)image, ".entry ");
  if (strncmp((const char *)image, "//fake", 6) != 0 && !entry)
    return INVALID_PTX;
  struct FakeModule *module = makeHandle(sizeof(struct FakeModule));
  int count = 0;
  for (; entry && count < maxEntries;
       entry = strstr(entry, ".entry "), ++count) {
    entry += strlen(".entry ");
    struct FakeFunction kernel = {module->entries[count], 1024, 0,
                                  defaultSharedBytes, 0};
    size_t length = strcspn(entry, "( \n");
    if (length >= sizeof(module->entries[count]))
      length = sizeof(module->entries[count]) - 1;
    memcpy(module->entries[count], entry, length);
    module->entries[count][length] = 0;
    kernel.faults = strcmp(kernel.name, "faulting") == 0;
    /* Its parameters, up to the closing parenthesis: which are the
       128-byte ones. */
    const char *end = strchr(entry, ')');
    int index = 0;
    for (const char *param = strstr(entry, ".param");
         param && end && param < end; param = strstr(param + 1, ".param")) {
      const char *next = strstr(param + 1, ".param");
      const char *stop = next && next < end ? next : end;
      const char *bytes = strstr(param, "[128]");
      int isMap = bytes && bytes < stop;
      if (isMap && kernel.tensorMaps < maxTensorMaps)
        kernel.tensorMapParams[kernel.tensorMaps++] = index;
      if (index < maxParams) {
        kernel.paramBytes[index] = isMap ? 0 : paramBytes(param, stop);
        kernel.params = index + 1;
      }
      ++index;
    }
    module->functions[count] = kernel;
  }
  if (count == 0) {
    struct FakeFunction kernel = {"kernel", 1024, 0, defaultSharedBytes, 0};
    module->functions[count++] = kernel;
  }
  struct FakeFunction heavy = {"heavy", 256, 32 * 1024,
                               defaultSharedBytes - 32 * 1024, 0};
  struct FakeFunction faulting = {"faulting", 1024, 0, defaultSharedBytes, 1};
  module->functions[count++] = heavy;
  module->functions[count++] = faulting;
  module->numFunctions = count;
  for (int i = 0; i < count; ++i)
    module->functions[i].context = current;
  *mod = module;
  return SUCCESS;
}
CUresult cuModuleUnload(void *mod) {
  freeHandle(mod);
  return stickyError();
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  struct FakeModule *module = mod;
  for (int i = 0; i < module->numFunctions; ++i) {
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
/* Checks a launch of `function` as the driver does and fills `launch`
   with what it asked for (the stream and device are the caller's). */
static CUresult checkLaunch(const struct FakeFunction *function,
                            const unsigned grid[3], const unsigned block[3],
                            unsigned shared, void **args,
                            struct FakeLaunch *launch) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  /* A kernel runs in the context its module was loaded in. */
  if (!function || function->context != current)
    return INVALID_CONTEXT;
  for (int i = 0; i < 3; ++i)
    if (!grid[i] || grid[i] > maxGrid[i] || !block[i] ||
        block[i] > maxBlock[i])
      return INVALID_VALUE;
  unsigned long long threads =
      (unsigned long long)block[0] * block[1] * block[2];
  if (threads > maxThreadsPerBlock)
    return INVALID_VALUE;
  pthread_mutex_lock(&lock);
  CUresult result = SUCCESS;
  if (threads > (unsigned long long)function->maxThreadsPerBlock)
    result = LAUNCH_OUT_OF_RESOURCES;
  else if (shared > (unsigned)function->maxDynamicShared)
    result = INVALID_VALUE;
  memset(launch, 0, sizeof(*launch));
  memcpy(launch->grid, grid, sizeof(launch->grid));
  memcpy(launch->block, block, sizeof(launch->block));
  launch->sharedBytes = shared;
  launch->maxDynamicShared = function->maxDynamicShared;
  launch->args = args;
  launch->tensorMaps = function->tensorMaps;
  for (int i = 0; result == SUCCESS && i < function->tensorMaps &&
                  i < maxTensorMaps;
       ++i) {
    memcpy(&launch->maps[i], args[function->tensorMapParams[i]],
           sizeof(launch->maps[i]));
    if (memcmp(launch->maps[i].magic, "fakemap", 8) != 0)
      result = INVALID_VALUE;
  }
  launch->params = function->params;
  for (int i = 0; args && i < function->params; ++i)
    memcpy(&launch->values[i], args[i], function->paramBytes[i]);
  launch->device = (int)((int *)current - contexts);
  pthread_mutex_unlock(&lock);
  return result;
}

/* Records `launch` of `function` as run; under the lock. The launch
   itself succeeds; a fault shows in the calls after it. */
static void recordLaunch(const struct FakeFunction *function,
                         const struct FakeLaunch *launch) {
  lastLaunch = *launch;
  ++launchCount;
  clockMilliseconds += 0.5;
  if (function->faults)
    contextError = ILLEGAL_ADDRESS;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **args, void **extra) {
  const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  struct FakeLaunch launch;
  CUresult result = checkLaunch(fn, grid, block, shared, args, &launch);
  if (result != SUCCESS)
    return result;
  launch.stream = stream;
  pthread_mutex_lock(&lock);
  recordLaunch(fn, &launch);
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}

/* The rules cuda.h documents for a tiled tensor map, for ranks 1 to 5
   (data types up to bfloat16, no interleave, 128-byte L2 promotion or
   less, and a box's innermost bytes within the swizzle span). */
CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *address, const unsigned long long *dims,
                                const unsigned long long *strides,
                                const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  static const int elementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  if (!map || ((unsigned long long)map) % 64 || dataType < 0 || dataType > 9 ||
      rank < 1 || rank > 5 || ((unsigned long long)address) % 16 ||
      interleave != 0 || swizzle < 0 || swizzle > 3 || l2Promotion < 0 ||
      l2Promotion > 3 || oobFill < 0 || oobFill > 1)
    return INVALID_VALUE;
  int bytes = elementBytes[dataType];
  for (unsigned i = 0; i < rank; ++i) {
    if (!dims[i] || dims[i] > (1ull << 32) || !box[i] || box[i] > 256 ||
        !elementStrides[i] || elementStrides[i] > 8)
      return INVALID_VALUE;
    if (i + 1 < rank && (strides[i] % 16 || strides[i] >= (1ull << 40)))
      return INVALID_VALUE;
  }
  if (swizzle && box[0] * bytes > (unsigned)(16 << swizzle))
    return INVALID_VALUE;
  if (!swizzle && (box[0] * bytes) % 16)
    return INVALID_VALUE;
  struct FakeTensorMap fake = {"fakemap", (unsigned long long)address,
                               {dims[0], rank > 1 ? dims[1] : 1},
                               rank > 1 ? strides[0] : 0,
                               {box[0], rank > 1 ? box[1] : 1},
                               dataType, swizzle ? 16 << swizzle : 0};
  memset(map, 0, 128);
  memcpy(map, &fake, sizeof(fake));
  return SUCCESS;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  if (flags > 1)
    return INVALID_VALUE;
  *stream = makeHandle(1);
  return SUCCESS;
}
CUresult cuGraphCreate(void **graph, unsigned flags) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  if (!graph || flags)
    return INVALID_VALUE;
  *graph = makeHandle(sizeof(struct FakeGraph));
  return SUCCESS;
}
/* Node handles are 1 + the node's index. */
CUresult cuGraphAddKernelNode_v2(void **node, void *graphHandle,
                                 void *const *dependencies, size_t count,
                                 const struct KernelNodeParams *params) {
  struct FakeGraph *graph = graphHandle;
  if (!graph || !node || !params)
    return INVALID_VALUE;
  /* Kiln builds chains: each node after the last one. */
  if (count != (graph->nodes ? 1u : 0u) ||
      (count && dependencies[0] != (void *)(size_t)graph->nodes))
    return INVALID_VALUE;
  if (graph->nodes == maxNodes)
    return OUT_OF_MEMORY;
  struct FakeNode added = {params->function, {{0}}};
  CUresult result =
      checkLaunch(params->function, params->grid, params->block,
                  params->sharedBytes, params->kernelParams, &added.launch);
  if (result != SUCCESS)
    return result;
  added.launch.args = NULL; /* the caller's, gone by the time it runs */
  graph->node[graph->nodes++] = added;
  *node = (void *)(size_t)graph->nodes;
  return SUCCESS;
}
CUresult
cuGraphExecKernelNodeSetParams_v2(void *executable, void *node,
                                  const struct KernelNodeParams *params) {
  struct FakeGraph *graph = executable;
  size_t index = (size_t)node - 1;
  if (!graph || !params || !node || index >= (size_t)graph->nodes ||
      graph->node[index].function != params->function)
    return INVALID_VALUE;
  struct FakeLaunch launch;
  CUresult result =
      checkLaunch(params->function, params->grid, params->block,
                  params->sharedBytes, params->kernelParams, &launch);
  if (result != SUCCESS)
    return result;
  launch.args = NULL;
  pthread_mutex_lock(&lock);
  graph->node[index].launch = launch;
  ++nodeUpdates;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuGraphInstantiateWithFlags(void **executable, void *graph,
                                     unsigned long long flags) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  if (!graph || flags)
    return INVALID_VALUE;
  struct FakeGraph *copy = makeHandle(sizeof(struct FakeGraph));
  *copy = *(struct FakeGraph *)graph;
  *executable = copy;
  return SUCCESS;
}
CUresult cuGraphLaunch(void *executable, void *stream) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  struct FakeGraph *graph = executable;
  if (!graph)
    return INVALID_HANDLE;
  pthread_mutex_lock(&lock);
  ++graphLaunchCount;
  for (int i = 0; i < graph->nodes; ++i) {
    graph->node[i].launch.stream = stream;
    recordLaunch(graph->node[i].function, &graph->node[i].launch);
  }
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuGraphExecDestroy(void *executable) {
  if (!executable)
    return INVALID_HANDLE;
  freeHandle(executable);
  return SUCCESS;
}
CUresult cuGraphDestroy(void *graph) {
  if (!graph)
    return INVALID_HANDLE;
  freeHandle(graph);
  return SUCCESS;
}
CUresult cuStreamSynchronize(void *stream) { return stickyError(); }
CUresult cuStreamDestroy_v2(void *stream) {
  if (!stream)
    return INVALID_HANDLE;
  freeHandle(stream);
  return stickyError();
}
CUresult cuEventCreate(void **event, unsigned flags) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  *event = makeHandle(sizeof(struct FakeEvent));
  return SUCCESS;
}
CUresult cuEventRecord(void *ev, void *stream) {
  struct FakeEvent *event = ev;
  CUresult error = stickyError();
  if (error != SUCCESS)
    return error;
  pthread_mutex_lock(&lock);
  event->recorded = 1;
  event->milliseconds = clockMilliseconds;
  pthread_mutex_unlock(&lock);
  return SUCCESS;
}
CUresult cuEventSynchronize(void *event) { return stickyError(); }
CUresult cuEventElapsedTime_v2(float *milliseconds, void *start, void *end) {
  const struct FakeEvent *from = start, *to = end;
  pthread_mutex_lock(&lock);
  CUresult result = contextError != SUCCESS ? contextError : INVALID_HANDLE;
  if (contextError == SUCCESS && from->recorded && to->recorded) {
    *milliseconds = (float)(to->milliseconds - from->milliseconds);
    result = SUCCESS;
  }
  pthread_mutex_unlock(&lock);
  return result;
}
CUresult cuEventDestroy_v2(void *event) {
  freeHandle(event);
  return stickyError();
}

/* An allocation: its size, then its bytes at the alignment the driver
 * gives, where the device pointer points. */
enum { allocationHeader = 256 };

/* Bytes past the alignment of allocationHeader that allocations start
   at: KILN_FAKE_CUDA_MISALIGN, for tests of code that needs aligned
   device memory (cuMemAlloc aligns to 256 bytes). */
static size_t misalignment(void) {
  const char *bytes = getenv("KILN_FAKE_CUDA_MISALIGN");
  return bytes ? (size_t)strtoul(bytes, NULL, 10) % allocationHeader : 0;
}

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  void *block = 0;
  size_t offset = misalignment();
  pthread_mutex_lock(&lock);
  /* Host memory may run out before the device's does. */
  int allocated = bytes <= memoryBytes - allocatedBytes &&
                  posix_memalign(&block, allocationHeader,
                                 allocationHeader + offset + bytes) == 0;
  if (allocated) {
    allocatedBytes += bytes;
    ++liveAllocations;
  }
  pthread_mutex_unlock(&lock);
  if (!allocated)
    return OUT_OF_MEMORY;
  /* The header holds the size at its start and the misalignment just
     before the pointer, for cuMemFree. */
  char *start = (char *)block + allocationHeader + offset;
  memcpy(block, &bytes, sizeof(bytes));
  memcpy(start - sizeof(offset), &offset, sizeof(offset));
  *pointer = (unsigned long long)(size_t)start;
  return SUCCESS;
}
CUresult cuMemFree_v2(unsigned long long pointer) {
  if (!current)
    return INVALID_CONTEXT;
  if (pointer) {
    size_t offset;
    memcpy(&offset, (char *)(size_t)pointer - sizeof(offset), sizeof(offset));
    char *block = (char *)(size_t)pointer - allocationHeader - offset;
    size_t bytes;
    memcpy(&bytes, block, sizeof(bytes));
    free(block);
    pthread_mutex_lock(&lock);
    allocatedBytes -= bytes;
    --liveAllocations;
    pthread_mutex_unlock(&lock);
  }
  return stickyError();
}
CUresult cuMemcpyHtoD_v2(unsigned long long to, const void *from, size_t n) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  memcpy((void *)(size_t)to, from, n);
  return SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *to, unsigned long long from, size_t n) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  memcpy(to, (const void *)(size_t)from, n);
  return SUCCESS;
}
CUresult cuMemcpyDtoD_v2(unsigned long long to, unsigned long long from,
                         size_t n) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
  if (!to || !from)
    return INVALID_VALUE;
  memmove((void *)(size_t)to, (const void *)(size_t)from, n);
  return SUCCESS;
}
CUresult cuMemsetD8_v2(unsigned long long to, unsigned char value, size_t n) {
  CUresult state = contextState();
  if (state != SUCCESS)
    return state;
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
  case ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return SUCCESS;
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
  case ILLEGAL_ADDRESS:
    *text = "an illegal memory access was encountered";
    return SUCCESS;
  case LAUNCH_OUT_OF_RESOURCES:
    *text = "too many resources requested for launch";
    return SUCCESS;
  default: *text = 0; return INVALID_VALUE;
  }
}
