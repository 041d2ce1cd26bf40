"""Running one kernel launch: grids, block selection, parameter binding."""

import os
import re

import numpy as np

from .common import EmulationError, SplitBatch, TENSOR_MAP_BYTES
from .machine import Batch, Launch
from .objects import TensorMap
from .values import f_decode


def dims(s, pad=1):
    d = [int(x) for x in s.split(",")]
    if not 1 <= len(d) <= 3:
        raise EmulationError(f"bad dimensions {s}")
    return tuple(d + [pad] * (3 - len(d)))


def select_blocks(spec, grid, seed):
    """The blocks (x, y, z) that SPEC names, in launch order."""
    allb = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    if spec == "all":
        return allb
    chosen = set()
    for item in spec.split("+"):
        if item == "corners":
            chosen |= {(x, y, 0) for x in (0, grid[0] - 1) for y in (0, grid[1] - 1)}
        elif item.startswith("random:"):
            rest = [b for b in allb if b not in chosen]
            pick = np.random.default_rng(seed).permutation(len(rest))[:int(item[7:])]
            chosen |= {rest[i] for i in pick}
        else:
            b = dims(item, pad=0)
            if not all(0 <= b[i] < grid[i] for i in range(3)):
                raise EmulationError(f"block {b} outside grid {grid}")
            chosen.add(b)
    return [b for b in allb if b in chosen]


def bind_params(kernel, specs):
    """Global buffers, one per parameter, the outputs to save and the tensor
    maps."""
    names = [p[0] for p in kernel.params]
    bound = {}
    for spec in specs:
        key, _, val = spec.partition("=")
        i = int(key) if key.isdigit() else names.index(key) if key in names else -1
        if not 0 <= i < len(names):
            raise EmulationError(f"no parameter {key} (parameters: {', '.join(names)})")
        bound[i] = val.split(":")
    buffers, outputs, maps = [], [], {}
    for i, (name, ptype) in enumerate(kernel.params):
        v = bound.get(i)
        if ptype not in (".u64", ".b64"):
            raise EmulationError(f"parameter {name} is {ptype}: only .u64 pointers are supported")
        if v and v[0] == "in" and len(v) == 2:
            buffers.append(np.frombuffer(np.load(v[1]).tobytes(), np.uint8).copy())
        elif v and v[0] == "tmap" and len(v) in (3, 4) and re.fullmatch(r"\d+x\d+", v[2]) \
                and v[3:] in ([], ["swizzle128"]):
            maps[i] = TensorMap(os.path.basename(v[1]), np.load(v[1]),
                                tuple(int(x) for x in v[2].split("x")), 128 if v[3:] else 0)
            buffers.append(np.zeros(TENSOR_MAP_BYTES, np.uint8))
        elif v and v[0] == "out" and len(v) == 4:
            dt, shape = np.dtype(v[2]), tuple(int(x) for x in v[3].split("x"))
            buffers.append(np.full(int(np.prod(shape)) * dt.itemsize, 0xFF, np.uint8))
            outputs.append((i, v[1], dt, shape, None))
        elif v and v[0] == "tmap-out" and len(v) == 5 and \
                all(re.fullmatch(r"\d+x\d+", x) for x in v[3:]):
            dt, shape = np.dtype(v[2]), tuple(int(x) for x in v[3].split("x"))
            array = np.full(int(np.prod(shape)) * dt.itemsize, 0xFF, np.uint8).view(dt)
            array = array.reshape(shape)
            maps[i] = TensorMap(os.path.basename(v[1]), array,
                                tuple(int(x) for x in v[4].split("x")))
            buffers.append(np.zeros(TENSOR_MAP_BYTES, np.uint8))
            outputs.append((i, v[1], dt, shape, array))
        else:
            raise EmulationError(f"parameter {i} ({name}) needs --param {i}=in:FILE.npy, "
                                 f"{i}=tmap:FILE.npy:BOXROWSxBOXCOLS[:swizzle128], "
                                 f"{i}=out:FILE.npy:DTYPE:SHAPE or "
                                 f"{i}=tmap-out:FILE.npy:DTYPE:ROWSxCOLS:BOXROWSxBOXCOLS")
    return buffers, outputs, maps



def run_launch(kernel, grid, block, dynamic_shared, buffers, maps, blocks_spec="all", seed=0):
    """Emulates one launch of `kernel` over `buffers` (written in place);
    returns the Launch and the blocks it ran."""
    L = Launch(kernel, grid, block, dynamic_shared, buffers, maps)
    blocks = select_blocks(blocks_spec, grid, seed)
    batch = max(1, min(16, (1 << 20) // L.shared_size, 4096 // L.nt))
    for s in range(0, len(blocks), batch):
        group = blocks[s:s + batch]
        saved = ([b.copy() for b in buffers], len(L.global_writes), L.tma_copies,
                 {i: m.data.copy() for i, m in maps.items()}, L.tma_stores)
        try:
            try:
                Batch(L, group).run()
            except SplitBatch:  # undo the batch, run its blocks one by one
                for buf, old in zip(buffers, saved[0]):
                    buf[:] = old
                del L.global_writes[saved[1]:]
                L.tma_copies = saved[2]
                for i, data in saved[3].items():
                    maps[i].data[...] = data
                L.tma_stores = saved[4]
                for one in group:
                    Batch(L, [one]).run()
        except EmulationError as e:
            where = f"block {group[0]}" if len(group) == 1 else \
                f"blocks {group[0]}..{group[-1]} (in lockstep)"
            raise EmulationError(f"{where}: {e}") from None
    for b in sorted({w[0] for w in L.global_writes}):  # bytes written by two blocks
        off, who = (np.concatenate([w[k] for w in L.global_writes if w[0] == b]) for k in (1, 2))
        order = np.lexsort((who, off))
        off, who = off[order], who[order]
        dup = (off[1:] == off[:-1]) & (who[1:] != who[:-1])
        if dup.any():
            i = int(np.argmax(dup))
            blk = [(int(w) % grid[0], int(w) // grid[0] % grid[1], int(w) // (grid[0] * grid[1]))
                   for w in who[i:i + 2]]
            raise EmulationError(f"blocks {blk[0]} and {blk[1]} both write byte {off[i]} "
                                 f"of param {b}")
    return L, blocks



def load_values(path):
    """An input array as float64; uint16 arrays hold bf16 bits."""
    v = np.load(path)
    if v.dtype == np.uint16:
        v = f_decode(v.astype(np.uint64), "bf16")
    return v.astype(np.float64)


# Element types of artifact tensors and tensor maps, as numpy holds them
# (bf16 as its uint16 bits).
