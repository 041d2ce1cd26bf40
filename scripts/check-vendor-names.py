#!/usr/bin/env python3
"""Fails if a vendor's name appears in lib/ or runtime/ outside the vendor's
own folders.

Target-specific code lives in lib/Target/<Vendor>/ (STYLE.md) and in the
runtime's driver folders, runtime/src/drivers/<driver>/ (docs/Runtime.md);
the rest of lib/ (the core, and lib/Target/Registry) and of runtime/ (the
session, the HAL, the formats, the C API) names no vendor, in code or in
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

# The runtime's driver folders and the vendors whose names they may use.
DRIVER_VENDORS = {
    "cpu": ["CPU"],
    "cuda": ["NVIDIA"],
    "hip": ["AMD"],
    "pjrt": ["Google", "AWS"],
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
    # The list of the runtime's driver folders.
    ("runtime/CMakeLists.txt", "cuda"): "driver list",
    ("runtime/CMakeLists.txt", "hip"): "driver list",
    # neuronx-cc's input kind: `neuronx-cc compile --framework XLA` takes
    # XLA's HLO.
    ("lib/Target/AWS/CompileNeff.cpp", "xla"): "neuronx-cc's --framework",
}

# Phrases that hold a vendor word but name no target.
NOT_VENDORS = [
    "google::protobuf",  # protobuf's C++ namespace (the ONNX importer)
    "<google/protobuf/",  # protobuf's headers (lib/Profile)
]

SOURCE_SUFFIXES = (".cpp", ".h", ".td", ".pdll", ".txt", ".def", ".in")

TOKEN = re.compile(r"[A-Z]+s?(?![a-z])[0-9]*|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def words(line):
    """The words of `line`: split at non-alphanumerics and camelCase."""
    for chunk in re.split(r"[^A-Za-z0-9]+", line):
        # "x86" and "gfx942" stay one word: a lowercase run keeps its digits.
        yield from (w.lower() for w in TOKEN.findall(chunk))


def owners(rel):
    """The vendors whose names the file `rel` may use, and where they belong
    (for the message)."""
    parts = rel.split("/")
    if parts[0] == "lib" and len(parts) > 3 and parts[1] == "Target":
        return [parts[2]]
    if parts[:3] == ["runtime", "src", "drivers"] and len(parts) > 4:
        return DRIVER_VENDORS.get(parts[3], [])
    return []


def home(vendor):
    """Where a vendor's names belong."""
    drivers = [d for d, vs in DRIVER_VENDORS.items() if vendor in vs]
    return "lib/Target/%s/%s" % (
        vendor, "".join(" or runtime/src/drivers/%s/" % d for d in drivers))


def check_file(path, rel, allowed_vendors, patterns, failures):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            text = line
            for phrase in NOT_VENDORS:
                text = text.replace(phrase, "")
            for word in words(text):
                if (rel, word) in ALLOWED:
                    continue
                for vendor, pattern in patterns.items():
                    if vendor not in allowed_vendors and pattern.match(word):
                        failures.append("%s:%d: '%s' (%s) outside %s: %s" % (
                            rel, number, word, vendor, home(vendor),
                            line.strip()))


def main():
    root = sys.argv[1]
    patterns = {
        vendor: re.compile("(?:" + "|".join(ws) + ")$")
        for vendor, ws in VENDOR_WORDS.items()
    }
    failures = []
    for tree in ("lib", "runtime"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, tree)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                check_file(path, rel, owners(rel), patterns, failures)
    for failure in failures:
        print(failure)
    if failures:
        print("%d vendor name(s) outside the backend folders" % len(failures))
        return 1
    print("no vendor names outside the backend folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
