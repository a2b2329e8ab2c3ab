# -*- Python -*-
"""lit configuration of Kiln's FileCheck suite."""

import glob
import os
import site
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "robustness",
                   "Inputs"]

# Same strictness as upstream MLIR's suite: variables do not leak between
# CHECK-LABEL blocks, and every declared prefix must be used.
# kiln-run picks the GPU where there is one; the lit tests pin the host
# unless they say otherwise (tools/kiln-run/gpu.mlir tests the choice).
config.environment["KILN_TARGET"] = "host"
config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false"
)

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("kiln-opt", unresolved="fatal"),
    ToolSubst("kiln-capi-test", unresolved="fatal"),
    ToolSubst("kiln-run", unresolved="fatal"),
    ToolSubst("kiln-translate", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)


def find_in_cuda(override, relative_path, program=None):
    """Finds a file of the CUDA toolkit where kiln-translate looks for it."""
    if os.environ.get(override):
        candidates = [os.environ[override]]
    else:
        roots = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
        candidates = [program and shutil.which(program)]
        candidates += [
            os.path.join(root, relative_path) for root in roots if root
        ]
    return next((c for c in candidates if c and os.path.isfile(c)), None)


# The NVPTX tests assemble the PTX they check with ptxas, and link libdevice,
# when the CUDA toolkit has them. "%if ptxas %{ ... | %ptxas -arch=sm_80 %}"
# assembles PTX read on stdin; %ptxas_program is the program's path. Where
# Kiln has the PTX compiler library, kiln-translate assembles in process
# unless $KILN_PTXAS, passed on where it is set, names a program.
ptxas = find_in_cuda("KILN_PTXAS", os.path.join("bin", "ptxas"), "ptxas")
if ptxas:
    config.available_features.add("ptxas")
    if os.environ.get("KILN_PTXAS"):
        config.environment["KILN_PTXAS"] = ptxas
    config.substitutions.append(("%ptxas_program", f'"{ptxas}"'))
    config.substitutions.append(("%ptxas", f'"{ptxas}" -o /dev/null -'))
else:
    lit_config.note(
        "ptxas not found: PTX is not assembled, cubin tests are unsupported"
    )
if config.kiln_has_ptx_compiler_library:
    config.available_features.add("ptx-compiler-library")
else:
    lit_config.note("Kiln was built without the PTX compiler library: "
                    "its tests are unsupported")
# Disassembly checks (tensor-core instructions in SASS) use cuobjdump from
# the toolkit or from the nvidia-cuda-cuobjdump wheel (which runs the
# nvidia-cuda-nvdisasm wheel's nvdisasm, installed beside it).
def find_cuobjdump():
    found = find_in_cuda("KILN_CUOBJDUMP", os.path.join("bin", "cuobjdump"),
                         "cuobjdump")
    if found:
        return found
    # The wheel may be installed for the python3 on PATH rather than for the
    # interpreter running lit.
    roots = site.getsitepackages() + [site.getusersitepackages()]
    python = shutil.which("python3")
    if python:
        listed = subprocess.run(
            [python, "-c", "import site; print(*site.getsitepackages(), "
             "site.getusersitepackages(), sep='\\n')"],
            capture_output=True, text=True)
        roots += listed.stdout.split()
    for root in roots:
        wheel = sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin",
                                              "cuobjdump")))
        if wheel:
            return wheel[-1]
    return None


cuobjdump = find_cuobjdump()
if cuobjdump:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", f'"{cuobjdump}"'))
else:
    lit_config.note("cuobjdump not found: SASS checks are unsupported")
libdevice = find_in_cuda(
    "KILN_LIBDEVICE", os.path.join("nvvm", "libdevice", "libdevice.10.bc")
)
if libdevice:
    config.available_features.add("libdevice")
    config.environment["KILN_LIBDEVICE"] = libdevice
else:
    lit_config.note(
        "libdevice not found: tests of libdevice calls are unsupported"
    )

# The documented example kernels are tested where they live.
config.substitutions.append(
    ("%kiln_examples", os.path.join(config.kiln_src_root, "docs", "examples"))
)

# A stand-in for libcuda.so.1 (unittests/Runtime): it loads PTX and
# "launches" kernels as no-ops, so the host side of a GPU run is tested
# without a GPU.
config.substitutions.append(
    ("%kiln_fake_cuda_driver",
     os.path.join(config.kiln_obj_root, "unittests",
                  "libKilnFakeCudaDriver.so"))
)
