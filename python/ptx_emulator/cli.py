"""The command line: python3 -m ptx_emulator run|gen|check-gemm|run-plan."""

import argparse
import os
import sys

import numpy as np

from .common import EmulationError
from .parser import Kernel
from .plan import cmd_run_plan
from .runner import bind_params, dims, load_values, run_launch, select_blocks
from .values import f_decode, f_encode


def cmd_run(args):
    kernel = Kernel(args.ptx)
    grid = dims(args.grid)
    buffers, outputs, maps = bind_params(kernel, args.param)
    L, blocks = run_launch(kernel, grid, dims(args.block), args.dynamic_shared, buffers, maps,
                           args.blocks, args.seed)
    for i, path, dt, shape, array in outputs:
        np.save(path, buffers[i].view(dt).reshape(shape) if array is None else array)
    print(f"{kernel.name}: emulated {len(blocks)} of {int(np.prod(grid))} blocks x {L.nt} "
          "threads, "
          f"{L.steps // max(len(blocks), 1)} instructions per block, "
          f"{L.shared_size} bytes of shared memory" +
          (f", {L.tma_copies // max(len(blocks), 1)} TMA copies per block" if L.tma_copies
           else "") +
          (f", {L.tma_stores // max(len(blocks), 1)} TMA stores per block" if L.tma_stores
           else "") + ": no errors")



def cmd_gen(args):
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for spec in args.specs:
        name, dt, shape, lo, hi = spec.split(":")
        v = rng.integers(int(lo), int(hi) + 1, tuple(int(x) for x in shape.split("x")))
        if dt == "bf16":  # its bits, as uint16 (exact: small integers)
            v = (v.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        else:
            v = v.astype({"f16": np.float16, "f32": np.float32, "i32": np.int32}[dt])
        np.save(os.path.join(args.dir, name + ".npy"), v)



def cmd_check_gemm(args):
    a, b = (load_values(os.path.join(args.dir, n + ".npy")) for n in ("a", "b"))
    if args.plain:
        expected, what = a @ b, "a @ b"
    else:
        bias = load_values(os.path.join(args.dir, "bias.npy"))
        expected, what = np.maximum(a @ b + bias, 0), "relu(a @ b + bias)"
    raw, grid = np.load(args.out), dims(args.grid)
    out = raw
    if raw.dtype == np.uint16:  # bf16 bits: one rounding of the exact result
        expected = f_decode(f_encode(expected, "bf16"), "bf16").astype(np.float64)
        out = f_decode(out.astype(np.uint64), "bf16")
    M, N = expected.shape
    if out.shape != expected.shape or M % grid[1] or N % grid[0]:
        raise EmulationError(f"output {out.shape} vs expected {expected.shape} on grid {grid}")
    tm, tn = M // grid[1], N // grid[0]
    blocks = select_blocks(args.blocks, grid, args.seed)
    mine = np.zeros(out.shape, bool)
    for x, y, _ in blocks:
        mine[y * tm:(y + 1) * tm, x * tn:(x + 1) * tn] = True
    err = np.abs(out.astype(np.float64) - expected)
    bad = mine & ~(err <= args.atol)  # NaN (unwritten) fails too
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise EmulationError(f"{bad.sum()} of {mine.sum()} elements differ, first ({r}, {c}): "
                             f"{out[r, c]} instead of {expected[r, c]}")
    stray = ~mine & (raw.view(np.uint8).reshape(raw.shape + (-1,)) != 0xFF).any(axis=-1)
    if stray.any():
        raise EmulationError(f"element {tuple(np.argwhere(stray)[0])} outside the chosen "
                             "blocks' tiles was written")
    print(f"check-gemm: {len(blocks)} tiles of {tm}x{tn} match {what}, "
          f"max abs error {err[mine].max():.3g} (tolerance {args.atol})")


def main():
    ap = argparse.ArgumentParser(prog="ptx_emulator",
                                 description=sys.modules[__package__].__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="emulate a kernel")
    g = sub.add_parser("gen", help="integer-valued inputs")
    c = sub.add_parser("check-gemm", help="compare with relu(a @ b + bias)")
    pl = sub.add_parser("run-plan", help="run a GPU artifact's plan")
    pl.add_argument("describe")
    pl.add_argument("ptx_dir")
    pl.add_argument("--input", action="append", default=[])
    pl.add_argument("--output-dir", required=True)
    pl.add_argument("--constants", help="the constants' data (orchestra-run --dump-constants)")
    for p, arg in ((r, "ptx"), (g, "dir"), (c, "dir"), (c, "out")):
        p.add_argument(arg)
    for p, flag in ((r, "--grid"), (r, "--block"), (c, "--grid")):
        p.add_argument(flag, required=True)
    r.add_argument("--dynamic-shared", type=int, default=0)
    r.add_argument("--param", action="append", default=[])
    g.add_argument("specs", nargs="+")
    c.add_argument("--atol", type=float, default=0.0)
    c.add_argument("--plain", action="store_true", help="compare with a @ b (no bias.npy)")
    for p, default in ((r, 0), (g, 1), (c, 0)):
        p.add_argument("--seed", type=int, default=default)
    for p in (r, c):
        p.add_argument("--blocks", default="all")
    args = ap.parse_args()
    try:
        {"run": cmd_run, "gen": cmd_gen, "check-gemm": cmd_check_gemm,
         "run-plan": cmd_run_plan}[args.cmd](args)
    except (EmulationError, OSError, ValueError) as e:
        sys.exit(f"ptx_emulator: error: {e}")

