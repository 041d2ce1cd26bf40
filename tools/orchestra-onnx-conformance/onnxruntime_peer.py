#!/usr/bin/env python3
"""ONNX Runtime as the peer of orchestra-onnx-conformance.

`orchestra-onnx-conformance --peer=onnxruntime` starts this script once per
run and sends it the tests one at a time. The script only runs the models;
the runner compares what it writes with the test data, with the routine and
the tolerances it uses for OrchestraOS, so that both columns of its report
mean the same thing.

Protocol, one line per message, fields separated by tabs:

  at startup  -> READY <onnxruntime version>
              or ERROR <why it cannot run>, then exit
  RUN <test dir> <output dir>
              -> OUTPUT <data set> <index> <file>   per output of each data set
                 DONE
              or ERROR <stage>: <ONNX Runtime's message, first line>
  end of input ends the script.

For each test_data_set_* of a test the script feeds input_<i>.pb to the i-th
input of the session (the graph inputs that are not initializers, as ONNX's
backend test runner does), runs the model with ONNX Runtime's CPU execution
provider with every graph optimisation, and writes each output in the test
data's own format (onnx.TensorProto, SequenceProto or OptionalProto) to
<output dir>. bfloat16, which numpy lacks, is passed as its bits (the test
data stores it as uint16).

Works with the `onnx` package of Debian 12 (1.12) and with recent ones: only
the protobuf classes and numpy_helper.to_array/from_array are used.
"""

import ctypes
import os
import sys


def reply(*fields):
    sys.stdout.write("\t".join(str(f) for f in fields) + "\n")
    sys.stdout.flush()


def first_line(error):
    """The first non-empty line of an exception's message."""
    for line in str(error).splitlines():
        if line.strip():
            return line.strip()
    return type(error).__name__


class StageError(Exception):
    """A failure, prefixed with where it happened."""

    def __init__(self, stage, error):
        super().__init__("%s: %s" % (stage, first_line(error)))


class Peer:

    def __init__(self, ort, onnx, numpy_helper, np):
        self.ort = ort
        self.onnx = onnx
        self.numpy_helper = numpy_helper
        self.np = np

    # Reading the test data.

    def read_proto(self, cls, path):
        proto = cls()
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
        return proto

    def tensor_from_proto(self, proto):
        return self.numpy_helper.to_array(proto)

    def sequence_from_proto(self, proto):
        if proto.elem_type != self.onnx.SequenceProto.TENSOR:
            raise ValueError("only sequences of tensors are supported")
        return [self.tensor_from_proto(t) for t in proto.tensor_values]

    def optional_from_proto(self, proto):
        if proto.elem_type == self.onnx.OptionalProto.TENSOR:
            return self.tensor_from_proto(proto.tensor_value)
        if proto.elem_type == self.onnx.OptionalProto.SEQUENCE:
            return self.sequence_from_proto(proto.sequence_value)
        return None

    def read_input(self, path, type_name):
        """The value of input_<i>.pb for a session input of `type_name`
        ("tensor(float)", "seq(tensor(float))", "optional(...)")."""
        if type_name.startswith("seq("):
            return self.sequence_from_proto(
                self.read_proto(self.onnx.SequenceProto, path))
        if type_name.startswith("optional("):
            return self.optional_from_proto(
                self.read_proto(self.onnx.OptionalProto, path))
        array = self.tensor_from_proto(
            self.read_proto(self.onnx.TensorProto, path))
        if type_name == "tensor(bfloat16)":
            return self.to_bfloat16_value(array)
        return array

    def to_bfloat16_value(self, array):
        """An OrtValue of bfloat16 from the test data's bits (uint16) or
        from the float32 an older numpy_helper decodes bfloat16 to."""
        np = self.np
        if array.dtype.itemsize == 4:
            array = (np.ascontiguousarray(array, dtype=np.float32).view(
                np.uint32) >> 16).astype(np.uint16)
        array = np.ascontiguousarray(array).view(np.uint16)
        return self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
            array, self.onnx.TensorProto.BFLOAT16)

    # Writing the outputs.

    def tensor_to_proto(self, value, name):
        np = self.np
        if isinstance(value, self.ort.OrtValue):
            # bfloat16: numpy has no such type; copy the bits.
            shape = value.shape()
            count = int(np.prod(shape)) if shape else 1
            proto = self.onnx.TensorProto()
            proto.name = name
            proto.data_type = self.onnx.TensorProto.BFLOAT16
            proto.dims.extend(shape)
            if count:
                bits = (ctypes.c_uint16 * count).from_address(value.data_ptr())
                proto.raw_data = bytes(bits)
            return proto
        array = np.asarray(value)
        if array.dtype.kind == "U":
            array = array.astype(object)
        return self.numpy_helper.from_array(array, name)

    def value_to_proto(self, value, type_name, name):
        """The proto of an output of `type_name` (as ONNX Runtime names
        types: "tensor(float)", "seq(tensor(float))", "optional(...)")."""
        if type_name.startswith("seq("):
            proto = self.onnx.SequenceProto()
            proto.name = name
            proto.elem_type = self.onnx.SequenceProto.TENSOR
            for element in value:
                proto.tensor_values.append(self.tensor_to_proto(element, ""))
            return proto
        if type_name.startswith("optional("):
            proto = self.onnx.OptionalProto()
            proto.name = name
            if value is None:
                return proto
            inner = type_name[len("optional("):-1]
            if inner.startswith("seq("):
                proto.elem_type = self.onnx.OptionalProto.SEQUENCE
                proto.sequence_value.CopyFrom(
                    self.value_to_proto(value, inner, ""))
            else:
                proto.elem_type = self.onnx.OptionalProto.TENSOR
                proto.tensor_value.CopyFrom(self.tensor_to_proto(value, ""))
            return proto
        return self.tensor_to_proto(value, name)

    # Running a test.

    def make_session(self, model_path):
        ort = self.ort
        options = ort.SessionOptions()
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        # The runner runs its own tests beside this process; one thread each
        # keeps the machine from being oversubscribed.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 4
        return ort.InferenceSession(model_path, options,
                                    providers=["CPUExecutionProvider"])

    def run(self, test_dir, output_dir):
        """Runs every data set; returns the OUTPUT lines."""
        # Random ops without a seed (Bernoulli, training-mode Dropout) draw
        # from the global generator: reset it, so that a test's outputs do
        # not depend on the tests before it, and the report stays the same
        # from run to run.
        self.ort.set_seed(0)
        try:
            session = self.make_session(os.path.join(test_dir, "model.onnx"))
        except Exception as error:
            raise StageError("load", error)
        inputs = session.get_inputs()
        outputs = session.get_outputs()
        has_bfloat16_output = any(
            o.type == "tensor(bfloat16)" for o in outputs)
        data_sets = sorted(
            (d for d in os.listdir(test_dir)
             if d.startswith("test_data_set_") and
             d[len("test_data_set_"):].isdigit()),
            key=lambda d: int(d[len("test_data_set_"):]))
        if not data_sets:
            raise StageError("load", "no test_data_set_* directory")
        lines = []
        for data_set in data_sets:
            set_dir = os.path.join(test_dir, data_set)
            feeds = {}
            for index, info in enumerate(inputs):
                path = os.path.join(set_dir, "input_%d.pb" % index)
                if not os.path.exists(path):
                    continue
                try:
                    feeds[info.name] = self.read_input(path, info.type)
                except Exception as error:
                    raise StageError("%s/input_%d.pb" % (data_set, index),
                                     error)
            try:
                if has_bfloat16_output or any(
                        isinstance(v, self.ort.OrtValue)
                        for v in feeds.values()):
                    results = self.run_with_ort_values(session, feeds)
                else:
                    results = session.run(None, feeds)
            except Exception as error:
                raise StageError("%s: run" % data_set, error)
            for index, (info, value) in enumerate(zip(outputs, results)):
                path = os.path.join(output_dir,
                                    "%s_output_%d.pb" % (data_set, index))
                try:
                    proto = self.value_to_proto(value, info.type, info.name)
                    with open(path, "wb") as f:
                        f.write(proto.SerializeToString())
                except Exception as error:
                    raise StageError(
                        "%s: output %d ('%s')" % (data_set, index, info.name),
                        error)
                lines.append(("OUTPUT", data_set, index, path))
        return lines

    def run_with_ort_values(self, session, feeds):
        """Runs with OrtValues in and out, for bfloat16 tensors; the
        others come back as numpy arrays."""
        ort = self.ort
        values = {
            name: value if isinstance(value, ort.OrtValue) else
            ort.OrtValue.ortvalue_from_numpy(self.np.ascontiguousarray(value))
            for name, value in feeds.items()
        }
        results = session.run_with_ort_values(None, values)
        return [
            r if r.data_type() == "tensor(bfloat16)" else r.numpy()
            for r in results
        ]


def main():
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
        import onnxruntime as ort
    except ImportError as error:
        reply("ERROR", "the Python packages numpy, onnx and onnxruntime are "
              "needed (scripts/setup.sh installs them into the checkout's "
              ".venv): %s" % first_line(error))
        return 1
    # Errors come back as exceptions; the log would only repeat them.
    ort.set_default_logger_severity(4)
    peer = Peer(ort, onnx, numpy_helper, np)
    reply("READY", ort.__version__)
    for line in sys.stdin:
        fields = line.rstrip("\n").split("\t")
        if fields[0] != "RUN" or len(fields) != 3:
            reply("ERROR", "protocol: unexpected request %r" % line.rstrip())
            continue
        try:
            for output in peer.run(fields[1], fields[2]):
                reply(*output)
            reply("DONE")
        except StageError as error:
            reply("ERROR", str(error))
        except Exception as error:
            reply("ERROR", "%s: %s" % (type(error).__name__,
                                       first_line(error)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
