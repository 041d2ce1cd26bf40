"""Writes a model whose If nodes nest DEPTH subgraphs deep (argv[1]: the
path, argv[2]: DEPTH): past protobuf's recursion limit the importer must
refuse it, not overflow its stack."""
import sys

from onnx import TensorProto, helper


def leaf():
    return helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "leaf", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])


graph = leaf()
for depth in range(int(sys.argv[2])):
    node = helper.make_node("If", ["c"], ["y"], then_branch=graph,
                            else_branch=leaf())
    graph = helper.make_graph(
        [node], "g%d" % depth, [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
top = helper.make_graph(
    graph.node, "top",
    [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
model = helper.make_model(top, opset_imports=[helper.make_opsetid("", 13)])
with open(sys.argv[1], "wb") as out:
    out.write(model.SerializeToString())
