#!/usr/bin/env python3
"""Fails if a vendor's name appears in lib/ outside the vendor's backend folder.

Target-specific code lives in lib/Target/<Vendor>/ (STYLE.md); the rest of
lib/ (the core, and lib/Target/Registry) names no vendor, in code or in
comments. Usage: check-vendor-names.py <source root>

Words are matched whole and case-insensitively, split at anything that is not
a letter or digit and at camelCase humps ("registerNVIDIATargets" holds
"NVIDIA", "archive" does not hold "hip", "x86_64" holds "x86").
"""

import os
import re
import sys

# Vendor words and the backend folders (under lib/Target) that may use them.
VENDOR_WORDS = {
    "NVIDIA": ["nvidia", "cuda", "nvvm", "nvgpu", "ptx", "cubin", "wgmma",
               "tcgen05"],
    "AMD": ["amd", "amdgpu", "hip", "rocm", "rocdl", "hsaco", r"gfx\d*"],
    "Google": ["google", "tpus?", "xla"],
    "AWS": ["aws", r"trainium\d*", "neuron"],
    "CPU": ["x86", r"avx\d*", "intel"],
}

# Words that files outside the vendor folders must use, and why. Keep this
# short: move vendor-specific code to its backend instead.
ALLOWED = {
    # The registry's ExecutableFormat enum names the binary kinds an
    # artifact carries; it becomes the runtime's binary kind (issue 24).
    ("lib/Target/Registry/TargetRegistry.cpp", "cubin"): "binary kind",
    ("lib/Target/Registry/TargetRegistry.cpp", "hsaco"): "binary kind",
    # The embedded host template (topologies/host.json) describes an x86_64
    # CPU, so probing is guarded to such hosts.
    ("lib/Topology/Topology.cpp", "x86"): "host template",
}

# Phrases that hold a vendor word but name no target.
NOT_VENDORS = [
    "google::protobuf",  # protobuf's C++ namespace (the ONNX importer)
]

SOURCE_SUFFIXES = (".cpp", ".h", ".td", ".pdll", ".txt", ".def", ".in")

TOKEN = re.compile(r"[A-Z]+s?(?![a-z])[0-9]*|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def words(line):
    """The words of `line`: split at non-alphanumerics and camelCase."""
    for chunk in re.split(r"[^A-Za-z0-9]+", line):
        # "x86" and "gfx942" stay one word: a lowercase run keeps its digits.
        yield from (w.lower() for w in TOKEN.findall(chunk))


def main():
    root = sys.argv[1]
    patterns = {
        vendor: re.compile("(?:" + "|".join(ws) + ")$")
        for vendor, ws in VENDOR_WORDS.items()
    }
    failures = []
    lib = os.path.join(root, "lib")
    for dirpath, dirnames, filenames in os.walk(lib):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            parts = rel.split("/")
            owner = parts[2] if len(parts) > 3 and parts[1] == "Target" else None
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    text = line
                    for phrase in NOT_VENDORS:
                        text = text.replace(phrase, "")
                    for word in words(text):
                        if (rel, word) in ALLOWED:
                            continue
                        for vendor, pattern in patterns.items():
                            if vendor != owner and pattern.match(word):
                                failures.append(
                                    "%s:%d: '%s' (%s) outside lib/Target/%s/: %s"
                                    % (rel, number, word, vendor, vendor,
                                       line.strip()))
    for failure in failures:
        print(failure)
    if failures:
        print("%d vendor name(s) outside the backend folders" % len(failures))
        return 1
    print("no vendor names outside the backend folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
