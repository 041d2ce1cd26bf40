"""Warp and warpgroup matrix instructions: ldmatrix, mma.sync and wgmma
(with their shared-memory matrix descriptors)."""

import re

import numpy as np

from ..common import EmulationError, SHARED_BASE, unsupported
from ..values import f_decode, f_encode, swizzle128


def warps(em, ins, mask):
    if mask is not None or em.L.nt % 32:
        unsupported(ins, "warp collective with inactive lanes")
    return em.T // 32


LANE = np.arange(32)
G, Q = LANE >> 2, LANE & 3  # groupID and threadID_in_group of the PTX ISA


def h_ldmatrix(em, ins, mask):
    """ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: lanes
    8i..8i+7 give the row addresses of matrix i; lane l receives row l/4,
    columns 2(l%4), 2(l%4)+1 (transposed: column l/4 of those rows)."""
    p = [x for x in ins.parts[1:] if x not in ("sync", "aligned", "shared", "shared::cta")]
    if p[:1] != ["m8n8"] or p[-1] != "b16" or p[1] not in ("x1", "x2", "x4") or \
            p[2:-1] not in ([], ["trans"]) or len(ins.ops[0][1]) != int(p[1][1]):
        unsupported(ins)
    nm, trans, W = int(p[1][1]), p[2:-1] == ["trans"], warps(em, ins, mask)
    tids = (np.arange(W)[:, None] * 32 + np.arange(8 * nm)).ravel()
    rows = em.sh_read(tids, em.address(ins.ops[1])[tids], 16, agents=em.T + tids // 32)
    rows = rows.view(np.uint16).reshape(W, nm, 8, 8)
    for i, d in enumerate(ins.ops[0][1]):
        m = rows[:, i]
        lo, hi = (m[:, 2 * Q, G], m[:, 2 * Q + 1, G]) if trans else \
            (m[:, G, 2 * Q], m[:, G, 2 * Q + 1])
        v = lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(16))
        em.write(d, v.reshape(em.T), None)


def warpgroups(em, ins, mask):
    if mask is not None or em.L.nt % 128:
        unsupported(ins, "warpgroup collective with inactive threads, or a block that is not "
                    "whole warpgroups")
    return em.T // 128


def wgmma_addresses(desc, r, k, esize, k_major):
    """Shared-window addresses of the elements (r, k) of a wgmma operand (r:
    its M or N index) that matrix descriptor `desc` describes. Only the
    128-byte swizzle is modelled: rows of 128 bytes, 8 to a 1024-byte atom;
    K-major: element (r, k) at row r % 8 of atom r // 8 (SBO apart), byte
    k * esize; MN-major: 128 / esize r's per row, atoms of 8 k's (SBO apart
    along K, LBO apart along r). The address is then swizzled."""
    if desc >> 62 != 1 or (desc >> 49) & 7:
        raise EmulationError(f"matrix descriptor {hex(desc)}: only the 128-byte swizzle with "
                             "base offset 0 is modelled")
    return swizzled_operand_addresses(desc, r, k, esize, k_major)


def swizzled_operand_addresses(desc, r, k, esize, k_major):
    """The addresses of wgmma_addresses, from the descriptor's start, LBO
    and SBO fields (bits 0-13, 16-29, 32-45, in 16-byte units)."""
    start, lbo, sbo = ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4,
                       ((desc >> 32) & 0x3FFF) << 4)
    if k_major:
        lin = start + (r // 8) * sbo + (r % 8) * 128 + k * esize
    else:
        per = 128 // esize
        lin = start + (r // per) * lbo + (k // 8) * sbo + (k % 8) * 128 + (r % per) * esize
    phys = swizzle128(lin) & 0x3FFFF  # the descriptor holds 18 address bits
    return (SHARED_BASE + (phys - SHARED_BASE) % (1 << 18)).astype(np.uint64)


# Accumulator layout of wgmma m64nNk16 with f32 D (PTX ISA): thread t of the
# warpgroup holds rows 16 (t / 32) + (t % 32) / 4 and that + 8; register
# 4j + i is column 8j + 2 (t % 4) + i % 2 of the first row (i < 2) or the
# second.
def wgmma_d_layout(n):
    t, i = np.arange(128)[:, None], np.arange(n // 2)[None, :]
    rows = 16 * (t // 32) + (t % 32) // 4 + 8 * ((i % 4) // 2)
    cols = 8 * (i // 4) + 2 * (t % 4) + i % 2
    return rows, cols


def h_wgmma(em, ins, mask):
    """wgmma.fence, commit_group, wait_group N, and
    wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} d, descA,
    descB, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b (both
    operands from shared memory, 128-byte swizzle). The product lands in the
    accumulators at once, rounded once to f32; they and the shared bytes read
    stay in flight until a wgmma.wait_group retires the instruction's group:
    reading or writing the registers, or writing the bytes, before that is
    an error. A first wgmma.fence must precede the first mma_async (the
    fences between register writes and later mma_async are not checked)."""
    p = ins.parts
    if p[1:] in (["fence", "sync", "aligned"], ["commit_group", "sync", "aligned"]):
        warpgroups(em, ins, mask)
        if p[1] == "fence":
            em.wg_fenced = True
        elif em.wg_open:
            em.wg_groups.append(em.wg_open)
            em.wg_open = []
        return
    if p[1:] == ["wait_group", "sync", "aligned"]:
        warpgroups(em, ins, mask)
        keep = int(ins.ops[0][1])
        while len(em.wg_groups) > keep:
            for _, regs, flat, per_group in em.wg_groups.pop(0):
                em.wg_reading[flat] = -1
                for g, fg in per_group:  # the reads end at the latest here
                    em.note_reads(fg, np.full(len(fg), em.T + em.T // 32 + g, np.int32))
        # What the groups still in flight hold (consecutive groups often
        # accumulate into the same registers and read the same stages).
        em.wg_pending = {}
        for line, regs, flat, _ in (x for g in em.wg_groups + [em.wg_open] for x in g):
            em.wg_pending.update(dict.fromkeys(regs, line))
            em.wg_reading[flat] = line
        return
    m = re.fullmatch(r"m64n(\d+)k16", p[4]) if len(p) == 8 else None
    if p[1:4] != ["mma_async", "sync", "aligned"] or not m or p[5] != "f32" or \
            p[6] != p[7] or p[6] not in ("f16", "bf16") or len(ins.ops) != 8 or \
            ins.ops[1][0] != "reg":
        unsupported(ins)
    n, ab = int(m.group(1)), p[6]
    d, ops = ins.ops[0][1], ins.ops[1:]
    if n % 8 or not 8 <= n <= 256 or len(d) != n // 2:
        unsupported(ins, f"{len(d)} accumulator registers for n{n}")
    G = warpgroups(em, ins, mask)
    if not em.wg_fenced:
        raise EmulationError("wgmma.mma_async before any wgmma.fence of its warpgroup")
    if any(o[0] != "imm" for o in ops[3:]):
        unsupported(ins, "scale and transpose operands must be immediates")
    scale_a, scale_b, trans_a, trans_b = (o[1] for o in ops[3:])
    if scale_a not in (1, -1) or scale_b not in (1, -1) or {trans_a, trans_b} - {0, 1}:
        unsupported(ins)
    scale_d = ops[2]
    keep_d = em.read(scale_d).astype(bool) if scale_d[0] == "reg" else \
        np.full(em.T, bool(scale_d[1]), bool)
    desc_a, desc_b = em.read(ops[0]), em.read(ops[1])
    rows, cols = wgmma_d_layout(n)
    flats = []
    for g in range(G):
        t0 = 128 * g
        da, db, kd = desc_a[t0:t0 + 128], desc_b[t0:t0 + 128], keep_d[t0:t0 + 128]
        if (da != da[0]).any() or (db != db[0]).any() or (kd != kd[0]).any():
            raise EmulationError("the descriptors and scale-d of a warpgroup's threads differ")
        r, k = np.arange(64)[:, None], np.arange(16)[None, :]
        a_addr = wgmma_addresses(int(da[0]), r, k, 2, trans_a == 0)
        r = np.arange(n)[:, None]
        b_addr = wgmma_addresses(int(db[0]), r, k, 2, trans_b == 0)
        addrs = np.concatenate([a_addr.ravel(), b_addr.ravel()])
        for w in range(4):  # every warp of the warpgroup reads the operands
            raw = em.sh_read(np.full(len(addrs), t0 + 32 * w), addrs, 2,
                             agents=np.full(len(addrs), em.T + t0 // 32 + w))
        vals = f_decode(raw.view(np.uint16).ravel().astype(np.uint64), ab).astype(np.float64)
        A, B = vals[:64 * 16].reshape(64, 16), vals[64 * 16:].reshape(n, 16).T
        C = np.zeros((64, n))
        if kd[0]:
            for i, name in enumerate(d):
                v = em.regs.get(name[1])
                if v is None:
                    raise EmulationError(f"accumulator {name[1]} read before it is written")
                C[rows[:, i], cols[:, i]] = f_decode(v[t0:t0 + 128], "f32")
        D = C + (scale_a * A) @ (scale_b * B)
        for i, name in enumerate(d):
            v = em.regs.get(name[1])
            v = np.zeros(em.T, np.uint64) if v is None else v.copy()
            v[t0:t0 + 128] = f_encode(D[rows[:, i], cols[:, i]], "f32")
            em.regs[name[1]] = v
        flats.append(em.shared_index(np.full(len(addrs), t0), addrs, 2, 2).ravel())
    flat = np.concatenate(flats)
    em.wg_reading[flat] = ins.line
    for name in d:
        em.wg_pending[name[1]] = ins.line
    em.wg_open.append((ins.line, [name[1] for name in d], flat, list(enumerate(flats))))


# Fragment layouts of mma.m16n8k16 (PTX ISA): (row, column) of the low and
# high f16 of each 32-bit register of A (16x16), B (16x8) and an f16 C/D
# (16x8); an f32 C/D holds one element per register.
A_FRAG = [((G, 2 * Q), (G, 2 * Q + 1)), ((G + 8, 2 * Q), (G + 8, 2 * Q + 1)),
          ((G, 2 * Q + 8), (G, 2 * Q + 9)), ((G + 8, 2 * Q + 8), (G + 8, 2 * Q + 9))]
B_FRAG = [((2 * Q, G), (2 * Q + 1, G)), ((2 * Q + 8, G), (2 * Q + 9, G))]
CD16_FRAG = [((G, 2 * Q), (G, 2 * Q + 1)), ((G + 8, 2 * Q), (G + 8, 2 * Q + 1))]
CD32_FRAG = [(G, 2 * Q), (G, 2 * Q + 1), (G + 8, 2 * Q), (G + 8, 2 * Q + 1)]


def h_mma(em, ins, mask):
    """mma.sync.aligned.m16n8k16.row.col.{f16,f32}.f16.f16.{f16,f32} and
    mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32."""
    p = ins.parts
    if p[1:6] != ["sync", "aligned", "m16n8k16", "row", "col"] or len(p) != 10 or \
            p[7] != p[8] or p[6] not in ("f16", "f32") or p[9] not in ("f16", "f32") or \
            not (p[7] == "f16" or (p[7] == "bf16" and p[6] == p[9] == "f32")):
        unsupported(ins)
    ab = p[7]
    W = warps(em, ins, mask)
    d, a, b, c = (o[1] for o in ins.ops)

    def unpack(regs, frag, shape, t="f16"):
        m = np.empty((W,) + shape)
        for r, (lo, hi) in zip(regs, frag):
            v = em.read(r, 32).reshape(W, 32)
            m[:, lo[0], lo[1]] = f_decode(v, t)
            m[:, hi[0], hi[1]] = f_decode(v >> np.uint64(16), t)
        return m

    if p[9] == "f32":
        C = np.empty((W, 16, 8))
        for r, (row, col) in zip(c, CD32_FRAG):
            C[:, row, col] = f_decode(em.read(r, 32).reshape(W, 32), "f32")
    else:
        C = unpack(c, CD16_FRAG, (16, 8))
    D = C + np.matmul(unpack(a, A_FRAG, (16, 16), ab), unpack(b, B_FRAG, (16, 8), ab))
    if p[6] == "f32":
        for r, (row, col) in zip(d, CD32_FRAG):
            em.write(r, f_encode(D[:, row, col], "f32").reshape(em.T), None)
    else:
        for r, (lo, hi) in zip(d, CD16_FRAG):
            v = f_encode(D[:, lo[0], lo[1]], "f16")
            v |= f_encode(D[:, hi[0], hi[1]], "f16") << np.uint64(16)
            em.write(r, v.reshape(em.T), None)
