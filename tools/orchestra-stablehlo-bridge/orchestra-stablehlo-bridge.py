#!/usr/bin/env python3
"""orchestra-stablehlo-bridge: StableHLO text -> portable artifact.

The compiler writes the kernels of StableHLO archs as StableHLO text
(orchestra-lower-to-stablehlo; MLIR 22 has no StableHLO dialect). This bridge
is the version-agnostic step the specification puts between the compiler and
the vendor compilers: it parses and verifies the text with the real StableHLO
parser (jaxlib's StableHLO bindings, in the environment scripts/setup.sh
makes: .venv-xla) and writes a portable artifact (VHLO bytecode) for a target
StableHLO version, which XLA, libtpu and neuronx-cc accept from older
producers.

  orchestra-stablehlo-bridge kernel.mlir -o kernel.mlirbc [--target 1.13.3]
                             [--hlo-proto kernel.hlo.pb]
  orchestra-stablehlo-bridge [--target V] a.mlir=a.mlirbc[=a.hlo.pb] ...
  orchestra-stablehlo-bridge --check kernel.mlir
  orchestra-stablehlo-bridge --versions
  orchestra-stablehlo-bridge --check-nki kernel.py --inputs N

--target takes a version, `current` (the parser's) or `minimum` (the oldest it
can write); a version newer than the parser's is capped to it, so the target
may be the version a PJRT plugin reports. --hlo-proto also writes the module
as an XLA HloModuleProto (XLA's own converter), the input of
`neuronx-cc compile --framework XLA`. IN=OUT[=HLO] arguments convert a batch
of modules in one run (the compiler's way: one Python start-up per kernel
module), in order, stopping at the first that fails; with --hlo-only, IN=HLO
arguments write only the HLO modules. --check-nki parses the Python source of a
Neuron Kernel Interface kernel (a task's nki_source) and prints the name of
the kernel it defines: the top-level function decorated with @nki.jit (or
@jit, @nki.baremetal, @baremetal), or the only top-level function, which must
take N tensor parameters. Exit status: 0, or 1 with the
parser's message (file:line:col: error: ...) on stderr.
"""

import argparse
import sys


def fail(message):
    print(f"orchestra-stablehlo-bridge: error: {message}", file=sys.stderr)
    sys.exit(1)


def load():
    try:
        from jaxlib.mlir import ir
        from jaxlib.mlir.dialects import stablehlo
        from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    except ImportError as error:
        fail(f"the StableHLO Python bindings are not available ({error}); "
             f"run scripts/setup.sh, which installs them into .venv-xla")
    return ir, stablehlo, _jax_mlir_ext


def make_context(ir, stablehlo, ext):
    registry = ir.DialectRegistry()
    ext.register_dialects(registry)
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    return context


def parse_version(text):
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        fail(f"'{text}' is not a StableHLO version (MAJOR.MINOR.PATCH)")
    return tuple(int(p) for p in parts)


def to_hlo_proto(text, name):
    """The module as a serialized HloModuleProto, by XLA's converter."""
    try:
        from jaxlib import _jax
        computation = _jax.mlir.mlir_module_to_xla_computation(
            text, use_tuple_args=False, return_tuple=False)
        return computation.as_serialized_hlo_module_proto()
    except ImportError as error:
        fail(f"XLA's StableHLO-to-HLO converter is not available ({error})")
    except Exception as error:  # XlaRuntimeError and friends
        fail(f"cannot convert '{name}' to an HLO module: {error}")


NKI_DECORATORS = {"jit", "baremetal", "benchmark"}


def decorator_name(node):
    """The last name of a decorator: nki.jit -> jit, jit(...) -> jit."""
    import ast
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def check_nki(path, inputs, name):
    """Prints the kernel an NKI source defines; exits 1 with the reason.
    Messages call the source `name` (else its path)."""
    import ast
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read '{path}': {error}")
    shown = name or path
    try:
        tree = ast.parse(text, filename=shown)
    except SyntaxError as error:
        print(f"{shown}:{error.lineno}:{error.offset or 0}: error: "
              f"{error.msg} (the NKI source is not Python)", file=sys.stderr)
        return 1
    functions = [node for node in tree.body
                 if isinstance(node, ast.FunctionDef)]
    kernels = [f for f in functions
               if any(decorator_name(d) in NKI_DECORATORS
                      for d in f.decorator_list)]
    if not kernels and len(functions) == 1:
        kernels = functions
    if not kernels:
        fail(f"'{shown}' defines no NKI kernel: expected a top-level function "
             f"decorated with @nki.jit" +
             (f" (it defines {', '.join(f.name for f in functions)})"
              if functions else ""))
    if len(kernels) > 1:
        fail(f"'{shown}' defines {len(kernels)} NKI kernels "
             f"({', '.join(k.name for k in kernels)}); a task runs one")
    kernel = kernels[0]
    parameters = kernel.args.posonlyargs + kernel.args.args
    required = len(parameters) - len(kernel.args.defaults)
    if kernel.args.vararg is None and not (required <= inputs <=
                                           len(parameters)):
        print(f"{shown}:{kernel.lineno}:{kernel.col_offset + 1}: error: NKI "
              f"kernel '{kernel.name}' takes {len(parameters)} parameter(s)"
              f"{f' ({required} without defaults)' if required != len(parameters) else ''}"
              f"; the task passes {inputs} tensor(s)", file=sys.stderr)
        return 1
    print(kernel.name)
    return 0


def main():
    parser = argparse.ArgumentParser(
        prog="orchestra-stablehlo-bridge",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("input", nargs="?", default="-",
                        help="StableHLO text ('-': standard input), or "
                             "IN=OUT[=HLO]: a batch of modules")
    parser.add_argument("more", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("-o", dest="output", default="",
                        help="the portable artifact to write")
    parser.add_argument("--target", default="current",
                        help="StableHLO version of the artifact")
    parser.add_argument("--hlo-proto", dest="hlo_proto", default="",
                        help="also write the module as an HloModuleProto")
    parser.add_argument("--hlo-only", dest="hlo_only", action="store_true",
                        help="IN=HLO batches: write only the HloModuleProtos")
    parser.add_argument("--check", action="store_true",
                        help="only parse and verify")
    parser.add_argument("--versions", action="store_true",
                        help="print the current and minimum versions")
    parser.add_argument("--check-nki", dest="check_nki", default="",
                        help="check the NKI kernel source FILE")
    parser.add_argument("--inputs", type=int, default=0,
                        help="with --check-nki: the task's tensor inputs")
    parser.add_argument("--name", default="",
                        help="with --check-nki: the source's name in messages")
    args = parser.parse_args()
    if args.check_nki:
        return check_nki(args.check_nki, args.inputs, args.name)

    ir, stablehlo, ext = load()
    current = stablehlo.get_current_version()
    minimum = stablehlo.get_minimum_version()
    if args.versions:
        print(f"current {current}\nminimum {minimum}")
        return 0

    if args.target == "current":
        target = current
    elif args.target == "minimum":
        target = minimum
    else:
        wanted = parse_version(args.target)
        if wanted < parse_version(minimum):
            fail(f"target version {args.target} is older than the oldest "
                 f"this bridge writes ({minimum})")
        target = args.target if wanted <= parse_version(current) else current

    # IN=OUT[=HLO] arguments: a batch, in order, stopping at the first
    # module that fails (the caller finds it by its missing output).
    batch = [arg.split("=") for arg in [args.input] + args.more
             if "=" in arg]
    if batch:
        if args.output or args.hlo_proto or args.check or \
                len(batch) != 1 + len(args.more):
            fail("give either IN=OUT[=HLO] arguments or one input with -o")
        for fields in batch:
            if len(fields) not in (2, 3) or not all(fields) or \
                    (args.hlo_only and len(fields) != 2):
                fail(f"expected {'IN=HLO' if args.hlo_only else 'IN=OUT or IN=OUT=HLO'}, "
                     f"got '{'='.join(fields)}'")
            if args.hlo_only:
                fields = [fields[0], "", fields[1]]
            status = convert(ir, stablehlo, ext, fields[0], fields[1],
                             fields[2] if len(fields) == 3 else "", target,
                             check=False)
            if status:
                return status
        return 0
    if args.more:
        fail(f"unexpected argument '{args.more[0]}'")
    if not args.check and not args.output:
        fail("no output: give -o FILE, or --check")
    return convert(ir, stablehlo, ext, args.input, args.output, args.hlo_proto,
                   target, check=args.check)


def convert(ir, stablehlo, ext, path, output, hlo_proto, target, check):
    """Parses and verifies the StableHLO text at `path` ('-': stdin), then
    writes its portable artifact for `target` to `output` (and the HLO
    module to `hlo_proto`); returns the exit status."""
    name = "<stdin>" if path == "-" else path
    try:
        text = (sys.stdin.read() if path == "-"
                else open(path, encoding="utf-8").read())
    except OSError as error:
        fail(f"cannot read '{name}': {error.strerror}")

    with make_context(ir, stablehlo, ext):
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as error:
            for diagnostic in error.error_diagnostics:
                location = str(diagnostic.location)
                # loc("file":line:col) -> file:line:col, with our name.
                if location.startswith("loc(") and '":' in location:
                    location = name + ":" + location.split('":', 1)[1][:-1]
                print(f"{location}: error: {diagnostic.message}",
                      file=sys.stderr)
            return 1
        if not module.operation.verify():
            fail(f"'{name}' does not verify")
        if check:
            return 0
        outputs = []
        if output:
            try:
                artifact = stablehlo.serialize_portable_artifact(module, target)
            except Exception as error:  # the bindings raise ValueError
                fail(f"cannot write a portable artifact of '{name}' for "
                     f"StableHLO {target}: {error}")
            outputs.append((output, artifact))
    if hlo_proto:
        outputs.append((hlo_proto, to_hlo_proto(text, name)))
    for out, data in outputs:
        try:
            with open(out, "wb") as f:
                f.write(data)
        except OSError as error:
            fail(f"cannot write '{out}': {error.strerror}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
