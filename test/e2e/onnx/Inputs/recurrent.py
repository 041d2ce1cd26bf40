"""ONNX LSTM, GRU and RNN nodes in every configuration the specification
allows, compiled for the host, run, and compared with ONNX Runtime.

    recurrent.py DIR [CASE...]   runs every case (or those named) in DIR;
                                 one line per case, exit status 1 if any
                                 does not match
    recurrent.py list            prints the case names

Each case is one node with random weights: directions, layouts, biases,
initial states, sequence lengths (constant or a graph input), clip,
peepholes, input_forget, linear_before_reset, the activations with their
alphas and betas, and every subset of the outputs.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_runner  # noqa: E402

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def case(op, steps=5, batch=3, inputs=4, hidden=6, direction="forward",
         layout=0, bias=True, initial=False, lens=None, lens_input=False,
         peepholes=False, outputs=("Y", "Y_h", "Y_c"), **attributes):
    return dict(op=op, steps=steps, batch=batch, inputs=inputs, hidden=hidden,
                direction=direction, layout=layout, bias=bias,
                initial=initial, lens=lens, lens_input=lens_input,
                peepholes=peepholes, outputs=outputs, attributes=attributes)


CASES = {
    "lstm_forward": case("LSTM", bias=False),
    "lstm_reverse_initial": case("LSTM", direction="reverse", initial=True),
    "lstm_bidirectional_peepholes": case(
        "LSTM", direction="bidirectional", initial=True, peepholes=True),
    "lstm_batch_first": case("LSTM", layout=1, initial=True,
                             direction="bidirectional"),
    "lstm_lengths": case("LSTM", direction="bidirectional", lens=[5, 2, 0],
                         initial=True),
    "lstm_lengths_input": case("LSTM", direction="reverse", lens=[3, 5, 1],
                               lens_input=True),
    "lstm_clip_input_forget": case("LSTM", clip=0.5, input_forget=1,
                                   peepholes=True),
    "lstm_activations": case(
        "LSTM", direction="bidirectional",
        activations=["HardSigmoid", "Softsign", "Softplus",
                     "Sigmoid", "ScaledTanh", "Elu"],
        activation_alpha=[0.3, 0.7, 0.9], activation_beta=[0.6, 1.3]),
    "lstm_states_only": case("LSTM", outputs=("", "Y_h", "Y_c"), steps=7),
    "lstm_y_only": case("LSTM", outputs=("Y",), layout=1),
    "gru_forward": case("GRU"),
    "gru_linear_before_reset": case("GRU", linear_before_reset=1,
                                    direction="bidirectional", initial=True),
    "gru_linear_before_reset_no_bias": case("GRU", linear_before_reset=1,
                                            bias=False),
    "gru_lengths_batch_first": case("GRU", layout=1, lens=[4, 5, 2],
                                    direction="bidirectional"),
    "gru_activations": case("GRU", activations=["LeakyRelu", "Affine"],
                            activation_alpha=[0.2, 0.5],
                            activation_beta=[0.1], clip=2.0),
    "rnn_forward": case("RNN", bias=False),
    "rnn_bidirectional_relu": case(
        "RNN", direction="bidirectional", activations=["Relu", "Tanh"],
        initial=True),
    "rnn_thresholded_lengths": case(
        "RNN", activations=["ThresholdedRelu"], activation_alpha=[0.1],
        lens=[1, 5, 3], lens_input=True, outputs=("Y", "Y_h")),
    "rnn_long_sequence": case("RNN", steps=300, batch=2, hidden=16,
                              direction="reverse"),
}


def build(spec, path, layout):
    """Writes the node's model with `layout` to `path`; returns its feeds and
    output names. The data does not depend on the layout (ONNX Runtime
    computes the batch-first cases' reference in layout 0)."""
    rng = np.random.default_rng(7)
    op, s, b, i, h = (spec[k] for k in ("op", "steps", "batch", "inputs",
                                         "hidden"))
    d = 2 if spec["direction"] == "bidirectional" else 1
    g = GATES[op]
    batch_first = layout == 1

    def weights(*shape):
        return (rng.standard_normal(shape) * 0.4).astype(np.float32)

    def state(value):  # [D, B, H] in the layout
        return value.transpose(1, 0, 2).copy() if batch_first else value

    state_shape = [b, d, h] if batch_first else [d, b, h]
    x = rng.standard_normal([s, b, i]).astype(np.float32)
    x = x.transpose(1, 0, 2).copy() if batch_first else x
    feeds = {"X": x}
    initializers = [numpy_helper.from_array(weights(d, g * h, i), "W"),
                    numpy_helper.from_array(weights(d, g * h, h), "R")]
    names = ["X", "W", "R"]
    graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                                  x.shape)]
    if spec["bias"]:
        initializers.append(numpy_helper.from_array(weights(d, 2 * g * h),
                                                    "B"))
    names.append("B" if spec["bias"] else "")
    if spec["lens"] is not None:
        lens = np.array(spec["lens"], np.int32)
        if spec["lens_input"]:
            feeds["L"] = lens
            graph_inputs.append(helper.make_tensor_value_info(
                "L", TensorProto.INT32, lens.shape))
        else:
            initializers.append(numpy_helper.from_array(lens, "L"))
        names.append("L")
    else:
        names.append("")
    if spec["initial"]:
        initializers.append(numpy_helper.from_array(
            state(weights(d, b, h)), "H0"))
        names.append("H0")
        if op == "LSTM":
            initializers.append(numpy_helper.from_array(
                state(weights(d, b, h)), "C0"))
            names.append("C0")
    if op == "LSTM" and spec["peepholes"]:
        while len(names) < 7:
            names.append("")
        initializers.append(numpy_helper.from_array(weights(d, 3 * h), "P"))
        names.append("P")
    while names and names[-1] == "":
        names.pop()
    outputs = [o for o in spec["outputs"] if op == "LSTM" or o != "Y_c"]
    y_shape = [b, s, d, h] if batch_first else [s, d, b, h]
    graph_outputs = [
        helper.make_tensor_value_info(
            o, TensorProto.FLOAT, y_shape if o == "Y" else state_shape)
        for o in outputs if o]
    attributes = dict(spec["attributes"], hidden_size=h,
                      direction=spec["direction"])
    if batch_first:
        attributes["layout"] = 1
    node = helper.make_node(op, names, list(outputs), **attributes)
    graph = helper.make_graph([node], "recurrent", graph_inputs,
                              graph_outputs, initializers)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return feeds, [o for o in outputs if o]


def reference(spec, case_dir):
    """ONNX Runtime's outputs, in the case's layout. ONNX Runtime runs
    layout 0 only: a batch-first case runs as its layout-0 twin, with the
    outputs transposed."""
    import onnxruntime

    path = os.path.join(case_dir, "reference.onnx")
    feeds, outputs = build(spec, path, 0)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    values = onnxruntime.InferenceSession(
        path, options, providers=["CPUExecutionProvider"]).run(None, feeds)
    if spec["layout"] == 1:
        values = [v.transpose(2, 0, 1, 3) if name == "Y" else
                  v.transpose(1, 0, 2) for name, v in zip(outputs, values)]
    return values


def run_case(name, spec, directory):
    case_dir = os.path.join(directory, name)
    os.makedirs(case_dir, exist_ok=True)
    model_path = os.path.join(case_dir, "model.onnx")
    feeds, outputs = build(spec, model_path, spec["layout"])
    expected = reference(spec, case_dir)
    problem, out_dir = case_runner.compile_and_run(model_path, feeds,
                                                   case_dir)
    if problem:
        return problem
    for k, (name_k, want) in enumerate(zip(outputs, expected)):
        got = np.load(os.path.join(out_dir, "output_%d.npy" % k))
        if got.shape != want.shape:
            return "%s: got shape %s, expected %s" % (name_k, got.shape,
                                                      want.shape)
        error = np.abs(got - want)
        bound = 1e-5 + 1e-4 * np.abs(want)
        if not np.all(error <= bound):
            at = np.unravel_index(np.argmax(error - bound), error.shape)
            return "%s: %d of %d elements differ; worst at %s: got %g, " \
                   "expected %g" % (name_k, np.count_nonzero(error > bound),
                                    error.size, list(at), got[at], want[at])
    return None


def main():
    case_runner.main(CASES, run_case)


if __name__ == "__main__":
    main()
