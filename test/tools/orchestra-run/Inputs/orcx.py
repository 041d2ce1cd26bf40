#!/usr/bin/env python3
"""Writes small OrchestraOS artifacts and .npy files for the orchestra-run tests.

An independent writer of the format in docs/Artifact.md (the C++ one lives in
runtime/src/Artifact.cpp), using only the standard library.

  orcx.py artifact KIND OUT      KIND: copy, two-inputs, wrong-arch,
                                 missing-feature, garbage-binary,
                                 bad-step-device, version-1, version-4,
                                 unknown-driver, corrupted
  orcx.py npy DESCR SHAPE OUT    an arange array; SHAPE like 2x3 or "" (scalar);
                                 --fortran, --version N, --truncate N
  orcx.py dump-npy FILE          prints descr, shape and values
"""

import argparse
import platform
import struct
import sys

F32, I32 = 0, 7
LAUNCH, COPY = 0, 1


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Writer:
    def __init__(self):
        self.out = bytearray()

    def u32(self, v):
        self.out += struct.pack("<I", v)

    def u64(self, v):
        self.out += struct.pack("<Q", v)

    def i64(self, v):
        self.out += struct.pack("<q", v)

    def f64(self, v):
        self.out += struct.pack("<d", v)

    def str(self, s):
        data = s.encode()
        self.u32(len(data))
        self.out += data

    def blob(self, data):
        self.u64(len(data))
        self.out += data

    def u32s(self, values):
        self.u32(len(values))
        for v in values:
            self.u32(v)

    def tensors(self, tensors):
        self.u32(len(tensors))
        for name, dtype, shape in tensors:
            self.str(name)
            self.u32(dtype)
            self.u32(len(shape))
            for d in shape:
                self.i64(d)


def host_arch():
    machine = platform.machine()
    return {"arm64": "aarch64"}.get(machine, machine)


def copy_plan():
    """x: f32[2x3] goes cpu0 -> cpu1 -> cpu0 and comes back as y; k: i32[4]
    is a constant output."""
    return {
        "producer": "orcx.py",
        "topology": "two-cpu",
        "devices": [("cpu0", "x86_64", "cpu", 0, 1),
                    ("cpu1", "x86_64", "cpu", 1, 1)],
        "spaces": [("cpu0_dram", 0, 48), ("cpu1_dram", 1, 40)],
        "entry": "copy",
        "inputs": [("x", F32, [2, 3])],
        "input_values": [0],
        "outputs": [("y", F32, [2, 3]), ("k", I32, [4])],
        "output_values": [2, 3],
        "values": [(0, 0, 24), (1, 0, 24), (0, 24, 24), (1, 24, 16)],
        "constants": [(3, struct.pack("<4i", 1, 2, 3, 4))],
        "binaries": [],
        "kernels": [],
        # (kind, device, name, kernel, args, num_inputs, deps, start, finish)
        "steps": [
            (COPY, 0, "x_to_cpu1", 0, [0, 1], 0, [], 0.0, 2e-6),
            (COPY, 1, "x_to_cpu0", 0, [1, 2], 0, [0], 2e-6, 4e-6),
        ],
    }


def with_kernel(plan, arch, data, features):
    """Adds a launch of `k` from one binary to `plan`."""
    plan["binaries"] = [(arch, "elf-shared-object", data, features)]
    plan["kernels"] = [("k", 0)]
    plan["steps"].append((LAUNCH, 0, "launch_k", 0, [0, 2], 1, [1], -1.0, -1.0))
    return plan


def payload(plan):
    w = Writer()
    w.str(plan["producer"])
    w.str(plan["topology"])
    w.u32(len(plan["devices"]))
    for name, arch, driver, device_id, threads in plan["devices"]:
        w.str(name)
        w.str(arch)
        w.str(driver)
        w.u32(device_id)
        w.u32(threads)
    w.u32(len(plan["spaces"]))
    for name, device, arena in plan["spaces"]:
        w.str(name)
        w.u32(device)
        w.u64(arena)
    w.str(plan["entry"])
    w.tensors(plan["inputs"])
    w.u32s(plan["input_values"])
    w.tensors(plan["outputs"])
    w.u32s(plan["output_values"])
    w.u32(len(plan["values"]))
    for space, offset, size in plan["values"]:
        w.u32(space)
        w.u64(offset)
        w.u64(size)
    w.u32(len(plan["constants"]))
    for value, data in plan["constants"]:
        w.u32(value)
        w.blob(data)
    w.u32(len(plan["binaries"]))
    for arch, fmt, data, features in plan["binaries"]:
        w.str(arch)
        w.str(fmt)
        w.blob(data)
        w.u32(len(features))
        for f in features:
            w.str(f)
    w.u32(len(plan["kernels"]))
    for symbol, binary in plan["kernels"]:
        w.str(symbol)
        w.u32(binary)
    w.u32(len(plan["steps"]))
    for kind, device, name, kernel, args, num_inputs, deps, start, finish in plan[
        "steps"
    ]:
        w.u32(kind)
        w.u32(device)
        w.str(name)
        w.u32(kernel)
        w.u32s(args)
        w.u32(num_inputs)
        w.u32s(deps)
        w.f64(start)
        w.f64(finish)
    # 3.0: dynamic dims (none), and the sizes of each input, output and step.
    w.u32(0)
    for _ in plan["inputs"] + plan["outputs"] + plan["steps"]:
        w.u32(0)
    return bytes(w.out)


def artifact(plan, major=3, minor=0):
    body = payload(plan)
    header = b"ORCXART\0" + struct.pack(
        "<IIQQQ", major, minor, len(body), fnv1a64(body), 0
    )
    return header + body


def make_artifact(kind):
    plan = copy_plan()
    other_arch = "x86_64" if host_arch() == "aarch64" else "aarch64"
    if kind == "copy":
        return artifact(plan)
    if kind == "wrong-arch":
        return artifact(with_kernel(plan, other_arch, b"\x7fELF", []))
    if kind == "missing-feature":
        return artifact(
            with_kernel(plan, host_arch(), b"\x7fELF", ["nonexistent_feature"])
        )
    if kind == "garbage-binary":
        return artifact(with_kernel(plan, host_arch(), b"not an ELF file", []))
    if kind == "two-inputs":
        plan["spaces"][0] = ("cpu0_dram", 0, 64)
        plan["inputs"].append(("z", F32, [4]))
        plan["input_values"].append(4)
        plan["values"].append((0, 48, 16))
        return artifact(plan)
    if kind == "bad-step-device":
        plan["steps"][1] = (COPY, 2) + plan["steps"][1][2:]
        return artifact(plan)
    if kind == "version-4":
        return artifact(plan, major=4, minor=1)
    if kind == "version-1":
        return artifact(plan, major=1, minor=0)
    if kind == "unknown-driver":
        plan["devices"][1] = ("cpu1", "x86_64", "warp_drive", 1, 1)
        return artifact(plan)
    if kind == "corrupted":
        data = bytearray(artifact(plan))
        data[60] ^= 1
        return bytes(data)
    sys.exit("unknown artifact kind " + kind)


def npy_bytes(descr, shape, fortran=False, version=1):
    shape_text = "(" + ", ".join(str(d) for d in shape)
    shape_text += ",)" if len(shape) == 1 else ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr,
        fortran,
        shape_text,
    )
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    count = 1
    for d in shape:
        count *= d
    fmt = {
        "f4": "f", "f8": "d", "f2": "e", "i4": "i", "i8": "q", "i2": "h",
        "i1": "b", "u1": "B", "b1": "?", "u2": "H", "u4": "I",
    }.get(descr[1:])
    if fmt is None:  # a type the tools do not read (e.g. complex): 8 bytes
        return (b"\x93NUMPY" + bytes([version, 0]) + length + header.encode()
                + bytes(8 * count))
    endian = ">" if descr[0] == ">" else "<"
    values = [bool(i % 2) if fmt == "?" else i for i in range(count)]
    data = struct.pack(endian + fmt * count, *values)
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + data


def dump_npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "bad magic"
    if data[6] == 1:
        (length,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (length,) = struct.unpack("<I", data[8:12])
        start = 12
    header = eval(data[start : start + length].decode())
    body = data[start + length :]
    fmt = {
        "f4": "f", "f8": "d", "f2": "e", "i4": "i", "i8": "q", "i2": "h",
        "i1": "b", "u1": "B", "b1": "?", "u2": "H", "u4": "I",
    }[header["descr"][1:]]
    count = len(body) // struct.calcsize(fmt)
    values = struct.unpack("<" + fmt * count, body)
    print(
        "descr=%s fortran_order=%s shape=%s data_offset=%d values=%s"
        % (
            header["descr"],
            header["fortran_order"],
            header["shape"],
            start + length,
            " ".join(str(v) for v in values),
        )
    )


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("artifact")
    a.add_argument("kind")
    a.add_argument("out")
    n = sub.add_parser("npy")
    n.add_argument("descr")
    n.add_argument("shape")
    n.add_argument("out")
    n.add_argument("--fortran", action="store_true")
    n.add_argument("--version", type=int, default=1)
    n.add_argument("--truncate", type=int)
    d = sub.add_parser("dump-npy")
    d.add_argument("file")
    args = parser.parse_args()
    if args.command == "artifact":
        open(args.out, "wb").write(make_artifact(args.kind))
    elif args.command == "npy":
        shape = [int(d) for d in args.shape.split("x")] if args.shape else []
        data = npy_bytes(args.descr, shape, args.fortran, args.version)
        if args.truncate is not None:
            data = data[: args.truncate]
        open(args.out, "wb").write(data)
    else:
        dump_npy(args.file)


if __name__ == "__main__":
    main()
