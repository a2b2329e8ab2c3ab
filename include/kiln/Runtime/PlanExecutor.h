//===- PlanExecutor.h - Launch plans run on the GPU -------------*- C++ -*-===//
//
// kiln-tile turns an array function into a launch plan: host code that
// allocates temporaries and calls each tile kernel's launcher over its
// grid. On the GPU, the plan is followed op by op instead of compiled: the
// kernels run from a loaded module, on the caller's stream, the
// temporaries are device memory. kiln-run and the C API (so Python) run
// plans through this one executor.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLANEXECUTOR_H
#define KILN_RUNTIME_PLANEXECUTOR_H

#include "kiln/Runtime/CudaDriver.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// A copy of `module` holding only the tile kernels `plan` launches (no
/// plans, launcher or runtime declarations, nor other plans' kernels), for
/// the GPU compiler.
mlir::OwningOpRef<mlir::ModuleOp> extractTileKernels(mlir::ModuleOp module,
                                                     mlir::func::FuncOp plan);

/// Runs the launch plan `plan` on `device`, its launches on `stream` (null:
/// the default stream): `arguments` are the device addresses of its inputs,
/// then of its results, then its sizes (see LaunchPlan.cpp); its kernels
/// are in `kernels`, compiled for blocks of `threadsPerBlock` threads (and
/// `dynamicSharedBytes` of dynamic shared memory). Temporaries are
/// allocated and freed as the plan says (all of them on failure). On
/// failure `error` says which op of the plan failed and why.
mlir::LogicalResult
runPlanOnGPU(mlir::func::FuncOp plan, runtime::Device &device,
             runtime::Module &kernels, unsigned threadsPerBlock,
             unsigned dynamicSharedBytes, llvm::ArrayRef<uint64_t> arguments,
             runtime::CUstream stream, std::string &error);

namespace runtime {

/// A launch plan captured into a CUDA graph: its temporaries allocated
/// once and held until the graph goes, its launches replayed by one graph
/// launch (a plan of 20 kernels costs one launch call). A replay may take
/// other arguments (buffers elsewhere; sizes that keep the temporaries and
/// grids the same): the kernels whose parameters change are updated in
/// the graph first. Replays may come from several threads. The kernels'
/// module must outlive it.
class PlanGraph {
public:
  /// Captures `plan` (as runPlanOnGPU runs it) on `arguments`; null with
  /// `error` set on failure, with whatever it allocated freed.
  static std::unique_ptr<PlanGraph>
  capture(mlir::func::FuncOp plan, Device &device, Module &kernels,
          unsigned threadsPerBlock, unsigned dynamicSharedBytes,
          llvm::ArrayRef<uint64_t> arguments, std::string &error);
  PlanGraph(const PlanGraph &) = delete;
  PlanGraph &operator=(const PlanGraph &) = delete;
  ~PlanGraph();

  /// Queues the plan's launches on `stream` (null: the default stream), on
  /// the arguments of the last launch.
  bool launch(CUstream stream, std::string &error);
  /// The same on `arguments`; an error, launching nothing, where they
  /// would change a temporary's size or a grid.
  bool launch(llvm::ArrayRef<uint64_t> arguments, CUstream stream,
              std::string &error);

private:
  PlanGraph(mlir::func::FuncOp plan, Device &device, Module &kernels,
            unsigned threadsPerBlock, unsigned dynamicSharedBytes)
      : plan(plan), device(device), kernels(kernels),
        threadsPerBlock(threadsPerBlock),
        dynamicSharedBytes(dynamicSharedBytes) {}

  /// A launch of `kernel` over `programs` programs, packed.
  bool prepare(const std::string &kernel, unsigned programs,
               std::vector<void *> &params, KernelLaunch &launch,
               std::string &error);

  mlir::func::FuncOp plan;
  Device &device;
  Module &kernels;
  unsigned threadsPerBlock, dynamicSharedBytes;
  struct Temporary {
    CUdeviceptr address;
    uint64_t bytes;
  };
  std::vector<Temporary> temporaries;
  /// Each launch's grid and the parameter values the graph holds now.
  struct CapturedLaunch {
    unsigned programs;
    std::vector<uint64_t> values;
  };
  std::vector<CapturedLaunch> launches;
  std::unique_ptr<Graph> graph;
  /// Orders replays' updates and launches.
  std::mutex mutex;
};

} // namespace runtime
} // namespace kiln

#endif // KILN_RUNTIME_PLANEXECUTOR_H
