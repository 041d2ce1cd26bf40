#!/usr/bin/env python3
"""A lockstep emulator for the PTX of the tensor-core kernels, so that tests
without a GPU check that a kernel computes the right numbers.

  ptx_emulator.py run KERNEL.ptx --grid X[,Y[,Z]] --block X[,Y[,Z]]
      [--dynamic-shared BYTES] --param P=in:FILE.npy ...
      --param P=out:FILE.npy:DTYPE:SHAPE ... [--blocks SPEC [--seed S]]
  ptx_emulator.py gen DIR NAME:DTYPE:SHAPE:LO:HI ...  integer-valued inputs
                                                      (DTYPE f16/f32/i32)
  ptx_emulator.py check-gemm DIR OUT.npy --grid X,Y [--blocks SPEC [--seed S]]
      [--atol A]  OUT == relu(a @ b + bias) (DIR/{a,b,bias}.npy) on the tiles
                  of the chosen blocks; the other tiles must be unwritten

`run` emulates the single .entry of the PTX. Its parameters must be .u64
device pointers; --param binds each (P: name or index) to an input array, or
to an output that starts as 0xff bytes (NaN) and is saved at the end. SPEC
picks blocks: 'all' (default), or '+'-joined items 'X,Y[,Z]', 'corners',
'random:N' (N more blocks, drawn with --seed). check-gemm resolves the same
SPEC; block (x, y) owns output tile (y, x) of a grid-shaped tiling.

Model. All threads of a block execute each instruction together (blocks run
in lockstep batches; branches must be uniform within a block). The emulator
stops with an error and exit status 1 on:
  - an instruction or form it does not implement ("unsupported PTX
    instruction: ..."), a divergent branch, a partially predicated collective;
  - out-of-bounds or misaligned global or shared accesses;
  - a read or overwrite of shared bytes whose cp.async is still pending: the
    data lands only when cp.async.wait_group N retires its group (groups are
    closed by commit_group; N newest groups stay pending);
  - a shared-memory race: within one bar.sync interval, a byte written by one
    thread and read or written by another (cp.async data counts as written
    by its thread when the wait retires it); ldmatrix is a warp collective,
    performed by every lane of the warp; a read of never-written shared memory;
  - global bytes written by two blocks.
Not modelled: timing, memory ordering other than barrier intervals,
intra-warp ordering (lanes of one warp never race with that warp's
ldmatrix), global races inside a block, generic/local addressing, atomics.

Arithmetic: integer ops exact; f32/f16/f16x2 add, sub, mul round to nearest
even once (IEEE), fma is computed in float64 and rounded once. mma.sync
m16n8k16 computes D = C + A*B exactly (float64) and rounds once per
instruction to the f16 or f32 accumulator. Tensor cores round differently
inside an instruction, so f16 results may differ from a GPU's by about one
rounding per k16 step; integer-valued inputs whose partial sums are exactly
representable give exact results under any rounding model.
"""

import argparse
import os
import re
import sys

import numpy as np

GLOBAL_SHIFT = 40  # global buffer of parameter i lives at (i + 1) << 40
SHARED_BASE = 0x10000  # shared-window address of the first shared byte
MAX_SHARED = 232448  # sm_90 per-block limit
IGNORED_QUALIFIERS = {"ca", "cg", "cs", "lu", "cv", "nc", "weak"}


class EmulationError(Exception):
    pass


class SplitBatch(Exception):
    """Blocks of a batch branched differently: run them one at a time."""


def unsupported(ins, why=""):
    raise EmulationError(f"unsupported PTX instruction: {ins.text}" + (f" ({why})" if why else ""))


# ------------------------------------------------------------------ parsing
class Ins:
    """One statement: guard predicate, dotted opcode parts, operands."""

    def __init__(self, line, text):
        self.line, self.text, self.pred, self.neg = line, text, None, False
        m = re.match(r"@(!?)(%\w+)\s+(.*)$", text)
        if m:
            self.neg, self.pred, text = m.group(1) == "!", m.group(2), m.group(3)
        opcode, _, rest = text.partition(" ")
        self.parts = opcode.split(".")
        self.op = self.parts[0]
        self.ops = [parse_operand(s) for s in split_top(rest)]


def split_top(s):
    """Split at commas outside {} and []."""
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch in "{[") - (ch in "}]")
        if ch == "," and depth == 0:
            out, cur = out + [cur.strip()], ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def parse_operand(s):
    """('vec', [ops]) | ('addr', base, offset) | ('reg', name) | ('imm', int)
    | ('sym', name) | ('sink',)."""
    if s.startswith("{"):
        return ("vec", [parse_operand(x) for x in split_top(s[1:-1])])
    if s.startswith("["):
        m = re.fullmatch(r"\[\s*([%\w$.]+)\s*(?:\+\s*(-?\d+)|(-\d+))?\s*\]", s)
        if not m:
            raise EmulationError(f"cannot parse address operand {s}")
        return ("addr", m.group(1), int(m.group(2) or m.group(3) or 0))
    if s == "_":
        return ("sink",)
    if s.startswith("%"):
        return ("reg", s)
    m = re.fullmatch(r"0[fF]([0-9a-fA-F]{8})", s)  # f32 bit pattern
    if m:
        return ("imm", int(m.group(1), 16))
    m = re.fullmatch(r"(-?(?:0[xX][0-9a-fA-F]+|\d+))[uU]?", s)
    return ("imm", int(m.group(1), 0)) if m else ("sym", s)


SHARED_DECL = re.compile(r"(\.extern\s+)?\.shared\s+(?:\.align\s+(\d+)\s+)?"
                         r"\.[busf](\d+)\s+(\w+)\[(\d*)\]")


class Kernel:
    """The .entry of a PTX file: parameters, thread limit, shared arrays
    (name, align, bytes, extern), statements and labels."""

    def __init__(self, path):
        with open(path) as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        text = "\n".join(l.split("//")[0] for l in text.split("\n"))
        entries = re.findall(r"\.entry\s+(\w+)\s*\(", text)
        if len(entries) != 1 or ".func" in text:
            raise EmulationError(f"expected one .entry and no .func, found {len(entries)} entries")
        self.name = entries[0]
        start = text.index(".entry")
        body = text.index("{", start) + 1
        header = text[start:body]
        plist = header[header.index("(") + 1:header.index(")")]
        self.params = [(d.split()[-1], d.split()[1]) for d in plist.split(",") if d.strip()]
        m = re.search(r"\.(maxntid|reqntid)\s+([\d,\s]+)", header[header.index(")"):])
        self.ntid = m and (m.group(1), int(np.prod([int(x) for x in m.group(2).split(",")
                                                     if x.strip()])))
        self.shared = [self.decl(m) for m in SHARED_DECL.finditer(text[:start])]
        self.ins, self.labels = [], {}
        line = text.count("\n", 0, body) + 1
        for chunk in text[body:text.rindex("}")].split(";"):
            stmt_line, line = line, line + chunk.count("\n")
            while True:  # leading labels, then the statement
                lead = len(chunk) - len(chunk.lstrip())
                stmt_line += chunk[:lead].count("\n")
                chunk = chunk[lead:]
                m = re.match(r"([$\w]+):", chunk)
                if not m:
                    break
                self.labels[m.group(1)] = len(self.ins)
                chunk = chunk[m.end():]
            s = " ".join(chunk.split())
            if not s or s.startswith(".reg") or s.startswith(".pragma"):
                continue
            if SHARED_DECL.fullmatch(s):
                self.shared.append(self.decl(SHARED_DECL.fullmatch(s)))
            elif s[0] in ".{}":
                raise EmulationError(f"line {stmt_line}: unsupported PTX statement: {s}")
            else:
                self.ins.append(Ins(stmt_line, s))

    @staticmethod
    def decl(m):
        return (m.group(4), int(m.group(2) or 1), int(m.group(5) or 0) * int(m.group(3)) // 8,
                bool(m.group(1)))


# ------------------------------------------------------------ value helpers
def mask_of(bits):
    return np.uint64((1 << bits) - 1)


def sext(x, bits):
    """Bit patterns of `bits` bits (uint64) as signed int64 values."""
    if bits == 64:
        return x.view(np.int64)
    half = 1 << (bits - 1)
    return ((x & mask_of(bits)).astype(np.int64) ^ half) - half


def type_bits(t):
    m = re.fullmatch(r"[busf](8|16|32|64)", t)
    if t != "f16x2" and not m:
        raise EmulationError(f"unsupported type .{t}")
    return 32 if t == "f16x2" else int(m.group(1))


def f_decode(x, t):
    """Bit patterns -> float16/float32 values."""
    if t == "f32":
        return (x & mask_of(32)).astype(np.uint32).view(np.float32)
    if t == "f16":
        return (x & mask_of(16)).astype(np.uint16).view(np.float16)
    raise EmulationError(f"unsupported float type .{t}")


def f_encode(f, t):
    """Values -> bit patterns, rounded to nearest even once (numpy converts
    float64 to float16 directly, without double rounding)."""
    if t not in ("f32", "f16"):
        raise EmulationError(f"unsupported float type .{t}")
    dt, it = {"f32": (np.float32, np.uint32), "f16": (np.float16, np.uint16)}[t]
    return f.astype(dt).view(it).astype(np.uint64)


CANONICAL_NAN = {"f32": 0x7FFFFFFF, "f16": 0x7FFF}
RACE = "race (no bar.sync between)"


# ----------------------------------------------------------------- emulator
class Launch:
    """What stays fixed across the blocks of a launch."""

    def __init__(self, kernel, grid, block, dynamic_shared, buffers):
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
        self.buffers = buffers  # one np.uint8 array per parameter
        self.sizes = np.array([len(b) for b in buffers], np.int64)
        self.global_writes = []  # (param, byte offsets, writing block)
        self.steps = 0


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
        # Per shared byte: value (poisoned with 0xff), epoch and agent of the
        # last write and of the reads (agent -2: several), line of a pending
        # cp.async (-1: none). Epochs count bar.sync intervals.
        self.sh = np.full(len(blocks) * S, 0xFF, np.uint8)
        self.w_ep, self.w_ag, self.r_ep, self.r_ag, self.pending = (
            np.full(len(blocks) * S, -1, np.int32) for _ in range(5))
        self.epoch, self.uncommitted, self.groups = 0, [], []
        self.issues, self.nissues = [], 0

    # ---------------------------------------------------------- operands
    def imm(self, v):
        if v not in self.imm_cache:
            self.imm_cache[v] = np.full(self.T, v & 0xFFFFFFFFFFFFFFFF, np.uint64)
        return self.imm_cache[v]

    def read(self, op, bits=64):
        if op[0] == "reg":
            v = self.regs.get(op[1], self.special.get(op[1]))
            if v is None:
                raise EmulationError(f"register {op[1]} read before it is written")
        elif op[0] == "imm":
            v = self.imm(op[1])
        elif op[0] == "sym" and op[1] in self.L.symbols:
            v = self.imm(self.L.symbols[op[1]])
        else:
            raise EmulationError(f"unsupported operand {op}")
        return v if bits == 64 or v.dtype == bool else v & mask_of(bits)

    def write(self, op, value, mask, bits=64):
        """Write the threads of `mask` (None: all), truncating to `bits`."""
        if op[0] == "sink":
            return
        if op[0] != "reg" or op[1] in self.special:
            raise EmulationError(f"cannot write operand {op}")
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
    # The agent of an access is thread t of the batch, or T + w for a warp
    # collective (ldmatrix) of warp w, which every lane of the warp performs.
    def agent_name(self, a):
        if a == -2:
            return "several threads"
        if a >= self.T:
            return f"warp {(a - self.T) % (self.L.nt // 32)} (ldmatrix)"
        return f"thread {a % self.L.nt}"

    def unordered(self, x, y):
        """Accesses of recorded agents x and new agents y are not ordered by
        program order (x == -2: several agents)."""
        wx = np.where(x >= self.T, x - self.T, x // 32)
        wy = np.where(y >= self.T, y - self.T, y // 32)
        return (x != y) & ~((wx == wy) & ((x >= self.T) | (y >= self.T)))

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

    def sh_read(self, tids, addrs, n, agents=None):
        idx = self.shared_index(tids, addrs, n, n)
        flat = idx.ravel()
        a = np.repeat(tids if agents is None else agents, n).astype(np.int32)
        pend = self.pending[flat] >= 0
        if pend.any():
            self.issue(f"read of bytes whose cp.async (line {self.pending[flat][pend][0]}) "
                       "is still pending", flat[pend], a[pend])
        wep = self.w_ep[flat]
        never = (wep < 0) & ~pend
        if never.any():
            self.issue("read of shared memory never written", flat[never], a[never])
        if (wep == self.epoch).any():
            wa = self.w_ag[flat]
            raw = (wep == self.epoch) & self.unordered(wa, a)
            if raw.any():
                self.issue(f"read-after-write {RACE}", flat[raw], a[raw], wa[raw])
        new = self.r_ep[flat] != self.epoch
        self.r_ep[flat[new]] = self.epoch
        self.r_ag[flat[new]] = a[new]
        self.r_ag[flat[self.r_ag[flat] != a]] = -2
        return self.sh[idx]

    def sh_check_write(self, idx, tids, what="write"):
        flat = idx.ravel()
        a = np.repeat(tids, idx.shape[1]).astype(np.int32)
        pend = self.pending[flat] >= 0
        if pend.any():
            self.issue(f"{what} of bytes whose cp.async (line {self.pending[flat][pend][0]}) "
                       "is still pending", flat[pend], a[pend])
        ra, wa = self.r_ag[flat], self.w_ag[flat]
        war = (self.r_ep[flat] == self.epoch) & self.unordered(ra, a)
        if war.any():
            self.issue(f"{what}-after-read {RACE}", flat[war], a[war], ra[war])
        waw = (self.w_ep[flat] == self.epoch) & (wa != a)
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

    # ------------------------------------------------------------ global
    def global_index(self, addrs, n):
        """(parameter, byte offset) of each access; bounds, alignment."""
        L = self.L
        bi = (addrs >> np.uint64(GLOBAL_SHIFT)).astype(np.int64) - 1
        off = (addrs & mask_of(GLOBAL_SHIFT)).astype(np.int64)
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
        while pc < len(k.ins):
            ins = self.cur = k.ins[pc]
            pc, steps = pc + 1, steps + 1
            if steps > 50_000_000:
                raise EmulationError("more than 50M instructions: runaway loop?")
            mask = None
            if ins.pred:
                mask = self.read(("reg", ins.pred)) ^ ins.neg
                if not mask.any():
                    continue
                mask = None if mask.all() else mask
            try:
                if ins.op == "bra":
                    if mask is not None:  # uniform per block, not across the batch?
                        per_block = mask.reshape(B, nt)
                        if (per_block.any(axis=1) != per_block.all(axis=1)).any():
                            raise EmulationError("divergent branch not supported")
                        raise SplitBatch()
                    pc = k.labels[ins.ops[0][1]]
                elif ins.op in ("ret", "exit"):
                    if mask is not None:
                        raise EmulationError("divergent ret/exit not supported")
                    break
                else:
                    HANDLERS.get(ins.op, lambda em, ins, m: unsupported(ins))(self, ins, mask)
            except EmulationError as e:
                msg = str(e) if str(e).startswith("line ") else f"line {ins.line}: {ins.text}: {e}"
                raise EmulationError(msg) from None
        self.flush_issues()
        if (self.pending >= 0).any() or self.uncommitted:
            print(f"warning: blocks {self.blocks}: cp.async copies never waited for",
                  file=sys.stderr)
        self.L.steps += steps * B


# ----------------------------------------------------------------- handlers
def h_alu(em, ins, mask):
    t = ins.parts[-1]
    (h_float if t[0] == "f" else h_int)(em, ins, mask)


def h_int(em, ins, mask):
    """add sub mul.{lo,wide} mad.{lo,wide} and or xor not neg abs min max
    shl shr on .b/.u/.s 16-64 (and, or, xor, not also on .pred)."""
    op, parts, ops = ins.op, ins.parts, ins.ops
    t = parts[-1]
    if t == "pred":
        a = [em.read(o) for o in ops[1:]]
        funcs = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
        if op not in funcs and op != "not":
            unsupported(ins)
        return em.write(ops[0], ~a[0] if op == "not" else funcs[op](a[0], a[1]), mask)
    bits, signed = type_bits(t), t[0] == "s"
    mode = parts[1] if len(parts) == 3 else None
    if op in ("shl", "shr") and mode is None:
        a, s = em.read(ops[1], bits), em.read(ops[2], 32)
        big, s = s >= np.uint64(bits), np.minimum(s, np.uint64(bits - 1))
        if op == "shl":
            r = np.where(big, np.uint64(0), a << s)
        elif signed:  # arithmetic shift; amounts >= bits fill with the sign
            r = (sext(a, bits) >> s.astype(np.int64)).view(np.uint64)
        else:
            r = np.where(big, np.uint64(0), a >> s)
        return em.write(ops[0], r, mask, bits)
    x = [em.read(o, bits) for o in ops[1:]]
    if op in ("mul", "mad") and mode in ("lo", "wide"):
        if mode == "wide" and bits > 32:
            unsupported(ins)
        r = x[0] * x[1]
        if signed and mode == "wide":
            r = (sext(x[0], bits) * sext(x[1], bits)).view(np.uint64)
        if mode == "wide":
            bits *= 2
        if op == "mad":
            c = em.read(ops[3], bits)
            r = r + (sext(c, bits).view(np.uint64) if signed else c)
    elif mode is not None:
        unsupported(ins)
    elif op in ("add", "sub"):
        r = x[0] + x[1] if op == "add" else x[0] - x[1]
    elif op in ("and", "or", "xor"):
        r = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](x[0], x[1])
    elif op in ("not", "neg"):
        r = ~x[0] if op == "not" else np.uint64(0) - x[0]
    elif op == "abs" and signed:
        r = np.abs(sext(x[0], bits)).view(np.uint64)
    elif op in ("min", "max"):
        f = np.minimum if op == "min" else np.maximum
        r = f(sext(x[0], bits), sext(x[1], bits)).view(np.uint64) if signed else f(x[0], x[1])
    else:
        unsupported(ins)
    em.write(ops[0], r, mask, bits)


def h_float(em, ins, mask):
    """add sub mul fma neg abs min max on .f32/.f16/.f16x2 (.rn, .ftz on
    f32, .NaN on min/max)."""
    op, ops, t = ins.op, ins.ops, ins.parts[-1]
    mods = set(ins.parts[1:-1])
    lt, lanes = ("f16", 2) if t == "f16x2" else (t, 1)
    op = "fma" if op == "mad" else op  # mad.rn.f32 is fma.rn.f32
    nsrc = {"neg": 1, "abs": 1, "fma": 3}.get(op, 2)
    if op not in ("add", "sub", "mul", "fma", "min", "max", "neg", "abs") or \
            mods - {"rn", "ftz", "NaN"} or ("NaN" in mods and op not in ("min", "max")) or \
            ("ftz" in mods and lt != "f32") or (op == "fma" and "rn" not in mods):
        unsupported(ins)
    srcs = [em.read(o, type_bits(t)) for o in ops[1:1 + nsrc]]
    result = np.zeros(em.T, np.uint64)
    for lane in range(lanes):
        sh = np.uint64(16 * lane)
        v = [f_decode(s >> sh, lt) for s in srcs]
        if "ftz" in mods:  # subnormal inputs and results flush to signed zero
            v = [np.where(np.abs(x) < np.float32(2.0 ** -126), np.float32(0) * x, x) for x in v]
        w = [x.astype(np.float64) for x in v]  # f16 +-* are exact in float64
        with np.errstate(all="ignore"):
            r = {"add": lambda: (w[0] + w[1]) if lt == "f16" else v[0] + v[1],
                 "sub": lambda: (w[0] - w[1]) if lt == "f16" else v[0] - v[1],
                 "mul": lambda: (w[0] * w[1]) if lt == "f16" else v[0] * v[1],
                 "fma": lambda: w[0] * w[1] + w[2],
                 "neg": lambda: -v[0], "abs": lambda: np.abs(v[0]),
                 "min": lambda: (np.minimum if "NaN" in mods else np.fmin)(v[0], v[1]),
                 "max": lambda: (np.maximum if "NaN" in mods else np.fmax)(v[0], v[1])}[op]()
        bits = f_encode(r, lt)
        if "ftz" in mods:
            sign, exponent = bits & np.uint64(0x80000000), bits & np.uint64(0x7F800000)
            bits = np.where(exponent == 0, sign, bits)
        if "NaN" in mods:
            bits = np.where(np.isnan(r), np.uint64(CANONICAL_NAN[lt]), bits)
        result |= bits << sh
    em.write(ops[0], result, mask, type_bits(t))


def h_mov(em, ins, mask):
    """mov, including packing/unpacking {lo, hi} vectors."""
    (d, s), t = ins.ops, ins.parts[-1]
    if t == "pred":
        return em.write(d, em.read(s), mask)
    bits = type_bits(t)
    if d[0] == "vec":
        v, w = em.read(s, bits), bits // len(d[1])
        for i, o in enumerate(d[1]):
            em.write(o, v >> np.uint64(w * i), mask, w)
    elif s[0] == "vec":
        v, w = np.zeros(em.T, np.uint64), bits // len(s[1])
        for i, o in enumerate(s[1]):
            v |= em.read(o, w) << np.uint64(w * i)
        em.write(d, v, mask, bits)
    else:
        em.write(d, em.read(s, bits), mask, bits)


def h_cvta(em, ins, mask):
    if ins.parts[1:3] != ["to", "global"]:
        unsupported(ins, "generic addressing is not modelled")
    em.write(ins.ops[0], em.read(ins.ops[1]), mask)


def h_setp(em, ins, mask):
    """setp.CMP.TYPE p, a, b: integer eq ne lt le gt ge lo ls hi hs; float
    ordered (false on NaN) and unordered (CMP + 'u': true on NaN)."""
    cmp, t = ins.parts[1], ins.parts[-1]
    bits = type_bits(t)
    a, b = em.read(ins.ops[1], bits), em.read(ins.ops[2], bits)
    unordered = t[0] == "f" and cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu")
    cmp = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(cmp, cmp[:2] if unordered else cmp)
    f = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal}.get(cmp)
    if f is None or len(ins.parts) != 3 or "|" in ins.ops[0][1]:
        unsupported(ins)
    if t[0] == "f":
        a, b = f_decode(a, t), f_decode(b, t)
        nan = np.isnan(a) | np.isnan(b)
        r = f(a, b) | nan if unordered else f(a, b) & ~nan
    else:
        r = f(sext(a, bits), sext(b, bits)) if t[0] == "s" else f(a, b)
    em.write(ins.ops[0], r, mask)


def h_selp(em, ins, mask):
    bits = type_bits(ins.parts[-1])
    r = np.where(em.read(ins.ops[3]), em.read(ins.ops[1], bits), em.read(ins.ops[2], bits))
    em.write(ins.ops[0], r, mask, bits)


def h_cvt(em, ins, mask):
    """cvt between integers, f16 <-> f32, integer -> float (.rn), float ->
    integer (.rzi/.rni), and cvt.rn.f16x2.f32 d, hi, lo."""
    dt, st, mods = ins.parts[-2], ins.parts[-1], set(ins.parts[1:-2])
    if dt == "f16x2":
        if mods != {"rn"} or st != "f32":
            unsupported(ins)
        hi, lo = (f_encode(f_decode(em.read(o, 32), "f32"), "f16") for o in ins.ops[1:3])
        return em.write(ins.ops[0], (hi << np.uint64(16)) | lo, mask, 32)
    dbits, sbits = type_bits(dt), type_bits(st)
    v = em.read(ins.ops[1], sbits)
    if dt[0] != "f" and st[0] != "f" and not mods:
        r = sext(v, sbits).view(np.uint64) if st[0] == "s" else v
    elif dt[0] == "f" and st[0] == "f" and mods <= {"rn"} and (dbits > sbits or mods):
        r = f_encode(f_decode(v, st).astype(np.float64), dt)
    elif dt[0] == "f" and st[0] != "f" and mods == {"rn"}:
        r = f_encode((sext(v, sbits) if st[0] == "s" else v).astype(np.float64), dt)
    elif st[0] == "f" and mods in ({"rzi"}, {"rni"}):
        x = (np.trunc if mods == {"rzi"} else np.rint)(f_decode(v, st).astype(np.float64))
        lo, hi = (-2.0 ** (dbits - 1), 2.0 ** (dbits - 1) - 1) if dt[0] == "s" else \
            (0.0, 2.0 ** dbits - 1)
        r = np.clip(np.nan_to_num(x), lo, hi).astype(np.int64).view(np.uint64)  # saturates
    else:
        unsupported(ins)
    em.write(ins.ops[0], r, mask, dbits)


def mem_shape(ins):
    """(space, vector length, element type) of ld/st."""
    parts = [p for p in ins.parts[1:] if p not in IGNORED_QUALIFIERS and not p.startswith("L1::")
             and not p.startswith("L2::")]
    parts = ["shared" if p == "shared::cta" else p for p in parts]
    vec = int(parts[1][1:]) if len(parts) == 3 and parts[1] in ("v2", "v4") else 1
    if len(parts) != 2 + (vec > 1) or parts[0] not in ("global", "shared", "param"):
        unsupported(ins)
    return parts[0], vec, parts[-1]


def active(em, mask):
    return np.arange(em.T) if mask is None else np.nonzero(mask)[0]


def h_ld(em, ins, mask):
    space, vec, t = mem_shape(ins)
    bits = type_bits(t)
    n = bits // 8
    dsts = ins.ops[0][1] if ins.ops[0][0] == "vec" else [ins.ops[0]]
    if space == "param":  # a pointer parameter: its buffer's base address
        names = [p[0] for p in em.L.k.params]
        if ins.ops[1][1] not in names or ins.ops[1][2] or vec > 1 or bits != 64:
            unsupported(ins, "only 64-bit pointer parameters")
        return em.write(dsts[0], em.imm((names.index(ins.ops[1][1]) + 1) << GLOBAL_SHIFT), mask)
    tids = active(em, mask)
    addrs = em.address(ins.ops[1])[tids]
    raw = em.sh_read(tids, addrs, n * vec) if space == "shared" else em.g_read(addrs, n * vec)
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
    tids = active(em, mask)
    addrs = em.address(ins.ops[0])[tids]
    v = np.stack([em.read(s, 8 * n)[tids] for s in srcs], axis=1)  # (threads, vec)
    data = ((v[:, :, None] >> (np.uint64(8) * np.arange(n, dtype=np.uint64))) & np.uint64(0xFF))
    data = data.astype(np.uint8).reshape(len(tids), vec * n)
    if space == "shared":
        em.sh_write(tids, addrs, data)
    elif space == "global":
        em.g_write(tids, addrs, data)
    else:
        unsupported(ins)


def h_cp(em, ins, mask):
    """cp.async.cg.shared.global [dst], [src], 16; commit_group; wait_group
    N; wait_all. Copies land in shared memory only when retired."""
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
        return
    if parts != ["cp", "async", "cg", "shared", "global"] or ins.ops[2:] != [("imm", 16)]:
        unsupported(ins)
    tids = active(em, mask)
    data = em.g_read(em.address(ins.ops[1])[tids], 16)
    flat, a = em.sh_check_write(em.shared_index(tids, em.address(ins.ops[0])[tids], 16, 16), tids,
                                "cp.async write")
    em.pending[flat] = ins.line
    em.uncommitted.append((flat, a, data.ravel()))


def h_bar(em, ins, mask):
    if mask is not None or ins.parts[1:] not in (["sync"], ["sync", "aligned"]) or \
            ins.ops[0] != ("imm", 0) or ins.ops[1:] not in ([], [("imm", em.L.nt)]):
        unsupported(ins, "only an unpredicated barrier 0 over the whole block")
    em.flush_issues()
    em.epoch += 1


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


# Fragment layouts of mma.m16n8k16 (PTX ISA): (row, column) of the low and
# high f16 of each 32-bit register of A (16x16), B (16x8) and an f16 C/D
# (16x8); an f32 C/D holds one element per register.
A_FRAG = [((G, 2 * Q), (G, 2 * Q + 1)), ((G + 8, 2 * Q), (G + 8, 2 * Q + 1)),
          ((G, 2 * Q + 8), (G, 2 * Q + 9)), ((G + 8, 2 * Q + 8), (G + 8, 2 * Q + 9))]
B_FRAG = [((2 * Q, G), (2 * Q + 1, G)), ((2 * Q + 8, G), (2 * Q + 9, G))]
CD16_FRAG = [((G, 2 * Q), (G, 2 * Q + 1)), ((G + 8, 2 * Q), (G + 8, 2 * Q + 1))]
CD32_FRAG = [(G, 2 * Q), (G, 2 * Q + 1), (G + 8, 2 * Q), (G + 8, 2 * Q + 1)]


def h_mma(em, ins, mask):
    """mma.sync.aligned.m16n8k16.row.col.{f16,f32}.f16.f16.{f16,f32}."""
    p = ins.parts
    if p[1:6] != ["sync", "aligned", "m16n8k16", "row", "col"] or len(p) != 10 or \
            p[7:9] != ["f16", "f16"] or p[6] not in ("f16", "f32") or p[9] not in ("f16", "f32"):
        unsupported(ins)
    W = warps(em, ins, mask)
    d, a, b, c = (o[1] for o in ins.ops)

    def unpack(regs, frag, shape):
        m = np.empty((W,) + shape)
        for r, (lo, hi) in zip(regs, frag):
            v = em.read(r, 32).reshape(W, 32)
            m[:, lo[0], lo[1]] = f_decode(v, "f16")
            m[:, hi[0], hi[1]] = f_decode(v >> np.uint64(16), "f16")
        return m

    if p[9] == "f32":
        C = np.empty((W, 16, 8))
        for r, (row, col) in zip(c, CD32_FRAG):
            C[:, row, col] = f_decode(em.read(r, 32).reshape(W, 32), "f32")
    else:
        C = unpack(c, CD16_FRAG, (16, 8))
    D = C + np.matmul(unpack(a, A_FRAG, (16, 16)), unpack(b, B_FRAG, (16, 8)))
    if p[6] == "f32":
        for r, (row, col) in zip(d, CD32_FRAG):
            em.write(r, f_encode(D[:, row, col], "f32").reshape(em.T), None)
    else:
        for r, (lo, hi) in zip(d, CD16_FRAG):
            v = f_encode(D[:, lo[0], lo[1]], "f16")
            v |= f_encode(D[:, hi[0], hi[1]], "f16") << np.uint64(16)
            em.write(r, v.reshape(em.T), None)


HANDLERS = {
    **{op: h_int for op in ("shl", "shr", "and", "or", "xor", "not")},
    **{op: h_alu for op in ("add", "sub", "mul", "mad", "fma", "neg", "abs", "min", "max")},
    "mov": h_mov, "cvta": h_cvta, "setp": h_setp, "selp": h_selp, "cvt": h_cvt, "ld": h_ld,
    "st": h_st, "cp": h_cp, "bar": h_bar, "barrier": h_bar, "ldmatrix": h_ldmatrix, "mma": h_mma,
}


# ------------------------------------------------------------------- driver
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
    """Global buffers, one per parameter, and the outputs to save."""
    names = [p[0] for p in kernel.params]
    bound = {}
    for spec in specs:
        key, _, val = spec.partition("=")
        i = int(key) if key.isdigit() else names.index(key) if key in names else -1
        if not 0 <= i < len(names):
            raise EmulationError(f"no parameter {key} (parameters: {', '.join(names)})")
        bound[i] = val.split(":")
    buffers, outputs = [], []
    for i, (name, ptype) in enumerate(kernel.params):
        v = bound.get(i)
        if ptype not in (".u64", ".b64"):
            raise EmulationError(f"parameter {name} is {ptype}: only .u64 pointers are supported")
        if v and v[0] == "in" and len(v) == 2:
            buffers.append(np.frombuffer(np.load(v[1]).tobytes(), np.uint8).copy())
        elif v and v[0] == "out" and len(v) == 4:
            dt, shape = np.dtype(v[2]), tuple(int(x) for x in v[3].split("x"))
            buffers.append(np.full(int(np.prod(shape)) * dt.itemsize, 0xFF, np.uint8))
            outputs.append((i, v[1], dt, shape))
        else:
            raise EmulationError(f"parameter {i} ({name}) needs --param {i}=in:FILE.npy or "
                                 f"{i}=out:FILE.npy:DTYPE:SHAPE")
    return buffers, outputs


def cmd_run(args):
    kernel = Kernel(args.ptx)
    grid = dims(args.grid)
    buffers, outputs = bind_params(kernel, args.param)
    L = Launch(kernel, grid, dims(args.block), args.dynamic_shared, buffers)
    blocks = select_blocks(args.blocks, grid, args.seed)
    batch = max(1, min(16, (1 << 20) // L.shared_size, 4096 // L.nt))
    for s in range(0, len(blocks), batch):
        group = blocks[s:s + batch]
        saved = ([b.copy() for b in buffers], len(L.global_writes))
        try:
            try:
                Batch(L, group).run()
            except SplitBatch:  # undo the batch, run its blocks one by one
                for buf, old in zip(buffers, saved[0]):
                    buf[:] = old
                del L.global_writes[saved[1]:]
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
    for i, path, dt, shape in outputs:
        np.save(path, buffers[i].view(dt).reshape(shape))
    print(f"{kernel.name}: emulated {len(blocks)} of {int(np.prod(grid))} blocks x {L.nt} "
          "threads, "
          f"{L.steps // max(len(blocks), 1)} instructions per block, "
          f"{L.shared_size} bytes of shared memory: no errors")


def cmd_gen(args):
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for spec in args.specs:
        name, dt, shape, lo, hi = spec.split(":")
        v = rng.integers(int(lo), int(hi) + 1, tuple(int(x) for x in shape.split("x")))
        np.save(os.path.join(args.dir, name + ".npy"),
                v.astype({"f16": np.float16, "f32": np.float32, "i32": np.int32}[dt]))


def cmd_check_gemm(args):
    a, b, bias = (np.load(os.path.join(args.dir, n + ".npy")).astype(np.float64)
                  for n in ("a", "b", "bias"))
    expected = np.maximum(a @ b + bias, 0)
    out, grid = np.load(args.out), dims(args.grid)
    M, N = expected.shape
    if out.shape != expected.shape or M % grid[1] or N % grid[0]:
        raise EmulationError(f"output {out.shape} vs expected {expected.shape} on grid {grid}")
    tm, tn = M // grid[1], N // grid[0]
    blocks = select_blocks(args.blocks, grid, args.seed)
    mine = np.zeros(out.shape, bool)
    for x, y, _ in blocks:
        mine[y * tm:(y + 1) * tm, x * tn:(x + 1) * tn] = True
    err = np.abs(out.astype(np.float64) - expected)
    bad = mine & ~(err <= args.atol)  # NaN (unwritten) fails too
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise EmulationError(f"{bad.sum()} of {mine.sum()} elements differ, first ({r}, {c}): "
                             f"{out[r, c]} instead of {expected[r, c]}")
    stray = ~mine & (out.view(np.uint8).reshape(out.shape + (-1,)) != 0xFF).any(axis=-1)
    if stray.any():
        raise EmulationError(f"element {tuple(np.argwhere(stray)[0])} outside the chosen "
                             "blocks' tiles was written")
    print(f"check-gemm: {len(blocks)} tiles of {tm}x{tn} match relu(a @ b + bias), "
          f"max abs error {err[mine].max():.3g} (tolerance {args.atol})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="emulate a kernel")
    g = sub.add_parser("gen", help="integer-valued inputs")
    c = sub.add_parser("check-gemm", help="compare with relu(a @ b + bias)")
    for p, arg in ((r, "ptx"), (g, "dir"), (c, "dir"), (c, "out")):
        p.add_argument(arg)
    for p, flag in ((r, "--grid"), (r, "--block"), (c, "--grid")):
        p.add_argument(flag, required=True)
    r.add_argument("--dynamic-shared", type=int, default=0)
    r.add_argument("--param", action="append", default=[])
    g.add_argument("specs", nargs="+")
    c.add_argument("--atol", type=float, default=0.0)
    for p, default in ((r, 0), (g, 1), (c, 0)):
        p.add_argument("--seed", type=int, default=default)
    for p in (r, c):
        p.add_argument("--blocks", default="all")
    args = ap.parse_args()
    try:
        {"run": cmd_run, "gen": cmd_gen, "check-gemm": cmd_check_gemm}[args.cmd](args)
    except (EmulationError, OSError, ValueError) as e:
        sys.exit(f"ptx_emulator: error: {e}")


if __name__ == "__main__":
    main()
