"""Blackwell's tcgen05 instructions: tensor-memory allocation, MMA,
loads, commits and fences."""

import re

import numpy as np

from ..common import EmulationError, unsupported
from .matrix import swizzled_operand_addresses
from .memory import active
from ..values import f_decode, f_encode


def tcgen05_desc_addresses(desc, r, k, esize, k_major):
    """Shared-window addresses of the elements (r, k) of a tcgen05.mma
    operand that shared memory descriptor `desc` (the sm_100 format)
    describes; only the 128-byte swizzle with base offset 0 and relative
    leading offsets is modelled (the layout is wgmma's)."""
    if (desc >> 46) & 7 != 1:
        raise EmulationError(f"shared memory descriptor {hex(desc)}: bits 46-48 must be 0b001 "
                             "(the sm_100 descriptor version)")
    if desc >> 61 != 2 or (desc >> 49) & 0xFFF or (desc >> 14) & 3 or (desc >> 30) & 3:
        raise EmulationError(f"shared memory descriptor {hex(desc)}: only the 128-byte swizzle "
                             "(mode 2) with base offset 0, relative leading offsets and zero "
                             "reserved bits is modelled")
    return swizzled_operand_addresses(desc, r, k, esize, k_major)


def tcgen05_warps(em, ins, mask, what):
    """The warps (batch-wide indices) whose 32 lanes all execute `ins`; an
    error if a warp executes it in part."""
    on = np.ones(em.T, bool) if mask is None else mask
    per = on.reshape(-1, 32)
    if (per.any(axis=1) & ~per.all(axis=1)).any():
        raise EmulationError(f"{what} by part of a warp (.sync.aligned needs all 32 lanes)")
    return np.nonzero(per.all(axis=1))[0]


def tcgen05_after_sync(em, tids, what):
    """A tcgen05 operation that may depend on what other threads did before
    a thread synchronization needs a fence::after_thread_sync between the
    synchronization and itself, in its own thread."""
    late = (em.sync_step[tids] >= 0) & (em.tc_after[tids] < em.sync_step[tids])
    if late.any():
        raise EmulationError(f"thread {int(tids[np.argmax(late)]) % em.L.nt}: {what} after a "
                             "thread synchronization (bar.sync or an mbarrier wait) with no "
                             "tcgen05.fence::after_thread_sync between")


def h_tcgen05(em, ins, mask):
    """tcgen05.alloc, relinquish_alloc_permit, dealloc (cta_group::1),
    mma.cta_group::1.kind::f16 on two shared memory descriptors, commit to
    an mbarrier, ld.sync.aligned.32x32b.xN.b32, wait::ld / wait::st and
    fence::before/after_thread_sync (see the module's description)."""
    p, ops = ins.parts[1:], ins.ops
    nt = em.L.nt
    if p == ["fence::before_thread_sync"]:
        em.tc_unfenced[active(em, mask)] = False
        return
    if p == ["fence::after_thread_sync"]:
        em.tc_after[active(em, mask)] = em.step
        return
    if p == ["wait::st", "sync", "aligned"]:
        return
    if p == ["wait::ld", "sync", "aligned"]:
        em.tc_ld_pending = {}
        return
    if p == ["alloc", "cta_group::1", "sync", "aligned", "shared::cta", "b32"]:
        for w in tcgen05_warps(em, ins, mask, "tcgen05.alloc"):
            t0 = 32 * w
            b = int(em.bidx[t0])
            n = int(em.read(ops[1], 32)[t0])
            if n < 32 or n > 512 or n & (n - 1):
                raise EmulationError(f"tcgen05.alloc of {n} columns (a power of two from 32 "
                                     "to 512)")
            if em.tm_relinquished[b]:
                raise EmulationError("tcgen05.alloc after tcgen05.relinquish_alloc_permit")
            used = np.zeros(512, bool)
            for c, m in em.tm_allocs[b].items():
                used[c:c + m] = True
            col = next((c for c in range(0, 512, n) if not used[c:c + n].any()), None)
            if col is None:
                raise EmulationError(f"tcgen05.alloc of {n} columns: tensor memory is full "
                                     "(the warp would wait forever)")
            em.tm_allocs[b][col] = n
            tids = np.array([t0])
            em.sh_write(tids, em.address(ops[0])[tids],
                        np.array([col], np.uint32).view(np.uint8).reshape(1, 4))
        return
    if p == ["relinquish_alloc_permit", "cta_group::1", "sync", "aligned"]:
        for w in tcgen05_warps(em, ins, mask, "tcgen05.relinquish_alloc_permit"):
            em.tm_relinquished[int(em.bidx[32 * w])] = True
        return
    if p == ["dealloc", "cta_group::1", "sync", "aligned", "b32"]:
        for w in tcgen05_warps(em, ins, mask, "tcgen05.dealloc"):
            t0 = 32 * w
            b = int(em.bidx[t0])
            addr, n = int(em.read(ops[0], 32)[t0]), int(em.read(ops[1], 32)[t0])
            lane, col = addr >> 16, addr & 0xFFFF
            if lane or em.tm_allocs[b].get(col) != n:
                raise EmulationError(f"tcgen05.dealloc of {n} columns at {hex(addr)}: not an "
                                     "allocation of this block")
            tcgen05_after_sync(em, np.arange(t0, t0 + 32), "tcgen05.dealloc")
            if em.tc_unfenced_at_sync[b]:
                raise EmulationError(
                    "tcgen05.dealloc after a bar.sync that some thread reached with tcgen05 "
                    "operations not followed by a tcgen05.fence::before_thread_sync")
            busy = em.tm_pending[b, col:col + n] >= 0
            if busy.any():
                raise EmulationError(
                    f"tcgen05.dealloc of columns that the tcgen05.mma at line "
                    f"{em.tc_lines[int(em.tm_pending[b, col:col + n][busy][0])]} may still "
                    "write")
            del em.tm_allocs[b][col]
        return
    tids = active(em, mask)
    if p[:1] == ["commit"]:
        if p[1:3] != ["cta_group::1", "mbarrier::arrive::one"] or p[-1] != "b64" or \
                p[3:-1] not in ([], ["shared::cluster"]) or len(ops) != 1:
            unsupported(ins)
        for mb, pos in em.mbarriers(tids, em.address(ops[0])[tids], "tcgen05.commit"):
            for t in tids[pos]:
                records = [r for r in em.tc_issued.get(int(t), []) if not r["done"]]
                em.tc_issued[int(t)] = records
                mb.commits.append((ins.line, list(records)))
        return
    if p[:1] == ["ld"]:
        m = re.fullmatch(r"x(\d+)", p[4]) if len(p) == 6 else None
        if p[1:4] != ["sync", "aligned", "32x32b"] or not m or p[5] != "b32" or \
                len(ops) != 2 or ops[0][0] != "vec" or len(ops[0][1]) != int(m.group(1)):
            unsupported(ins)
        n = int(m.group(1))
        addr = em.address(ops[1])
        out = [np.zeros(em.T, np.uint64) for _ in range(n)]
        for w in tcgen05_warps(em, ins, mask, "tcgen05.ld"):
            t0 = 32 * w
            b = int(em.bidx[t0])
            a = addr[t0:t0 + 32] & np.uint64(0xFFFFFFFF)
            if (a != a[0]).any():
                raise EmulationError("the lanes of a warp give different tcgen05.ld addresses")
            lane, col = int(a[0]) >> 16, int(a[0]) & 0xFFFF
            warp = (t0 % nt) // 32
            tcgen05_after_sync(em, np.arange(t0, t0 + 32), "tcgen05.ld")
            em.tc_unfenced[t0:t0 + 32] = True
            if lane != 32 * (warp % 4):
                raise EmulationError(f"warp {warp} loads tensor memory lanes {lane}..{lane + 31}"
                                     f": a warp may access only lanes {32 * (warp % 4)}.."
                                     f"{32 * (warp % 4) + 31} (its warp mod 4)")
            cols = np.arange(col, col + n)
            if col + n > 512 or not all(any(c <= x < c + k for c, k in
                                            em.tm_allocs[b].items()) for x in (col, col + n - 1)):
                raise EmulationError(f"tcgen05.ld of columns {col}..{col + n - 1}: not allocated")
            busy = em.tm_pending[b, cols] >= 0
            if busy.any():
                raise EmulationError(
                    f"tcgen05.ld of columns that the tcgen05.mma at line "
                    f"{em.tc_lines[int(em.tm_pending[b, cols][busy][0])]} may still write (no "
                    "wait observed "
                    "the completion its tcgen05.commit signals)")
            if (em.tm_bar[b, cols] == -2).any():
                raise EmulationError(f"tcgen05.ld of tensor memory columns {col}..{col + n - 1} "
                                     "that no tcgen05.mma wrote")
            for f in np.unique(em.tm_bar[b, cols]):
                mb = em.mbars[int(f)]
                phase = int(em.tm_phase[b, cols][em.tm_bar[b, cols] == f].max())
                if (mb.observed[t0:t0 + 32] <= phase).any():
                    raise EmulationError(
                        f"warp {warp} loads tensor memory that a tcgen05.mma wrote before "
                        f"observing phase {phase} of the mbarrier at "
                        f"{em.L.shared_name(mb.flat % em.L.shared_size)}, whose completion "
                        "its tcgen05.commit signals")
            vals = em.tmem[b, lane:lane + 32][:, cols]
            for i in range(n):
                out[i][t0:t0 + 32] = vals[:, i]
        for i, r in enumerate(ops[0][1]):
            em.write(r, out[i], mask)
            em.tc_ld_pending[r[1]] = ins.line
        return
    if p[:1] != ["mma"] or p[1:3] != ["cta_group::1", "kind::f16"] or \
            p[3:] not in ([], ["collector::a::discard"]) or len(ops) != 5 or \
            ops[0][0] != "addr":
        unsupported(ins)
    dptr = em.address(ops[0]) & np.uint64(0xFFFFFFFF)
    da, db, idesc = em.read(ops[1]), em.read(ops[2]), em.read(ops[3], 32)
    enable = em.read(ops[4])
    tcgen05_after_sync(em, tids, "tcgen05.mma")
    em.tc_unfenced[tids] = True
    for t in tids:
        t = int(t)
        b, i = int(em.bidx[t]), int(idesc[t])
        ab = (i >> 7) & 7
        n, m = ((i >> 17) & 63) << 3, ((i >> 24) & 31) << 4
        if i & 0xF or (i >> 4) & 3 != 1 or (i >> 6) & 1 or ab not in (0, 1) or \
                (i >> 10) & 7 != ab or (i >> 13) & 3 or (i >> 23) & 1 or i >> 29:
            raise EmulationError(f"instruction descriptor {hex(i)}: only dense f16/bf16 x "
                                 "f16/bf16 -> f32 without negation or saturation is modelled")
        if m != 128 or n % 16 or not 16 <= n <= 256:
            raise EmulationError(f"tcgen05.mma of M = {m}, N = {n}: only M = 128 with N a "
                                 "multiple of 16 up to 256 is modelled (cta_group::1)")
        trans_a, trans_b = (i >> 15) & 1, (i >> 16) & 1
        lane, col = int(dptr[t]) >> 16, int(dptr[t]) & 0xFFFF
        if lane or not any(c <= col and col + n <= c + k for c, k in em.tm_allocs[b].items()):
            raise EmulationError(f"tcgen05.mma into tensor memory at {hex(int(dptr[t]))} "
                                 f"(lane 0, {n} columns): not within an allocation")
        r, kk = np.arange(m)[:, None], np.arange(16)[None, :]
        a_addr = tcgen05_desc_addresses(int(da[t]), r, kk, 2, trans_a == 0)
        r = np.arange(n)[:, None]
        b_addr = tcgen05_desc_addresses(int(db[t]), r, kk, 2, trans_b == 0)
        addrs = np.concatenate([a_addr.ravel(), b_addr.ravel()])
        raw = em.sh_read(np.full(len(addrs), t), addrs, 2)
        vals = f_decode(raw.view(np.uint16).ravel().astype(np.uint64),
                        "bf16" if ab else "f16").astype(np.float64)
        A, B = vals[:m * 16].reshape(m, 16), vals[m * 16:].reshape(n, 16).T
        cols = np.arange(col, col + n)
        D = A @ B
        if bool(enable[t]):
            if ((em.tm_bar[b, cols] == -2) & (em.tm_pending[b, cols] < 0)).any():
                raise EmulationError("tcgen05.mma accumulates onto tensor memory that no "
                                     "tcgen05.mma wrote (its enable-input-d operand is true)")
            D = D + em.tmem[b, :, cols].T.view(np.float32).astype(np.float64)
        em.tmem[b, :, cols] = f_encode(D, "f32").astype(np.uint32).T
        flat = em.shared_index(np.full(len(addrs), t), addrs, 2, 2).ravel()
        mid = len(em.tc_lines)
        em.tc_lines[mid] = ins.line
        em.tc_reading[flat] = mid
        em.tm_pending[b, cols] = mid
        rec = {"id": mid, "block": b, "cols": cols, "flat": flat, "done": False}
        em.tc_issued.setdefault(t, []).append(rec)
