"""Writes a model whose initializer 'w' (float[4]) carries 12 bytes of raw
data instead of 16."""
import sys

from onnx import TensorProto, helper

w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4],
                raw_data=b"\0" * 12)
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"])], "bad",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
open(sys.argv[1], "wb").write(model.SerializeToString())
