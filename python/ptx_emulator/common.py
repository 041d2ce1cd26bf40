"""Address-space layout, limits and the emulator's errors."""


GLOBAL_SHIFT = 40  # global buffer of parameter i lives at (i + 1) << 40
SHARED_BASE = 0x10000  # shared-window address of the first shared byte
GENERIC_SHARED = 1 << 60  # generic address of shared-window address 0
TENSOR_MAP_BYTES = 128  # a CUtensorMap
TX_LIMIT = (1 << 20) - 1  # mbarrier arrival and transaction counts
ASYNC = -3  # race-tracking agent of a TMA copy (the async proxy)
MAX_SHARED = 232448  # sm_90 per-block limit
LOCAL_BASE = 0x100000000  # local-window address of a thread's first local byte
IGNORED_QUALIFIERS = {"ca", "cg", "cs", "lu", "cv", "nc", "weak"}


class EmulationError(Exception):
    pass


class SplitBatch(Exception):
    """Blocks of a batch branched differently: run them one at a time."""


def unsupported(ins, why=""):
    raise EmulationError(f"unsupported PTX instruction: {ins.text}" + (f" ({why})" if why else ""))
