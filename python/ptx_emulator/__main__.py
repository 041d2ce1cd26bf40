"""python3 -m ptx_emulator: see the package's docstring."""

from .cli import main

main()
