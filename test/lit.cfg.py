# -*- Python -*-
# lit configuration for the OrchestraOS regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "OrchestraOS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.orchestra_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%orchestra_src_root", config.orchestra_src_root))
config.substitutions.append(("%orchestra_obj_root", config.orchestra_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tools: ours first, then LLVM's (FileCheck, not, count).
llvm_config.with_environment("PATH", config.orchestra_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = [
    ToolSubst("orchestra-opt", unresolved="fatal"),
    ToolSubst("orchestra-run", unresolved="fatal"),
    ToolSubst("orchestra-targets", unresolved="fatal"),
    ToolSubst("orchestra-compile", unresolved="fatal"),
    ToolSubst("orchestra-onnx-conformance", unresolved="fatal"),
    ToolSubst("orchestra-translate", unresolved="fatal"),
    ToolSubst("orchestra-sched-bench", unresolved="fatal"),
    ToolSubst("orchestra-calibrate", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.orchestra_tools_dir])

# One feature per compiled-in target backend ("target-nvidia", ...).
for target in config.orchestra_targets:
    config.available_features.add("target-" + target.lower())

# clang-format (Debian's, installed by scripts/setup.sh) checks the style of
# the sources when the checkout is a git repository.
import shutil
if shutil.which("clang-format") and os.path.isdir(
    os.path.join(config.orchestra_src_root, ".git")
):
    config.available_features.add("clang-format")

# A Python with numpy computes the references of the end-to-end tests.
# Debian's python3-numpy (scripts/setup.sh) lives in /usr/bin/python3; a
# python3 earlier on PATH may lack it.
import subprocess
for candidate in ["/usr/bin/python3", shutil.which("python3")]:
    if candidate and os.path.exists(candidate) and subprocess.call(
        [candidate, "-c", "import numpy"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) == 0:
        config.substitutions.append(("%python", candidate))
        config.available_features.add("numpy")
        break

# Python packages of that interpreter: onnx builds the importer's test models,
# torch/torchvision export the real-model tests.
if "numpy" in config.available_features:
    for module, feature in [("onnx", "onnx-python"), ("torch", "torch"),
                            ("torchvision", "torchvision")]:
        if subprocess.call(
            [candidate, "-c", "import " + module],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ) == 0:
            config.available_features.add(feature)

# The ONNX backend test data (Debian's libonnx-testdata, scripts/setup.sh)
# for the conformance run.
if os.path.isdir("/usr/share/libonnx-testdata/data/node"):
    config.available_features.add("onnx-testdata")
