"""A stand-in for AWS's neuronx-cc (not on PyPI) in the tests.

It checks the command line orchestra-stablehlo-emit-binary gives it
(`compile HLO --framework XLA --target trn2 --logical-nc-config N
--auto-cast none --logfile LOG --output NEFF`) and that the input is an XLA
HloModuleProto (parsed by jaxlib's XLA), then writes a file that is not a
NEFF: a marker line, the logical cores, and the HLO module's text, so the
test can check what reached the compiler. FAKE_NEURONX_CC_FAIL=message
makes it fail the way neuronx-cc reports an error.
"""

import argparse
import os
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "compile":
        print("fake neuronx-cc: expected the 'compile' command",
              file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="neuronx-cc compile")
    parser.add_argument("model")
    parser.add_argument("--framework", required=True, choices=["XLA"])
    parser.add_argument("--target", required=True, choices=["trn2"])
    parser.add_argument("--logical-nc-config", required=True, type=int,
                        choices=[1, 2])
    parser.add_argument("--auto-cast", required=True, choices=["none"])
    parser.add_argument("--logfile", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(sys.argv[2:])

    failure = os.environ.get("FAKE_NEURONX_CC_FAIL")
    if failure:
        print(f"ERROR: {failure}", file=sys.stderr)
        return 1
    from jaxlib import _hlo
    with open(args.model, "rb") as f:
        hlo = _hlo.XlaComputation(f.read()).as_hlo_text()
    with open(args.logfile, "w") as f:
        f.write("fake neuronx-cc: compiled\n")
    with open(args.output, "w") as f:
        f.write(f"FAKE-NEFF logical-nc-config={args.logical_nc_config}\n")
        f.write(hlo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
