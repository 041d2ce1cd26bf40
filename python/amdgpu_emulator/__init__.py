"""Runs the plan of an AMD GPU artifact on the CPU, so that tests without an
AMD GPU check that its kernels compute the right numbers.

  python3 -m amdgpu_emulator run-plan PLAN.json DEVICE_CODE_DIR
      --input FILE.npy ... --output-dir DIR [--constants DIR]
      [--emulator PATH]

PLAN.json is `orchestra-run --describe=json` of the artifact, DEVICE_CODE_DIR
what `orchestra-compile --dump-device-code` wrote for it (each device
module's `<kernel module>.<module>.rocdl.mlir`), --constants what
`orchestra-run --dump-constants` wrote. The plan's steps run in order on
numpy arenas (0xff until written), like the PTX emulator's run-plan (whose
plan runner this shares); each launch runs in `orchestra-amdgpu-emulate`
(beside the compiler in the build's bin/, or --emulator): the ROCDL-level
kernel compiled for the host, every work-item a fiber, barriers and 64-lane
MFMAs with the CDNA3 register layouts. The outputs are saved as
DIR/output_<i>.npy. Plans with steps on other devices are refused.
"""
