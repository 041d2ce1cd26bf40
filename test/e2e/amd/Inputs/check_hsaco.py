#!/usr/bin/env python3
"""Checks the AMD code objects (.hsaco) of a --dump-device-code folder.

  check_hsaco.py OBJDUMP DIR [--require KIND ...] [--forbid KIND ...]

Disassembles every DIR/*.hsaco with `OBJDUMP -d --mcpu=gfx942` (LLVM's
llvm-objdump) and counts, per code object and in all, the instructions of
each kind: mfma (v_mfma_*), lds_read (ds_read*/ds_load*), lds_write
(ds_write*/ds_store*), barrier (s_barrier), global (global_load/store*),
scratch (scratch_* and buffer accesses to scratch: register spills or
private arrays). Fails when a code object does not disassemble, holds an
instruction the disassembler does not know, has no s_endpgm, or when a
--require kind is absent from all of them or a --forbid kind (default:
scratch) is present in any. Prints one summary line:

  N code object(s): mfma A, lds_read B, lds_write C, barrier D, global E, scratch F
"""

import argparse
import glob
import os
import re
import subprocess
import sys

KINDS = {
    "mfma": re.compile(r"^v_mfma_"),
    "lds_read": re.compile(r"^ds_(read|load)"),
    "lds_write": re.compile(r"^ds_(write|store)"),
    "barrier": re.compile(r"^s_barrier$"),
    "global": re.compile(r"^global_(load|store)"),
    "scratch": re.compile(r"^scratch_|^buffer_(load|store)"),
}


def count(objdump, path):
    result = subprocess.run([objdump, "-d", "--mcpu=gfx942", path],
                            capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"check_hsaco: {path}: llvm-objdump failed: {result.stderr}")
    counts = dict.fromkeys(KINDS, 0)
    ended = False
    for line in result.stdout.splitlines():
        # "\tv_mfma_f32_32x32x8_f16 a[0:15], ...   // 000000001A00: ..."
        text = line.strip()
        if not text or text.endswith(":") or text.startswith(("/", ";")):
            continue
        if "<unknown>" in text:
            sys.exit(f"check_hsaco: {path}: unknown instruction: {text}")
        mnemonic = text.split()[0]
        if mnemonic == "s_endpgm":
            ended = True
        for kind, pattern in KINDS.items():
            if pattern.match(mnemonic):
                counts[kind] += 1
    if not ended:
        sys.exit(f"check_hsaco: {path}: no s_endpgm (no kernel code)")
    return counts


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("objdump")
    parser.add_argument("dir")
    parser.add_argument("--require", action="append", default=[],
                        choices=sorted(KINDS))
    parser.add_argument("--forbid", action="append", choices=sorted(KINDS))
    args = parser.parse_args()
    forbid = args.forbid if args.forbid is not None else ["scratch"]
    paths = sorted(glob.glob(os.path.join(args.dir, "*.hsaco")))
    if not paths:
        sys.exit(f"check_hsaco: no .hsaco in {args.dir}")
    total = dict.fromkeys(KINDS, 0)
    failed = False
    for path in paths:
        counts = count(args.objdump, path)
        for kind in forbid:
            if counts[kind]:
                print(f"check_hsaco: {os.path.basename(path)}: "
                      f"{counts[kind]} {kind} instruction(s)", file=sys.stderr)
                failed = True
        for kind in KINDS:
            total[kind] += counts[kind]
    for kind in args.require:
        if not total[kind]:
            print(f"check_hsaco: no {kind} instruction in {args.dir}",
                  file=sys.stderr)
            failed = True
    print(f"{len(paths)} code object(s): " +
          ", ".join(f"{kind} {total[kind]}" for kind in KINDS))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
