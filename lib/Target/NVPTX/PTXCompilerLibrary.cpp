//===- PTXCompilerLibrary.cpp - ptxas in process --------------------------===//
//
// The CUDA toolkit's PTX compiler library (nvPTXCompiler) is ptxas as a
// library: the same compiler, with the same options and report, without a
// process, a temporary file and ptxas's start-up per kernel (about 8 ms of
// a small kernel's 25 ms cold compile). Kiln links it where the build
// found it; elsewhere the functions here say it is absent.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/NVPTX/NVPTXTarget.h"

#include "llvm/ADT/StringRef.h"

#ifdef KILN_HAVE_PTX_COMPILER_LIBRARY
#include "nvPTXCompiler.h"

#include <vector>
#endif

using namespace mlir;
using namespace kiln::nvptx;

#ifdef KILN_HAVE_PTX_COMPILER_LIBRARY

std::optional<std::string> kiln::nvptx::getPtxCompilerLibraryVersion() {
  unsigned major = 0, minor = 0;
  if (nvPTXCompilerGetVersion(&major, &minor) != NVPTXCOMPILE_SUCCESS)
    return std::nullopt;
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {
/// A compiler handle, destroyed when this goes out of scope.
struct CompilerHandle {
  nvPTXCompilerHandle handle = nullptr;
  ~CompilerHandle() {
    if (handle)
      (void)nvPTXCompilerDestroy(&handle);
  }
};
} // namespace

/// One of the library's logs, empty where it has none.
static std::string
readLog(nvPTXCompilerHandle handle,
        nvPTXCompileResult (*size)(nvPTXCompilerHandle, size_t *),
        nvPTXCompileResult (*read)(nvPTXCompilerHandle, char *)) {
  size_t bytes = 0;
  if (size(handle, &bytes) != NVPTXCOMPILE_SUCCESS || bytes == 0)
    return "";
  std::string log(bytes, '\0');
  if (read(handle, log.data()) != NVPTXCOMPILE_SUCCESS)
    return "";
  // The size counts the terminating null.
  log.resize(StringRef(log.data()).size());
  return log;
}

static std::string describe(nvPTXCompileResult result) {
  switch (result) {
  case NVPTXCOMPILE_ERROR_COMPILATION_FAILURE:
    return "compilation failure";
  case NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION:
    return "the PTX version is newer than the library";
  case NVPTXCOMPILE_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  default:
    return "error " + std::to_string(static_cast<int>(result));
  }
}

FailureOr<std::string>
kiln::nvptx::assembleCubinInProcess(StringRef ptx, const TargetOptions &options,
                                    std::string &error, std::string *ptxasLog) {
  CompilerHandle compiler;
  nvPTXCompileResult result =
      nvPTXCompilerCreate(&compiler.handle, ptx.size(), ptx.data());
  if (result != NVPTXCOMPILE_SUCCESS) {
    error = "the PTX compiler library failed to start: " + describe(result);
    return failure();
  }
  std::string arch = "--gpu-name=" + options.chip;
  std::string optLevel = "-O" + std::to_string(options.optLevel);
  std::vector<const char *> arguments = {arch.c_str(), optLevel.c_str()};
  if (!options.fpFusion)
    arguments.push_back("--fmad=false");
  if (ptxasLog)
    arguments.push_back("--verbose");
  result = nvPTXCompilerCompile(
      compiler.handle, static_cast<int>(arguments.size()), arguments.data());
  if (result != NVPTXCOMPILE_SUCCESS) {
    error = "ptxas failed for " + options.chip +
            " (in process: " + describe(result) + ")";
    std::string log = readLog(compiler.handle, nvPTXCompilerGetErrorLogSize,
                              nvPTXCompilerGetErrorLog);
    if (StringRef trimmed = StringRef(log).rtrim(); !trimmed.empty())
      error += ":\n" + trimmed.str();
    return failure();
  }
  size_t bytes = 0;
  std::string cubin;
  if (nvPTXCompilerGetCompiledProgramSize(compiler.handle, &bytes) ==
      NVPTXCOMPILE_SUCCESS) {
    cubin.resize(bytes);
    if (nvPTXCompilerGetCompiledProgram(compiler.handle, cubin.data()) !=
        NVPTXCOMPILE_SUCCESS)
      cubin.clear();
  }
  if (cubin.empty()) {
    error = "the PTX compiler library made no cubin";
    return failure();
  }
  if (ptxasLog)
    *ptxasLog = readLog(compiler.handle, nvPTXCompilerGetInfoLogSize,
                        nvPTXCompilerGetInfoLog);
  return cubin;
}

#else

std::optional<std::string> kiln::nvptx::getPtxCompilerLibraryVersion() {
  return std::nullopt;
}

FailureOr<std::string>
kiln::nvptx::assembleCubinInProcess(StringRef, const TargetOptions &,
                                    std::string &error, std::string *) {
  error = "Kiln was built without the PTX compiler library";
  return failure();
}

#endif
