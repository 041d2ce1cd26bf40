"""The lockstep machine: a launch (its blocks, memory and race
tracking) and a batch of blocks that executes instructions together, with
branch divergence, barriers and asynchronous copies."""

import sys

import numpy as np

from .common import (
    ASYNC, EmulationError, GLOBAL_SHIFT, LOCAL_BASE, MAX_SHARED, SHARED_BASE, SplitBatch,
    unsupported)
from .isa import HANDLERS
from .isa.memory import active
from .parser import CALL
from .values import RACE, mask_of


class Launch:
    """What stays fixed across the blocks of a launch."""

    def __init__(self, kernel, grid, block, dynamic_shared, buffers, tensor_maps=None):
        self.k, self.grid, self.block = kernel, grid, block
        self.nt = int(np.prod(block))
        kind, limit = kernel.ntid or ("maxntid", self.nt)
        if self.nt > limit or kind == "reqntid" and self.nt != limit:
            raise EmulationError(f"{self.nt} threads per block do not fit .{kind} {limit}")
        self.symbols, off = {}, 0  # static shared arrays, then the extern one
        for name, align, size, extern in sorted(kernel.shared, key=lambda s: s[3]):
            off = -(-off // align) * align
            self.symbols[name] = SHARED_BASE + off
            off += dynamic_shared if extern else size
        if any(s[3] for s in kernel.shared) and not dynamic_shared:
            raise EmulationError("the kernel uses extern .shared memory: give --dynamic-shared")
        if off > MAX_SHARED:
            raise EmulationError(f"{off} bytes of shared memory exceed {MAX_SHARED}")
        self.shared_size = max(off, 16)
        self.local_symbols, off = {}, 0  # each thread's local arrays
        for name, align, size in kernel.local:
            off = -(-off // align) * align
            self.local_symbols[name] = LOCAL_BASE + off
            off += size
        self.local_size = off
        # One np.uint8 array per parameter, then one per module global (a
        # copy of its initial bytes), each in its own window.
        self.global_symbols = {}
        buffers = list(buffers)
        for name, data in kernel.globals.items():
            buffers.append(data.copy())
            self.global_symbols[name] = len(buffers) << GLOBAL_SHIFT
        self.buffers = buffers
        self.sizes = np.array([len(b) for b in buffers], np.int64)
        self.tensor_maps = tensor_maps or {}  # parameter -> TensorMap
        self.global_writes = []  # (param, byte offsets, writing block)
        self.steps = self.tma_copies = self.tma_stores = 0

    def shared_name(self, off):
        """'symbol+offset' of a shared-window offset."""
        best = max(((a - SHARED_BASE, n) for n, a in self.symbols.items()
                    if a - SHARED_BASE <= off), default=None)
        return f"shared byte {off}" + (f" ({best[1]}+{off - best[0]})" if best else "")

    def tensor_map(self, address):
        """(parameter, TensorMap) at a generic address (a tmap: parameter's)."""
        p, off = (address >> GLOBAL_SHIFT) - 1, address & ((1 << GLOBAL_SHIFT) - 1)
        if p not in self.tensor_maps or off:
            raise EmulationError(f"{hex(address)} is not the address of a tensor map (bind one "
                                 "with --param P=tmap:...)")
        return p, self.tensor_maps[p]


class Batch:
    """Lockstep state of a few blocks: registers (one uint64 or bool array
    over all their threads per register), shared memory and race metadata."""

    def __init__(self, L, blocks):
        self.L, self.blocks = L, blocks
        nt, S = L.nt, L.shared_size
        self.T = T = len(blocks) * nt
        self.bidx = np.arange(T) // nt  # batch-local block of each thread
        lin = np.arange(T) % nt
        blk = np.array(blocks, np.uint64)[self.bidx]
        gx, gy, _ = L.grid
        self.linear_block = np.array([x + gx * (y + gy * z) for x, y, z in blocks], np.int64)
        (bx, by, _), u = L.block, lambda a: np.broadcast_to(np.uint64(a), (T,)).astype(np.uint64)
        self.special = {"%laneid": u(lin % 32), "%warpid": u(lin // 32)}
        for i, c in enumerate("xyz"):
            self.special[f"%tid.{c}"] = u([lin % bx, lin // bx % by, lin // (bx * by)][i])
            self.special[f"%ntid.{c}"] = u(L.block[i])
            self.special[f"%ctaid.{c}"] = blk[:, i].copy()
            self.special[f"%nctaid.{c}"] = u(L.grid[i])
        self.regs, self.imm_cache = {}, {}
        self.pspace = {}  # .param space of calls: name -> per-thread bits
        self.local = np.zeros((T, L.local_size), np.uint8)
        # Per shared byte: value (poisoned with 0xff), epoch and agent of the
        # last write and of the reads (agent -2: several), line of a pending
        # cp.async or TMA copy (-1: none); for bytes a TMA copy wrote, the
        # barrier (its first byte) and phase whose completion covers them and
        # the copy's line (-1: none); whether the byte is part of an mbarrier.
        # Epochs count bar.sync intervals.
        self.sh = np.full(len(blocks) * S, 0xFF, np.uint8)
        self.w_ep, self.w_ag, self.r_ep, self.r_ag, self.pending, self.tma_bar, self.tma_phase, \
            self.tma_line = (np.full(len(blocks) * S, -1, np.int32) for _ in range(8))
        self.is_mbar = np.zeros(len(blocks) * S, bool)
        self.mbars, self.tma_lines = {}, set()  # first byte -> MBarrier; lines of TMA copies
        self.acquired = {}  # tensor-map parameter -> threads that fenced it (.sys acquire)
        self.epoch, self.uncommitted, self.groups = 0, [], []
        self.issues, self.nissues = [], 0
        # wgmma: whether a wgmma.fence ran; the open group and the committed
        # groups in flight, each [(line, accumulator registers, shared bytes
        # read, [(warpgroup, the bytes it read)])]; accumulator register -> line of its wgmma in flight; per
        # shared byte, the line of a wgmma in flight that reads it (-1: none).
        self.wg_fenced, self.wg_open, self.wg_groups, self.wg_pending = False, [], [], {}
        self.wg_reading = np.full(len(blocks) * S, -1, np.int32)
        # tcgen05: each MMA issued gets an id (-> its line); per shared byte,
        # the MMA in flight that reads it (-1: none); per block, the tensor
        # memory (lanes x columns of 32-bit words), the allocations (first
        # column -> columns), whether it gave up allocating; per column, the
        # MMA in flight writing it (-1: none), and the mbarrier (first byte, -1: none) and phase whose
        # completion made the last MMA's result visible (-2: never written);
        # per thread, the MMAs it issued that have not completed; registers
        # of a tcgen05.ld not yet waited for -> its line.
        self.tmem = np.zeros((len(blocks), 128, 512), np.uint32)
        self.tm_allocs = [dict() for _ in blocks]
        self.tm_relinquished = np.zeros(len(blocks), bool)
        self.tm_pending = np.full((len(blocks), 512), -1, np.int32)
        self.tm_bar = np.full((len(blocks), 512), -2, np.int64)
        self.tm_phase = np.zeros((len(blocks), 512), np.int64)
        self.tc_issued, self.tc_lines = {}, {}
        # TMA stores: per shared byte the step of its last generic write;
        # per thread the step and the epoch of its last fence.proxy.async,
        # and its bulk group being built and those committed, each a list
        # of (line, shared bytes read); per shared byte, the line of a store
        # in flight that reads it (-1: none).
        self.step = 0
        self.w_step = np.full(len(blocks) * S, -1, np.int64)
        self.proxy_fence = np.full(T, -1, np.int64)
        self.proxy_fence_epoch = np.full(T, -1, np.int64)
        self.bulk_open, self.bulk_groups = {}, {}
        self.bulk_reading = np.full(len(blocks) * S, -1, np.int32)
        self.tc_reading = np.full(len(blocks) * S, -1, np.int64)
        self.tc_ld_pending = {}
        # tcgen05 fences: per thread the step of its last
        # fence::after_thread_sync and of its last thread synchronization
        # (bar.sync, or a wait that observed an mbarrier phase), and whether
        # it issued tcgen05 operations since its last fence::before_thread_sync;
        # per block, whether some thread had such operations at its last
        # bar.sync.
        self.tc_after = np.full(T, -1, np.int64)
        self.sync_step = np.full(T, -1, np.int64)
        self.tc_unfenced = np.zeros(T, bool)
        self.tc_unfenced_at_sync = np.zeros(len(blocks), bool)

    # ---------------------------------------------------------- operands
    def imm(self, v):
        if v not in self.imm_cache:
            self.imm_cache[v] = np.full(self.T, v & 0xFFFFFFFFFFFFFFFF, np.uint64)
        return self.imm_cache[v]

    def in_flight(self, name, what):
        raise EmulationError(f"{what} {name}, an accumulator of the wgmma.mma_async at line "
                             f"{self.wg_pending[name]}, before a wgmma.wait_group retires it")

    def read(self, op, bits=64):
        if op[0] == "reg":
            if self.wg_pending and op[1] in self.wg_pending:
                self.in_flight(op[1], "reads")
            if self.tc_ld_pending and op[1] in self.tc_ld_pending:
                raise EmulationError(f"reads {op[1]}, loaded by the tcgen05.ld at line "
                                     f"{self.tc_ld_pending[op[1]]}, before a tcgen05.wait::ld")
            v = self.regs.get(op[1], self.special.get(op[1]))
            if v is None:
                raise EmulationError(f"register {op[1]} read before it is written")
        elif op[0] == "imm":
            v = self.imm(op[1])
        elif op[0] == "sym" and op[1] in self.L.symbols:
            v = self.imm(self.L.symbols[op[1]])
        elif op[0] == "sym" and op[1] in self.L.global_symbols:
            v = self.imm(self.L.global_symbols[op[1]])
        elif op[0] == "sym" and op[1] in self.L.local_symbols:
            v = self.imm(self.L.local_symbols[op[1]])
        else:
            raise EmulationError(f"unsupported operand {op}")
        return v if bits == 64 or v.dtype == bool else v & mask_of(bits)

    def write(self, op, value, mask, bits=64):
        """Write the threads of `mask` (None: all), truncating to `bits`."""
        if op[0] == "sink":
            return
        if op[0] != "reg" or op[1] in self.special:
            raise EmulationError(f"cannot write operand {op}")
        if self.wg_pending and op[1] in self.wg_pending:
            self.in_flight(op[1], "writes")
        if value.dtype != bool and bits < 64:
            value = value & mask_of(bits)
        if mask is not None:
            old = self.regs.get(op[1])
            value = np.where(mask, value, np.zeros_like(value) if old is None else old)
        self.regs[op[1]] = value

    def address(self, op):
        if op[0] != "addr":
            raise EmulationError(f"expected an address, got {op}")
        b = op[1]
        base = ("reg", b) if b[0] == "%" else ("imm", int(b, 0)) if b[0].isdigit() else ("sym", b)
        return self.read(base) + np.uint64(op[2] & 0xFFFFFFFFFFFFFFFF)

    # ----------------------------------------------------- race tracking
    # The agent of an access is thread t of the batch, T + w for a warp
    # collective (ldmatrix, the operand reads of wgmma) of warp w, which every
    # lane of the warp performs, or T + T / 32 + g for the operand reads of
    # the wgmma of warpgroup g that a wgmma.wait_group retired: the reads may
    # happen as late as that wait, which orders them before what the
    # warpgroup's threads do next, but not before what other threads do.
    def agent_name(self, a):
        if a == -2:
            return "several threads"
        if a == ASYNC:
            return "cp.async.bulk.tensor"
        if a >= self.T + self.T // 32:
            return f"warpgroup {(a - self.T - self.T // 32) % (self.L.nt // 128)} (wgmma)"
        if a >= self.T:
            return f"warp {(a - self.T) % (self.L.nt // 32)} (ldmatrix)"
        return f"thread {a % self.L.nt}"

    def unordered(self, x, y):
        """Accesses of recorded agents x and new agents y are not ordered by
        program order (x == -2: several agents)."""
        G0 = self.T + self.T // 32

        def units(a):  # warp, warpgroup (-1: none); warp agent; warpgroup agent
            is_g, is_w = a >= G0, (a >= self.T) & (a < G0)
            w = np.where(is_g | (a < 0), -1, np.where(is_w, a - self.T, a // 32))
            g = np.where(a < 0, -1, np.where(is_g, a - G0, np.where(is_w, (a - self.T) // 4,
                                                                     a // 128)))
            return w, g, is_w, is_g

        wx, gx, xw, xg = units(x)
        wy, gy, yw, yg = units(y)
        same_warp = (wx == wy) & (wx >= 0) & (xw | yw)
        same_group = (gx == gy) & (gx >= 0) & (xg | yg)
        return (x != y) & ~same_warp & ~same_group

    def note_reads(self, flat, a):
        """Records reads of shared bytes `flat` by agents `a` in this epoch."""
        new = self.r_ep[flat] != self.epoch
        self.r_ep[flat[new]] = self.epoch
        self.r_ag[flat[new]] = a[new]
        self.r_ag[flat[self.r_ag[flat] != a]] = -2

    def issue(self, kind, flat, a1, a0=None):
        """Record a problem on shared bytes `flat` by agents a1 (after a0), to
        report at the next barrier or exit; runs of bytes become ranges."""
        self.nissues += len(flat)
        i = 0
        while i < len(flat) and len(self.issues) < 5:
            j = i + 1
            while j < len(flat) and flat[j] == flat[j - 1] + 1 and a1[j] == a1[i] and \
                    (a0 is None or a0[j] == a0[i]):
                j += 1
            b, off = divmod(int(flat[i]), self.L.shared_size)
            who = self.agent_name(a1[i])
            if a0 is not None:
                who = self.agent_name(a0[i]) + " then " + who
            self.issues.append(f"line {self.cur.line}: {self.cur.text}: {kind}: shared bytes "
                               f"{off}..{off + j - i - 1} of block {self.blocks[b]}, {who}")
            i = j

    def flush_issues(self):
        if self.issues:
            raise EmulationError("\n  ".join(self.issues) + (
                f"\n  ({self.nissues} bytes in all)" if self.nissues > len(self.issues) else ""))

    # ------------------------------------------------------------ shared
    def shared_index(self, tids, addrs, n, align):
        """Flat indices (len(tids), n) of shared bytes; bounds, alignment."""
        S = self.L.shared_size
        off = addrs - np.uint64(SHARED_BASE)
        bad = (off > np.uint64(S - n)) | (addrs % np.uint64(align) != 0)
        if bad.any():
            i = int(np.argmax(bad))
            what = "misaligned" if off[i] <= np.uint64(S - n) else "out-of-bounds"
            raise EmulationError(f"{what} shared access of {n} bytes at {hex(int(addrs[i]))} "
                                 f"(window {hex(SHARED_BASE)}+{S}, "
                                 f"thread {int(tids[i]) % self.L.nt})")
        return (self.bidx[tids] * S + off.astype(np.int64))[:, None] + np.arange(n)

    def copy_name(self, line):
        return "cp.async.bulk.tensor" if line in self.tma_lines else "cp.async"

    def generic_checks(self, flat, a, what):
        """Accesses other than mbarrier instructions and TMA copies: not to
        an mbarrier's bytes; TMA data only once its phase was observed."""
        if self.mbars and self.is_mbar[flat].any():
            f = int(flat[np.argmax(self.is_mbar[flat])])
            b, off = divmod(f, self.L.shared_size)
            raise EmulationError(f"{what} of {self.L.shared_name(off)} of block "
                                 f"{self.blocks[b]}, which holds an mbarrier: only mbarrier "
                                 "instructions may access it")
        if not self.tma_lines:
            return
        tb = self.tma_bar[flat]
        if (tb < 0).all():
            return
        for f in np.unique(tb[tb >= 0]):
            mb, sel = self.mbars[int(f)], np.nonzero(tb == f)[0]
            ag, fl = a[sel], flat[sel]
            per_warp = np.minimum.reduceat(mb.observed, np.arange(0, self.T, 32))
            seen = np.where(ag >= self.T, per_warp[np.clip(ag - self.T, 0, len(per_warp) - 1)],
                            mb.observed[np.clip(ag, 0, self.T - 1)])
            bad = seen <= self.tma_phase[fl]
            if bad.any():
                i = fl[int(np.argmax(bad))]
                self.issue(f"{what} of bytes that cp.async.bulk.tensor (line {self.tma_line[i]}) "
                           f"wrote in phase {self.tma_phase[i]} of the mbarrier at "
                           f"{self.L.shared_name(mb.flat % self.L.shared_size)} before observing "
                           "that phase's completion", fl[bad], ag[bad])

    def sh_read(self, tids, addrs, n, agents=None):
        idx = self.shared_index(tids, addrs, n, n)
        flat = idx.ravel()
        a = np.repeat(tids if agents is None else agents, n).astype(np.int32)
        self.generic_checks(flat, a, "read")
        pend = self.pending[flat] >= 0
        if pend.any():
            line = self.pending[flat][pend][0]
            self.issue(f"read of bytes whose {self.copy_name(line)} (line {line}) "
                       "is still pending", flat[pend], a[pend])
        wep = self.w_ep[flat]
        never = (wep < 0) & ~pend
        if never.any():
            self.issue("read of shared memory never written", flat[never], a[never])
        if (wep == self.epoch).any():
            wa = self.w_ag[flat]
            raw = (wep == self.epoch) & self.unordered(wa, a) & (wa != ASYNC)
            if raw.any():
                self.issue(f"read-after-write {RACE}", flat[raw], a[raw], wa[raw])
        self.note_reads(flat, a)
        return self.sh[idx]

    def sh_check_write(self, idx, tids, what="write", agent=None):
        """Checks a write of bytes idx by threads tids (agent: ASYNC for a
        TMA copy, which no thread's program order covers)."""
        flat = idx.ravel()
        a = np.repeat(tids, idx.shape[1]).astype(np.int32) if agent is None else \
            np.full(len(flat), agent, np.int32)
        if agent is None:
            self.generic_checks(flat, a, what)
        elif self.is_mbar[flat].any():
            raise EmulationError(f"{what} of an mbarrier's bytes")
        reading = self.wg_reading[flat] >= 0
        if reading.any():
            line = self.wg_reading[flat][reading][0]
            self.issue(f"{what} of bytes that the wgmma.mma_async at line {line} still reads "
                       "(no wgmma.wait_group retired it)", flat[reading], a[reading])
        reading = self.bulk_reading[flat] >= 0
        if reading.any():
            line = self.bulk_reading[flat][reading][0]
            self.issue(f"{what} of bytes that the TMA store at line {line} still reads (no "
                       "cp.async.bulk.wait_group retired it)", flat[reading], a[reading])
        reading = self.tc_reading[flat] >= 0
        if reading.any():
            line = self.tc_lines[int(self.tc_reading[flat][reading][0])]
            self.issue(f"{what} of bytes that the tcgen05.mma at line {line} still reads (no "
                       "wait observed the completion its tcgen05.commit signals)",
                       flat[reading], a[reading])
        pend = self.pending[flat] >= 0
        if pend.any():
            line = self.pending[flat][pend][0]
            self.issue(f"{what} of bytes whose {self.copy_name(line)} (line {line}) "
                       "is still pending", flat[pend], a[pend])
        ra, wa = self.r_ag[flat], self.w_ag[flat]
        war = (self.r_ep[flat] == self.epoch) & self.unordered(ra, a)
        if war.any():
            self.issue(f"{what}-after-read {RACE}", flat[war], a[war], ra[war])
        waw = (self.w_ep[flat] == self.epoch) & (wa != a) & (wa != ASYNC)
        if waw.any():
            self.issue(f"{what}-after-write {RACE}", flat[waw], a[waw], wa[waw])
        order = np.argsort(flat, kind="stable")
        fs, as_ = flat[order], a[order]
        dup = (fs[1:] == fs[:-1]) & (as_[1:] != as_[:-1])
        if dup.any():
            self.issue(f"two threads {what} one byte", fs[1:][dup], as_[1:][dup], as_[:-1][dup])
        return flat, a

    def sh_write(self, tids, addrs, data):
        n = data.shape[1]
        flat, a = self.sh_check_write(self.shared_index(tids, addrs, n, n), tids)
        self.sh[flat], self.w_ep[flat], self.w_ag[flat] = data.ravel(), self.epoch, a
        self.tma_bar[flat] = -1
        self.w_step[flat] = self.step

    # ---------------------------------------------------- mbarrier and TMA
    def mbarriers(self, tids, addrs, what):
        """[(MBarrier, positions in tids)] of the barriers at addrs."""
        flat = self.shared_index(tids, addrs, 8, 8)[:, 0]
        out = []
        for f in np.unique(flat):
            pos = np.nonzero(flat == f)[0]
            mb = self.mbars.get(int(f))
            b, off = divmod(int(f), self.L.shared_size)
            if mb is None:
                raise EmulationError(f"{what} on {self.L.shared_name(off)} of block "
                                     f"{self.blocks[b]}, which holds no initialized mbarrier")
            racy = (mb.init_epoch == self.epoch) & (tids[pos] != mb.init_agent)
            if racy.any():
                raise EmulationError(
                    f"thread {int(tids[pos][racy][0]) % self.L.nt} uses the mbarrier at "
                    f"{self.L.shared_name(off)} that thread {mb.init_agent % self.L.nt} "
                    f"initialized (line {mb.line}) with no bar.sync between")
            out.append((mb, pos))
        return out

    def land(self, mb):
        """Lands the copies in flight to mb, in issue order, until its current
        phase completes."""
        start = mb.phase
        while mb.copies and mb.phase == start:
            line, flat, data = mb.copies.pop(0)
            self.sh[flat], self.pending[flat] = data, -1
            self.w_ep[flat], self.w_ag[flat] = self.epoch, ASYNC
            self.tma_bar[flat], self.tma_phase[flat], self.tma_line[flat] = mb.flat, mb.phase, line
            mb.add_tx(-len(flat))
        while mb.commits and mb.phase == start:
            line, records = mb.commits.pop(0)
            for rec in records:
                self.retire_mma(rec, mb)
            mb.arrive()

    def retire_mma(self, rec, mb):
        """A tcgen05.mma completes: its reads end, its columns become
        visible to the threads that observe mb's current phase."""
        if rec["done"]:
            return
        rec["done"] = True
        b, cols = rec["block"], rec["cols"]
        mine = self.tm_pending[b, cols] == rec["id"]
        self.tm_pending[b, cols[mine]] = -1
        self.tm_bar[b, cols[mine]], self.tm_phase[b, cols[mine]] = mb.flat, mb.phase
        still = self.tc_reading[rec["flat"]] == rec["id"]
        self.tc_reading[rec["flat"][still]] = -1

    # ------------------------------------------------------------ global
    def global_index(self, addrs, n):
        """(parameter, byte offset) of each access; bounds, alignment; not a
        tensor map."""
        L = self.L
        bi = (addrs >> np.uint64(GLOBAL_SHIFT)).astype(np.int64) - 1
        off = (addrs & mask_of(GLOBAL_SHIFT)).astype(np.int64)
        if L.tensor_maps and np.isin(bi, list(L.tensor_maps)).any():
            p = int(bi[np.isin(bi, list(L.tensor_maps))][0])
            raise EmulationError(f"global access of {n} bytes to the {L.tensor_maps[p].describe()}"
                                 f" (param {p}): a tensor map is opaque, only "
                                 "cp.async.bulk.tensor may use it")
        ok = (bi >= 0) & (bi < len(L.buffers))
        ok &= off + n <= L.sizes[np.clip(bi, 0, len(L.buffers) - 1)]
        if not ok.all():
            i = int(np.argmin(ok))
            where = (f"param {bi[i]} + {off[i]} (size {L.sizes[bi[i]]})"
                     if 0 <= bi[i] < len(L.buffers) else "outside every buffer")
            raise EmulationError(f"out-of-bounds global access of {n} bytes at "
                                 f"{hex(int(addrs[i]))}: {where}")
        if (off % n).any():
            raise EmulationError(f"misaligned global access of {n} bytes at "
                                 f"{hex(int(addrs[np.argmax(off % n != 0)]))}")
        return bi, off

    def local_access(self, tids, addrs, n, data=None):
        """Reads (data None) or writes n bytes of each thread's local memory."""
        off = addrs.astype(np.int64) - LOCAL_BASE
        if ((off < 0) | (off + n > self.L.local_size)).any() or (off % n).any():
            bad = int(addrs[np.argmax((off < 0) | (off + n > self.L.local_size) | (off % n != 0))])
            raise EmulationError(f"local access of {n} bytes at {hex(bad)}: outside the thread's "
                                 f"{self.L.local_size} local bytes, or misaligned")
        idx = off[:, None] + np.arange(n)
        if data is None:
            return self.local[tids[:, None], idx]
        self.local[tids[:, None], idx] = data

    def g_read(self, addrs, n):
        bi, off = self.global_index(addrs, n)
        out = np.empty((len(addrs), n), np.uint8)
        for b in np.unique(bi):
            sel = bi == b
            out[sel] = self.L.buffers[b][off[sel][:, None] + np.arange(n)]
        return out

    def g_write(self, tids, addrs, data):
        bi, off = self.global_index(addrs, data.shape[1])
        for b in np.unique(bi):
            sel = bi == b
            idx = (off[sel][:, None] + np.arange(data.shape[1])).ravel()
            self.L.buffers[b][idx] = data[sel].ravel()
            who = np.repeat(self.linear_block[self.bidx[tids[sel]]], data.shape[1])
            self.L.global_writes.append((b, idx, who))

    # ----------------------------------------------------------- running
    def run(self):
        k, nt, B = self.L.k, self.L.nt, len(self.blocks)
        pc = steps = 0
        active, parked = None, []  # running threads (None: all); [(pc, threads waiting there)]
        calls = []  # (return pc, caller's return parameter, callee's, parked groups)
        def jump(at, target, running):
            """The running threads at `at` jump to `target`: if that skips
            threads waiting between the two (an if-else), those run first
            and the running ones wait at the target."""
            skipped = [j for j, (w, _) in enumerate(parked) if at < w < target]
            if not skipped:
                return target, running
            j = min(skipped, key=lambda j: parked[j][0])
            parked.append((target, np.ones(self.T, bool) if running is None else running))
            return parked.pop(j)

        while pc < len(k.ins):
            if parked and any(at == pc for at, _ in parked):  # threads rejoin
                for at, m in [x for x in parked if x[0] == pc]:
                    active = active | m
                parked = [x for x in parked if x[0] != pc]
                active = None if active.all() else active
            ins = self.cur = k.ins[pc]
            pc, steps = pc + 1, steps + 1
            self.step = steps
            if steps > 50_000_000:
                raise EmulationError("more than 50M instructions: runaway loop?")
            mask = active
            if ins.pred:
                mask = self.read(("reg", ins.pred)) ^ ins.neg
                mask = mask if active is None else mask & active
                if not mask.any():
                    continue
                mask = None if mask.all() else mask
            try:
                if ins.op == "bra":
                    running = np.ones(self.T, bool) if active is None else active
                    if mask is not None and (mask != running).any():  # not all running take it
                        take = mask.reshape(B, nt)
                        stay = (running.reshape(B, nt) & ~take).any(axis=1)
                        if B > 1 and not (take.any(axis=1) & stay).any():
                            raise SplitBatch()  # uniform per block, not across the batch
                        parked.append((ins.target, mask))  # the takers wait there
                        active = running & ~mask
                        continue
                    pc, active = jump(pc - 1, ins.target, active)
                elif ins.op == "call":
                    m = CALL.fullmatch(ins.text)
                    if not m or m.group(2) not in k.functions:
                        unsupported(ins, "a call of a device function defined in the PTX")
                    if mask is not active and (mask is None) != (active is None) or \
                            (mask is not None and (mask != active).any()):
                        unsupported(ins, "a predicated call")
                    first, retval, params = k.functions[m.group(2)]
                    args = [a.strip() for a in (m.group(3) or "").split(",") if a.strip()]
                    if len(args) != len(params):
                        raise EmulationError(f"{m.group(2)} takes {len(params)} parameter(s)")
                    for name, arg in zip(params, args):
                        self.pspace[name] = self.pspace[arg].copy()
                    calls.append((pc, m.group(1), retval, len(parked)))
                    pc = first
                elif ins.op in ("ret", "exit") and calls and ins.op == "ret":
                    back, into, retval, depth = calls.pop()
                    if mask is not None and (active is None or (mask != active).any()) or \
                            len(parked) != depth:
                        raise EmulationError("divergent ret from a device function not supported")
                    if into:
                        self.pspace[into] = self.pspace[retval].copy()
                    pc = back
                elif ins.op in ("ret", "exit"):
                    if mask is not None or parked:
                        raise EmulationError("divergent ret/exit not supported")
                    break
                elif parked and ins.op in ("bar", "barrier"):
                    # The block's threads meet at a barrier: threads parked before it
                    # (at a loop's head, having taken its back edge) run on to it
                    # while the ones here wait.
                    runnable = [j for j, (w, _) in enumerate(parked)
                                if k.ins[w].op not in ("bar", "barrier")]
                    if not runnable:
                        raise EmulationError(f"barrier inside a divergent region: threads wait "
                                             f"at the barrier at line {k.ins[parked[-1][0]].line}")
                    parked.append((pc - 1, active))
                    pc, active = parked.pop(runnable[0])
                    continue
                else:
                    HANDLERS.get(ins.op, lambda em, ins, m: unsupported(ins))(self, ins, mask)
            except EmulationError as e:
                msg = str(e) if str(e).startswith("line ") else f"line {ins.line}: {ins.text}: {e}"
                raise EmulationError(msg) from None
        self.flush_issues()
        parked = [x for x in parked if x[0] < len(k.ins)]  # a label at the end: they exit
        if parked:
            raise EmulationError(f"threads that branched to line {k.ins[parked[-1][0]].line} "
                                 "never rejoined the others")
        if self.wg_pending:
            name, line = next(iter(self.wg_pending.items()))
            raise EmulationError(f"blocks {self.blocks} exit with the wgmma.mma_async at line "
                                 f"{line} in flight (no wgmma.wait_group retired it)")
        if (self.bulk_reading >= 0).any():
            line = int(self.bulk_reading[np.argmax(self.bulk_reading >= 0)])
            raise EmulationError(f"blocks {self.blocks} exit while the TMA store at line {line} "
                                 "may still read shared memory (no cp.async.bulk.commit_group "
                                 "and cp.async.bulk.wait_group retired it)")
        for b, allocs in enumerate(self.tm_allocs):
            if allocs:
                col, n = next(iter(allocs.items()))
                raise EmulationError(f"block {self.blocks[b]} exits with {n} columns of tensor "
                                     f"memory at column {col} allocated (no tcgen05.dealloc)")
        for mb in self.mbars.values():
            if mb.copies:
                raise EmulationError(
                    f"block {self.blocks[mb.block]} exits with {len(mb.copies)} "
                    f"cp.async.bulk.tensor copies (line {mb.copies[0][0]}) in flight to the "
                    f"mbarrier at {self.L.shared_name(mb.flat % self.L.shared_size)} "
                    f"({mb.state()})")
        if (self.pending >= 0).any() or self.uncommitted:
            print(f"warning: blocks {self.blocks}: cp.async copies never waited for",
                  file=sys.stderr)
        self.L.steps += steps * B
