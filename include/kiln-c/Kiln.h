/*===- Kiln.h - The Kiln C API ------------------------------------*- C -*-===*\
|*                                                                            *|
|* The only surface the Python package uses. Plain C, opaque handles.         *|
|*                                                                            *|
|* Ownership: a function named ...Create returns an object the caller owns    *|
|* and frees with the matching ...Destroy; ...Get returns a pointer borrowed  *|
|* from its argument, valid until that argument is changed or destroyed.      *|
|*                                                                            *|
|* Errors: a function that can fail returns a KilnError, NULL on success. The *|
|* caller reads its message and diagnostics, then frees it with               *|
|* kilnErrorDestroy. Nothing is thrown across this interface and no failure   *|
|* aborts the process.                                                        *|
|*                                                                            *|
|* Threads: a context and everything made from it are used by one thread at a *|
|* time; distinct contexts are independent.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef KILN_C_KILN_H
#define KILN_C_KILN_H

#include <stddef.h>
#include <stdint.h>

#define KILN_C_EXPORT __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this interface, raised on every incompatible change. */
#define KILN_C_API_VERSION 13

/** The KILN_C_API_VERSION the library was built with. */
KILN_C_EXPORT int kilnGetAPIVersion(void);

/*===----------------------------------------------------------------------===*
 * Errors and diagnostics
 *===----------------------------------------------------------------------===*/

typedef struct KilnError KilnError;

typedef enum KilnSeverity {
  KILN_SEVERITY_ERROR = 0,
  KILN_SEVERITY_WARNING = 1,
  KILN_SEVERITY_NOTE = 2,
  KILN_SEVERITY_REMARK = 3
} KilnSeverity;

/** One compiler diagnostic. `file` is empty and `line`/`column` are 0 when
 * the diagnostic has no source location. */
typedef struct KilnDiagnostic {
  int severity; /* a KilnSeverity */
  const char *file;
  unsigned line;
  unsigned column;
  const char *message;
} KilnDiagnostic;

/** What failed, in one line. Borrowed from `error`. */
KILN_C_EXPORT const char *kilnErrorGetMessage(const KilnError *error);

/** Number of diagnostics the failing call emitted (notes included). */
KILN_C_EXPORT size_t kilnErrorGetNumDiagnostics(const KilnError *error);

/** Diagnostic `index`, or NULL when out of range. Borrowed from `error`. */
KILN_C_EXPORT const KilnDiagnostic *
kilnErrorGetDiagnostic(const KilnError *error, size_t index);

KILN_C_EXPORT void kilnErrorDestroy(KilnError *error);

/*===----------------------------------------------------------------------===*
 * Contexts and modules
 *===----------------------------------------------------------------------===*/

/** Owns every module made in it; destroy its modules before it. One
 * thread at a time uses a context and its modules. */
typedef struct KilnContext KilnContext;
typedef struct KilnModule KilnModule;

KILN_C_EXPORT KilnContext *kilnContextCreate(void);
KILN_C_EXPORT void kilnContextDestroy(KilnContext *context);

/** Parses and verifies `length` bytes of IR text; `filename` names it in
 * diagnostics. On success `*module` is a new module the caller owns. */
KILN_C_EXPORT KilnError *kilnModuleCreateParse(KilnContext *context,
                                               const char *text,
                                               size_t length,
                                               const char *filename,
                                               KilnModule **module);

KILN_C_EXPORT void kilnModuleDestroy(KilnModule *module);

/** Runs a textual pass pipeline anchored on the module, as kiln-opt's
 * --pass-pipeline takes it: "builtin.module(canonicalize,cse)". On failure
 * the module is left as it was. */
KILN_C_EXPORT KilnError *kilnModuleRunPipeline(KilnModule *module,
                                               const char *pipeline);

/** The remarks and warnings of the module's last kilnModuleRunPipeline or
 * kilnHostExecutableCreate (why an op was not fused with its neighbours,
 * why a loop was not flattened, ...), one JSON object a line as the GPU
 * binary's "remarks" artifact holds them. Borrowed from `module`: valid
 * until the next pipeline run or its destruction. */
KILN_C_EXPORT const char *kilnModuleGetRemarks(KilnModule *module);

/** The module printed as IR text. Borrowed from `module`: valid until the
 * module is changed or destroyed. */
KILN_C_EXPORT const char *kilnModuleGetText(KilnModule *module);

/*===----------------------------------------------------------------------===*
 * Kernels
 *===----------------------------------------------------------------------===*/

/** Sets `*count` to the number of arguments of kernel `name`. */
KILN_C_EXPORT KilnError *kilnModuleGetKernelNumArguments(KilnModule *module,
                                                         const char *name,
                                                         size_t *count);

/** Sets `*type` to the type of argument `index` of kernel `name`, as IR
 * text ("!tile.ptr<f32>", "i32"). Borrowed from `module`. */
KILN_C_EXPORT KilnError *kilnModuleGetKernelArgumentType(KilnModule *module,
                                                         const char *name,
                                                         size_t index,
                                                         const char **type);

/** Sets `*text` to attribute `name` of function `function`, printed (e.g.
 * "[tensor<1024xf32>]"), or to NULL if the function has no such attribute.
 * Borrowed from `module`. */
KILN_C_EXPORT KilnError *kilnModuleGetFunctionAttribute(KilnModule *module,
                                                        const char *function,
                                                        const char *name,
                                                        const char **text);

/** Binds the launch plan `plan` of an array function (kiln-fuse, kiln-tile)
 * to inputs of given shapes: input i has `ranks[i]` dimensions, all of them
 * in `inputDims`, input by input. Writes the plan's size arguments to
 * `sizes` (room for `maxSizes`; `*numSizes` is set to how many) and the
 * dimensions of every result, result by result, to `outputDims` (room for
 * `maxOutputDims`). An error names the input and dimension the plan cannot
 * take (a size the program fixes, or one that must equal another). */
KILN_C_EXPORT KilnError *
kilnModuleBindLaunchPlan(KilnModule *module, const char *plan,
                         const size_t *ranks, size_t numInputs,
                         const int64_t *inputDims, int64_t *sizes,
                         size_t maxSizes, size_t *numSizes,
                         int64_t *outputDims, size_t maxOutputDims);

/*===----------------------------------------------------------------------===*
 * The host target
 *===----------------------------------------------------------------------===*/

/** The kernels of a module compiled for the CPU. Independent of the module
 * once made; destroy it before the context. */
typedef struct KilnHostExecutable KilnHostExecutable;

/** Lowers a copy of `module` for the CPU and compiles it to an object file,
 * which it links into the process (LLVM's ORC JIT). With
 * `checkBounds` non-zero, every load, store and atomic is checked at run
 * time against the ranges given to kilnHostExecutableLaunch (a tile's
 * accesses at once where they fall in one array), and the launch names the
 * first access they do not allow. */
KILN_C_EXPORT KilnError *kilnHostExecutableCreate(KilnModule *module,
                                                  int checkBounds,
                                                  KilnHostExecutable **executable);

/** Bytes [begin, end) of memory that a launch may access: the array passed
 * as argument `argument` of the kernel (-1: not one argument), called `name`
 * in errors (NULL: "argument N"), which the kernel may write unless
 * `readOnly` is non-zero. */
typedef struct KilnMemoryRange {
  uint64_t begin;
  uint64_t end;
  const char *name;
  int32_t argument;
  int32_t readOnly;
} KilnMemoryRange;

KILN_C_EXPORT void kilnHostExecutableDestroy(KilnHostExecutable *executable);

/** Sets `*data` and `*size` to artifact `name` of a host executable:
 * "object" (the compiled object file) or "description" (its kernels and
 * plans, their arguments and checked sites, as JSON), from which
 * kilnHostExecutableCreateFromArtifacts makes it again without compiling.
 * Borrowed from `executable`. */
KILN_C_EXPORT KilnError *
kilnHostExecutableGetArtifact(KilnHostExecutable *executable, const char *name,
                              const char **data, size_t *size);

/** The host executable whose artifacts are `object` and `description`,
 * linked into the process without compiling. The object must have been
 * compiled for this kilnGetHostTarget() by this build of the library. */
KILN_C_EXPORT KilnError *kilnHostExecutableCreateFromArtifacts(
    const char *object, size_t objectSize, const char *description,
    KilnHostExecutable **executable);

/** What host objects are specific to: the target triple, the CPU and its
 * features, space-separated. Valid for the life of the process. */
KILN_C_EXPORT const char *kilnGetHostTarget(void);

/** Runs the launch plan `plan` of an array function (kiln-fuse, kiln-tile):
 * `arguments` holds the address of each input tensor, then of each result
 * tensor (row-major, contiguous), which the plan fills, then the plan's
 * sizes (from kilnModuleBindLaunchPlan). */
KILN_C_EXPORT KilnError *kilnHostExecutableRunPlan(KilnHostExecutable *exe,
                                                   const char *plan,
                                                   const int64_t *arguments,
                                                   size_t numArguments);

/** Runs later launches on up to `threads` threads, each taking a contiguous
 * range of the program instances (0 or 1: on the calling thread). */
KILN_C_EXPORT void kilnHostExecutableSetThreads(KilnHostExecutable *executable,
                                                unsigned threads);

/** Runs `kernel` once per program instance of a grid of `grid[0] * grid[1] *
 * grid[2]`. `args[i]` points to argument i: an int64_t address for a
 * pointer, the value itself for a scalar, of the argument's type. With
 * bounds checks, an access that the `numRanges` `ranges` do not allow (one
 * outside the array its pointer was derived from, or outside every array
 * where that is not known, or a write to a read-only array) is skipped and
 * the launch returns an error naming it (file, line, column, program id);
 * without, `ranges` is not read. */
KILN_C_EXPORT KilnError *
kilnHostExecutableLaunch(KilnHostExecutable *executable, const char *kernel,
                         const unsigned grid[3], void **args, size_t numArgs,
                         const KilnMemoryRange *ranges, size_t numRanges);

/*===----------------------------------------------------------------------===*
 * CUDA devices
 *===----------------------------------------------------------------------===*/

/** Sets `*count` to the number of CUDA devices. Fails with "no CUDA driver:
 * ..." where libcuda.so.1 (or $KILN_CUDA_DRIVER) cannot be opened, and with
 * the driver's error name where it cannot start. */
KILN_C_EXPORT KilnError *kilnCudaGetDeviceCount(int *count);

/** Writes device `ordinal`'s name (NUL-terminated, at most `nameSize`
 * bytes), compute capability (major * 10 + minor) and number of streaming
 * multiprocessors. */
KILN_C_EXPORT KilnError *kilnCudaGetDeviceInfo(int ordinal, char *name,
                                               size_t nameSize, int *capability,
                                               int *multiprocessors);

/** Writes the chip Kiln compiles for on device `ordinal` ("sm_90a" on
 * compute capability 9.0, for wgmma and TMA; "sm_80" on 8.0), NUL-terminated,
 * at most `chipSize` bytes. */
KILN_C_EXPORT KilnError *kilnCudaGetDeviceChip(int ordinal, char *chip,
                                               size_t chipSize);

/*===----------------------------------------------------------------------===*
 * The GPU target
 *===----------------------------------------------------------------------===*/

/** The kernels of a module compiled for one chip: LLVM IR, PTX and, where
 * ptxas is found, a cubin. Independent of the module once made. */
typedef struct KilnGPUBinary KilnGPUBinary;

/** How kilnGPUBinaryCreate compiles. */
typedef struct KilnGPUOptions {
  /** Warps per program: a power of two, 1 to 32. */
  int numWarps;
  /** How deep loops feeding tensor cores are pipelined: 1 or more; 1 turns
   * pipelining off; a loop's `tile.num_stages` overrides it. */
  int numStages;
  /** The most registers a thread may use (PTX's .maxnreg, Triton's
   * `maxnreg`); 0 leaves the choice to ptxas. */
  int maxRegisters;
  /** Nonzero: a float multiply feeding an add may become one fma (Triton's
   * `enable_fp_fusion`, on by default); 0 rounds each on its own. */
  int fpFusion;
} KilnGPUOptions;

/** Compiles a copy of `module`'s tile kernels for `chip` ("sm_80",
 * "sm_90a", ...) as `options` say (NULL: 4 warps, 3 stages, no register
 * limit, fp fusion). Needs no GPU; an unknown chip or a kernel the GPU
 * lowering cannot take is an error with diagnostics at the source. */
KILN_C_EXPORT KilnError *kilnGPUBinaryCreate(KilnModule *module,
                                             const char *chip,
                                             const KilnGPUOptions *options,
                                             KilnGPUBinary **binary);

/** Makes the next kilnGPUBinaryCreate calls of this thread (`record`
 * nonzero; 0 stops) keep the IR after each lowering pass that changes it,
 * as their "passes" artifact. */
KILN_C_EXPORT void kilnSetRecordPasses(int record);

/** The path of the CUDA toolkit's program `name` ("ptxas", "cuobjdump",
 * ...) as the compiler finds ptxas: $KILN_<NAME> alone where it is set,
 * else PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. NULL where there is
 * none; else valid until this thread's next call. */
KILN_C_EXPORT const char *kilnFindCudaProgram(const char *name);

/** What assembles the cubins of GPU compiles: the ptxas program at
 * $KILN_PTXAS alone where that is set, else ptxas in process where the
 * library has the PTX compiler library ("ptxas 13.0, in process"), else
 * the program kilnFindCudaProgram("ptxas") finds (its path). NULL where
 * there is none; else valid until this thread's next call. */
KILN_C_EXPORT const char *kilnFindPtxAssembler(void);

/** A binary from artifacts compiled before (an on-disk cache): `ptx`, and
 * `cubin` (may be empty) for kernels of `threadsPerBlock` threads that
 * need `dynamicSharedBytes` of dynamic shared memory and whose launches
 * build the tensor maps `tensorMaps` describes (the "tensor-maps"
 * artifact, NUL-terminated; NULL or empty: none). Malformed `tensorMaps`
 * is an error. */
KILN_C_EXPORT KilnError *kilnGPUBinaryCreateFromArtifacts(
    const char *ptx, size_t ptxSize, const char *cubin, size_t cubinSize,
    unsigned threadsPerBlock, unsigned dynamicSharedBytes,
    const char *tensorMaps, KilnGPUBinary **binary);

KILN_C_EXPORT void kilnGPUBinaryDestroy(KilnGPUBinary *binary);

/** Borrows one stage's artifact: `stage` is "llvm" (LLVM IR), "ptx",
 * "cubin" (empty where ptxas was not found), "ptxas-log" (registers,
 * spills and shared memory per kernel, with the cubin), "tensor-maps"
 * (how launches build the TMA tensor maps of kernels that take them, one
 * line per map; empty when none does) or "remarks" (the compile's remarks
 * and warnings, such as why a loop was not pipelined: one JSON object a
 * line with "severity", "file", "line", "column" and "message"; empty for
 * a binary made from artifacts) or "timings" (the wall-clock seconds of
 * each step of the compile: the MLIR lowering passes, LLVM IR, LLVM to
 * PTX, ptxas; a "step<TAB>seconds" line each) or "passes" (the IR after
 * each lowering pass that changed it, with kilnSetRecordPasses; else
 * empty). */
KILN_C_EXPORT KilnError *kilnGPUBinaryGetArtifact(KilnGPUBinary *binary,
                                                  const char *stage,
                                                  const char **data,
                                                  size_t *size);

/** Threads per block every kernel of `binary` was compiled for. */
KILN_C_EXPORT unsigned
kilnGPUBinaryGetThreadsPerBlock(const KilnGPUBinary *binary);

/** Dynamic shared memory, in bytes, every launch of the kernels of `binary`
 * gives them (0 when their shared memory is static: up to 48 KiB); the
 * launch raises the kernel's limit to it. */
KILN_C_EXPORT unsigned
kilnGPUBinaryGetDynamicSharedBytes(const KilnGPUBinary *binary);

/** A binary loaded on a device, in its primary context (so pointers from
 * PyTorch, CuPy or any other user of that context can be passed). */
typedef struct KilnCudaModule KilnCudaModule;

/** Loads `binary` (its cubin, else its PTX for the driver to compile) on
 * device `ordinal`. */
KILN_C_EXPORT KilnError *kilnCudaModuleCreate(KilnGPUBinary *binary,
                                              int ordinal,
                                              KilnCudaModule **module);

KILN_C_EXPORT void kilnCudaModuleDestroy(KilnCudaModule *module);

/** Launches `kernel` on a grid of `grid[0] * grid[1] * grid[2]` programs,
 * each a block of the binary's threads with its dynamic shared memory, on
 * `stream` (0: the default
 * stream). `args[i]` points to argument i: a uint64_t device address for a
 * pointer, the value itself for a scalar; the TMA tensor maps a kernel
 * reads are built from them and passed after them (an argument that breaks
 * TMA's rules, such as an unaligned base, is an error naming it). Launches the device cannot run are
 * refused before they reach it, naming the limit. Asynchronous: errors of
 * the kernel itself show at the next synchronizing call. */
KILN_C_EXPORT KilnError *kilnCudaModuleLaunch(KilnCudaModule *module,
                                              const char *kernel,
                                              const unsigned grid[3],
                                              void **args, size_t numArgs,
                                              uint64_t stream);

/** Compiles for `chip`, as kilnGPUBinaryCreate does, the tile kernels the
 * launch plan `plan` of `module` (after kiln-fuse and kiln-tile) launches,
 * with their buffers taken as aligned as the device's allocations are. */
KILN_C_EXPORT KilnError *
kilnPlanGPUBinaryCreate(KilnModule *module, const char *plan, const char *chip,
                        int numWarps, int numStages, KilnGPUBinary **binary);

/** Runs the launch plan `plan` of `module` on the device `kernels` (its
 * kernels, from kilnPlanGPUBinaryCreate) is loaded on, its launches on
 * `stream` (0: the default stream): `arguments` are the device addresses
 * of the plan's inputs, then of its results, then its sizes (from
 * kilnModuleBindLaunchPlan). Temporaries are device memory, freed before
 * it returns, on failure too. Asynchronous as launches are. */
KILN_C_EXPORT KilnError *kilnPlanRunOnGPU(KilnModule *module, const char *plan,
                                          KilnCudaModule *kernels,
                                          const uint64_t *arguments,
                                          size_t numArguments, uint64_t stream);

/** A launch plan captured, for fixed arguments, into a CUDA graph: its
 * temporaries allocated once and held, its launches replayed by one graph
 * launch. The KilnCudaModule of its kernels must outlive it. */
typedef struct KilnPlanGraph KilnPlanGraph;

/** Captures the launch plan `plan` of `module` as kilnPlanRunOnGPU would
 * run it on `arguments` into a CUDA graph, which holds the plan's
 * temporaries; `module` and `kernels` must outlive it. */
KILN_C_EXPORT KilnError *
kilnPlanGraphCreate(KilnModule *module, const char *plan,
                    KilnCudaModule *kernels, const uint64_t *arguments,
                    size_t numArguments, KilnPlanGraph **graph);

/** Queues the captured plan on `stream` (0: the default stream), on
 * `arguments` (as kilnPlanRunOnGPU takes them; the kernels whose
 * parameters change are updated in the graph first), or, where
 * `arguments` is NULL, on those of its last launch. An error, launching
 * nothing, where the arguments' sizes would change a temporary's size or a
 * grid. Launches from several threads are safe. */
KILN_C_EXPORT KilnError *kilnPlanGraphLaunch(KilnPlanGraph *graph,
                                             const uint64_t *arguments,
                                             size_t numArguments,
                                             uint64_t stream);

/** Frees the graph and its temporaries. */
KILN_C_EXPORT void kilnPlanGraphDestroy(KilnPlanGraph *graph);

/** Device memory on device `ordinal`, in its primary context: `bytes` of
 * it (at least 1) at `*address`, freed by kilnCudaFree. */
KILN_C_EXPORT KilnError *kilnCudaAllocate(int ordinal, size_t bytes,
                                          uint64_t *address);
KILN_C_EXPORT KilnError *kilnCudaFree(int ordinal, uint64_t address);

/** Copies `bytes` between host memory and device memory of device
 * `ordinal`, waiting for the copy. */
KILN_C_EXPORT KilnError *kilnCudaCopyToDevice(int ordinal, uint64_t to,
                                              const void *from, size_t bytes);
KILN_C_EXPORT KilnError *kilnCudaCopyToHost(int ordinal, void *to,
                                            uint64_t from, size_t bytes);

/** Waits for all work on device `ordinal`; reports a kernel's fault. */
KILN_C_EXPORT KilnError *kilnCudaSynchronize(int ordinal);

#ifdef __cplusplus
}
#endif

#endif /* KILN_C_KILN_H */
