"""Writes DIR/model.onnx: y = Add(x, w), x: float[4] an input, w a float[4]
initializer stored as external data at LOCATION (relative to DIR, or as
given), with --offset/--length entries as given (strings, unchecked). The
data file DIR/w.bin holds [1, 2, 3, 4] as float32.

  external_data.py DIR LOCATION [--offset TEXT] [--length TEXT]
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("location")
    parser.add_argument("--offset")
    parser.add_argument("--length")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    np.array([1, 2, 3, 4], dtype=np.float32).tofile(
        os.path.join(args.dir, "w.bin"))
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4])
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", args.location)]
    if args.offset is not None:
        entries.append(("offset", args.offset))
    if args.length is not None:
        entries.append(("length", args.length))
    for key, value in entries:
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(os.path.join(args.dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
