# -*- Python -*-
# lit configuration for the OrchestraOS regression tests.

import glob
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
# LLVM's own tools (llvm-objdump, llvm-mc) by path: PATH may hold older ones.
config.substitutions.append(("%llvm_tools", config.llvm_tools_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tools: ours first, then LLVM's (FileCheck, not, count).
llvm_config.with_environment("PATH", config.orchestra_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = [
    ToolSubst("orchestra-opt", unresolved="fatal"),
    ToolSubst("orchestra-run", unresolved="fatal"),
    ToolSubst("orchestra-targets", unresolved="fatal"),
    ToolSubst("orchestra-topology", unresolved="fatal"),
    ToolSubst("orchestra-stablehlo-bridge", unresolved="fatal"),
    ToolSubst("orchestra-compile", unresolved="fatal"),
    ToolSubst("orchestra-onnx-conformance", unresolved="fatal"),
    ToolSubst("orchestra-translate", unresolved="fatal"),
    ToolSubst("orchestra-sched-bench", unresolved="fatal"),
    ToolSubst("orchestra-calibrate", unresolved="fatal"),
    ToolSubst("orchestra-tune", unresolved="fatal"),
    # Built with the runtime's pjrt driver only.
    ToolSubst("orchestra-pjrt-compile", unresolved="ignore"),
    # Built with Debian's gRPC only (the feedback service, design/0019).
    ToolSubst("orchestra-jit-server", unresolved="ignore"),
    ToolSubst("orchestra-jit-request", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, [config.orchestra_tools_dir])
# `grpc`: the feedback service and its client are built.
if os.access(os.path.join(config.orchestra_tools_dir, "orchestra-jit-server"),
             os.X_OK):
    config.available_features.add("grpc")

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

# The sweeps that compile every ONNX node test for a GPU (emulated) or for
# XLA run one test in eight on a sanitized build, where each compile takes
# about twice as long; the plain build runs them whole.
config.substitutions.append((
    "%{node_sweep_sample}",
    "--sample 8" if config.orchestra_sanitizers else ""))
# The host's own conformance run (onnx/conformance.test, every node,
# PyTorch and simple test compiled and run on the CPU) runs one test in two
# there; the plain build runs it whole.
config.substitutions.append((
    "%{conformance_sample}",
    "--sample 2" if config.orchestra_sanitizers else ""))
# The x86 strategy's matmul variants (e2e/matmul-variants.mlir, two compiles
# each): one in two there.
config.substitutions.append((
    "%{matmul_variant_sample}",
    "--sample 2" if config.orchestra_sanitizers else ""))

# A build with ASan and UBSan (scripts/check.sh): stack traces of UBSan's
# findings, and ASan's checks without the poisoning LLVM's headers do on
# their own (our code, instrumented, poisons the free space of an allocator
# slab that libMLIR, not instrumented, then allocates from without
# unpoisoning: false reports of use-after-poison). A Python that loads
# liborchestra_rt.so (%rt_python, %rt_venv_python, %orchestra_python)
# preloads ASan's shared runtime, which our programs it starts link too (and
# leaks of the interpreter are not ours).
python_sanitizer_env = ""
if config.orchestra_sanitizers:
    config.available_features.add("asan")
    # A finding aborts (SIGABRT), so that `not` never takes it for the
    # ordinary failure a test expects.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:abort_on_error=1"
    python_sanitizer_env = (
        "LD_PRELOAD=%s "
        "ASAN_OPTIONS=allow_user_poisoning=0:abort_on_error=1:detect_leaks=0 " %
        config.orchestra_asan_runtime)

# The runtime's Python bindings (python/orchestra_rt), on the library of this
# build; %rt_python is that Python for scripts that find the library
# themselves.
if "numpy" in config.available_features:
    config.substitutions.append((
        "%rt_python", "env %s%s" % (python_sanitizer_env, candidate)))
    config.substitutions.append((
        "%orchestra_python",
        "env %sPYTHONPATH=%s ORCHESTRA_RT_LIBRARY=%s %s" % (
            python_sanitizer_env,
            os.path.join(config.orchestra_src_root, "python"),
            os.path.join(config.orchestra_obj_root, "lib",
                         "liborchestra_rt.so"),
            candidate)))

# The PTX emulator (python/ptx_emulator), for the GPU tests without a GPU.
if "numpy" in config.available_features:
    config.substitutions.append((
        "%{ptx_emulator}",
        "env PYTHONPATH=%s %s -m ptx_emulator" % (
            os.path.join(config.orchestra_src_root, "python"), candidate)))

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

# The checkout's virtual environment (scripts/setup.sh installs
# requirements/test.txt into it) with ONNX Runtime, the reference runtime of
# `orchestra-onnx-conformance --peer=onnxruntime`; %venv_python runs it.
venv_python = os.path.join(config.orchestra_src_root, ".venv", "bin",
                           "python3")
if os.path.exists(venv_python) and subprocess.call(
    [venv_python, "-c", "import numpy, onnx, onnxruntime"],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
) == 0:
    config.available_features.add("onnxruntime")
    config.substitutions.append(("%rt_venv_python", "env %s%s" % (
        python_sanitizer_env, venv_python)))
    config.substitutions.append(("%venv_python", venv_python))

# StableHLO: the bridge's parser (jaxlib in .venv-xla, scripts/setup.sh)
# validates what orchestra-lower-to-stablehlo writes; `pjrt-plugin` marks the
# XLA CPU plugin the StableHLO tasks run on here (ORCHESTRA_PJRT_PLUGIN).
bridge = os.path.join(config.orchestra_obj_root, "bin",
                      "orchestra-stablehlo-bridge")
if os.access(bridge, os.X_OK) and subprocess.call(
    [bridge, "--versions"], stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("stablehlo-bridge")
# The Python of .venv-xla (jaxlib): stand-ins of vendor tools use it.
xla_python = os.path.join(config.orchestra_src_root, ".venv-xla", "bin",
                          "python3")
if os.access(xla_python, os.X_OK):
    config.substitutions.append(("%xla_python", xla_python))
xla_plugins = glob.glob(os.path.join(
    config.orchestra_src_root, ".venv-xla", "lib", "python3*",
    "site-packages", "xla_plugins", "xla_cpu_pjrt", "xla_cpu_pjrt.so"))
if xla_plugins:
    config.available_features.add("pjrt-plugin")
    config.substitutions.append(("%pjrt_plugin", xla_plugins[0]))
# The simulated PJRT plugins of the runtime's unit tests (fake_pjrt.cpp): of
# another major version, too old a minor one, a short function table, a
# failing initialisation.
fake_pjrt_dir = os.path.join(config.orchestra_obj_root, "unittests",
                             "Runtime")
if os.path.exists(os.path.join(fake_pjrt_dir, "liborx_fake_pjrt_old.so")):
    config.available_features.add("fake-pjrt-plugins")
    config.substitutions.append(("%fake_pjrt_dir", fake_pjrt_dir))
# libtpu (requirements/xla.txt): the TPU's PJRT plugin, which compiles for a
# TPU topology without a TPU (orchestra-pjrt-compile) and refuses to run.
libtpus = glob.glob(os.path.join(
    config.orchestra_src_root, ".venv-xla", "lib", "python3*",
    "site-packages", "libtpu", "libtpu.so"))
if libtpus and os.access(os.path.join(config.orchestra_obj_root, "bin",
                                      "orchestra-pjrt-compile"), os.X_OK):
    config.available_features.add("libtpu")
    config.substitutions.append(("%libtpu", libtpus[0]))

# NVIDIA: ptxas of a CUDA toolkit validates the cubins the compiler builds
# (orchestra-compile finds it the same way: $CUDA_HOME, else
# /usr/local/cuda); `cuda-gpu` marks a machine with a CUDA driver and at least
# one device, where the GPU end-to-end tests run. CI has no GPU: those tests
# are reported as unsupported there.
cuda_home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
if "CUDA_HOME" in os.environ:
    config.environment["CUDA_HOME"] = os.environ["CUDA_HOME"]
# cuobjdump (CUDA's binary utilities, not installed on the development
# machine) disassembles cubins: the SASS checks need it.
cuobjdump = os.path.join(cuda_home, "bin", "cuobjdump")
if os.access(cuobjdump, os.X_OK):
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", cuobjdump))


def _has_cuda_gpu():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(
        ctypes.byref(count)) == 0 and count.value > 0


# A private mount namespace (unshare -rm) lets a test hide the compiler's
# libraries from a run, as on a GPU machine that has none of them.
if shutil.which("unshare") and subprocess.call(
    ["unshare", "-rm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("mount-namespace")

if _has_cuda_gpu():
    config.available_features.add("cuda-gpu")
