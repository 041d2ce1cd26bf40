# -*- Python -*-
# Runs every GoogleTest binary (*Tests) under unittests/ in the build tree.

import os

import lit.formats

config.name = "OrchestraOS-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.orchestra_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# ASan and UBSan builds: as test/lit.cfg.py says.
if config.orchestra_sanitizers:
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:abort_on_error=1"
