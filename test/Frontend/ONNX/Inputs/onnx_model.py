"""Writes a one-node (or few-node) ONNX model for the importer's lit tests.

    onnx_model.py OUT.onnx [--opset N] [--ir N] NODE... 

Each NODE is one argument of the form

    'y = Op(a, b, ...) {attr=value, ...}'     (a node; '' leaves an optional
                                              input out; 'y1, y2 = ...' for
                                              several outputs)
    'in x: float[3,4]'                        (a graph input; a name or ?
                                              for a dimension is symbolic)
    'init w: float[4] = 1,2,3,4'              (an initializer; 'rand' fills
                                              random values)
    'out y'                                   (a graph output; its type is
                                              left to the importer)

Attribute values: 3 (int), 1.5 (float), "text" (string), [1,2] (ints),
[1.0,2.0] (floats), ["a","b"] (strings), int64[2]:4,5 (a tensor).
"""
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DTYPES = {
    "float": TensorProto.FLOAT, "double": TensorProto.DOUBLE,
    "float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16,
    "int8": TensorProto.INT8, "int16": TensorProto.INT16,
    "int32": TensorProto.INT32, "int64": TensorProto.INT64,
    "uint8": TensorProto.UINT8, "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
    "bool": TensorProto.BOOL, "string": TensorProto.STRING,
}


def parse_type(text):
    m = re.fullmatch(r"\s*(\w+)\[([^\]]*)\]\s*", text)
    if not m:
        sys.exit("bad type: " + text)
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    shape = [int(d) if re.fullmatch(r"-?\d+", d) else None if d == "?" else d
             for d in dims]
    return DTYPES[m.group(1)], shape


def make_tensor(name, type_text, values_text):
    dtype, shape = parse_type(type_text)
    np_type = helper.tensor_dtype_to_np_dtype(dtype) if hasattr(
        helper, "tensor_dtype_to_np_dtype") else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[dtype]
    count = int(np.prod(shape)) if shape else 1
    if values_text.strip() == "rand":
        values = np.random.RandomState(0).uniform(-1, 1, count)
    else:
        values = [float(v) for v in values_text.split(",") if v.strip()]
    array = np.array(values).astype(np_type).reshape(shape)
    return numpy_helper.from_array(array, name)


def parse_attr(name, text):
    text = text.strip()
    if re.fullmatch(r"\w+\[[^\]]*\]:.*", text):
        type_text, values = text.split(":", 1)
        return helper.make_attribute(name, make_tensor("", type_text, values))
    if text.startswith("["):
        items = [v.strip() for v in text[1:-1].split(",") if v.strip()]
        if items and all(v.startswith('"') for v in items):
            return helper.make_attribute(name, [v[1:-1] for v in items])
        if any("." in v or "e" in v for v in items):
            return helper.make_attribute(name, [float(v) for v in items])
        return helper.make_attribute(name, [int(v) for v in items])
    if text.startswith('"'):
        return helper.make_attribute(name, text[1:-1])
    if re.fullmatch(r"-?\d+", text):
        return helper.make_attribute(name, int(text))
    return helper.make_attribute(name, float(text))


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    opset, ir = 13, None
    nodes, inputs, inits, outputs = [], [], [], []
    while args:
        arg = args.pop(0)
        if arg == "--opset":
            opset = int(args.pop(0))
            continue
        if arg == "--ir":
            ir = int(args.pop(0))
            continue
        if arg.startswith("in "):
            name, type_text = arg[3:].split(":", 1)
            dtype, shape = parse_type(type_text)
            inputs.append(helper.make_tensor_value_info(name.strip(), dtype, shape))
        elif arg.startswith("init "):
            decl, values = arg[5:].split("=", 1)
            name, type_text = decl.split(":", 1)
            inits.append(make_tensor(name.strip(), type_text, values))
        elif arg.startswith("out "):
            outputs.append(helper.make_empty_tensor_value_info(arg[4:].strip()))
        else:
            m = re.fullmatch(r"\s*(.*?)=\s*(\w+)\((.*?)\)\s*(\{(.*)\})?\s*", arg)
            if not m:
                sys.exit("bad node: " + arg)
            outs = [o.strip() for o in m.group(1).split(",")]
            ins = [i.strip().strip("'\"") for i in m.group(3).split(",")] if m.group(3).strip() else []
            node = helper.make_node(m.group(2), ins, outs)
            if m.group(5):
                for item in split_top(m.group(5)):
                    key, value = item.split("=", 1)
                    node.attribute.append(parse_attr(key.strip(), value))
            nodes.append(node)
    graph = helper.make_graph(nodes, "test", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if ir is not None:
        model.ir_version = ir
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
