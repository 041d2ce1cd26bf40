"""Prints, for each directory, each .cubin file and whether it is an ELF
image for NVIDIA GPUs (e_machine 190, EM_CUDA)."""
import os
import struct
import sys

for directory in sys.argv[1:]:
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".cubin"):
            continue
        with open(os.path.join(directory, name), "rb") as f:
            header = f.read(20)
        elf = header[:4] == b"\x7fELF"
        machine = struct.unpack_from("<H", header, 18)[0] if elf else None
        kind = "ELF EM_CUDA" if machine == 190 else "not a cubin"
        print(os.path.basename(directory), name + ":", kind)
