#!/usr/bin/env python3
"""Lists the vendor names in the source files of a tree, outside the folders
allowed to hold them (a backend's or driver's own folder).

    vendor_names.py ROOT [--allow DIR]... [--skip FILE]...

Prints `path:line: word: text` for each name found and exits 1 when there is
one. Paths are relative to ROOT; --allow takes folders (every file below
them may name vendors), --skip single files, both relative to ROOT. Only
C/C++ sources, headers, TableGen, CMake and Python files are read.

The names: GPU and accelerator vendors, their products and programming
interfaces (CUDA's `cuXxx` entry points are matched case-sensitively, the rest
case-insensitively and as whole words or word prefixes).
"""
import argparse
import os
import re
import sys

WORDS = [
    "nvidia", "nvptx", "nvvm", "cuda", "cubin", "ptx", "ptxas", "sm_[0-9]+a?",
    "wgmma", "tcgen05", "tma",
    "amd", "amdgpu", "hip", "rocm", "rocdl", "hsa", "hsaco", "gfx[0-9]+",
    "mfma",
    "google", "tpu", "libtpu", "xla", "pjrt",
    "aws", "trainium[0-9]*", "neuron", "nki",
]
# Case-insensitive, a whole word (letters, digits and `_` around it break
# it: "hip" in "ship" or "archive" does not match, `nvidia_hopper` does).
PATTERN = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(WORDS) +
                     r")(?![A-Za-z0-9])", re.IGNORECASE)
# CUDA driver entry points and types: cuMemAlloc, CUstream.
CUDA_API = re.compile(r"(?<![A-Za-z0-9_])(cu[A-Z][A-Za-z0-9]+|CU[a-z][A-Za-z0-9]+)")
EXTENSIONS = (".c", ".cc", ".cpp", ".h", ".hpp", ".inc", ".td", ".in",
              ".py", ".txt", ".cmake", ".map")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--allow", action="append", default=[])
    parser.add_argument("--skip", action="append", default=[])
    args = parser.parse_args()
    allow = [os.path.normpath(d) + os.sep for d in args.allow]
    skip = {os.path.normpath(f) for f in args.skip}
    found = 0
    for folder, dirs, files in os.walk(args.root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, args.root)
            if (not name.endswith(EXTENSIONS) or rel in skip or
                    any(rel.startswith(d) for d in allow)):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    for match in list(PATTERN.finditer(line)) + \
                            list(CUDA_API.finditer(line)):
                        print(f"{rel}:{number}: {match.group(0)}: "
                              f"{line.strip()}")
                        found += 1
    if found:
        print(f"{found} vendor name(s) outside the allowed folders")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
