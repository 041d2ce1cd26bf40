"""Running a whole GPU artifact's plan (run-plan): the plan as
`orchestra-run --describe=json` prints it, arenas, constants, inputs, every
step's launches and copies, the outputs."""

import glob
import json
import os

import numpy as np

from .common import EmulationError, TENSOR_MAP_BYTES
from .objects import TensorMap
from .parser import Kernel
from .runner import run_launch


PLAN_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
               "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
               "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
               "u64": np.uint64}


# The element types of tensor maps, by the driver's code (CUtensorMapDataType),
# as PLAN_DTYPES names them.
TENSOR_MAP_DTYPES = {0: "u8", 1: "u16", 2: "u32", 3: "i32", 4: "u64", 5: "i64", 6: "f16",
                     7: "f32", 8: "f64", 9: "bf16"}
# CUtensorMapSwizzle: none and 128 bytes are what the emulator models.
TENSOR_MAP_SWIZZLES = {0: 0, 3: 128}


def parse_plan(text):
    """The parts of `orchestra-run --describe=json` output that run-plan
    needs."""
    doc = json.loads(text)
    plan = {"devices": {i: d["arch"] for i, d in enumerate(doc["devices"])},
            "spaces": {i: (s["device"], s["arena_bytes"])
                       for i, s in enumerate(doc["memory_spaces"])},
            "inputs": [(t["name"], t["dtype"], tuple(t["shape"]), t["value"])
                       for t in doc["inputs"]],
            "outputs": [(t["name"], t["dtype"], tuple(t["shape"]), t["value"])
                        for t in doc["outputs"]],
            "values": {i: (v["space"], v["offset"], v["bytes"])
                       for i, v in enumerate(doc["values"])},
            "constants": [c["value"] for c in doc["constants"]],
            "modules": {}, "bundle_kernels": {},
            "kernels": {i: (k["binary"], k["symbol"]) for i, k in enumerate(doc["kernels"])},
            "branches": {i: k.get("branches", []) for i, k in enumerate(doc["kernels"])},
            "steps": [(s["kind"], s["device"], s.get("kernel"), s["args"])
                      for s in doc["steps"]]}
    for binary, desc in enumerate(doc["binaries"]):
        bundle = desc.get("bundle")
        if bundle is None:
            continue
        for index, module in enumerate(bundle["modules"]):
            plan["modules"][(binary, index)] = module["name"]
        for kernel in bundle["kernels"]:
            plan["bundle_kernels"][(binary, kernel["symbol"])] = {
                "scratch": kernel["scratch_bytes"],
                "launches": [{"module": (binary, launch["module"]),
                              "function": launch["function"],
                              "grid": tuple(launch["grid"]),
                              "block": tuple(launch["block"]),
                              "shared": launch["dynamic_shared_bytes"],
                              "params": launch["params"]}
                             for launch in kernel["launches"]],
                "program": kernel.get("program", []),
                "registers": kernel.get("registers", 0)}
    return plan


def run_plan(args, arch_prefix, launch_kernel):
    """Runs every step of a GPU artifact's plan, from its description
    (`orchestra-run --describe=json`, args.describe) on the inputs
    (args.input, .npy files), its constants' data in args.constants; saves
    the outputs in args.output_dir (and, for kernels compiled with
    --profile-branches, their branch counters, as branch_profile.json: per
    kernel, its launch steps and per branch its location and then lanes,
    else lanes, warps and divergent warps). Every step must run on a device whose
    arch starts with `arch_prefix`; `launch_kernel(number, module, launch,
    buffers)` runs one launch (`module`: the device module's name; `buffers`:
    each parameter's bytes, a numpy uint8 view the kernel may write, or for
    tensor maps the TensorMap). Returns the number of launches."""
    with open(args.describe) as f:
        plan = parse_plan(f.read())
    arenas = {i: np.full(n, 0xFF, np.uint8) for i, (_, n) in plan["spaces"].items()}

    def view(value):
        space, off, n = plan["values"][value]
        return arenas[space][off:off + n]

    for value in plan["constants"]:
        path = os.path.join(args.constants or "", f"value_{value}.bin")
        if not args.constants or not os.path.exists(path):
            raise EmulationError(f"constant value {value}: no {path} (give --constants DIR "
                                 "from orchestra-run --dump-constants DIR)")
        data = np.fromfile(path, np.uint8)
        view(value)[:len(data)] = data

    if len(args.input) != len(plan["inputs"]):
        raise EmulationError(f"the entry takes {len(plan['inputs'])} inputs, got "
                             f"{len(args.input)}")
    for path, (name, dtype, shape, value) in zip(args.input, plan["inputs"]):
        array = np.load(path)
        if array.dtype != PLAN_DTYPES[dtype] or array.shape != shape:
            raise EmulationError(f"input {name} must be {dtype} {shape}, not {array.dtype} "
                                 f"{array.shape} ({path})")
        view(value)[:] = np.frombuffer(np.ascontiguousarray(array).tobytes(), np.uint8)
    scratch, launches = {}, 0
    counters = {}  # kernel -> [launch steps, 4 u64 per branch (bytes)]
    for number, (kind, device, kernel_index, step_args) in enumerate(plan["steps"]):
        arch = plan["devices"][device]
        if not arch.startswith(arch_prefix):
            raise EmulationError(f"step {number} runs on device {device} ({arch}): run-plan "
                                 "emulates GPU steps only (use a GPU-only topology)")
        if kind == "copy":
            view(step_args[1])[:] = view(step_args[0])
            continue
        if kind == "select":  # {condition, true..., false..., results...}
            n = len(step_args) // 3
            chosen = step_args[1:1 + n] if view(step_args[0])[0] else step_args[1 + n:1 + 2 * n]
            for source, result in zip(chosen, step_args[1 + 2 * n:]):
                view(result)[:] = view(source).copy()
            continue
        binary, symbol = plan["kernels"][kernel_index]
        desc = plan["bundle_kernels"][(binary, symbol)]
        if symbol not in scratch:  # allocated once, reused by every step
            scratch[symbol] = [np.full(n, 0xFF, np.uint8) for n in desc["scratch"]]
        if plan["branches"][kernel_index]:  # zeroed once, kept over the steps
            counters.setdefault(kernel_index,
                                [0, np.zeros(32 * len(plan["branches"][kernel_index]), np.uint8)])
            counters[kernel_index][0] += 1
        launches += run_kernel(number, desc, symbol, step_args, view, scratch[symbol],
                               counters.get(kernel_index), launch_kernel, plan["modules"])
    os.makedirs(args.output_dir, exist_ok=True)
    for i, (name, dtype, shape, value) in enumerate(plan["outputs"]):
        np.save(os.path.join(args.output_dir, f"output_{i}.npy"),
                view(value).view(PLAN_DTYPES[dtype]).reshape(shape))
    if counters:
        profile = [{"kernel": plan["kernels"][k][1], "launches": steps,
                    "branches": [{"location": loc, "then": int(c[0]), "else": int(c[1]),
                                  "warps": int(c[2]), "divergent_warps": int(c[3])}
                                 for loc, c in zip(plan["branches"][k],
                                                   data.view(np.uint64).reshape(-1, 4))]}
                   for k, (steps, data) in sorted(counters.items())]
        with open(os.path.join(args.output_dir, "branch_profile.json"), "w") as f:
            json.dump(profile, f, indent=1)
    print(f"run-plan: {len(plan['steps'])} step(s), {launches} launch(es): no errors")
    return launches


# GpuArgKind and GpuOp (orchestra_rt/GpuBundle.h).
ARG_BUFFER, ARG_SCRATCH, ARG_REGISTER = 0, 1, 5
OP_LAUNCH, OP_SET, OP_SET_ALTERNATING, OP_LOOP_BEGIN, OP_EXIT_UNLESS, OP_LOOP_END = range(6)


def run_kernel(number, desc, symbol, step_args, view, scratch, counters, launch_kernel,
               modules):
    """Runs the launches of kernel `desc` for step `number` (its values
    `step_args`, seen through `view`; its scratch buffers `scratch`; its
    branch counters, if profiled): each once, in order, or as its program
    runs them (loops whose condition the host reads each iteration,
    registers for the buffers of the loops' values, scratch buffers used in
    turn by even and odd iterations). Returns the launches run."""
    registers = [None] * desc["registers"]

    def source(kind, index):
        if kind == ARG_BUFFER:
            return view(step_args[index])
        if kind == ARG_SCRATCH:
            return scratch[index]
        if registers[index] is None:
            raise EmulationError(f"step {number}: register {index} of {symbol} read before "
                                 "it is set")
        return registers[index]

    def launch(index):
        launch = desc["launches"][index]
        buffers = []
        for i, param in enumerate(launch["params"]):
            kind = param["kind"]
            if kind in ("buffer", "scratch", "register"):
                buffers.append(source({"buffer": ARG_BUFFER, "scratch": ARG_SCRATCH,
                                       "register": ARG_REGISTER}[kind], param["index"]))
            elif (kind == "tensor_map" and param["source"] == "buffer" and
                  param["rank"] == 2 and param["data_type"] in TENSOR_MAP_DTYPES and
                  param["swizzle"] in TENSOR_MAP_SWIZZLES):
                # Dimensions innermost first: (columns, rows).
                cols, rows = param["global_dim"]
                box_cols, box_rows = param["box_dim"]
                dtype = PLAN_DTYPES[TENSOR_MAP_DTYPES[param["data_type"]]]
                data = view(step_args[param["source_index"]]).view(dtype)
                buffers.append(TensorMap(f"buffer {param['source_index']}",
                                         data[:rows * cols].reshape(rows, cols),
                                         (box_rows, box_cols),
                                         TENSOR_MAP_SWIZZLES[param["swizzle"]]))
            elif kind == "immediate":
                buffers.append(param)
            elif kind == "branch_counters" and counters is not None:
                buffers.append(counters[1])
            else:
                raise EmulationError(f"step {number}: parameter {i} ({param}) is not "
                                     "supported")
        launch_kernel(number, modules[launch["module"]], launch, buffers)

    program = desc["program"] or [[OP_LAUNCH, i, 0, 0] for i in range(len(desc["launches"]))]
    launches = pc = iteration = 0
    loop_begin = None
    while pc < len(program):
        op, a, b, c = program[pc]
        if op == OP_LAUNCH:
            launch(a)
            launches += 1
        elif op == OP_SET:
            registers[a] = source(b, c)
        elif op == OP_SET_ALTERNATING:
            registers[a] = scratch[c if iteration % 2 else b]
        elif op == OP_LOOP_BEGIN:
            loop_begin, iteration = pc, 0
            if b == 0 and a == 0:
                pc = next(i for i in range(pc, len(program)) if program[i][0] == OP_LOOP_END)
        elif op == OP_EXIT_UNLESS:
            if not source(b, c)[0]:
                pc = next(i for i in range(pc, len(program)) if program[i][0] == OP_LOOP_END)
        elif op == OP_LOOP_END:
            iteration += 1
            if program[loop_begin][2] == 1 or iteration < program[loop_begin][1]:
                pc = loop_begin
        pc += 1
    return launches


def cmd_run_plan(args):
    """Runs a GPU artifact's plan with its kernels' PTX (args.ptx_dir)."""
    ptx_files = {}

    def launch_kernel(number, module, launch, params):
        if module not in ptx_files:
            found = glob.glob(os.path.join(args.ptx_dir, f"*.{module}.ptx"))
            if len(found) != 1:
                raise EmulationError(f"no single {args.ptx_dir}/*.{module}.ptx "
                                     "(--dump-device-code)")
            ptx_files[module] = Kernel(found[0])
        kernel = ptx_files[module]
        buffers, maps = [], {}
        for i, param in enumerate(params):
            if isinstance(param, TensorMap):
                maps[i] = param
                buffers.append(np.zeros(TENSOR_MAP_BYTES, np.uint8))
            elif isinstance(param, dict):
                raise EmulationError(f"step {number}: parameter {i} ({param}) is not "
                                     "supported")
            else:
                buffers.append(param)
        try:
            run_launch(kernel, launch["grid"], launch["block"], launch["shared"], buffers,
                       maps)
        except EmulationError as e:
            raise EmulationError(f"step {number}, {kernel.name}: {e}") from None

    run_plan(args, "nvidia_", launch_kernel)
