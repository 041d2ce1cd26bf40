#!/usr/bin/env python3
"""Inputs and numpy references for the end-to-end tests.

  e2e.py gen DIR NAME:DTYPE:SHAPE[=V]...  random inputs DIR/NAME.npy (seeded),
                                          or V everywhere; for f32, V may be
                                          rows (even rows > 0, odd rows < 0)
                                          or columns (the same by column)
  e2e.py check PROGRAM IN_DIR OUT_DIR  compare OUT_DIR/output_<i>.npy with
                                       the numpy reference of PROGRAM
  e2e.py compare DIR_A DIR_B           compare two runs' outputs
  e2e.py fill-constants PROGRAM        print PROGRAM with each
                                       dense<"random"> filled (seeded)
  e2e.py trace-overlap TRACE           the trace has tasks overlapping in
                                       time on two devices and transfers
  e2e.py trace-overlap-runs N TRACE CMD...  runs CMD (writing TRACE) up to N
                                       times until trace-overlap holds
  e2e.py speculated PLAN.json          the sides of each select step of the
                                       plan do not wait for its condition
"""

import json
import os
import subprocess
import sys

import numpy as np

RTOL = 1e-4
ATOL = 1e-4


def gen(directory, specs):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(20261120)
    for spec in specs:
        name, dtype, shape = spec.split(":")
        # NAME:DTYPE:SHAPE=VALUE fills the array with VALUE.
        shape, _, fill = shape.partition("=")
        shape = tuple(int(d) for d in shape.split("x")) if shape else ()
        if fill in ("rows", "columns"):  # signs alternating along an axis
            value = rng.uniform(0.25, 1.0, shape).astype(np.float32)
            index = np.indices(shape)[-2 if fill == "rows" else -1]
            np.save(os.path.join(directory, name + ".npy"),
                    np.where(index % 2 == 0, value, -value))
            continue
        if fill:
            np.save(os.path.join(directory, name + ".npy"),
                    np.full(shape, int(fill) if dtype != "f32" else float(fill),
                            {"i1": np.bool_, "i32": np.int32, "i64": np.int64,
                             "f32": np.float32}[dtype]))
            continue
        if dtype in ("f32", "f64", "f16"):
            value = rng.uniform(-1.0, 1.0, shape).astype(
                {"f32": np.float32, "f64": np.float64, "f16": np.float16}[dtype])
        elif dtype == "bf16":  # its bits, as orchestra-run takes bf16
            value = to_bf16_bits(rng.uniform(-1.0, 1.0, shape))
        elif dtype in ("i32", "i64"):
            value = rng.integers(-100, 100, shape).astype(
                np.int32 if dtype == "i32" else np.int64)
        elif dtype == "i8":
            value = rng.integers(-128, 128, shape).astype(np.int8)
        elif dtype == "i1":
            value = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            sys.exit("unknown dtype " + dtype)
        np.save(os.path.join(directory, name + ".npy"), value)


def to_bf16_bits(x):
    """float values -> the uint16 bits of bf16, rounded to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def load(directory, name):
    """An .npy array; uint16 arrays hold bf16 bits and load as float32."""
    value = np.load(os.path.join(directory, name + ".npy"))
    return from_bf16_bits(value) if value.dtype == np.uint16 else value


def relu(x):
    return np.maximum(x, 0)


def ref_mlp(i):
    x = load(i, "x")
    h = relu(x @ load(i, "w1") + load(i, "b1"))
    h = relu(h @ load(i, "w2") + load(i, "b2"))
    return [h @ load(i, "w3") + load(i, "b3")]


def ref_conv(i):
    x, w, b = load(i, "x"), load(i, "w"), load(i, "b")
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, f), np.float64)
    for dy in range(kh):
        for dx in range(kw):
            patch = x[:, dy:dy + out.shape[1], dx:dx + out.shape[2], :]
            out += np.einsum("nhwc,cf->nhwf", patch, w[dy, dx])
    return [relu(out + b).astype(np.float32)]


def ref_softmax(i):
    x = load(i, "x").astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return [(e / e.sum(axis=1, keepdims=True)).astype(np.float32)]


def ref_layernorm(i):
    x = load(i, "x").astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + 1e-5) * load(i, "gamma") + load(i, "beta")
    return [y.astype(np.float32)]


def ref_vector_add(i):
    return [load(i, "a") + load(i, "b")]


def ref_reduction(i):
    x = load(i, "x")
    return [x.sum(axis=1), x.max(axis=0)]


def ref_transpose_reshape(i):
    x, y = load(i, "x"), load(i, "y")
    t = np.transpose(x, (2, 0, 1)).reshape(32, 16)
    return [(t + y).reshape(32, 4, 4) * 2.0]


def ref_two_branch(i):
    x = load(i, "x")
    a = np.tanh(x @ load(i, "wa")) @ load(i, "wa2")
    b = relu(x @ load(i, "wb")) @ load(i, "wb2")
    return [a, b]


def ref_dtypes(i):
    a, b = load(i, "a"), load(i, "b")
    s = a + b * np.int32(3)
    gt = s > np.int32(0)
    picked = np.where(gt, s, -s)
    wide = load(i, "c").sum(axis=1, dtype=np.int64)
    h = (load(i, "h") * np.float16(2.0) + np.float16(1.0)).astype(np.float16)
    return [picked, gt, wide, h]


def ref_data_movement(i):
    x, y, img, v = load(i, "x"), load(i, "y"), load(i, "img"), load(i, "v")
    pool = img.reshape(1, 4, 2, 4, 2, 3).max(axis=(2, 4))
    return [x @ y, pool, np.array(v.sum()), x, np.pad(v, 1),
            np.concatenate([v, v])]


def ref_mixed_ops(i):
    img, w, a, b = load(i, "img"), load(i, "w"), load(i, "a"), load(i, "b")
    ia, ib, r = load(i, "ia"), load(i, "ib"), load(i, "r")
    conv = np.zeros((1, 7, 7, 5), np.float64)
    for dy in range(3):
        for dx in range(3):
            conv += np.einsum("nhwc,cf->nhwf", img[:, dy:dy + 7, dx:dx + 7, :],
                              w[dy, dx])
    mm = a @ b
    idx = (np.broadcast_to(r[:, None], (13, 7)) +
           np.add.outer(np.arange(13), np.arange(7))).astype(np.float32)
    return [conv.astype(np.float32), mm, ia @ ib, idx, mm[2:6, 1:6], mm, r]


def ref_matmul_remainders(i):
    g = {n: load(i, n) for n in ("a", "b", "bias", "x", "y", "p", "q", "v",
                                 "w", "g", "h", "hb", "l", "rr", "ta", "tb")}
    return [relu(g["a"] @ g["b"] + g["bias"]), g["x"] @ g["y"],
            g["p"] @ g["q"], g["v"] @ g["w"], relu(g["g"] @ g["h"] + g["hb"]),
            g["l"] @ g["rr"], g["ta"] @ g["tb"]]


def ref_concat_slices(i):
    a, b = load(i, "a"), load(i, "b")
    r = relu(a)
    inserted = r.copy()
    inserted[:, 3:6] = b
    return [np.concatenate([r, b], axis=1), r[1:3] * np.float32(2),
            np.concatenate([a, r], axis=0), a[0:4:2, 1:6:2], inserted]


def ref_scalar_reductions(i):
    x, w, y = load(i, "x"), load(i, "w"), load(i, "y")
    return [np.array((x.astype(np.float64) ** 2).sum(), np.float32),
            w.max().reshape(1, 1), np.array(y.astype(np.float64).sum(),
                                            np.float32),
            np.array(load(i, "big").astype(np.float64).sum(), np.float32)]


def ref_empty_loops(i):
    return [np.array(1.5, np.float32), np.full(4, 1.5, np.float32),
            np.full(4, 2.0, np.float32), np.zeros((0, 4), np.float32),
            load(i, "w")]


def ref_bool_memory(i):
    b, x = load(i, "b"), load(i, "x")
    return [b[:, :171], np.where(b[:, :171], x[:, :171], -x[:, :171]),
            np.logical_not(b)[:, ::-1]]


def ref_mfma_types(i):
    f64 = lambda name: load(i, name).astype(np.float64)
    r1 = relu(f64("a16") @ f64("b16") + f64("bias"))
    i8 = lambda name: load(i, name).astype(np.int64)
    return [r1.astype(np.float32), (f64("abf") @ f64("bbf")).astype(np.float32),
            (f64("a32") @ f64("b32")).astype(np.float32),
            (i8("a8") @ i8("b8")).astype(np.int32)]


def ref_row_reductions(i):
    x, y = load(i, "x").astype(np.float64), load(i, "y")
    a, v = load(i, "a").astype(np.float64), load(i, "v").astype(np.float64)
    return [x.sum(axis=1).astype(np.float32), y.max(axis=0),
            (a @ v).astype(np.float32)]


def ref_control_flow(i):
    c, n, x = load(i, "c"), int(load(i, "n")), load(i, "x")
    branch = x + x if c else x * x
    looped = x * np.float32(2.0) ** max(n, 0)
    return [branch, looped + np.float32(1.0)]


def ref_gpu_loops(i):
    n, x = int(load(i, "n")), load(i, "x")
    acc = x
    for _ in range(4):
        acc = acc * np.float32(0.5) + x
    return [x * np.float32(2.0) ** max(n, 0), np.array(max(n, 0), np.int64), acc]


def ref_commit(i):
    c, x, y = bool(load(i, "c")), load(i, "x"), load(i, "y")
    return [np.exp(x) if c else x - y, np.ones_like(x) if c else y,
            (x if c else y) * np.float32(2)]


def ref_speculation(i):
    a, w1, w2 = (load(i, n).astype(np.float64) for n in ("a", "w1", "w2"))
    x, wt, we = (load(i, n).astype(np.float64) for n in ("x", "wt", "we"))
    taken = ((a @ w1) @ w2).sum() > load(i, "thr")
    return [(x @ wt if taken else np.tanh(x @ we)).astype(np.float32)]


def ref_rare_else(i):
    a, w1, w2 = (load(i, n).astype(np.float64) for n in ("a", "w1", "w2"))
    x, we = (load(i, n).astype(np.float64) for n in ("x", "we"))
    taken = ((a @ w1) @ w2).sum() > load(i, "thr")
    return [(x + x if taken else (np.tanh(x @ we) @ we) @ we)
            .astype(np.float32)]


def ref_gpu_branch(i):
    x, thr = load(i, "x"), load(i, "thr")
    taken = x.astype(np.float64).sum() > thr
    return [np.exp(x) if taken else x * x + np.float32(1)]


def ref_simt_branch(i):
    x = load(i, "x")
    return [np.where(x > 0, np.exp(x), x * x)]


def ref_dynamic_cnn(i):
    x, w, w2 = load(i, "x"), load(i, "w"), load(i, "w2")
    n, _, h, wd = x.shape
    f, _, kh, kw = w.shape
    conv = np.zeros((n, f, h - kh + 1, wd - kw + 1), np.float64)
    for dy in range(kh):
        for dx in range(kw):
            patch = x[:, :, dy:dy + conv.shape[2], dx:dx + conv.shape[3]]
            conv += np.einsum("nchw,fc->nfhw", patch, w[:, :, dy, dx])
    return [(relu(conv).sum(axis=(2, 3)) @ w2).astype(np.float32)]


def ref_dynamic_attention(i):
    x = load(i, "x").astype(np.float64)
    s = x @ x.T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return [((e / e.sum(axis=1, keepdims=True)) @ x).astype(np.float32)]


REFERENCES = {
    name[len("ref_"):]: fn for name, fn in globals().items()
    if name.startswith("ref_")
}


def compare(expected, actual, what):
    if expected.shape != actual.shape:
        sys.exit(f"{what}: shape {actual.shape}, expected {expected.shape}")
    if expected.dtype != actual.dtype:
        sys.exit(f"{what}: dtype {actual.dtype}, expected {expected.dtype}")
    if expected.dtype.kind in "biu":
        bad = np.count_nonzero(expected != actual)
        if bad:
            sys.exit(f"{what}: {bad} of {expected.size} elements differ")
        return
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    tol = 1e-2 if expected.dtype == np.float16 else RTOL
    if not np.allclose(a, e, rtol=tol, atol=tol if tol > ATOL else ATOL):
        err = np.max(np.abs(a - e))
        sys.exit(f"{what}: max abs error {err:.3g} exceeds the tolerance")


def check(program, in_dir, out_dir):
    outputs = REFERENCES[program](in_dir)
    for k, expected in enumerate(outputs):
        actual = np.load(os.path.join(out_dir, f"output_{k}.npy"))
        compare(np.asarray(expected), actual, f"output_{k}")
    extra = os.path.join(out_dir, f"output_{len(outputs)}.npy")
    if os.path.exists(extra):
        sys.exit(f"unexpected {extra}")
    print(f"{program}: {len(outputs)} output(s) match numpy")


def compare_dirs(a_dir, b_dir):
    k = 0
    while os.path.exists(os.path.join(a_dir, f"output_{k}.npy")):
        a = np.load(os.path.join(a_dir, f"output_{k}.npy"))
        b = np.load(os.path.join(b_dir, f"output_{k}.npy"))
        compare(a, b, f"output_{k}")
        k += 1
    if k == 0:
        sys.exit("no outputs in " + a_dir)
    print(f"{k} output(s) agree")


def trace_overlap(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    tasks = [e for e in spans if e.get("cat") == "task"]
    transfers = [e for e in spans if e.get("cat") == "transfer"]
    if not transfers:
        sys.exit("no transfer in the trace")
    for a in tasks:
        for b in tasks:
            if a["tid"] < b["tid"] and a["ts"] < b["ts"] + b["dur"] and \
                    b["ts"] < a["ts"] + a["dur"]:
                print(f"overlap: {a['name']} (device {a['tid']}) and "
                      f"{b['name']} (device {b['tid']}); "
                      f"{len(transfers)} transfer(s)")
                return
    sys.exit("no two tasks on different devices overlap in time")


def trace_overlap_runs(tries, trace, *command):
    """Runs COMMAND (which writes TRACE) up to TRIES times until the trace
    shows tasks overlapping on two devices: whether two workers run at once
    on a loaded machine is the operating system's choice, run by run."""
    for _ in range(int(tries)):
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        try:
            trace_overlap(trace)
            return
        except SystemExit:
            pass
    sys.exit(f"no run of {tries} had tasks overlapping on two devices")


def speculated(plan_path):
    """The plan (orchestra-run --describe=json) speculates: for each select
    step, a launch of each side (named <task>.then, <task>.else) whose
    dependences, transitively, do not include the step that computes the
    condition, while the select's do."""
    with open(plan_path) as f:
        steps = json.load(f)["steps"]
    producer = {}
    for index, step in enumerate(steps):
        for value in step["args"][step.get("num_inputs", 1):]:
            producer[value] = index

    def ancestors(index):
        seen, work = set(), list(steps[index]["deps"])
        while work:
            dep = work.pop()
            if dep not in seen:
                seen.add(dep)
                work.extend(steps[dep]["deps"])
        return seen

    selects = [i for i, s in enumerate(steps) if s["kind"] == "select"]
    if not selects:
        sys.exit("no select step in the plan")
    for index in selects:
        args = steps[index]["args"]
        n = len(args) // 3
        # The launch that computes the condition (through its copies).
        condition = producer.get(args[0])
        while condition is not None and steps[condition]["kind"] == "copy":
            condition = producer.get(steps[condition]["args"][0])
        if condition is None or condition not in ancestors(index):
            sys.exit(f"select step {index} does not wait for its condition")
        for side_value in args[1:1 + 2 * n]:
            side = producer.get(side_value)
            if side is None:
                continue
            if condition == side or condition in ancestors(side):
                sys.exit(f"step {side} ('{steps[side]['name']}') waits for the "
                         f"condition of select step {index}")
        print(f"select step {index}: its sides do not wait for its condition")


def check_matmul_bias_relu(in_dir, out_dir, atol):
    """relu(a @ b + bias), with an absolute tolerance for the accumulation
    in the output's precision (f16 accumulates in f16, as linalg.matmul on
    f16 tensors says)."""
    a, b, bias = (load(in_dir, n).astype(np.float64) for n in ("a", "b", "bias"))
    expected = relu(a @ b + bias)
    actual = load(out_dir, "output_0").astype(np.float64)
    if actual.shape != expected.shape:
        sys.exit(f"shape {actual.shape}, expected {expected.shape}")
    err = np.max(np.abs(actual - expected))
    if err > float(atol):
        sys.exit(f"max abs error {err:.3g} exceeds {atol}")
    print(f"matmul_bias_relu: max abs error {err:.3g} (tolerance {atol})")


def check_example_mlp(mlir_path, input_path, out_dir):
    """The README example: weights are the dense constants of the file."""
    import re
    with open(mlir_path) as f:
        text = f.read()
    consts = re.findall(
        r'dense<"0x([0-9A-F]+)"> : tensor<([0-9x]+)xf32>', text)
    arrays = [np.frombuffer(bytes.fromhex(h), "<f4").reshape(
        [int(d) for d in shape.split("x")]) for h, shape in consts]
    if len(arrays) != 6:
        sys.exit(f"expected 6 weight constants, found {len(arrays)}")
    h = np.load(input_path)
    for k in range(3):
        h = h @ arrays[2 * k] + arrays[2 * k + 1]
        if k < 2:
            h = relu(h)
    compare(h.astype(np.float32), np.load(os.path.join(out_dir, "output_0.npy")),
            "output_0")
    print("example mlp: output matches numpy")


def fill_constants(program):
    """Prints PROGRAM with each `dense<"random">` of an integer or float
    tensor type replaced by seeded random elements over the type's range
    (the weights of a test whose kernels read constants)."""
    import re
    rng = np.random.default_rng(0)
    dtypes = {"i8": np.int8, "i32": np.int32, "f32": np.float32}

    def random_constant(match):
        shape = [int(d) for d in match.group(1).split("x")]
        dtype = dtypes[match.group(2)]
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            data = rng.integers(info.min, info.max, size=shape,
                                endpoint=True, dtype=dtype)
        else:
            data = rng.standard_normal(shape).astype(dtype)
        return (f'dense<"0x{data.tobytes().hex().upper()}"> : '
                f"tensor<{match.group(1)}x{match.group(2)}>")

    with open(program) as f:
        text = f.read()
    sys.stdout.write(re.sub(
        r'dense<"random">\s*:\s*tensor<((?:\d+x)*\d+)x(i8|i32|f32)>',
        random_constant, text))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "gen":
        gen(args[0], args[1:])
    elif command == "check":
        check(*args)
    elif command == "fill-constants":
        fill_constants(*args)
    elif command == "compare":
        compare_dirs(*args)
    elif command == "check-matmul-bias-relu":
        check_matmul_bias_relu(*args)
    elif command == "check-example-mlp":
        check_example_mlp(*args)
    elif command == "trace-overlap":
        trace_overlap(*args)
    elif command == "trace-overlap-runs":
        trace_overlap_runs(*args)
    elif command == "speculated":
        speculated(*args)
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
