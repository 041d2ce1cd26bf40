"""python3 -m orchestra_rt: run an artifact through the Python bindings.

    python3 -m orchestra_rt ARTIFACT.orcx [--input [NAME=]FILE.npy ...]
        [--output-dir DIR] [--repeat N] [--steps] [--quiet]
    python3 -m orchestra_rt ARTIFACT.orcx --info

What orchestra-run does for running (its --input, --output-dir and --repeat
mean the same), with nothing but the runtime library, Python and numpy: on a
machine without the compiler's LLVM and MLIR libraries, an artifact compiled
elsewhere runs. --steps prints each step of the last run with its time;
--info prints the artifact's devices, inputs and outputs instead of running.
Exits 1 with "orchestra_rt: error: ..." on any failure.
"""

import argparse
import os
import sys
import time

import numpy as np

from . import Artifact, Error, Session


def _type(info, shape=None):
    """"f32 4x8"; a dynamic dimension (-1) is "?" unless `shape` gives it."""
    shape = info.shape if shape is None else shape
    return f"{info.dtype} " + ("x".join(
        "?" if d == -1 else str(d) for d in shape) or "scalar")


def _read_inputs(arguments, infos):
    """The arrays of the --input arguments, in entry-argument order."""
    index = {info.name: i for i, info in enumerate(infos)}
    named, positional = {}, []
    for argument in arguments:
        name, sep, path = argument.partition("=")
        if sep and name in index:
            if index[name] in named:
                raise Error(f"input '{name}' is given twice")
            named[index[name]] = path
        elif sep and not os.path.exists(argument):
            known = ", ".join(f"'{info.name}'" for info in infos) or "none"
            raise Error(f"the entry has no input named '{name}' (its inputs: "
                        f"{known})")
        else:
            positional.append(argument)
    if named and positional:
        raise Error("--input mixes NAME=FILE and plain FILE arguments; use one "
                    "form for all inputs")
    if not named and len(positional) != len(infos):
        raise Error(f"the entry takes {len(infos)} inputs, got "
                    f"{len(positional)} --input files")
    paths = positional or [named.get(i) for i in range(len(infos))]
    arrays = []
    for i, (path, info) in enumerate(zip(paths, infos)):
        if path is None:
            raise Error(f"missing input {i} ('{info.name}', {_type(info)})")
        try:
            arrays.append(np.load(path, allow_pickle=False))
        except (OSError, ValueError) as e:
            raise Error(f"input {i} ('{info.name}'): cannot read '{path}': "
                        f"{e}") from None
    return arrays


def _statistics(what, values):
    values = sorted(values)
    return (f"{what}: median {np.median(values):.3f} ms, min "
            f"{values[0]:.3f} ms")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m orchestra_rt",
        description="Runs an OrchestraOS artifact through the runtime's "
                    "Python bindings.")
    parser.add_argument("artifact", help="the .orcx file")
    parser.add_argument("--input", action="append", default=[],
                        metavar="[NAME=]FILE",
                        help="an input as a .npy file, in entry-argument order "
                             "or by name; repeat for each input")
    parser.add_argument("--output-dir", metavar="DIR",
                        help="write the outputs to DIR/output_<i>.npy")
    parser.add_argument("--repeat", type=int, default=0, metavar="N",
                        help="after the first (warm-up) run, time N more runs")
    parser.add_argument("--steps", action="store_true",
                        help="print each step of the last run and its time")
    parser.add_argument("--info", action="store_true",
                        help="print the devices, inputs and outputs instead "
                             "of running")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing on success but --repeat's and "
                             "--steps' lines")
    args = parser.parse_args(argv)
    if args.repeat < 0:
        parser.error("--repeat must not be negative")
    try:
        artifact = Artifact(args.artifact)
        if args.info:
            print(f"entry {artifact.entry_name} for topology "
                  f"{artifact.topology_name} ({artifact.producer})")
            for name, arch in artifact.devices:
                print(f"device {name}: {arch}")
            for kind, infos in (("input", artifact.inputs),
                                ("output", artifact.outputs)):
                for i, info in enumerate(infos):
                    print(f"{kind} {i} '{info.name}': {_type(info)}, "
                          f"{info.byte_size} B")
            return 0
        inputs = _read_inputs(args.input, artifact.inputs)
        with Session(artifact) as session:
            start = time.perf_counter()
            outputs = session.run(*inputs)
            first = (time.perf_counter() - start) * 1e3
            latencies, spans, gpu = [], [], []
            for _ in range(args.repeat):
                start = time.perf_counter()
                outputs = session.run(*inputs)
                latencies.append((time.perf_counter() - start) * 1e3)
                events = session.trace()
                spans.append((max(e.end_ns for e in events) -
                               min(e.start_ns for e in events)) / 1e6
                              if events else 0.0)
                gpu.append(sum(e.device_ns for e in events) / 1e6)
            events = session.trace()
        if args.output_dir:
            os.makedirs(args.output_dir, exist_ok=True)
            for i, output in enumerate(outputs):
                np.save(os.path.join(args.output_dir, f"output_{i}.npy"),
                        output)
        if not args.quiet:
            for i, (info, output) in enumerate(zip(artifact.outputs,
                                                   outputs)):
                print(f"output_{i}: {_type(info, output.shape)}")
            print(f"run time: {first:.3f} ms")
        if latencies:
            print(_statistics("latency", latencies))
            print(_statistics("steps", spans))
            if all(gpu):
                print(_statistics("gpu", gpu))
        if args.steps:
            for e in events:
                gpu_time = f", GPU {e.device_ns / 1e6:.3f} ms" \
                    if e.device_ns else ""
                print(f"step '{e.name}' ({e.kind}, device {e.device}): "
                      f"{e.duration_ns / 1e6:.3f} ms{gpu_time}")
    except Error as e:
        print(f"orchestra_rt: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
