#!/usr/bin/env python3
"""Fails if an `orchestra.*` attribute name is spelled outside an
AttrNames.h, or in two of them.

The discardable attributes that passes, backends, the artifact builder and
the tools hand to each other are named once: the core's in
include/orchestra/Dialect/Orchestra/IR/AttrNames.h, each backend's in
include/orchestra/Target/<Name>/AttrNames.h. Code uses the constants.
Usage: check-attr-names.py <source root>

Scanned: C++ sources and headers under lib/, include/, tools/ and bench/.
A string literal "orchestra.<name>" is an attribute name (ops are spelled
in ODS, passes with hyphens).
"""

import os
import re
import sys

LITERAL = re.compile(r'"(orchestra\.[a-z0-9_]+)"')
FOLDERS = ["lib", "include", "tools", "bench"]
SUFFIXES = (".cpp", ".h", ".inc")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-attr-names.py <source root>")
    root = sys.argv[1]
    defined = {}
    problems = []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for filename in sorted(filenames):
                if not filename.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, filename)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        for name in LITERAL.findall(line):
                            if filename != "AttrNames.h":
                                problems.append(
                                    f"{rel}:{number}: '{name}' spelled "
                                    f"outside an AttrNames.h")
                            elif name in defined:
                                problems.append(
                                    f"{rel}:{number}: '{name}' is also "
                                    f"named in {defined[name]}")
                            else:
                                defined[name] = f"{rel}:{number}"
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} attribute name(s) not named once")
        return 1
    print(f"{len(defined)} attribute names, each named once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
