"""Warp-level instructions (the branch profiler's probes): activemask,
vote.sync.ballot, popc, and atom.global.add on integers."""

import numpy as np

from ..common import EmulationError, unsupported
from .memory import active


def warp_masks(em, mask):
    """Per thread of the batch: its warp's number in the batch and the bit
    mask (by lane) of the warp's threads that run this instruction."""
    nt = em.L.nt
    lin = np.arange(em.T) % nt
    warps_per_block = (nt + 31) // 32
    warp = em.bidx * warps_per_block + lin // 32
    bits = np.uint64(1) << (lin % 32).astype(np.uint64)
    running = np.ones(em.T, bool) if mask is None else mask
    per_warp = np.zeros(len(em.blocks) * warps_per_block, np.uint64)
    np.bitwise_or.at(per_warp, warp[running], bits[running])
    return warp, bits, per_warp[warp]


def h_activemask(em, ins, mask):
    """activemask.b32 d: the lanes of the warp that execute it."""
    if ins.parts[1:] != ["b32"]:
        unsupported(ins)
    _, _, lanes = warp_masks(em, mask)
    em.write(ins.ops[0], lanes, mask, 32)


def h_vote(em, ins, mask):
    """vote.sync.ballot.b32 d, p, membermask: the lanes of membermask whose
    p is true. Every lane of membermask must execute it (a lane that does
    not would make the GPU wait for it forever)."""
    if ins.parts[1:] != ["sync", "ballot", "b32"]:
        unsupported(ins)
    warp, bits, lanes = warp_masks(em, mask)
    tids = active(em, mask)
    members = em.read(ins.ops[2], 32)
    missing = members[tids] & ~lanes[tids]
    if missing.any():
        t = int(tids[np.argmax(missing != 0)])
        raise EmulationError(f"vote.sync: thread {t}'s membermask {int(members[t]):#x} names "
                             f"lanes that do not execute it (active: {int(lanes[t]):#x})")
    pred = em.read(ins.ops[1]).astype(bool)
    votes = np.zeros(int(warp.max()) + 1, np.uint64)
    chosen = tids[pred[tids]]
    np.bitwise_or.at(votes, warp[chosen], bits[chosen])
    em.write(ins.ops[0], votes[warp] & members, mask, 32)


def h_popc(em, ins, mask):
    """popc.b32 / popc.b64 d, a: the set bits of a (d is .u32)."""
    t = ins.parts[-1]
    if t not in ("b32", "b64"):
        unsupported(ins)
    a = em.read(ins.ops[1], 32 if t == "b32" else 64)
    count = np.zeros(em.T, np.uint64)
    for shift in range(64):
        count += (a >> np.uint64(shift)) & np.uint64(1)
    em.write(ins.ops[0], count, mask, 32)


def h_atom(em, ins, mask):
    """atom{.sem}{.scope}.global.add.{u32,u64,s32,s64} d, [a], b: each
    running thread in turn (lane order) adds b to memory and gets the old
    value. Atomics are not races: they are not recorded as writes of a
    block."""
    parts = [p for p in ins.parts[1:] if p not in ("relaxed", "acq_rel", "acquire", "release",
                                                  "gpu", "sys", "cta")]
    if len(parts) != 3 or parts[0] != "global" or parts[1] != "add" or \
            parts[2] not in ("u32", "u64", "s32", "s64"):
        unsupported(ins, "only atom.global.add on 32- and 64-bit integers")
    n = int(parts[2][1:]) // 8
    tids = active(em, mask)
    addrs = em.address(ins.ops[1])
    values = em.read(ins.ops[2], 8 * n)
    bi, off = em.global_index(addrs[tids], n)
    old = np.zeros(em.T, np.uint64)
    limit = (1 << (8 * n)) - 1
    for t, b, o in zip(tids, bi, off):
        buf = em.L.buffers[b]
        current = int.from_bytes(buf[o:o + n].tobytes(), "little")
        old[t] = current
        buf[o:o + n] = np.frombuffer(((current + int(values[t])) & limit).to_bytes(n, "little"),
                                     np.uint8)
    em.write(ins.ops[0], old, mask, 8 * n)
