"""Writes a tiny ONNX backend-test-style data directory for the conformance
runner's lit test:

    make_conformance_data.py OUTDIR

OUTDIR/<suite>/<test>/model.onnx with test_data_set_*/input_K.pb and
output_K.pb, as in onnx/backend/test/data. The tests cover every outcome of
the runner: passes (float, int64, several data sets), wrong numbers (in the
first and in a later data set), a wrong shape, an unsupported op, a
malformed model, a malformed input tensor and a training model.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)


def save_tensor(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def write_test(suite, name, model, data_sets):
    """data_sets: a list of (inputs, outputs) lists of numpy arrays."""
    test = os.path.join(out, suite, name)
    os.makedirs(test)
    if isinstance(model, bytes):
        with open(os.path.join(test, "model.onnx"), "wb") as f:
            f.write(model)
    else:
        onnx.save(model, os.path.join(test, "model.onnx"))
    for i, (inputs, outputs) in enumerate(data_sets):
        ds = os.path.join(test, "test_data_set_%d" % i)
        os.makedirs(ds)
        for k, a in enumerate(inputs):
            save_tensor(os.path.join(ds, "input_%d.pb" % k), a)
        for k, a in enumerate(outputs):
            save_tensor(os.path.join(ds, "output_%d.pb" % k), a)


def binary_model(op, dtype, shape, opsets=None, domain=""):
    x = helper.make_tensor_value_info("x", dtype, shape)
    y = helper.make_tensor_value_info("y", dtype, shape)
    z = helper.make_tensor_value_info("z", dtype, shape)
    node = helper.make_node(op, ["x", "y"], ["z"], name="the_" + op.lower(),
                            domain=domain)
    graph = helper.make_graph([node], "g", [x, y], [z])
    opsets = opsets or [helper.make_opsetid("", 13)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=7)


a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.full((2, 3), 0.5, dtype=np.float32)
add = binary_model("Add", TensorProto.FLOAT, [2, 3])

# Passes, with two data sets.
write_test("node", "test_add", add,
           [([a, b], [a + b]), ([b, a], [a + b])])
# Integers compare exactly.
ia = np.arange(6, dtype=np.int64).reshape(2, 3)
write_test("node", "test_add_int64",
           binary_model("Add", TensorProto.INT64, [2, 3]),
           [([ia, ia], [ia + ia])])
# Wrong numbers: element [1, 2] is off by 0.25.
wrong = a + b
wrong[1, 2] += 0.25
write_test("node", "test_add_wrong", add, [([a, b], [wrong])])
# Wrong numbers in the second data set only.
write_test("node", "test_add_wrong_second_set", add,
           [([a, b], [a + b]), ([a, b], [wrong])])
# Integers off by one.
iwrong = ia + ia
iwrong[0, 1] += 1
write_test("node", "test_add_int64_wrong",
           binary_model("Add", TensorProto.INT64, [2, 3]),
           [([ia, ia], [iwrong])])
# The expected output has another shape.
write_test("node", "test_add_wrong_shape", add,
           [([a, b], [(a + b).reshape(3, 2)])])
# An op of a domain no importer knows.
write_test("node", "test_custom_op",
           binary_model("Frobnicate", TensorProto.FLOAT, [2, 3],
                        [helper.make_opsetid("", 13),
                         helper.make_opsetid("com.example", 1)],
                        domain="com.example"),
           [([a, b], [a + b])])
# Not a model at all.
write_test("node", "test_malformed_model", b"this is not a protobuf",
           [([a, b], [a + b])])
# A valid model whose input tensor is garbage.
write_test("node", "test_malformed_input", add, [([a, b], [a + b])])
with open(os.path.join(out, "node", "test_malformed_input",
                       "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(b"\xff\xff\xff\xff garbage")
# A training model: not counted.
write_test("node", "test_training",
           binary_model("Add", TensorProto.FLOAT, [2, 3],
                        [helper.make_opsetid("", 13),
                         helper.make_opsetid("ai.onnx.preview.training", 1)]),
           [([a, b], [a + b])])

# A second suite.
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
graph = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
relu = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                         ir_version=7)
c = (a - 2.5).astype(np.float32)
write_test("simple", "test_relu", relu, [([c], [np.maximum(c, 0)])])
