"""ONNX quantization ops (QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, QLinearConv, QLinearMatMul) and QDQ graphs,
compiled for the host, run, and compared with ONNX Runtime.

    quantized.py DIR [CASE...]   runs every case (or those named) in DIR;
                                 one line per case, exit status 1 if any
                                 does not match
    quantized.py list            prints the case names

Integer outputs must match exactly. Float outputs of single ops (and of a
MatMul, whose sums may add in another order) within 1e-5 + 1e-4 |x|;
the dequantized output of a QDQ graph within one quantization step (both
compute its groups on integers, so it is in fact exact).

The inputs put values on rounding ties (k + 0.5 steps), past both ends of
the integer range and at zero.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_runner  # noqa: E402

U8, S8, I32, F32 = (TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32,
                    TensorProto.FLOAT)
NP = {U8: np.uint8, S8: np.int8, I32: np.int32, F32: np.float32}


def ties(rng, shape, scale):
    """Multiples of `scale` (a power of two) by integers and by halves
    (rounding ties), zero among them, many beyond the int8/uint8 range."""
    steps = rng.integers(-300, 300, size=shape).astype(np.float32)
    half = rng.random(shape) < 0.5
    values = (steps + np.where(half, 0.5, 0.0)) * np.float32(scale)
    values.flat[0] = 0
    return values.astype(np.float32)


def quantized(rng, shape, dtype):
    info = np.iinfo(NP[dtype])
    return rng.integers(info.min, info.max + 1, size=shape).astype(NP[dtype])


def model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(
        nodes, "quantized",
        [helper.make_tensor_value_info(name, dtype, shape)
         for name, dtype, shape in inputs],
        [helper.make_tensor_value_info(name, dtype, None)
         for name, dtype in outputs],
        [numpy_helper.from_array(value, name)
         for name, value in initializers])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    # (ONNX Runtime checks the model when it loads it.)
    return m


# Each case: a function of a random generator returning (model, feeds,
# qdq_step or None).

def quantize_per_tensor(dtype, zero):
    def build(rng):
        x = ties(rng, (2, 3, 4, 5), 0.25)
        inits = [("scale", np.array(0.25, np.float32)),
                 ("zero", np.array(zero, NP[dtype]))]
        return model([helper.make_node("QuantizeLinear", ["x", "scale", "zero"],
                                       ["y"])],
                     [("x", F32, x.shape)], [("y", dtype)], inits), \
            {"x": x}, None
    return build


def quantize_per_axis(rng):
    x = ties(rng, (2, 3, 4), 0.5)
    inits = [("scale", np.array([0.5, 0.25, 2.0], np.float32)),
             ("zero", np.array([-3, 0, 7], np.int8))]
    return model([helper.make_node("QuantizeLinear", ["x", "scale", "zero"],
                                   ["y"], axis=1)],
                 [("x", F32, x.shape)], [("y", S8)], inits), {"x": x}, None


def quantize_default_zero(rng):
    """No zero point: uint8, zero 0; the scale a graph input."""
    x = ties(rng, (16,), 0.125)
    return model([helper.make_node("QuantizeLinear", ["x", "scale"], ["y"])],
                 [("x", F32, x.shape), ("scale", F32, [])], [("y", U8)]), \
        {"x": x, "scale": np.array(0.125, np.float32)}, None


def dequantize(dtype, per_axis):
    def build(rng):
        x = quantized(rng, (3, 4, 5), dtype)
        if per_axis:
            inits = [("scale", np.array([0.5, 0.1, 3.0, 0.007], np.float32)),
                     ("zero", quantized(rng, (4,), dtype))]
            attrs = {"axis": -2}
        else:
            inits = [("scale", np.array(0.3, np.float32)),
                     ("zero", np.array(5, NP[dtype]))]
            attrs = {}
        return model([helper.make_node("DequantizeLinear", ["x", "scale",
                                                            "zero"], ["y"],
                                       **attrs)],
                     [("x", dtype, x.shape)], [("y", F32)], inits), \
            {"x": x}, None
    return build


def dequantize_int32(rng):
    x = rng.integers(-2**31, 2**31 - 1, size=(10,)).astype(np.int32)
    return model([helper.make_node("DequantizeLinear", ["x", "scale"],
                                   ["y"])],
                 [("x", I32, x.shape)], [("y", F32)],
                 [("scale", np.array(1e-3, np.float32))]), {"x": x}, None


def dequantized_weights(dtype):
    """A weight of 300 x 256 values (more than the importer folds
    generically) dequantized per output column, in a MatMul. (ONNX Runtime
    runs its own graph unoptimized here: otherwise it quantizes x for an
    integer MatMul, which is not what the graph says.)"""
    def build(rng):
        w = quantized(rng, (300, 256), dtype)
        x = rng.standard_normal((2, 300)).astype(np.float32)
        inits = [("w", w),
                 ("scale", (rng.random(256) * 0.01).astype(np.float32)),
                 ("zero", quantized(rng, (256,), dtype))]
        return model([helper.make_node("DequantizeLinear",
                                       ["w", "scale", "zero"], ["wf"], axis=1),
                      helper.make_node("MatMul", ["x", "wf"], ["y"])],
                     [("x", F32, x.shape)], [("y", F32)], inits), \
            {"x": x}, None
    build.unoptimized_reference = True
    return build


def dynamic_quantize(rng):
    x = rng.standard_normal((3, 7)).astype(np.float32) * 4
    return model([helper.make_node("DynamicQuantizeLinear", ["x"],
                                   ["y", "scale", "zero"])],
                 [("x", F32, x.shape)],
                 [("y", U8), ("scale", F32), ("zero", U8)]), {"x": x}, None


def qlinear_conv(w_dtype, per_channel, group=1, bias=True):
    def build(rng):
        x = quantized(rng, (1, 4, 7, 7), U8)
        w = quantized(rng, (6, 4 // group, 3, 3), w_dtype)
        w_scale = (rng.random(6) * 0.02 + 0.001).astype(np.float32) \
            if per_channel else np.array(0.01, np.float32)
        w_zero = (np.zeros(6, NP[w_dtype]) if per_channel
                  else np.array(3 if w_dtype == U8 else 0, NP[w_dtype]))
        inits = [("x_scale", np.array(0.05, np.float32)),
                 ("x_zero", np.array(128, np.uint8)), ("w", w),
                 ("w_scale", w_scale), ("w_zero", w_zero),
                 ("y_scale", np.array(0.2, np.float32)),
                 ("y_zero", np.array(100, np.uint8))]
        inputs = ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero",
                  "y_scale", "y_zero"]
        if bias:
            inits.append(("b", rng.integers(-500, 500, 6).astype(np.int32)))
            inputs.append("b")
        node = helper.make_node("QLinearConv", inputs, ["y"], group=group,
                                pads=[1, 0, 1, 2], strides=[2, 1])
        return model([node], [("x", U8, x.shape)], [("y", U8)], inits), \
            {"x": x}, None
    return build


def qlinear_matmul(rng):
    a = quantized(rng, (2, 5, 8), S8)
    inits = [("a_scale", np.array(0.03, np.float32)),
             ("a_zero", np.array(-2, np.int8)),
             ("b", quantized(rng, (8, 3), S8)),
             ("b_scale", np.array([0.01, 0.02, 0.04], np.float32)),
             ("b_zero", np.array([0, 0, 0], np.int8)),
             ("y_scale", np.array(0.05, np.float32)),
             ("y_zero", np.array(-10, np.int8))]
    node = helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zero", "b",
                                              "b_scale", "b_zero", "y_scale",
                                              "y_zero"], ["y"])
    return model([node], [("a", S8, a.shape)], [("y", S8)], inits), \
        {"a": a}, None


def qdq_conv(integer_output, activation=U8, **conv):
    return lambda rng: qdq_conv_graph(rng, integer_output, activation, conv)


def qdq_conv_graph(rng, integer_output, activation, conv):
    """What ONNX Runtime's static quantizer writes: Q/DQ pairs around a
    float Conv (weights per channel, bias int32). OrchestraOS computes the
    group on integers as ONNX Runtime's fused QLinearConv does, so the
    quantized output (`integer_output`) must match exactly. `conv`: the
    Conv's attributes (default: pads 1)."""
    conv = dict(conv or {"pads": [1, 1, 1, 1]})
    channels = conv.pop("channels", 3)
    group = conv.get("group", 1)
    x = rng.standard_normal((1, channels, 10, 10)).astype(np.float32)
    outputs = 8 if group == 1 else channels if group == channels \
        else 2 * channels
    w = quantized(rng, (outputs, channels // group, 3, 3), S8)
    w_scale = (rng.random(outputs) * 0.01 + 0.002).astype(np.float32)
    x_scale = np.float32(0.02)
    b_scale = (x_scale * w_scale).astype(np.float32)
    y_scale = np.float32(0.05)
    x_zero = np.array(128 if activation == U8 else -5, NP[activation])
    inits = [("x_scale", np.array(x_scale)), ("x_zero", x_zero),
             ("w", w), ("w_scale", w_scale),
             ("w_zero", np.zeros(outputs, np.int8)),
             ("b", rng.integers(-2000, 2000, outputs).astype(np.int32)),
             ("b_scale", b_scale), ("b_zero", np.zeros(outputs, np.int32)),
             ("y_scale", np.array(y_scale)), ("y_zero", np.array(128, np.uint8))]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"],
                         ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wd"],
                         axis=0),
        helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero"], ["bd"],
                         axis=0),
        helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], **conv),
        helper.make_node("QuantizeLinear", ["c", "y_scale", "y_zero"], ["cq"]),
        helper.make_node("DequantizeLinear", ["cq", "y_scale", "y_zero"],
                         ["y"]),
    ]
    if integer_output:
        return model(nodes[:-1], [("x", F32, x.shape)], [("cq", U8)],
                     inits), {"x": x}, None
    return model(nodes, [("x", F32, x.shape)], [("y", F32)], inits), \
        {"x": x}, float(y_scale)


def qdq_maxpool(activation, y_scale=None, quantize_output=True):
    """DequantizeLinear, MaxPool (3x3, stride 2, pads 1, as a CNN's stem),
    QuantizeLinear: with the same scale and zero point (`y_scale` None) the
    pool runs on the integers and the output must match ONNX Runtime's
    exactly; with another scale, or a float output, the same."""
    def build(rng):
        x = rng.standard_normal((1, 5, 11, 11)).astype(np.float32)
        x_scale = np.float32(0.02)
        zero = np.array(7 if activation == U8 else -9, NP[activation])
        out_scale = np.float32(x_scale if y_scale is None else y_scale)
        inits = [("x_scale", np.array(x_scale)), ("x_zero", zero),
                 ("y_scale", np.array(out_scale)), ("y_zero", zero)]
        nodes = [
            helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"],
                             ["xq"]),
            helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"],
                             ["xd"]),
            helper.make_node("MaxPool", ["xd"], ["p"], kernel_shape=[3, 3],
                             strides=[2, 2], pads=[1, 1, 1, 1])]
        if not quantize_output:
            return model(nodes, [("x", F32, x.shape)], [("p", F32)], inits), \
                {"x": x}, float(x_scale)
        nodes.append(helper.make_node("QuantizeLinear",
                                      ["p", "y_scale", "y_zero"], ["y"]))
        return model(nodes, [("x", F32, x.shape)], [("y", activation)],
                     inits), {"x": x}, None
    return build


def matmul_integer_large(rng):
    """MatMulInteger of a uint8 A with a zero point and a constant int8 B
    larger than the importer folds (300 x 250): computed on the bytes."""
    a = quantized(rng, (4, 7, 300), U8)
    inits = [("b", quantized(rng, (300, 250), S8)),
             ("a_zero", np.array(131, np.uint8)),
             ("b_zero", np.array(0, np.int8))]
    node = helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"],
                            ["y"])
    return model([node], [("a", U8, a.shape)], [("y", I32)], inits), \
        {"a": a}, None


def qdq_matmul(gemm, rows=6, k=20, n=12):
    """A QDQ MatMul (3-D activation, weights per column) or Gemm (transB,
    weights per row of B, bias int32), `rows` x `k` by `k` x `n`: the
    quantized output must match ONNX Runtime's fused kernel exactly."""
    def build(rng):
        shape = (rows, k) if gemm else (2, rows, k)
        x = rng.standard_normal(shape).astype(np.float32)
        w = quantized(rng, (n, k) if gemm else (k, n), S8)
        w_scale = (rng.random(n) * 0.01 + 0.002).astype(np.float32)
        x_scale = np.float32(0.03)
        inits = [("x_scale", np.array(x_scale)),
                 ("x_zero", np.array(120, np.uint8)), ("w", w),
                 ("w_scale", w_scale), ("w_zero", np.zeros(n, np.int8)),
                 ("y_scale", np.array(0.04, np.float32)),
                 ("y_zero", np.array(-3, np.int8))]
        nodes = [
            helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"],
                             ["xq"]),
            helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"],
                             ["xd"]),
            helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"],
                             ["wd"], axis=0 if gemm else 1)]
        if gemm:
            inits += [("b", rng.integers(-900, 900, n).astype(np.int32)),
                      ("b_scale", (x_scale * w_scale).astype(np.float32)),
                      ("b_zero", np.zeros(n, np.int32))]
            nodes += [
                helper.make_node("DequantizeLinear", ["b", "b_scale",
                                                      "b_zero"], ["bd"],
                                 axis=0),
                helper.make_node("Gemm", ["xd", "wd", "bd"], ["c"], transB=1)]
        else:
            nodes.append(helper.make_node("MatMul", ["xd", "wd"], ["c"]))
        nodes.append(helper.make_node("QuantizeLinear",
                                      ["c", "y_scale", "y_zero"], ["y"]))
        return model(nodes, [("x", F32, x.shape)], [("y", S8)], inits), \
            {"x": x}, None
    return build


CASES = {
    "quantize_u8": quantize_per_tensor(U8, 10),
    "quantize_s8": quantize_per_tensor(S8, -5),
    "quantize_per_axis": quantize_per_axis,
    "quantize_default_zero": quantize_default_zero,
    "dequantize_u8": dequantize(U8, False),
    "dequantize_s8_per_axis": dequantize(S8, True),
    "dequantize_int32": dequantize_int32,
    "dequantized_weights_s8": dequantized_weights(S8),
    "dequantized_weights_u8": dequantized_weights(U8),
    "dynamic_quantize": dynamic_quantize,
    "qlinear_conv_u8": qlinear_conv(U8, False),
    "qlinear_conv_s8_per_channel": qlinear_conv(S8, True),
    "qlinear_conv_grouped_no_bias": qlinear_conv(S8, True, group=2,
                                                 bias=False),
    "qlinear_matmul_per_column": qlinear_matmul,
    "qdq_conv": qdq_conv(False),
    "qdq_conv_integer_output": qdq_conv(True),
    "qdq_conv_int8_activation": qdq_conv(True, S8),
    "qdq_conv_depthwise_strided": qdq_conv(True, S8, channels=4, group=4,
                                           strides=[2, 1], dilations=[1, 2],
                                           pads=[2, 0, 1, 1]),
    "qdq_conv_grouped_same": qdq_conv(True, U8, channels=6, group=2,
                                      strides=[2, 2], auto_pad="SAME_UPPER"),
    "qdq_matmul": qdq_matmul(False),
    "qdq_gemm": qdq_matmul(True),
    # K not a multiple of four, columns in two tiles and a remainder, one
    # row (the classifier of a CNN).
    "qdq_gemm_wide": qdq_matmul(True, rows=1, k=302, n=70),
    "qdq_matmul_wide": qdq_matmul(False, rows=9, k=130, n=70),
    "matmul_integer_large": matmul_integer_large,
    "qdq_maxpool_u8": qdq_maxpool(U8),
    "qdq_maxpool_s8": qdq_maxpool(S8),
    "qdq_maxpool_rescaled": qdq_maxpool(U8, y_scale=0.03),
    "qdq_maxpool_float_output": qdq_maxpool(U8, quantize_output=False),
}


def reference(path, feeds, optimize):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    if not optimize:
        options.graph_optimization_level = \
            onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(
        path, options, providers=["CPUExecutionProvider"]).run(None, feeds)


def compare(name, got, want, step):
    if got.shape != want.shape:
        return "%s: got shape %s, expected %s" % (name, got.shape, want.shape)
    if got.dtype != want.dtype:
        return "%s: got %s, expected %s" % (name, got.dtype, want.dtype)
    if np.issubdtype(want.dtype, np.integer):
        bad = got != want
    else:
        bound = step * 1.001 if step else 1e-5 + 1e-4 * np.abs(want)
        bad = ~(np.abs(got - want) <= bound)
    if np.any(bad):
        at = tuple(np.argwhere(bad)[0])
        return "%s: %d of %d elements differ; first at %s: got %s, " \
               "expected %s" % (name, np.count_nonzero(bad), bad.size,
                                list(at), got[at], want[at])
    return None


def run_case(name, build, directory):
    case_dir = os.path.join(directory, name)
    os.makedirs(case_dir, exist_ok=True)
    rng = np.random.default_rng(sum(map(ord, name)))
    m, feeds, step = build(rng)
    model_path = os.path.join(case_dir, "model.onnx")
    onnx.save(m, model_path)
    expected = reference(model_path, feeds,
                         not getattr(build, "unoptimized_reference", False))
    problem, out_dir = case_runner.compile_and_run(model_path, feeds,
                                                   case_dir)
    if problem:
        return problem
    for k, want in enumerate(expected):
        got = np.load(os.path.join(out_dir, "output_%d.npy" % k))
        problem = compare(m.graph.output[k].name, got, np.asarray(want), step)
        if problem:
            return problem
    return None


def main():
    case_runner.main(CASES, run_case)


if __name__ == "__main__":
    main()
