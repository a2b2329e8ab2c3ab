//===- CudaToolkit.cpp - libdevice, ptxas and cubins ----------------------===//
//
// The pieces of an installed CUDA toolkit the NVPTX target uses: libdevice,
// linked into modules that call its functions, and ptxas, which assembles
// PTX into a cubin: the program, or the library linked into Kiln
// (PTXCompilerLibrary.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/NVPTX/NVPTXTarget.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln::nvptx;

static bool isUsable(const std::string &path, bool isProgram) {
  return llvm::sys::fs::is_regular_file(path) &&
         (!isProgram || llvm::sys::fs::can_execute(path));
}

namespace {
/// A place a file of the CUDA toolkit may be, as an error message names it.
struct Place {
  std::string path;
  std::string description;
};
} // namespace

/// Looks for `relativePath` of a CUDA installation: at $`overrideVar` alone
/// when it is set, else on PATH (for a program), under $CUDA_HOME and under
/// /usr/local/cuda. `searched` receives the places looked at.
static std::optional<std::string> findInToolkit(StringRef overrideVar,
                                                StringRef relativePath,
                                                bool isProgram,
                                                std::string *searched) {
  SmallVector<Place> places;
  std::optional<std::string> overridden =
      llvm::sys::Process::GetEnv(overrideVar);
  if (overridden && !overridden->empty()) {
    places.push_back(
        {*overridden, *overridden + " from $" + overrideVar.str()});
  } else {
    if (isProgram) {
      llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName(llvm::sys::path::filename(relativePath));
      places.push_back({onPath ? *onPath : "", "PATH"});
    }
    auto underRoot = [&](StringRef root) {
      SmallString<128> path(root);
      llvm::sys::path::append(path, relativePath);
      return path.str().str();
    };
    std::optional<std::string> cudaHome =
        llvm::sys::Process::GetEnv("CUDA_HOME");
    if (cudaHome && !cudaHome->empty()) {
      std::string path = underRoot(*cudaHome);
      places.push_back({path, path + " from $CUDA_HOME"});
    }
    std::string path = underRoot("/usr/local/cuda");
    places.push_back({path, path});
  }

  if (searched)
    *searched = llvm::join(llvm::map_range(places,
                                           [](const Place &place) -> StringRef {
                                             return place.description;
                                           }),
                           ", ");
  for (const Place &place : places)
    if (!place.path.empty() && isUsable(place.path, isProgram))
      return place.path;
  return std::nullopt;
}

std::optional<std::string>
kiln::nvptx::findLibdevice(const TargetOptions &options,
                           std::string *searched) {
  if (options.libdevicePath.empty())
    return findInToolkit("KILN_LIBDEVICE", "nvvm/libdevice/libdevice.10.bc",
                         /*isProgram=*/false, searched);
  if (searched)
    *searched = options.libdevicePath + " from the target options";
  if (!isUsable(options.libdevicePath, /*isProgram=*/false))
    return std::nullopt;
  return options.libdevicePath;
}

std::optional<std::string>
kiln::nvptx::findCudaProgram(StringRef name, std::string *searched) {
  return findInToolkit("KILN_" + name.upper(), ("bin/" + name).str(),
                       /*isProgram=*/true, searched);
}

std::optional<std::string> kiln::nvptx::findPtxas(std::string *searched) {
  return findCudaProgram("ptxas", searched);
}

namespace {
/// A temporary file, removed when this goes out of scope.
struct TemporaryFile {
  SmallString<128> path;
  llvm::FileRemover remover;
};
} // namespace

static LogicalResult makeTemporaryFile(StringRef suffix, TemporaryFile &file,
                                       std::string &error) {
  if (std::error_code code =
          llvm::sys::fs::createTemporaryFile("kiln", suffix, file.path)) {
    error = "cannot create a temporary file for ptxas: " + code.message();
    return failure();
  }
  file.remover.setFile(file.path);
  return success();
}

/// Writes `contents` to the file at `path`. A failed write (a full disk)
/// is an error, not the fatal error that an unchecked stream raises when
/// it is destroyed.
static LogicalResult writeFile(StringRef path, StringRef contents,
                               std::string &error) {
  std::error_code code;
  llvm::raw_fd_ostream os(path, code);
  if (!code) {
    os << contents;
    os.close();
    code = os.error();
    os.clear_error();
  }
  if (code)
    error = "cannot write the PTX for ptxas to " + path.str() + ": " +
            code.message();
  return failure(bool(code));
}

/// Reads the whole file at `path` into `contents`.
static LogicalResult readFile(StringRef path, std::string &contents) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure();
  contents = (*buffer)->getBuffer().str();
  return success();
}

/// Whether $KILN_PTXAS names the program to assemble with (as
/// findCudaProgram reads it).
static bool isPtxasProgramChosen() {
  std::optional<std::string> chosen = llvm::sys::Process::GetEnv("KILN_PTXAS");
  return chosen && !chosen->empty();
}

std::optional<std::string>
kiln::nvptx::findPtxAssembler(std::string *searched) {
  if (!isPtxasProgramChosen())
    if (std::optional<std::string> version = getPtxCompilerLibraryVersion())
      return "ptxas " + *version + ", in process";
  return findPtxas(searched);
}

FailureOr<std::string> kiln::nvptx::assembleCubin(StringRef ptx,
                                                  const TargetOptions &options,
                                                  std::string &error,
                                                  std::string *ptxasLog) {
  if (failed(verifyTargetOptions(options, error)))
    return failure();
  if (!isPtxasProgramChosen() && getPtxCompilerLibraryVersion())
    return assembleCubinInProcess(ptx, options, error, ptxasLog);
  std::string searched;
  std::optional<std::string> ptxas = findPtxas(&searched);
  if (!ptxas) {
    error = "cannot assemble a cubin: ptxas was not found (searched " +
            searched + ")";
    return failure();
  }

  TemporaryFile ptxFile, cubinFile, logFile;
  if (failed(makeTemporaryFile("ptx", ptxFile, error)) ||
      failed(makeTemporaryFile("cubin", cubinFile, error)) ||
      failed(makeTemporaryFile("log", logFile, error)))
    return failure();
  if (failed(writeFile(ptxFile.path, ptx, error)))
    return failure();

  std::string arch = "-arch=" + options.chip;
  std::string optLevel = "-O" + std::to_string(options.optLevel);
  SmallVector<StringRef> args = {*ptxas, arch, optLevel};
  if (!options.fpFusion)
    args.push_back("--fmad=false");
  if (ptxasLog)
    args.push_back("-v");
  args.append({ptxFile.path, "-o", cubinFile.path});
  // ptxas reports on stderr; both streams go to the log all the same.
  std::optional<StringRef> redirects[] = {StringRef(), logFile.path.str(),
                                          logFile.path.str()};
  std::string executeError;
  int status = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &executeError);
  std::string log;
  (void)readFile(logFile.path, log);
  if (status < 0) {
    error = "cannot run " + *ptxas + ": " + executeError;
    return failure();
  }
  if (status != 0) {
    error = "ptxas failed for " + options.chip + " (exit code " +
            std::to_string(status) + ")";
    if (StringRef trimmed = StringRef(log).rtrim(); !trimmed.empty())
      error += ":\n" + trimmed.str();
    return failure();
  }
  std::string cubin;
  if (failed(readFile(cubinFile.path, cubin))) {
    error = "ptxas left no cubin at " + cubinFile.path.str().str();
    return failure();
  }
  if (ptxasLog)
    *ptxasLog = std::move(log);
  return cubin;
}
