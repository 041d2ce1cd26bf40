"""Memory instructions: loads, stores, cp.async and TMA bulk copies,
mbarriers, fences and barriers."""

import numpy as np

from ..common import (
    ASYNC, EmulationError, GLOBAL_SHIFT, IGNORED_QUALIFIERS, SHARED_BASE, TENSOR_MAP_BYTES,
    TX_LIMIT, unsupported)
from ..objects import MBarrier
from ..values import mask_of, sext, type_bits


def mem_shape(ins):
    """(space, vector length, element type) of ld/st."""
    parts = [p for p in ins.parts[1:] if p not in IGNORED_QUALIFIERS and not p.startswith("L1::")
             and not p.startswith("L2::")]
    parts = ["shared" if p == "shared::cta" else p for p in parts]
    vec = int(parts[1][1:]) if len(parts) == 3 and parts[1] in ("v2", "v4") else 1
    if len(parts) != 2 + (vec > 1) or parts[0] not in ("global", "shared", "param", "local"):
        unsupported(ins)
    return parts[0], vec, parts[-1]


def active(em, mask):
    return np.arange(em.T) if mask is None else np.nonzero(mask)[0]


def h_ld(em, ins, mask):
    space, vec, t = mem_shape(ins)
    bits = type_bits(t)
    n = bits // 8
    dsts = ins.ops[0][1] if ins.ops[0][0] == "vec" else [ins.ops[0]]
    if space == "param" and ins.ops[1][1] not in [p[0] for p in em.L.k.params]:
        if ins.ops[1][1] not in em.pspace or ins.ops[1][2] or vec > 1:  # a call's parameter
            unsupported(ins, "a parameter no st.param or call wrote")
        v = em.pspace[ins.ops[1][1]] & mask_of(bits)
        return em.write(dsts[0], sext(v, bits).view(np.uint64) if t[0] == "s" else v, mask)
    if space == "param":  # a pointer parameter: its buffer's base address
        names = [p[0] for p in em.L.k.params]
        if ins.ops[1][1] not in names or ins.ops[1][2] or vec > 1 or bits != 64:
            unsupported(ins, "only 64-bit pointer parameters")
        return em.write(dsts[0], em.imm((names.index(ins.ops[1][1]) + 1) << GLOBAL_SHIFT), mask)
    tids = active(em, mask)
    addrs = em.address(ins.ops[1])[tids]
    raw = em.sh_read(tids, addrs, n * vec) if space == "shared" else \
        em.local_access(tids, addrs, n * vec) if space == "local" else em.g_read(addrs, n * vec)
    shifts = np.uint64(8) * np.arange(n, dtype=np.uint64)
    words = raw.reshape(len(tids), vec, n).astype(np.uint64) << shifts
    for i, d in enumerate(dsts):
        v = np.bitwise_or.reduce(words[:, i], axis=1)
        full = np.zeros(em.T, np.uint64)
        full[tids] = sext(v, bits).view(np.uint64) if t[0] == "s" else v
        em.write(d, full, mask)


def h_st(em, ins, mask):
    space, vec, t = mem_shape(ins)
    n = type_bits(t) // 8
    srcs = ins.ops[1][1] if ins.ops[1][0] == "vec" else [ins.ops[1]]
    if space == "param":  # a call's parameter, by name
        if vec > 1 or ins.ops[0][0] != "addr" or ins.ops[0][2]:
            unsupported(ins)
        old = em.pspace.get(ins.ops[0][1], np.zeros(em.T, np.uint64))
        v = em.read(srcs[0], 8 * n)
        em.pspace[ins.ops[0][1]] = v if mask is None else np.where(mask, v, old)
        return
    tids = active(em, mask)
    addrs = em.address(ins.ops[0])[tids]
    v = np.stack([em.read(s, 8 * n)[tids] for s in srcs], axis=1)  # (threads, vec)
    data = ((v[:, :, None] >> (np.uint64(8) * np.arange(n, dtype=np.uint64))) & np.uint64(0xFF))
    data = data.astype(np.uint8).reshape(len(tids), vec * n)
    if space == "shared":
        em.sh_write(tids, addrs, data)
    elif space == "local":
        em.local_access(tids, addrs, data.shape[1], data)
    elif space == "global":
        em.g_write(tids, addrs, data)
    else:
        unsupported(ins)


def h_cp(em, ins, mask):
    """cp.async.cg.shared.global [dst], [src], 16; commit_group; wait_group
    N; wait_all. Copies land in shared memory only when retired."""
    if ins.parts[2] == "bulk":
        if ins.parts[3] in ("commit_group", "wait_group"):
            return h_bulk_group(em, ins, mask)
        if ins.parts[4:7] == ["2d", "global", "shared::cta"]:
            return h_tma_store(em, ins, mask)
        return h_tma(em, ins, mask)
    parts = [p for p in ins.parts if not p.startswith("L2::")]
    if parts[2] in ("commit_group", "wait_group", "wait_all") and len(parts) == 3:
        if mask is not None:
            unsupported(ins, "predicated cp.async group operation")
        if parts[2] != "wait_group":  # commit_group; wait_all commits too
            em.groups, em.uncommitted = em.groups + [em.uncommitted], []
        if parts[2] == "commit_group":
            return
        keep = ins.ops[0][1] if parts[2] == "wait_group" else 0
        cut = max(len(em.groups) - keep, 0)
        done, em.groups = em.groups[:cut], em.groups[cut:]
        for group in done:
            for flat, a, data in group:  # visible to other threads after a barrier
                em.sh[flat], em.pending[flat], em.w_ep[flat], em.w_ag[flat] = data, -1, em.epoch, a
                em.tma_bar[flat] = -1
        return
    if parts != ["cp", "async", "cg", "shared", "global"] or ins.ops[2:] != [("imm", 16)]:
        unsupported(ins)
    tids = active(em, mask)
    data = em.g_read(em.address(ins.ops[1])[tids], 16)
    flat, a = em.sh_check_write(em.shared_index(tids, em.address(ins.ops[0])[tids], 16, 16), tids,
                                "cp.async write")
    em.pending[flat] = ins.line
    em.uncommitted.append((flat, a, data.ravel()))


def h_bulk_group(em, ins, mask):
    """cp.async.bulk.commit_group (of the thread's bulk operations since its
    last, possibly none); cp.async.bulk.wait_group{.read} N: the thread's
    bulk groups beyond its newest N retire (their source reads end)."""
    p = ins.parts[3:]
    tids = active(em, mask)
    if p == ["commit_group"] and not ins.ops:
        for t in tids:
            em.bulk_groups.setdefault(int(t), []).append(em.bulk_open.pop(int(t), []))
        return
    if p not in (["wait_group"], ["wait_group", "read"]) or len(ins.ops) != 1 or \
            ins.ops[0][0] != "imm":
        unsupported(ins)
    keep = ins.ops[0][1]
    for t in tids:
        groups = em.bulk_groups.get(int(t), [])
        while len(groups) > keep:
            for line, flat in groups.pop(0):
                still = em.bulk_reading[flat] == line
                em.bulk_reading[flat[still]] = -1


def h_tma_store(em, ins, mask):
    """cp.async.bulk.tensor.2d.global.shared::cta{.tile}.bulk_group
    [tensorMap, {col, row}], [src] (see the module's description)."""
    p = ins.parts[4:]
    tmap = ins.ops[0] if len(ins.ops) == 2 else None
    if p not in (["2d", "global", "shared::cta", "bulk_group"],
                 ["2d", "global", "shared::cta", "tile", "bulk_group"]) or \
            tmap is None or tmap[0] != "tensor" or len(tmap[2]) != 2 or tmap[1][0] != "%":
        unsupported(ins)
    tids = active(em, mask)
    src = em.address(ins.ops[1])[tids]
    maps = em.read(("reg", tmap[1]))[tids]
    col, row = (sext(em.read(c, 32), 32)[tids] for c in tmap[2])
    for j, t in enumerate(tids):
        param, tm = em.L.tensor_map(int(maps[j]))
        if not em.acquired.get(param, np.zeros(em.T, bool))[t]:
            raise EmulationError(
                f"thread {t % em.L.nt} stores through the {tm.describe()} (param {param}) "
                "without acquiring it first (fence.proxy.tensormap::generic.acquire.sys)")
        if (int(src[j]) - SHARED_BASE) % 128:
            raise EmulationError(f"TMA store source {em.L.shared_name(int(src[j]) - SHARED_BASE)}"
                                 " is not 128-byte aligned")
        idx = em.shared_index(tids[j:j + 1], src[j:j + 1], tm.nbytes, 16)
        flat = idx.ravel()
        em.generic_checks(flat, np.full(len(flat), t, np.int32), "TMA store read")
        pend = em.pending[flat] >= 0
        if pend.any():
            raise EmulationError(f"TMA store of bytes whose copy (line "
                                 f"{em.pending[flat][pend][0]}) is still pending")
        if (em.w_ep[flat] < 0).any():
            off = int(flat[np.argmax(em.w_ep[flat] < 0)]) % em.L.shared_size
            raise EmulationError(f"TMA store of {em.L.shared_name(off)}, never written")
        writer = em.w_ag[flat]
        generic = (writer >= 0) & (writer < em.T)
        unfenced = generic & (em.proxy_fence[np.clip(writer, 0, em.T - 1)] < em.w_step[flat])
        if unfenced.any():
            i = int(np.argmax(unfenced))
            raise EmulationError(
                f"TMA store of {em.L.shared_name(int(flat[i]) % em.L.shared_size)}, which thread "
                f"{int(writer[i]) % em.L.nt} wrote without a fence.proxy.async after the write: "
                "the async proxy may not see it")
        fence_epoch = em.proxy_fence_epoch[np.clip(writer, 0, em.T - 1)]
        unsynced = generic & (fence_epoch == em.epoch) & (writer != t)
        if unsynced.any():
            i = int(np.argmax(unsynced))
            raise EmulationError(
                f"TMA store of {em.L.shared_name(int(flat[i]) % em.L.shared_size)}, which thread "
                f"{int(writer[i]) % em.L.nt} wrote and fenced with no bar.sync between its "
                "fence.proxy.async and the store")
        em.note_reads(flat, np.full(len(flat), t, np.int32))
        written = tm.store(int(col[j]), int(row[j]), em.sh[flat])
        who = np.full(len(written), em.linear_block[em.bidx[t]])
        em.L.global_writes.append((param, written, who))
        em.bulk_reading[flat] = ins.line
        em.bulk_open.setdefault(int(t), []).append((ins.line, flat))
        em.L.tma_stores += 1


def h_tma(em, ins, mask):
    """cp.async.bulk.tensor.2d.shared::{cluster,cta}.global{.tile}.mbarrier::
    complete_tx::bytes [dst], [tensorMap, {col, row}], [mbar]: the copy is
    in flight (its bytes pending) until a wait on mbar lands it."""
    p, tmap = ins.parts[4:], ins.ops[1] if len(ins.ops) == 3 else None
    if ins.parts[3:4] != ["tensor"] or \
            p[:3] not in (["2d", "shared::cluster", "global"], ["2d", "shared::cta", "global"]) or \
            p[3:] not in (["tile", "mbarrier::complete_tx::bytes"],
                          ["mbarrier::complete_tx::bytes"]) or \
            tmap is None or tmap[0] != "tensor" or len(tmap[2]) != 2 or tmap[1][0] != "%":
        unsupported(ins)
    tids = active(em, mask)
    dst, bars = em.address(ins.ops[0])[tids], em.address(ins.ops[2])[tids]
    maps = em.read(("reg", tmap[1]))[tids]
    col, row = (sext(em.read(c, 32), 32)[tids] for c in tmap[2])
    em.tma_lines.add(ins.line)
    for mb, pos in em.mbarriers(tids, bars, "cp.async.bulk.tensor"):
        for j in pos:
            param, tm = em.L.tensor_map(int(maps[j]))
            if not em.acquired.get(param, np.zeros(em.T, bool))[tids[j]]:
                raise EmulationError(
                    f"thread {tids[j] % em.L.nt} copies through the {tm.describe()} (param "
                    f"{param}) without acquiring it first: the host wrote it to global memory, "
                    "so the thread needs fence.proxy.tensormap::generic.acquire.sys [map], 128")
            if not mb.fenced:
                raise EmulationError(
                    f"the init of the mbarrier at {em.L.shared_name(mb.flat % em.L.shared_size)} "
                    f"(line {mb.line}) is not visible to the TMA unit: thread "
                    f"{mb.init_agent % em.L.nt} needs fence.mbarrier_init.release.cluster (or "
                    "fence.proxy.async.shared::cta) after it")
            align = 1024 if tm.swizzle else 128
            if (int(dst[j]) - SHARED_BASE) % align:
                raise EmulationError(f"destination {em.L.shared_name(int(dst[j]) - SHARED_BASE)} "
                                     f"is not {align}-byte aligned" +
                                     (" (a 128-byte swizzle)" if tm.swizzle else ""))
            idx = em.shared_index(tids[j:j + 1], dst[j:j + 1], tm.nbytes, 16)
            flat, _ = em.sh_check_write(idx, tids[j:j + 1], "cp.async.bulk.tensor write", ASYNC)
            em.pending[flat] = ins.line
            mb.copies.append((ins.line, flat, tm.tile(int(col[j]), int(row[j]))))
            em.L.tma_copies += 1


def h_mbarrier(em, ins, mask):
    """mbarrier.init [a], count; mbarrier.arrive{.expect_tx} state, [a]{,
    tx}; mbarrier.try_wait.parity P, [a], parity{, hint} (.shared{::cta},
    .b64; the default .release/.acquire at .cta scope may be spelt out)."""
    p = [x for x in ins.parts[1:-1] if x not in ("shared", "shared::cta", "cta")]
    form, sem = [x for x in p if x not in ("release", "acquire")], set(p) & {"release", "acquire"}
    ops, tids = ins.ops, active(em, mask)
    if ins.parts[-1] != "b64" or not {"shared", "shared::cta"} & set(ins.parts) or \
            form not in (["init"], ["arrive"], ["arrive", "expect_tx"], ["try_wait", "parity"]) or \
            len(ops) != {"init": 2, "arrive": 2 + (len(form) > 1), "try_wait": 3}[form[0]] + \
            (form[0] == "try_wait" and len(ops) == 4) or \
            sem - {"release" if form[0] == "arrive" else "acquire"}:
        unsupported(ins)
    if form == ["init"]:
        counts = em.read(ops[1], 32)[tids]
        if ((counts < 1) | (counts > TX_LIMIT)).any():
            raise EmulationError(f"mbarrier count {int(counts[np.argmax(counts < 1)])} not in "
                                 f"1..{TX_LIMIT}")
        idx = em.shared_index(tids, em.address(ops[0])[tids], 8, 8)
        if em.is_mbar[idx].any():
            raise EmulationError("mbarrier.init of a live mbarrier")
        flat, a = em.sh_check_write(idx, tids, "mbarrier.init")
        em.w_ep[flat], em.w_ag[flat], em.tma_bar[flat], em.is_mbar[flat] = em.epoch, a, -1, True
        for t, f, c in zip(tids, idx[:, 0], counts):
            em.mbars[int(f)] = MBarrier(int(f), int(f) // em.L.shared_size, int(c), int(t),
                                        em.epoch, ins.line, em.T)
        return
    groups = em.mbarriers(tids, em.address(ops[1])[tids], ins.op + "." + ".".join(form))
    if form[0] == "arrive":
        tx = em.read(ops[2], 32)[tids] if len(form) > 1 else np.zeros(len(tids), np.uint64)
        state = np.zeros(em.T, np.uint64)
        for mb, pos in groups:
            for j in pos:  # in thread order
                state[tids[j]] = mb.phase  # opaque to the kernel
                mb.add_tx(int(tx[j]))
                mb.arrive()
        return em.write(ops[0], state, mask)
    parity, ok = em.read(ops[2], 32)[tids], np.zeros(em.T, bool)
    if (parity > 1).any():
        raise EmulationError(f"phase parity {int(parity.max())} is not 0 or 1")
    for mb, pos in groups:
        if (parity[pos] == mb.phase % 2).any():  # someone waits for the current phase
            em.land(mb)
        done = parity[pos] != mb.phase % 2
        if not done.all():
            raise EmulationError(
                f"waits forever: the mbarrier at {em.L.shared_name(mb.flat % em.L.shared_size)} "
                f"of block {em.blocks[mb.block]} is in phase {mb.phase} (parity "
                f"{mb.phase % 2}), which {mb.state()[len(f'phase {mb.phase} '):]} with no copy "
                "in flight to it, and every thread of the block is waiting")
        t = tids[pos]
        mb.observed[t] = np.maximum(mb.observed[t], mb.phase)
        em.sync_step[t] = em.step
        ok[t] = True
    em.write(ops[0], ok, mask)


def h_fence(em, ins, mask):
    """fence.mbarrier_init.release.cluster, fence.proxy.async{.shared::cta}:
    the mbarriers the thread initialized become visible to the TMA unit;
    fence.proxy.tensormap::generic.acquire.SCOPE [map], 128: the thread
    acquires the tensor map at map for its copies (only .sys covers what the
    host wrote)."""
    p, ops, tids = ins.parts[1:], ins.ops, active(em, mask)
    if p in (["mbarrier_init", "release", "cluster"], ["proxy", "async"],
             ["proxy", "async", "shared::cta"]) and not ops:
        for mb in em.mbars.values():
            mb.fenced |= bool(np.isin(mb.init_agent, tids))
        if p[0] == "proxy":
            em.proxy_fence[tids] = em.step
            em.proxy_fence_epoch[tids] = em.epoch
        return
    if p[:3] != ["proxy", "tensormap::generic", "acquire"] or \
            p[3:] not in (["cta"], ["cluster"], ["gpu"], ["sys"]) or len(ops) != 2 or \
            ops[0][0] != "addr" or ops[1] != ("imm", TENSOR_MAP_BYTES):
        unsupported(ins)
    for t, a in zip(tids, em.address(ops[0])[tids]):
        param, _ = em.L.tensor_map(int(a))
        if p[3] == "sys":
            em.acquired.setdefault(param, np.zeros(em.T, bool))[t] = True


def h_bar(em, ins, mask):
    if mask is not None or ins.parts[1:] not in (["sync"], ["sync", "aligned"]) or \
            ins.ops[0] != ("imm", 0) or ins.ops[1:] not in ([], [("imm", em.L.nt)]):
        unsupported(ins, "only an unpredicated barrier 0 over the whole block")
    em.flush_issues()
    em.epoch += 1
    nt = em.L.nt
    em.sync_step[:] = em.step
    em.tc_unfenced_at_sync = em.tc_unfenced.reshape(-1, nt).any(axis=1)
    for mb in em.mbars.values():  # what one thread observed, all have
        block = mb.observed[mb.block * nt:(mb.block + 1) * nt]
        block[:] = block.max()
