# -*- Python -*-
# lit configuration of the strategy scripts: every script is a test of its
# own, whose RUN lines parse it and run its entry points on an empty payload
# (which resolves every include against the script and its libraries). The
# tests that apply the scripts to kernels are under test/strategies.

import os

lit_config.load_config(
    config, os.path.join(config.orchestra_src_root, "test", "lit.cfg.py"))

config.name = "OrchestraOS strategies"
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.orchestra_obj_root, "strategies")
