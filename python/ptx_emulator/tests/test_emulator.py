"""Unit tests of the PTX emulator's parts: the parser, the value encodings,
one launch of a small kernel (and the errors it must report) and the plan
reader. Run with `python3 -m unittest discover -s python -p 'test_*.py'`
(test/Target/NVIDIA/ptx-emulator-unit.test)."""

import json
import os
import tempfile
import unittest

import numpy as np

from ptx_emulator import EmulationError, Kernel, parse_plan, run_launch
from ptx_emulator.parser import parse_operand, split_top
from ptx_emulator.values import f_decode, f_encode, sext, swizzle128

# y[i] = x[i] + 1.0 for the 32 threads of one block, as LLVM's NVPTX
# backend writes such a kernel.
ADD_ONE = """
.version 8.0
.target sm_90a
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u64 add_one_param_1
)
{
	.reg .b32 	%r<2>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u64 	%rd2, [add_one_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd3, %rd3, %rd5;
	add.s64 	%rd4, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd3];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd4], %f2;
	ret;
}
"""


# The warp instructions of the branch probes, in a divergent region (threads
# 0-39 of 48: warp 1 runs with 8 of its 16 lanes): each thread writes its
# active mask, the ballot of "tid is odd" and its popcount, and adds 1 to a
# 64-bit counter.
VOTES = """
.version 8.0
.target sm_90a
.address_size 64

.visible .entry votes(
	.param .u64 votes_param_0,
	.param .u64 votes_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<7>;

	ld.param.u64 	%rd1, [votes_param_0];
	ld.param.u64 	%rd2, [votes_param_1];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, 40;
	@%p1 bra 	$L__end;
	activemask.b32 %r2;
	and.b32 	%r3, %r1, 1;
	setp.ne.b32 	%p2, %r3, 0;
	vote.sync.ballot.b32 	%r4, %p2, %r2;
	popc.b32 	%r5, %r4;
	mul.wide.u32 	%rd3, %r1, 12;
	add.s64 	%rd4, %rd1, %rd3;
	st.global.u32 	[%rd4], %r2;
	st.global.u32 	[%rd4+4], %r4;
	st.global.u32 	[%rd4+8], %r5;
	atom.global.add.u64 	%rd5, [%rd2], 1;
$L__end:
	ret;
}
"""


def write_kernel(directory, text):
    path = os.path.join(directory, "k.ptx")
    with open(path, "w") as f:
        f.write(text)
    return Kernel(path)


class ParserTest(unittest.TestCase):
    def test_split_top_keeps_brackets_and_braces(self):
        self.assertEqual(split_top("%r1, [%rd2+4], {%f1, %f2}"),
                         ["%r1", "[%rd2+4]", "{%f1, %f2}"])

    def test_kernel_parameters_and_name(self):
        with tempfile.TemporaryDirectory() as tmp:
            kernel = write_kernel(tmp, ADD_ONE)
        self.assertEqual(kernel.name, "add_one")
        self.assertEqual([name for name, _ in kernel.params],
                         ["add_one_param_0", "add_one_param_1"])

    def test_operands(self):
        self.assertIsNotNone(parse_operand("%r1"))
        self.assertIsNotNone(parse_operand("0f3F800000"))


class ValuesTest(unittest.TestCase):
    def test_float_encodings_round_trip(self):
        values = np.array([0.0, 1.0, -2.5, 384.0])
        for dtype in ("f16", "bf16", "f32"):
            bits = f_encode(values, dtype)
            np.testing.assert_array_equal(f_decode(bits, dtype), values)

    def test_sign_extension(self):
        self.assertEqual(int(sext(np.array([0xFF]), 8)[0]), -1)
        self.assertEqual(int(sext(np.array([0x7F]), 8)[0]), 127)

    def test_swizzle_is_a_permutation_of_each_1024_bytes(self):
        offsets = np.arange(0, 1024, 16)
        swizzled = swizzle128(offsets)
        self.assertEqual(sorted(swizzled.tolist()), offsets.tolist())


class LaunchTest(unittest.TestCase):
    def test_add_one(self):
        x = np.arange(32, dtype=np.float32)
        buffers = [np.frombuffer(x.tobytes(), np.uint8).copy(),
                   np.full(128, 0xFF, np.uint8)]
        with tempfile.TemporaryDirectory() as tmp:
            kernel = write_kernel(tmp, ADD_ONE)
        run_launch(kernel, (1, 1, 1), (32, 1, 1), 0, buffers, {})
        np.testing.assert_array_equal(buffers[1].view(np.float32), x + 1)

    def test_out_of_bounds_access_is_an_error(self):
        buffers = [np.zeros(64, np.uint8), np.zeros(128, np.uint8)]
        with tempfile.TemporaryDirectory() as tmp:
            kernel = write_kernel(tmp, ADD_ONE)
        with self.assertRaises(EmulationError):
            run_launch(kernel, (1, 1, 1), (32, 1, 1), 0, buffers, {})

    def test_unsupported_instruction_is_named(self):
        text = ADD_ONE.replace("add.f32 	%f2, %f1, 0f3F800000;",
                               "frobnicate.f32 	%f2, %f1;")
        buffers = [np.zeros(128, np.uint8), np.zeros(128, np.uint8)]
        with tempfile.TemporaryDirectory() as tmp:
            kernel = write_kernel(tmp, text)
        with self.assertRaisesRegex(EmulationError, "frobnicate"):
            run_launch(kernel, (1, 1, 1), (32, 1, 1), 0, buffers, {})


class WarpTest(unittest.TestCase):
    def run_votes(self, text):
        buffers = [np.full(48 * 12, 0xFF, np.uint8), np.zeros(8, np.uint8)]
        with tempfile.TemporaryDirectory() as tmp:
            kernel = write_kernel(tmp, text)
        run_launch(kernel, (1, 1, 1), (48, 1, 1), 0, buffers, {})
        return buffers[0].view(np.uint32).reshape(48, 3), buffers[1].view(np.uint64)[0]

    def test_votes_of_the_active_lanes(self):
        out, counter = self.run_votes(VOTES)
        np.testing.assert_array_equal(out[:32], [[0xFFFFFFFF, 0xAAAAAAAA, 16]] * 32)
        np.testing.assert_array_equal(out[32:40], [[0xFF, 0xAA, 4]] * 8)
        np.testing.assert_array_equal(out[40:], np.full((8, 3), 0xFFFFFFFF))
        self.assertEqual(counter, 40)

    def test_vote_of_lanes_that_do_not_execute_it_is_an_error(self):
        text = VOTES.replace("vote.sync.ballot.b32 	%r4, %p2, %r2;",
                             "vote.sync.ballot.b32 	%r4, %p2, -1;")
        with self.assertRaisesRegex(EmulationError, "names lanes that do not execute it"):
            self.run_votes(text)


class PlanTest(unittest.TestCase):
    def test_parse_plan(self):
        doc = {
            "devices": [{"name": "gpu0", "arch": "nvidia_hopper", "driver": "cuda",
                         "device_id": 0, "num_threads": 1}],
            "memory_spaces": [{"name": "hbm", "device": 0, "arena_bytes": 256}],
            "inputs": [{"name": "x", "dtype": "f32", "shape": [32], "value": 0}],
            "outputs": [{"name": "y", "dtype": "f32", "shape": [32], "value": 1}],
            "values": [{"space": 0, "offset": 0, "bytes": 128},
                       {"space": 0, "offset": 128, "bytes": 128}],
            "constants": [],
            "binaries": [{"arch": "nvidia_hopper", "format": "gpu-module-bundle",
                          "bundle": {"chip": "sm_90a",
                                     "modules": [{"name": "m", "images": []}],
                                     "kernels": [{"symbol": "k", "scratch_bytes": [64],
                                                  "launches": [{
                                                      "module": 0, "function": "add_one",
                                                      "grid": [1, 1, 1], "block": [32, 1, 1],
                                                      "dynamic_shared_bytes": 0,
                                                      "params": [{"kind": "buffer", "index": 0},
                                                                 {"kind": "buffer",
                                                                  "index": 1}]}]}]}}],
            "kernels": [{"symbol": "k", "binary": 0}],
            "steps": [{"kind": "launch", "device": 0, "name": "t0", "kernel": 0,
                       "num_inputs": 1, "args": [0, 1], "deps": []}],
        }
        plan = parse_plan(json.dumps(doc))
        self.assertEqual(plan["devices"], {0: "nvidia_hopper"})
        self.assertEqual(plan["inputs"], [("x", "f32", (32,), 0)])
        self.assertEqual(plan["values"][1], (0, 128, 128))
        self.assertEqual(plan["modules"], {(0, 0): "m"})
        kernel = plan["bundle_kernels"][(0, "k")]
        self.assertEqual(kernel["scratch"], [64])
        self.assertEqual(kernel["launches"][0]["block"], (32, 1, 1))
        self.assertEqual(plan["steps"], [("launch", 0, 0, [0, 1])])


if __name__ == "__main__":
    unittest.main()
