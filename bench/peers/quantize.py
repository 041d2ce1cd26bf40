"""Quantizes a model that models.py exported, with ONNX Runtime's own
quantizer, as a user deploying int8 on a CPU would:

    quantize.py qdq MODEL_DIR       static quantization, QDQ format: uint8
                                    activations, int8 weights per output
                                    channel, calibrated (MinMax) on 8 random
                                    inputs like the benchmark's own
    quantize.py dynamic MODEL_DIR   dynamic quantization: int8 weights,
                                    activations quantized at run time
                                    (MatMulInteger, DynamicQuantizeLinear)

model.onnx becomes the quantized model (the float one is kept as
model-float.onnx). The reference, expected_0.npy, becomes ONNX Runtime's
output of the quantized model (1 thread, every optimisation): the issue's
criterion is agreement with ONNX Runtime's int8 execution. When the
output comes out of a DequantizeLinear, its scale is written to `step`:
bench/peers/run.py then accepts outputs within one quantization step.

Needs onnxruntime with its quantization tools (ml_dtypes and onnx >= 1.16,
in requirements/bench.txt: `scripts/setup.sh --bench`).
"""
import glob
import os
import shutil
import sys

import numpy as np


def inputs_of(model_dir):
    return [np.load(p) for p in sorted(glob.glob(
        os.path.join(model_dir, "input_*.npy")),
        key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))]


def output_step(path):
    """The scale of the DequantizeLinear that yields the first graph
    output, or None."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    output = model.graph.output[0].name
    initializers = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if output in node.output and node.op_type == "DequantizeLinear":
            scale = initializers.get(node.input[1])
            if scale is not None:
                return float(np.max(numpy_helper.to_array(scale)))
    return None


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("qdq", "dynamic"):
        sys.exit(__doc__)
    mode, model_dir = sys.argv[1:]
    import onnxruntime as ort
    from onnxruntime import quantization as q

    float_path = os.path.join(model_dir, "model-float.onnx")
    path = os.path.join(model_dir, "model.onnx")
    if not os.path.exists(float_path):
        shutil.copy(path, float_path)
    xs = inputs_of(model_dir)
    session = ort.InferenceSession(float_path,
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    if mode == "qdq":
        rng = np.random.default_rng(0)

        class Reader(q.CalibrationDataReader):
            def __init__(self):
                self.batches = iter([
                    {n: rng.standard_normal(x.shape).astype(x.dtype)
                     for n, x in zip(names, xs)} for _ in range(8)])

            def get_next(self):
                return next(self.batches, None)

        prepared = os.path.join(model_dir, "model-prepared.onnx")
        q.quant_pre_process(float_path, prepared)
        q.quantize_static(prepared, path, Reader(),
                          quant_format=q.QuantFormat.QDQ, per_channel=True,
                          activation_type=q.QuantType.QUInt8,
                          weight_type=q.QuantType.QInt8,
                          calibrate_method=q.CalibrationMethod.MinMax)
    else:
        q.quantize_dynamic(float_path, path, weight_type=q.QuantType.QInt8)

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    reference = ort.InferenceSession(path, options,
                                     providers=["CPUExecutionProvider"])
    outputs = reference.run(None, dict(zip(names, xs)))
    np.save(os.path.join(model_dir, "expected_0.npy"), outputs[0])
    step_path = os.path.join(model_dir, "step")
    step = output_step(path)
    if step is None:
        if os.path.exists(step_path):
            os.remove(step_path)
    else:
        with open(step_path, "w") as f:
            f.write("%r\n" % step)


if __name__ == "__main__":
    main()
