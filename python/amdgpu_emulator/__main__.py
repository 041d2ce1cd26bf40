"""The command line: python3 -m amdgpu_emulator run-plan."""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from ptx_emulator.common import EmulationError  # noqa: E402
from ptx_emulator.plan import run_plan  # noqa: E402


def main():
    parser = argparse.ArgumentParser(prog="python3 -m amdgpu_emulator",
                                     description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("run-plan", help="run an AMD GPU artifact's plan")
    pl.add_argument("describe")
    pl.add_argument("device_code_dir")
    pl.add_argument("--input", action="append", default=[])
    pl.add_argument("--output-dir", required=True)
    pl.add_argument("--constants", help="the constants' data (orchestra-run --dump-constants)")
    pl.add_argument("--emulator", default="orchestra-amdgpu-emulate",
                    help="the orchestra-amdgpu-emulate to run")
    args = parser.parse_args()
    modules = {}

    with tempfile.TemporaryDirectory(prefix="amdgpu-emulate-") as tmp:
        def launch_kernel(number, module, launch, params):
            if module not in modules:
                found = glob.glob(os.path.join(args.device_code_dir,
                                               f"*.{module}.rocdl.mlir"))
                if len(found) != 1:
                    raise EmulationError(f"no single {args.device_code_dir}/*.{module}"
                                         ".rocdl.mlir (--dump-device-code)")
                modules[module] = found[0]
            command = [args.emulator, modules[module], "--kernel", launch["function"],
                       "--grid", ",".join(map(str, launch["grid"])),
                       "--block", ",".join(map(str, launch["block"]))]
            files = []
            for i, param in enumerate(params):
                if isinstance(param, np.ndarray):
                    path = os.path.join(tmp, f"param_{i}.bin")
                    param.tofile(path)
                    files.append((path, param))
                    command += ["--arg", f"buffer:{path}"]
                elif isinstance(param, dict) and param["kind"] == "immediate":
                    command += ["--arg", f"imm{param['size']}:{param['value']}"]
                else:
                    raise EmulationError(f"step {number}: parameter {i} is not supported "
                                         "by the AMD emulator")
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode:
                raise EmulationError(f"step {number}, {launch['function']}: "
                                     f"{(result.stdout + result.stderr).strip()}")
            for path, array in files:
                array[:] = np.fromfile(path, np.uint8)

        try:
            run_plan(args, "amd_", launch_kernel)
        except EmulationError as e:
            sys.exit(f"amdgpu_emulator: {e}")


if __name__ == "__main__":
    main()
