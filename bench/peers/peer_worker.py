"""One peer, one model, in a process of its own (bench/peers/run.py starts
it; each measurement gets a fresh process so that no runtime's thread pool
lingers into another's measurement).

    peer_worker.py compile PEER MODEL_DIR   compile (or load and optimise) the
        model for PEER, keeping what can be kept in MODEL_DIR/PEER/; prints
        {"compile_s": ...}
    peer_worker.py run PEER MODEL_DIR --repeat N [--warmup W] [--min-time T]
            [--budget S]
        load what `compile` kept, warm up (W inferences and T seconds, or one
        inference when it takes over a second), then time at least N
        inferences and T seconds of them (stopping early once S seconds have
        passed, never before 3), write the outputs to
        MODEL_DIR/PEER/output_I.npy; prints {"samples_ms": [...]}

MODEL_DIR holds model.onnx and input_I.npy (the ONNX inputs in order).
Every peer is timed the same way: time.perf_counter around one synchronous
inference call from Python that takes numpy inputs and returns numpy outputs.
Threads: 2 for everyone unless --threads says otherwise.
"""
import argparse
import glob
import itertools
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

PEERS = ["orchestra", "onnxruntime", "onnxruntime-nospin", "openvino", "iree",
         "tvm", "torch", "torch2"]


class PeerError(Exception):
    """A peer refused the model: the message says why, in one line."""


def tool(command):
    """Runs a command-line tool; its diagnostic becomes a PeerError."""
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        lines = [l.strip() for l in (run.stderr + run.stdout).splitlines()
                 if l.strip()]
        first = next((l for l in lines if "error" in l.lower()),
                     lines[0] if lines else "exit status %d" % run.returncode)
        raise PeerError("%s: %s" % (os.path.basename(command[0]), first))


def inputs_of(model_dir):
    return [np.load(p) for p in sorted(glob.glob(
        os.path.join(model_dir, "input_*.npy")),
        key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))]


def onnx_input_names(path):
    import onnx

    model = onnx.load(path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in initializers]


class Orchestra:
    """orchestra-compile for the host topology; the runtime's Python
    bindings run the artifact (the runtime uses the topology's 2 cores)."""

    def __init__(self, model_dir, work, threads, build):
        self.onnx = os.path.join(model_dir, "model.onnx")
        self.artifact = os.path.join(work, "model.orcx")
        self.build = build
        self.threads = threads

    def compile(self):
        tool([os.path.join(self.build, "bin", "orchestra-compile"),
              self.onnx, "--topology", "host", "-o", self.artifact,
              "--quiet"])

    def load(self):
        os.environ.setdefault("ORCHESTRA_RT_LIBRARY", os.path.join(
            self.build, "lib", "liborchestra_rt.so"))
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import orchestra_rt

        session = orchestra_rt.Session(orchestra_rt.Artifact(self.artifact))
        return lambda xs: session.run(*xs)


class OnnxRuntime:
    """CPU execution provider, every graph optimisation, 2 intra-op threads,
    spinning on (the default) or off."""

    def __init__(self, model_dir, work, threads, spin):
        self.onnx = os.path.join(model_dir, "model.onnx")
        self.threads = threads
        self.spin = spin

    def _session(self):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning",
                                         "1" if self.spin else "0")
        return ort.InferenceSession(self.onnx, options,
                                    providers=["CPUExecutionProvider"])

    def compile(self):
        self._session()

    def load(self):
        session = self._session()
        names = [i.name for i in session.get_inputs()]
        return lambda xs: session.run(None, dict(zip(names, xs)))


class OpenVINO:
    """The CPU plugin, f32 inference precision pinned, latency hint, 2
    threads."""

    def __init__(self, model_dir, work, threads):
        self.onnx = os.path.join(model_dir, "model.onnx")
        self.threads = threads

    def _compiled(self):
        import openvino as ov

        core = ov.Core()
        return core.compile_model(core.read_model(self.onnx), "CPU", {
            "INFERENCE_NUM_THREADS": self.threads,
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": "f32",
        })

    def compile(self):
        self._compiled()

    def load(self):
        compiled = self._compiled()
        request = compiled.create_infer_request()
        count = len(compiled.outputs)

        def call(xs):
            request.infer(xs)
            return [request.get_output_tensor(i).data.copy()
                    for i in range(count)]
        return call


# IREE's flags: -O3 and its channels-last conversion of convolutions. Its
# defaults keep NCHW convolutions, which made ResNet-18 3.3x slower (101 ms
# against 30 ms on the development machine, iree-benchmark-module, 2 workers);
# its im2col option gave 45 ms. Its default 32 KiB limit on a dispatch's
# stack refuses BERT-small's attention (48 KiB): raised, as its error
# message suggests.
IREE_FLAGS = [
    "--iree-opt-level=O3",
    "--iree-preprocessing-pass-pipeline=builtin.module(util.func("
    "iree-preprocessing-convert-conv-to-channels-last))",
    "--iree-llvmcpu-stack-allocation-limit=262144",
]


class IREE:
    """iree-import-onnx, iree-compile for llvm-cpu and the host CPU with
    IREE_FLAGS; the local-task driver with 2 workers."""

    def __init__(self, model_dir, work, threads):
        self.onnx = os.path.join(model_dir, "model.onnx")
        self.mlir = os.path.join(work, "model.mlir")
        self.vmfb = os.path.join(work, "model.vmfb")
        self.threads = threads

    def compile(self):
        bin_dir = os.path.dirname(sys.executable)
        tool([os.path.join(bin_dir, "iree-import-onnx"), self.onnx,
              "-o", self.mlir])
        tool([os.path.join(bin_dir, "iree-compile"), self.mlir,
              "--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host"] + IREE_FLAGS +
             ["-o", self.vmfb])

    def load(self):
        import iree.runtime as rt

        rt.flags.parse_flags(
            "--task_topology_max_group_count=%d" % self.threads)
        config = rt.Config("local-task")
        context = rt.SystemContext(config=config)
        module = rt.VmModule.mmap(config.vm_instance, self.vmfb)
        context.add_vm_module(module)
        functions = [f for f in module.function_names
                     if not f.startswith("__") and not f.endswith("$async")]
        entry = context.modules[module.name][functions[0]]

        def call(xs):
            result = entry(*xs)
            if not isinstance(result, (list, tuple)):
                result = [result]
            return [r.to_host() for r in result]
        return call


class TVM:
    """Apache TVM's Relax ONNX frontend, its default (untuned) build pipeline
    for llvm with the host CPU; TVM_NUM_THREADS=2."""

    def __init__(self, model_dir, work, threads):
        self.onnx = os.path.join(model_dir, "model.onnx")
        self.library = os.path.join(work, "model.so")
        os.environ["TVM_NUM_THREADS"] = str(threads)

    def compile(self):
        import onnx
        import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx
        from tvm.target import codegen

        model = onnx.load(self.onnx)
        shapes = {}
        dtypes = {}
        for value in model.graph.input:
            t = value.type.tensor_type
            shapes[value.name] = [d.dim_value for d in t.shape.dim]
            dtypes[value.name] = onnx.helper.tensor_dtype_to_np_dtype(
                t.elem_type).name
        mod = from_onnx(model, shape_dict=shapes, dtype_dict=dtypes,
                        keep_params_in_input=False)
        mod = relax.transform.DecomposeOpsForInference()(mod)
        target = tvm.target.Target({"kind": "llvm",
                                    "mcpu": codegen.llvm_get_system_cpu(),
                                    "num-cores": 2})
        executable = tvm.compile(mod, target=target)
        executable.export_library(self.library)

    def load(self):
        import tvm
        from tvm import relax

        vm = relax.VirtualMachine(tvm.runtime.load_module(self.library),
                                  tvm.cpu())
        entry = vm["main"]

        def call(xs):
            result = entry(*[tvm.runtime.tensor(x) for x in xs])
            if hasattr(result, "numpy"):
                result = [result]
            return [r.numpy() for r in result]
        return call


class Torch:
    """PyTorch traced and frozen from the ONNX file's source module (the
    bench's models.py, with the exported weights), under no_grad; 2 threads.
    With `compiled`, PyTorch 2.x torch.compile of the eager module instead
    (the opt-in extra). Tracing or compiling happens when it loads, on the
    model's inputs, so that the warm-up starts with a compiled module."""

    def __init__(self, model_dir, work, threads, compiled):
        self.model_dir = model_dir
        self.name = open(os.path.join(model_dir, "name")).read().strip()
        self.state = os.path.join(model_dir, "state.pt")
        self.threads = threads
        self.compiled = compiled

    def _module(self, xs):
        import torch

        sys.path.insert(0, HERE)
        import models

        torch.set_num_threads(self.threads)
        model, _, _ = models.build(self.name)
        model.load_state_dict(torch.load(self.state))
        model.eval()
        inputs = [torch.from_numpy(x) for x in xs]
        with torch.no_grad():
            if self.compiled:
                module = torch.compile(model)
            else:
                module = torch.jit.freeze(torch.jit.trace(model, tuple(inputs)))
            module(*inputs)
        return module

    def compile(self):
        self.load()

    def load(self):
        import torch

        module = self._module(inputs_of(self.model_dir))

        def call(xs):
            with torch.no_grad():
                out = module(*[torch.from_numpy(x) for x in xs])
            if not isinstance(out, (list, tuple)):
                out = [out]
            return [o.numpy() for o in out]
        return call


def make(peer, model_dir, threads, build):
    work = os.path.join(model_dir, peer)
    os.makedirs(work, exist_ok=True)
    if peer == "orchestra":
        return Orchestra(model_dir, work, threads, build)
    if peer in ("onnxruntime", "onnxruntime-nospin"):
        return OnnxRuntime(model_dir, work, threads, peer == "onnxruntime")
    if peer == "openvino":
        return OpenVINO(model_dir, work, threads)
    if peer == "iree":
        return IREE(model_dir, work, threads)
    if peer == "tvm":
        return TVM(model_dir, work, threads)
    if peer in ("torch", "torch2"):
        return Torch(model_dir, work, threads, peer == "torch2")
    sys.exit("unknown peer " + peer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["compile", "run"])
    parser.add_argument("peer", choices=PEERS)
    parser.add_argument("model_dir")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    peer = make(args.peer, args.model_dir, args.threads, args.build)

    if args.mode == "compile":
        start = time.perf_counter()
        peer.compile()
        print(json.dumps({"compile_s": time.perf_counter() - start}))
        return 0

    xs = inputs_of(args.model_dir)
    call = peer.load()
    # Warm-up: --warmup runs and --min-time seconds (thread pools, caches
    # and allocators settle; the first runs of a millisecond model are 2-3x
    # slower), or one run when a run takes more than a second.
    begin = time.perf_counter()
    for count in itertools.count(1):
        start = time.perf_counter()
        outputs = call(xs)
        now = time.perf_counter()
        if now - start > 1.0 or (count >= args.warmup and
                                 now - begin >= args.min_time):
            break
    # Timed runs: --repeat runs and --min-time seconds, stopping early after
    # --budget seconds (never before 3 runs).
    samples = []
    spent = 0.0
    while len(samples) < args.repeat or spent < args.min_time:
        start = time.perf_counter()
        outputs = call(xs)
        samples.append((time.perf_counter() - start) * 1e3)
        spent += samples[-1] / 1e3
        if spent > args.budget and len(samples) >= 3:
            break
    for i, out in enumerate(outputs):
        np.save(os.path.join(args.model_dir, args.peer, "output_%d.npy" % i),
                np.asarray(out))
    print(json.dumps({"samples_ms": samples}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # One line for the table's note.
        message = str(e).strip().splitlines()
        print("error: %s: %s" % (type(e).__name__,
                                 message[0] if message else ""),
              file=sys.stderr)
        sys.exit(1)
