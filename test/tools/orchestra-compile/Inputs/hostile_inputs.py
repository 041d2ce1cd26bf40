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
