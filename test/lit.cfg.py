# -*- Python -*-
"""lit configuration of Kiln's FileCheck suite."""

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "robustness"]

# Same strictness as upstream MLIR's suite: variables do not leak between
# CHECK-LABEL blocks, and every declared prefix must be used.
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
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The documented example kernels are tested where they live.
config.substitutions.append(
    ("%kiln_examples", os.path.join(config.kiln_src_root, "docs", "examples"))
)
