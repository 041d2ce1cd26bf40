"""Writes inputs that would exhaust the compiler if it took them in.

  hostile_inputs.py DIR

DIR/deep-regions.mlir, deep-types.mlir, deep-parens.mlir: brackets nested
100000 deep (the parser's recursion would overflow the stack);
DIR/nested-ok.mlir: 200 deep, which is read; DIR/huge.mlir and, when the
onnx module is there, DIR/huge.onnx: a tensor of 2^80 elements (its
element count would overflow 64 bits: the plan would think it empty).
"""

import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 100000


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


write("deep-regions.mlir",
      "func.func @main() {\n" + "scf.execute_region {" * n + "}" * n +
      "\nreturn\n}\n")
write("deep-types.mlir",
      "func.func @main(%a: " + "!llvm.array<2 x " * n + "f32" + ">" * n +
      ") {\nreturn\n}\n")
write("deep-parens.mlir",
      "#map = affine_map<(d0) -> (" + "(" * n + "d0" + ")" * n + ")>\n")
# 200 levels: read (and refused for what it is, not for its depth).
write("nested-ok.mlir",
      "func.func @main() {\n" + "scf.execute_region {" * 200 + "}" * 200 +
      "\nreturn\n}\n")
big = "tensor<1099511627776x1099511627776xf32>"
write("huge.mlir",
      f"func.func @main(%a: {big}) -> {big} {{\n  return %a : {big}\n}}\n")
try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    sys.exit(0)
shape = [2 ** 40, 2 ** 40]
graph = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"])], "huge",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "huge.onnx"))

# Shapes computed from the model's own data: tiny files asking for huge (or
# overflowing) results, and a tiny constant tiled to a large one (spelled out
# element by element by the importer, it took minutes and gigabytes).
from onnx import numpy_helper
import numpy as np


def save(name, node, inputs, initializers):
    graph = helper.make_graph(
        [node], name, inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.array(value, dtype), key)
                     for key, value, dtype in initializers])
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)]),
        os.path.join(out, name + ".onnx"))


x = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])]
save("expand", helper.make_node("Expand", ["x", "s"], ["y"]),
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
     [("s", shape, np.int64)])
save("constant-of-shape", helper.make_node("ConstantOfShape", ["s"], ["y"]),
     [], [("s", shape, np.int64)])
save("tile", helper.make_node("Tile", ["x", "r"], ["y"]), x,
     [("r", [2 ** 62, 4], np.int64)])
save("pad", helper.make_node("Pad", ["x", "p"], ["y"]), x,
     [("p", [2 ** 62, 0, 2 ** 62, 0], np.int64)])
save("pad-reflect", helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect"),
     x, [("p", [2 ** 30, 0, 0, 0], np.int64)])
save("tile-constant", helper.make_node("Tile", ["c", "r"], ["y"]), [],
     [("c", np.ones((2, 2)), np.float32), ("r", [2 ** 14, 2 ** 14], np.int64)])
