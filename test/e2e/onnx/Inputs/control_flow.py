"""ONNX If nodes whose condition is known only at run time and Loop nodes
(a constant trip count with scan outputs, a trip count and a condition known
only at run time), compiled for the host once and run for feeds that take
each path, compared with numpy.

    control_flow.py DIR [CASE...]   runs every case (or those named) in DIR;
                                    one line per case, exit status 1 if any
                                    does not match
    control_flow.py list            prints the case names
    control_flow.py model NAME OUT  writes the model of case NAME, or of
                                    `mismatch` (branches whose outputs
                                    differ in shape), `scan_while` (scan
                                    outputs of a loop that may end early)
                                    or `bad_trip_count` (a float M), to OUT

Each case builds a model, a numpy reference (a function of the feeds) and
two sets of feeds, one that takes each branch. The branches read values of
the enclosing graph by name (inputs, intermediate results, initializers),
hold initializers of their own, and nest.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_runner  # noqa: E402

F32 = TensorProto.FLOAT
RNG = np.random.RandomState(7)


def graph(name, nodes, outputs, initializers=()):
    """A branch body: no inputs, outputs of unspecified shape."""
    return helper.make_graph(
        nodes, name, [],
        [helper.make_tensor_value_info(o, F32, None) for o in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in initializers])


def if_node(condition, outputs, then_branch, else_branch):
    return helper.make_node("If", [condition], outputs,
                            then_branch=then_branch, else_branch=else_branch)


def model(nodes, inputs, outputs, initializers=()):
    return helper.make_model(
        helper.make_graph(
            nodes, "control_flow",
            [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
            [helper.make_tensor_value_info(n, F32, None) for n in outputs],
            initializer=[numpy_helper.from_array(v, n)
                         for n, v in initializers]),
        opset_imports=[helper.make_opsetid("", 13)])


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def add_or_mul():
    """The condition is a graph input; each branch reads the input x."""
    m = model([if_node("c", ["y"],
                       graph("then", [helper.make_node("Add", ["x", "x"],
                                                       ["t"])], ["t"]),
                       graph("else", [helper.make_node("Mul", ["x", "x"],
                                                       ["e"])], ["e"]))],
              [("c", TensorProto.BOOL, []), ("x", F32, [4, 8])], ["y"])
    x = RNG.uniform(-2, 2, (4, 8)).astype(np.float32)
    feeds = [{"c": np.array(v), "x": x} for v in (True, False)]
    return m, feeds, lambda f: [f["x"] + f["x"] if f["c"] else f["x"] * f["x"]]


def outer_values():
    """Branches read an intermediate result and initializers of the
    enclosing graph and have an initializer of their own; two outputs, and
    the condition is a one-element tensor."""
    w = RNG.uniform(-1, 1, (8, 5)).astype(np.float32)
    b = RNG.uniform(-1, 1, (5,)).astype(np.float32)
    s = np.float32(0.5)
    then_body = graph(
        "then",
        [helper.make_node("MatMul", ["r", "w"], ["m"]),
         helper.make_node("Add", ["m", "b"], ["t0"]),
         helper.make_node("Mul", ["r", "s"], ["t1"])],
        ["t0", "t1"], initializers=[("s", np.array(s))])
    else_body = graph(
        "else",
        [helper.make_node("MatMul", ["x", "w"], ["e0"]),
         helper.make_node("Neg", ["r"], ["e1"])],
        ["e0", "e1"])
    m = model([helper.make_node("Relu", ["x"], ["r"]),
               if_node("c", ["y0", "y1"], then_body, else_body)],
              [("c", TensorProto.BOOL, [1]), ("x", F32, [3, 8])],
              ["y0", "y1"], initializers=[("w", w), ("b", b)])
    x = RNG.uniform(-1, 1, (3, 8)).astype(np.float32)
    feeds = [{"c": np.array([v]), "x": x} for v in (True, False)]

    def reference(f):
        r = np.maximum(f["x"], 0)
        if f["c"][0]:
            return [r @ w + b, r * s]
        return [f["x"] @ w, -r]
    return m, feeds, reference


def computed_condition():
    """The condition is computed from the data (the sum of x is positive)."""
    zero = np.array(0, dtype=np.float32)
    m = model([helper.make_node("ReduceSum", ["x"], ["sum"], keepdims=0),
               helper.make_node("Greater", ["sum", "zero"], ["c"]),
               if_node("c", ["y"],
                       graph("then", [helper.make_node("Softmax", ["x"],
                                                       ["t"], axis=-1)],
                             ["t"]),
                       graph("else", [helper.make_node("Abs", ["x"], ["e"])],
                             ["e"]))],
              [("x", F32, [2, 6])], ["y"], initializers=[("zero", zero)])
    x = RNG.uniform(0.1, 1, (2, 6)).astype(np.float32)
    feeds = [{"x": x}, {"x": -x}]
    return m, feeds, lambda f: [softmax(f["x"]) if f["x"].sum() > 0
                                else np.abs(f["x"])]


def nested():
    """An If inside a branch, on a second condition."""
    inner = if_node("d", ["i"],
                    graph("inner_then", [helper.make_node("Sub", ["x", "x2"],
                                                          ["it"])], ["it"]),
                    graph("inner_else", [helper.make_node("Sqrt", ["ax"],
                                                          ["ie"])], ["ie"]))
    outer = if_node("c", ["y"],
                    graph("then", [helper.make_node("Mul", ["x", "x"], ["x2"]),
                                   inner], ["i"]),
                    graph("else", [helper.make_node("Exp", ["x"], ["e"])],
                          ["e"]))
    m = model([helper.make_node("Abs", ["x"], ["ax"]), outer],
              [("c", TensorProto.BOOL, []), ("d", TensorProto.BOOL, []),
               ("x", F32, [5])], ["y"])
    x = RNG.uniform(-1, 1, (5,)).astype(np.float32)
    feeds = [{"c": np.array(c), "d": np.array(d), "x": x}
             for c, d in ((True, True), (True, False), (False, True))]

    def reference(f):
        x = f["x"]
        if not f["c"]:
            return [np.exp(x)]
        return [x - x * x if f["d"] else np.sqrt(np.abs(x))]
    return m, feeds, reference


def mismatch():
    """Branches whose outputs differ in shape: refused."""
    m = model([if_node("c", ["y"],
                       graph("then", [helper.make_node("Neg", ["x"], ["t"])],
                             ["t"]),
                       graph("else", [helper.make_node("ReduceSum", ["x"],
                                                       ["e"], keepdims=0)],
                             ["e"]))],
              [("c", TensorProto.BOOL, []), ("x", F32, [3])], ["y"])
    return m, [], None


def body(name, inputs, nodes, outputs, initializers=()):
    """A Loop body: inputs (iteration number, condition, carried values)
    and outputs of unspecified shape."""
    return helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in initializers])


I64, BOOL = TensorProto.INT64, TensorProto.BOOL


def counted_loop():
    """Loop with a constant trip count (5) and no condition: a carried
    accumulator (acc = acc * 0.5 + x * i, reading the iteration number and
    an outer value) and a scan output of each step's acc; an scf.for."""
    loop_body = body(
        "body", [("i", I64), ("c", BOOL), ("acc", F32)],
        [helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("Mul", ["acc", "half"], ["h"]),
         helper.make_node("Add", ["h", "xi"], ["next"]),
         helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Identity", ["next"], ["scan"])],
        [("c_out", BOOL), ("next", F32), ("scan", F32)],
        initializers=[("half", np.array(0.5, np.float32))])
    m = model([helper.make_node("Loop", ["M", "", "acc0"], ["acc", "steps"],
                                body=loop_body)],
              [("x", F32, [3]), ("acc0", F32, [3])], ["acc", "steps"],
              initializers=[("M", np.array(5, np.int64))])
    feeds = [{"x": RNG.uniform(-1, 1, (3,)).astype(np.float32),
              "acc0": RNG.uniform(-1, 1, (3,)).astype(np.float32)}]

    def reference(f):
        acc, steps = f["acc0"], []
        for i in range(5):
            acc = acc * np.float32(0.5) + f["x"] * np.float32(i)
            steps.append(acc)
        return [acc, np.stack(steps)]
    return m, feeds, reference


def while_loop():
    """Loop whose trip count is an input and whose condition is computed
    by the body (double x until its sum exceeds a limit): an scf.while,
    run for a limit reached early, one reached never (the trip count ends
    it) and a trip count of 0."""
    loop_body = body(
        "body", [("i", I64), ("c", BOOL), ("v", F32)],
        [helper.make_node("Add", ["v", "v"], ["v2"]),
         helper.make_node("ReduceSum", ["v2"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["c_out"])],
        [("c_out", BOOL), ("v2", F32)])
    m = model([helper.make_node("Loop", ["M", "c0", "x"], ["y"],
                                body=loop_body)],
              [("M", I64, []), ("c0", BOOL, []), ("x", F32, [4]),
               ("limit", F32, [])], ["y"])
    x = np.array([0.5, 0.25, 1.0, 0.25], np.float32)
    feeds = [{"M": np.array(m_, np.int64), "c0": np.array(c),
              "x": x, "limit": np.array(lim, np.float32)}
             for m_, c, lim in ((10, True, 20.0), (3, True, 1e6),
                                (0, True, 1.0), (10, False, 20.0))]

    def reference(f):
        v, c = f["x"], bool(f["c0"])
        i = 0
        while i < int(f["M"]) and c:
            v = v + v
            c = bool(v.sum() < f["limit"])
            i += 1
        return [v]
    return m, feeds, reference


def scan_while():
    """A scan output of a loop that may end early: refused."""
    loop_body = body(
        "body", [("i", I64), ("c", BOOL), ("v", F32)],
        [helper.make_node("Neg", ["v"], ["n"]),
         helper.make_node("ReduceSum", ["n"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "zero"], ["c_out"])],
        [("c_out", BOOL), ("n", F32), ("n", F32)],
        initializers=[("zero", np.array(0, np.float32))])
    m = model([helper.make_node("Loop", ["M", "", "x"], ["y", "ys"],
                                body=loop_body)],
              [("x", F32, [2])], ["y", "ys"],
              initializers=[("M", np.array(4, np.int64))])
    return m, [], None


def bad_trip_count():
    """A Loop whose trip count is a float: refused."""
    loop_body = body(
        "body", [("i", I64), ("c", BOOL), ("v", F32)],
        [helper.make_node("Neg", ["v"], ["n"]),
         helper.make_node("Identity", ["c"], ["c_out"])],
        [("c_out", BOOL), ("n", F32)])
    m = model([helper.make_node("Loop", ["M", "", "x"], ["y"],
                                body=loop_body)],
              [("x", F32, [2])], ["y"],
              initializers=[("M", np.array(4, np.float32))])
    return m, [], None


CASES = {
    "add_or_mul": add_or_mul,
    "outer_values": outer_values,
    "computed_condition": computed_condition,
    "nested": nested,
    "counted_loop": counted_loop,
    "while_loop": while_loop,
}


def run_case(name, build, directory):
    m, all_feeds, reference = build()
    case_dir = os.path.join(directory, name)
    os.makedirs(case_dir, exist_ok=True)
    model_path = os.path.join(case_dir, "model.onnx")
    with open(model_path, "wb") as f:
        f.write(m.SerializeToString())
    for k, feeds in enumerate(all_feeds):
        run_dir = os.path.join(case_dir, "run%d" % k)
        os.makedirs(run_dir, exist_ok=True)
        problem, out_dir = case_runner.compile_and_run(model_path, feeds,
                                                       run_dir)
        if problem:
            return problem
        for i, want in enumerate(reference(feeds)):
            got = np.load(os.path.join(out_dir, "output_%d.npy" % i))
            if got.shape != want.shape or not np.allclose(
                    got, want, rtol=1e-5, atol=1e-6):
                return "run %d, output %d: got %s, expected %s" % (
                    k, i, got, want)
    return None


if __name__ == "__main__":
    if sys.argv[1:2] == ["model"]:
        builder = dict(CASES, mismatch=mismatch, scan_while=scan_while,
                       bad_trip_count=bad_trip_count)[sys.argv[2]]
        with open(sys.argv[3], "wb") as out:
            out.write(builder()[0].SerializeToString())
    else:
        case_runner.main(CASES, run_case)
