#!/usr/bin/env python3
"""A lockstep emulator for the PTX of the tensor-core kernels, so that tests
without a GPU check that a kernel computes the right numbers.

  ptx_emulator.py run KERNEL.ptx --grid X[,Y[,Z]] --block X[,Y[,Z]]
      [--dynamic-shared BYTES] --param P=in:FILE.npy ...
      --param P=tmap:FILE.npy:BOXROWSxBOXCOLS[:swizzle128] ...
      --param P=out:FILE.npy:DTYPE:SHAPE ...
      --param P=tmap-out:FILE.npy:DTYPE:ROWSxCOLS:BOXROWSxBOXCOLS ...
      [--blocks SPEC [--seed S]]
  ptx_emulator.py run-plan DESCRIBE.txt PTX_DIR --input FILE.npy ...
      --output-dir DIR
                  every step of a GPU artifact's plan (`orchestra-run
                  --describe` output; its kernels' PTX from orchestra-compile
                  --dump-device-code): its values in arenas (0xff until
                  written), scratch buffers per kernel, each launch's buffer,
                  scratch and tensor-map parameters; the outputs saved as
                  DIR/output_<i>.npy; --constants DIR gives the constants'
                  data (orchestra-run --dump-constants DIR). Plans with CPU
                  steps are refused
  ptx_emulator.py gen DIR NAME:DTYPE:SHAPE:LO:HI ...  integer-valued inputs
                                                      (DTYPE f16/bf16/f32/i32;
                                                      bf16 saved as its uint16 bits)
  ptx_emulator.py check-gemm DIR OUT.npy --grid X,Y [--blocks SPEC [--seed S]]
      [--atol A] [--plain]
                  OUT == relu(a @ b + bias), or a @ b with --plain
                  (DIR/{a,b,bias}.npy, uint16 ones
                  holding bf16 bits; a uint16 OUT is bf16, compared with
                  the result rounded once to bf16) on the tiles
                  of the chosen blocks; the other tiles must be unwritten

`run` emulates the single .entry of the PTX (and the .func device functions
it calls; a call and its return must be uniform). Its parameters must be .u64
device pointers; --param binds each (P: name or index) to an input array, or
to an output that starts as 0xff bytes (NaN) and is saved at the end, or to
a tensor map of an input array (tmap: a 2-D row-major array, the box in
(rows, columns); what cuTensorMapEncodeTiled makes with no interleave, zero
fill out of bounds, and no swizzle, or with :swizzle128 the 128-byte
swizzle), or to a tensor map of an output (tmap-out: the array's type and
shape, then the box; it starts as 0xff bytes and is saved at the end, for
TMA stores). A tensor-map parameter points at a
128-byte object in global memory that only cp.async.bulk.tensor may use: an
ld or st of it is an error, as is a tensor-map operand that points anywhere
else. SPEC picks blocks: 'all' (default), or '+'-joined items 'X,Y[,Z]',
'corners', 'random:N' (N more blocks, drawn with --seed). check-gemm
resolves the same SPEC; block (x, y) owns output tile (y, x) of a
grid-shaped tiling.

Model. All threads of a block execute each instruction together (blocks run
in lockstep batches). A branch that some threads of a block take and others
do not parks the threads that take it at its target while the others run
on; when the running threads jump forward over the instruction where
parked threads wait, those run instead until they reach the jump's target;
threads that reach the same instruction continue together. So an if-then
or if-else region (such as thread 0 alone issuing copies), laid out either
way around, runs for its threads only, then all continue together. A
barrier that the running threads reach while others wait elsewhere (e.g.
threads that took a loop's back edge while others left the loop:
per-thread trip counts over the rows of a partial tile) parks the running
ones there and runs the others on until they reach it (threads waiting at
two different barriers are an error). A
collective (bar.sync, ldmatrix, mma, wgmma, cp.async group operations) or
an exit while threads wait elsewhere is an error. This is one schedule of
the region, not all of them. The emulator
stops with an error and exit status 1 on:
  - an instruction or form it does not implement ("unsupported PTX
    instruction: ..."), unstructured divergence, a partially predicated
    collective;
  - out-of-bounds or misaligned global or shared accesses;
  - a read or overwrite of shared bytes whose cp.async is still pending: the
    data lands only when cp.async.wait_group N retires its group (groups are
    closed by commit_group; N newest groups stay pending);
  - a shared-memory race: within one bar.sync interval, a byte written by one
    thread and read or written by another (cp.async data counts as written
    by its thread when the wait retires it); ldmatrix is a warp collective,
    performed by every lane of the warp; a read of never-written shared memory;
  - global bytes written by two blocks;
  - any of the mbarrier and TMA errors below.
Not modelled: timing, memory ordering other than barrier intervals and
mbarrier phases, intra-warp ordering (lanes of one warp never race with that
warp's ldmatrix), global races inside a block, generic ld/st, local memory,
atomics, clusters of more than one block.

Addresses. Global buffers (and tensor maps) live at (param + 1) << 40, which
is also their generic address (cvta.to.global and cvta.global are the
identity). Shared memory has its own window (a mov of a .shared symbol gives
its address there); cvta.shared moves a shared address into a separate
generic window and cvta.to.shared{,::cta,::cluster} moves it back, and both
check that the address is in the window they convert from. A block is a
one-block cluster, so its shared::cluster addresses are its shared::cta ones.

Fences. The host copies the tensor maps into global memory, so a thread
must acquire a map (fence.proxy.tensormap::generic.acquire.sys [map], 128)
before its first cp.async.bulk.tensor through it; a copy by a thread that
has not is an error (a fence of narrower scope does not count). A copy may
signal an mbarrier only once its initialization is visible to the TMA unit
(the async proxy): the initializing thread must have run
fence.mbarrier_init.release.cluster or fence.proxy.async{.shared::cta}
after mbarrier.init; bar.sync is what makes the init visible to the other
threads. Not modelled: fence.proxy.async between generic writes of shared
memory and a later copy over them (the kernels never write the tiles their
copies fill).

mbarrier (shared .b64 objects; .cta scope; mbarrier.init, arrive,
arrive.expect_tx, try_wait.parity). Each barrier has a phase number (0 after
init), an expected arrival count (init's count), the arrivals still pending
in the current phase and a transaction count. arrive.expect_tx adds its
bytes to the transaction count, then arrives; an arrival when none is
pending is an error (arrive's state result is opaque: the phase number). A
TMA copy's bytes count down the transaction count
(complete_tx) when the copy lands; the transaction count may go negative,
beyond +-(2^20 - 1) is an error. The phase completes when no arrival is
pending and the transaction count is 0: the phase number goes up by one and
the expected count is pending again. try_wait.parity P waits for the
completion of the current or the immediately preceding phase, the one whose
parity is P: it is true when the barrier's current phase parity differs
from P (the phase of parity P, the one before the current, has completed)
and false while the current phase has parity P (that phase is still under
way). So a first wait with parity 0 waits for phase 0, and a wait with
parity 1 on a fresh barrier succeeds at once. A true result means the thread
has observed that phase's completion (an acquire); the observation passes to
the whole block at the next bar.sync. Also errors: an mbarrier instruction on
memory that holds no initialized barrier, or on a barrier that another
thread initialized in the same bar.sync interval; mbarrier.init of a live
barrier; any other access (ld, st, ldmatrix, cp.async) to a barrier's bytes.

TMA (cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::
complete_tx::bytes [dst], [tmap, {c0, c1}], [mbar]). c0 is the column
(innermost) and c1 the row coordinate of the box's first element (signed;
elements outside the tensor are zero-filled and still count); the box is
written row-major to dst, which must be 128-byte aligned. The issue checks
the destination like a write by a proxy that no thread's program order
covers: a byte that any thread of the block, the issuing one included, read
or wrote since the last bar.sync is a write-after-read or write-after-write
race, and a byte still pending from another copy an overwrite of pending
bytes. Until the copy lands its bytes are pending, like a cp.async's: a read
or write of them is an error. Copies land as late as the program lets them:
when a try_wait.parity waits for the current phase of their barrier, that
barrier's copies land in issue order until the phase completes (later
copies, of a later phase, stay in flight); nothing else lands them, and a
wait that a completed phase already satisfies lands nothing. If the
phase still has not completed, the wait can never succeed: every thread of
the block is in the same wait loop in lockstep, so no arrival can come, and
the emulator stops with an error instead of spinning (a try_wait that
returns false is always reported so). A landed byte belongs to the phase it
completed in; a thread (for ldmatrix: every lane of the warp) may read or
write it only once it has observed that phase's completion, through its own
try_wait or through a bar.sync after another thread's. A block that exits
with copies in flight is an error. A copy's landing is not a race with
generic accesses: the mbarrier orders them. Arrive and wait do not order
generic accesses between threads in this model (only bar.sync does).

TMA stores (cp.async.bulk.tensor.2d.global.shared::cta{.tile}.bulk_group
[tensorMap, {col, row}], [src]) read the row-major box from src (128-byte
aligned) when issued and write it into the tensor map's array (what falls
outside is dropped). The data must be visible to the async proxy: each
byte's last generic write must be followed, in the writing thread, by a
fence.proxy.async{.shared::cta}, and that fence by a bar.sync before the
issue (unless the issuing thread wrote it). The source bytes stay in flight
until a cp.async.bulk.wait_group{.read} of the issuing thread retires the
store's bulk group (each thread's groups close at its
cp.async.bulk.commit_group): writing them before that, or exiting, is an
error.

Swizzle. With the 128-byte swizzle a TMA box (rows of at most 128 bytes)
lands at a 1024-byte aligned destination with byte L of the row-major box
at L ^ (((L >> 7) & 7) << 4): the 16-byte chunk XORed with the row within
its 1024-byte atom.

wgmma (wgmma.fence, mma_async m64nNk16 .f32 with .f16 or .bf16 operands
from shared memory, commit_group, wait_group N). The 128 threads of a
warpgroup execute it together; each warpgroup of a block is emulated on its
own (its descriptors must be uniform across its threads). A matrix
descriptor gives the start address, the leading and stride byte offsets
(LBO, SBO) and the swizzle mode; only the 128-byte swizzle with base offset
0 is modelled. An operand element (r, k) (r: the M or N index) of a
K-major operand is at start + (r / 8) SBO + (r % 8) 128 + k size; of an
MN-major one (imm-trans 1) at start + (r / R) LBO + (k / 8) SBO +
(k % 8) 128 + (r % R) size with R = 128 / size; the swizzle then applies to
that address. Thread t of the warpgroup holds D rows 16 (t / 32) +
(t % 32) / 4 and 8 more, register 4j + i at column 8j + 2 (t % 4) + i % 2
(of the second row when i >= 2). The product lands at once, rounded once
to f32, but the accumulator registers and the shared bytes read stay in
flight until wait_group retires the instruction's group: reading or writing
those registers other than by a later mma_async, or writing those bytes
(a TMA copy included), is an error; so is an mma_async before any
wgmma.fence of its warpgroup, and an exit with one in flight. Not checked:
the fences PTX asks for between register writes and a later mma_async.

tcgen05 (Blackwell; cta_group::1): tensor memory of 128 lanes x 512 32-bit
columns per block. tcgen05.alloc (a whole warp; a power of two from 32 to
512 columns, placed at the lowest free offset that is a multiple of the
size) writes the address (lane << 16 | column) to shared memory like a
store by the warp's first lane; allocating after
relinquish_alloc_permit, freeing (tcgen05.dealloc, a whole warp) anything
but a whole allocation, or exiting with tensor memory allocated is an error.
tcgen05.mma.kind::f16 (issued by each thread that executes it: one MMA per
thread) takes A and B from shared memory through descriptors (the
sm_100 format: version bits 46-48 = 1, only the 128-byte swizzle, base
offset 0, relative leading offsets; element addresses as for wgmma) and an
instruction descriptor (f32 D, f16 or bf16 A and B, dense, no negation,
M = 128, N a multiple of 16 up to 256); row i of D is lane i, column j the
address's column + j. The product lands at once (rounded once to f32; the
accumulator's input is read unless the enable operand is false, and then
must have been written), but the MMA stays in flight until a
tcgen05.commit by the same thread has arrived on its mbarrier: the commit
arrives as late as the program lets it (when some thread waits for the
phase it completes), like a TMA copy lands. Until then, overwriting the
shared bytes it reads (a TMA copy included) or loading, freeing or
overwriting its columns is an error; after, a thread may load them only
once it has observed that phase. tcgen05.ld.sync.aligned.32x32b.xN.b32 (a
whole warp; the address's lane must be 32 (warp mod 4)) gives lane l of the
warp register i = lane (32 (warp mod 4) + l), column + i; reading those
registers before a tcgen05.wait::ld is an error. Fences: a tcgen05.mma,
tcgen05.ld or tcgen05.dealloc that a thread executes after a thread
synchronization (bar.sync, or a wait that observed an mbarrier phase) needs
a tcgen05.fence::after_thread_sync in that thread between the two; a
dealloc also needs every thread that issued tcgen05 operations (mma, ld)
before the block's last bar.sync to have executed
tcgen05.fence::before_thread_sync between them and that bar.sync. (The
first allocation is exempt; wait::st is accepted and not checked.)

Arithmetic: integer ops exact; f32/f16/f16x2 add, sub, mul round to nearest
even once (IEEE), fma is computed in float64 and rounded once. mma.sync
m16n8k16 (f16 operands, or bf16 with an f32 accumulator) computes
D = C + A*B exactly (float64) and rounds once per instruction to the f16 or
f32 accumulator. Tensor cores round differently
inside an instruction, so f16 results may differ from a GPU's by about one
rounding per k16 step; integer-valued inputs whose partial sums are exactly
representable give exact results under any rounding model.
"""

import argparse
import glob
import os
import re
import sys

import numpy as np

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


# ------------------------------------------------------------------ parsing
class Ins:
    """One statement: guard predicate, dotted opcode parts, operands; the
    scopes it is in (innermost first), and a branch's target index."""

    def __init__(self, line, text, scopes=(0,), rename=None):
        self.line, self.text, self.pred, self.neg = line, text, None, False
        self.scopes, self.target = scopes, None
        if rename:  # registers of an inner { } scope: unique names
            text = re.sub(r"%?[A-Za-z_$][\w$]*", lambda m: rename.get(m.group(0), m.group(0)),
                          text)
        m = re.match(r"@(!?)(%[\w$]+)\s+(.*)$", text)
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
    """('vec', [ops]) | ('addr', base, offset) | ('tensor', base, [coords])
    | ('reg', name) | ('imm', int) | ('sym', name) | ('sink',)."""
    if s.startswith("{"):
        return ("vec", [parse_operand(x) for x in split_top(s[1:-1])])
    m = re.fullmatch(r"\[\s*([%\w$.]+)\s*,\s*\{(.*)\}\s*\]", s)
    if m:  # [tensorMap, {coordinates}]
        return ("tensor", m.group(1), [parse_operand(x) for x in split_top(m.group(2))])
    if s.startswith("["):
        m = re.fullmatch(r"\[\s*([%\w$.]+)\s*(?:\+\s*(-?\d+)|(-\d+))?\s*\]", s)
        if not m:
            raise EmulationError(f"cannot parse address operand {s}")
        return ("addr", m.group(1), int(m.group(2) or m.group(3) or 0))
    if s == "_":
        return ("sink",)
    if s.startswith("%"):
        return ("reg", s)
    m = re.fullmatch(r"0[fF]([0-9a-fA-F]{8})|0[dD]([0-9a-fA-F]{16})", s)  # f32/f64 bits
    if m:
        return ("imm", int(m.group(1) or m.group(2), 16))
    m = re.fullmatch(r"(-?(?:0[xX][0-9a-fA-F]+|\d+))[uU]?", s)
    return ("imm", int(m.group(1), 0)) if m else ("sym", s)


SHARED_DECL = re.compile(r"(\.extern\s+)?\.shared\s+(?:\.align\s+(\d+)\s+)?"
                         r"\.[busf](\d+)\s+(\w+)\[(\d*)\]")
LOCAL_DECL = re.compile(r"\.local\s+(?:\.align\s+(\d+)\s+)?\.[busf](\d+)\s+(\w+)\[(\d+)\]")


CALL = re.compile(r"call(?:\.uni)?\s+(?:\(\s*(\w+)\s*\)\s*,\s*)?(\w+)\s*(?:,\s*\(([^)]*)\))?")


def matching_brace(text, open_at):
    """The index of the '}' that closes the '{' at open_at."""
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise EmulationError("unbalanced { in the PTX")


class Kernel:
    """The .entry of a PTX file: parameters, thread limit, shared arrays
    (name, align, bytes, extern), statements, and labels resolved to branch
    targets. Braces open scopes (inline asm): their labels and registers are
    local to them."""

    def __init__(self, path):
        with open(path) as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        text = "\n".join(l.split("//")[0] for l in text.split("\n"))
        entries = re.findall(r"\.entry\s+(\w+)\s*\(", text)
        if len(entries) != 1:
            raise EmulationError(f"expected one .entry, found {len(entries)}")
        self.name = entries[0]
        start = text.index(".entry")
        body = text.index("{", start) + 1
        # Device functions (.func with a body): name -> (first instruction,
        # return parameter, parameters); their bodies follow the entry's.
        self.functions = {}
        funcs = []
        for m in re.finditer(r"\.func\s*(?:\(\s*\.param\s+\.\w+\s+(\w+)\s*\))?\s*(\w+)\s*"
                             r"\(([^)]*)\)\s*\{", text):
            params = [d.split()[-1] for d in m.group(3).split(",") if d.strip()]
            funcs.append((m.group(2), m.group(1), params, m.end(),
                          matching_brace(text, m.end() - 1)))
        header = text[start:body]
        plist = header[header.index("(") + 1:header.index(")")]
        self.params = [(d.split()[-1], d.split()[1]) for d in plist.split(",") if d.strip()]
        m = re.search(r"\.(maxntid|reqntid)\s+([\d,\s]+)", header[header.index(")"):])
        self.ntid = m and (m.group(1), int(np.prod([int(x) for x in m.group(2).split(",")
                                                     if x.strip()])))
        self.shared = [self.decl(m) for m in SHARED_DECL.finditer(text[:start])]
        self.local = []  # (name, align, bytes): each thread's own
        # Module-level global arrays (constants the compiler sank into the
        # kernel's module): name -> initial bytes.
        self.globals = {}
        for m in re.finditer(r"\.global\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(\w+)\[(\d+)\]"
                             r"\s*(?:=\s*\{([^}]*)\})?\s*;", text[:start]):
            if m.group(1) != "b8":
                raise EmulationError(f"global {m.group(2)}: only .b8 arrays are supported")
            data = np.zeros(int(m.group(3)), np.uint8)
            if m.group(4):
                values = [int(v, 0) for v in m.group(4).split(",")]
                data[:len(values)] = values
            self.globals[m.group(2)] = data
        self.ins, labels = [], {}  # labels: (scope, name) -> index
        scopes, renames, nscopes = [0], [{}], 1  # innermost last
        # The entry's body, then each function's, as a scope of its own.
        segments = [(None, body, matching_brace(text, body - 1))] + \
            [(f, b, e) for f, *_, b, e in funcs]
        for function, seg_start, seg_end in segments:
          if function is not None:
            name, retval, params, _, _ = next(f for f in funcs if f[0] == function)
            self.functions[name] = (len(self.ins), retval, params)
            scopes, renames, nscopes = scopes + [nscopes], renames + [{}], nscopes + 1
          line = text.count("\n", 0, seg_start) + 1
          for chunk in text[seg_start:seg_end].split(";"):
            stmt_line, line = line, line + chunk.count("\n")
            while True:  # leading braces and labels, then the statement
                lead = len(chunk) - len(chunk.lstrip())
                stmt_line += chunk[:lead].count("\n")
                chunk = chunk[lead:]
                if chunk[:1] == "{":
                    scopes, renames, nscopes = scopes + [nscopes], renames + [{}], nscopes + 1
                elif chunk[:1] == "}":
                    if len(scopes) == 1:
                        raise EmulationError(f"line {stmt_line}: unbalanced }}")
                    scopes, renames = scopes[:-1], renames[:-1]
                else:
                    m = re.match(r"([$\w]+):", chunk)
                    if not m:
                        break
                    if (scopes[-1], m.group(1)) in labels:
                        raise EmulationError(f"line {stmt_line}: label {m.group(1)} defined twice")
                    labels[(scopes[-1], m.group(1))] = len(self.ins)
                    chunk = chunk[m.end() - 1:]
                chunk = chunk[1:]
            s = " ".join(chunk.split())
            if s.startswith(".reg") and len(scopes) > 1:  # scope-local registers
                for name in s.split(None, 2)[2].split(","):
                    m = re.fullmatch(r"\s*(%?[A-Za-z_$][\w$]*)\s*(?:<(\d+)>)?\s*", name)
                    if not m:
                        raise EmulationError(f"line {stmt_line}: unsupported PTX statement: {s}")
                    base = m.group(1)
                    for n in [base] if m.group(2) is None else \
                            [f"{base}{i}" for i in range(int(m.group(2)))]:
                        renames[-1][n] = f"%{n.lstrip('%')}${scopes[-1]}"
                continue
            if not s or s.startswith(".reg") or s.startswith(".pragma") or \
                    s.startswith(".param"):  # a call's parameters: by name
                continue
            if SHARED_DECL.fullmatch(s):
                self.shared.append(self.decl(SHARED_DECL.fullmatch(s)))
            elif LOCAL_DECL.fullmatch(s):
                m = LOCAL_DECL.fullmatch(s)
                self.local.append((m.group(3), int(m.group(1) or 1),
                                   int(m.group(4)) * int(m.group(2)) // 8))
            elif s[0] in ".{}":
                raise EmulationError(f"line {stmt_line}: unsupported PTX statement: {s}")
            else:
                rename = {k: v for r in renames for k, v in r.items()}  # inner scopes win
                self.ins.append(Ins(stmt_line, s, tuple(reversed(scopes)), rename))
          if function is not None:
            scopes, renames = scopes[:-1], renames[:-1]
        if len(scopes) > 1:
            raise EmulationError("unbalanced { in the kernel body")
        for name, (first, _, _) in self.functions.items():
            labels[(0, name)] = first
        for ins in self.ins:
            if ins.op == "bra":
                name = ins.ops[0][1] if len(ins.ops) == 1 and ins.ops[0][0] == "sym" else None
                hits = [labels[(sc, name)] for sc in ins.scopes if (sc, name) in labels]
                if not hits:
                    raise EmulationError(f"line {ins.line}: {ins.text}: no label {name}")
                ins.target = hits[0]

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


PACKED = {"f16x2": ("f16", 2), "f32x2": ("f32", 2)}  # lane type, lanes


def type_bits(t):
    m = re.fullmatch(r"[busf](8|16|32|64)", t)
    if t == "bf16":
        return 16
    if t not in PACKED and not m:
        raise EmulationError(f"unsupported type .{t}")
    return {"f16x2": 32, "f32x2": 64}[t] if t in PACKED else int(m.group(1))


def f_decode(x, t):
    """Bit patterns -> float16/float32/float64 values (bf16: float32
    values)."""
    if t == "f64":
        return x.astype(np.uint64).view(np.float64)
    if t == "f32":
        return (x & mask_of(32)).astype(np.uint32).view(np.float32)
    if t == "f16":
        return (x & mask_of(16)).astype(np.uint16).view(np.float16)
    if t == "bf16":
        return ((x & mask_of(16)).astype(np.uint32) << np.uint32(16)).view(np.float32)
    raise EmulationError(f"unsupported float type .{t}")


def f_encode(f, t):
    """Values -> bit patterns, rounded to nearest even once (numpy converts
    float64 to float16 directly, without double rounding; bf16 is rounded
    from the float32 value, as cvt.rn.bf16.f32 does)."""
    if t == "bf16":
        b = f.astype(np.float32).view(np.uint32).astype(np.uint64)
        b = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
        return np.where(np.isnan(f), np.uint64(0x7FFF), b)
    if t not in ("f32", "f16", "f64"):
        raise EmulationError(f"unsupported float type .{t}")
    dt, it = {"f32": (np.float32, np.uint32), "f16": (np.float16, np.uint16),
              "f64": (np.float64, np.uint64)}[t]
    return f.astype(dt).view(it).astype(np.uint64)


CANONICAL_NAN = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "f64": 0x7FFFFFFFFFFFFFFF}
RACE = "race (no bar.sync between)"


def swizzle128(offsets):
    """The 128-byte swizzle of TMA and wgmma: the 16-byte chunk of an address
    is XORed with bits 7-9 (its row within a 1024-byte atom)."""
    return offsets ^ (((offsets >> 7) & 7) << 4)


class TensorMap:
    """A tiled 2-D tensor map of a row-major array (cuTensorMapEncodeTiled:
    no interleave, element strides 1, zero out-of-bounds fill; no swizzle,
    or the 128-byte swizzle)."""

    def __init__(self, name, array, box, swizzle=0):
        if array.ndim != 2 or array.dtype.itemsize not in (1, 2, 4, 8):
            raise EmulationError(f"tensor map {name}: needs a 2-D array of 1-, 2-, 4- or 8-byte "
                                 f"elements, not {array.dtype} {array.shape}")
        self.name, self.shape, self.box, self.swizzle = name, array.shape, box, swizzle
        self.esize = e = array.dtype.itemsize
        # A view of the array's bytes (TMA stores write through it).
        self.array = np.ascontiguousarray(array)
        self.data = self.array.view(np.uint8).reshape(array.shape + (e,))
        self.nbytes = box[0] * box[1] * e
        why = [w for w, bad in (
            ("box dimensions must be 1..256", not all(1 <= b <= 256 for b in box)),
            ("the box's rows must be multiples of 16 bytes", box[1] * e % 16),
            ("the row stride must be a multiple of 16 bytes",
             self.shape[0] > 1 and self.shape[1] * e % 16),
            ("a 128-byte swizzle needs box rows of at most 128 bytes",
             swizzle == 128 and box[1] * e > 128)) if bad]
        if why:
            raise EmulationError(f"tensor map {name} (box {box[0]}x{box[1]} of "
                                 f"{self.shape[0]}x{self.shape[1]} {array.dtype}): {why[0]}")

    def describe(self):
        return (f"tensor map of {self.name} ({self.shape[0]}x{self.shape[1]}, "
                f"box {self.box[0]}x{self.box[1]}" +
                (f", {self.swizzle}-byte swizzle)" if self.swizzle else ")"))

    def tile(self, col, row):
        """The bytes of the box whose first element is (row, col), row-major,
        zero outside the tensor."""
        rows, cols = row + np.arange(self.box[0]), col + np.arange(self.box[1])
        ri = np.nonzero((rows >= 0) & (rows < self.shape[0]))[0]
        ci = np.nonzero((cols >= 0) & (cols < self.shape[1]))[0]
        out = np.zeros((self.box[0], self.box[1], self.esize), np.uint8)
        out[np.ix_(ri, ci)] = self.data[np.ix_(rows[ri], cols[ci])]
        out = out.ravel()
        if self.swizzle:  # byte L of the box lands at swizzle128(L)
            placed = np.empty_like(out)
            placed[swizzle128(np.arange(len(out)))] = out
            out = placed
        return out

    def store(self, col, row, data):
        """Writes the row-major box `data` (bytes) whose first element is
        (row, col); what falls outside the tensor is dropped. Returns the
        byte offsets written."""
        if self.swizzle:
            raise EmulationError(f"{self.describe()}: TMA stores through a swizzled map are not "
                                 "modelled")
        rows, cols = row + np.arange(self.box[0]), col + np.arange(self.box[1])
        ri = np.nonzero((rows >= 0) & (rows < self.shape[0]))[0]
        ci = np.nonzero((cols >= 0) & (cols < self.shape[1]))[0]
        box = data.reshape(self.box[0], self.box[1], self.esize)
        self.data[np.ix_(rows[ri], cols[ci])] = box[np.ix_(ri, ci)]
        r, c = np.meshgrid(rows[ri], cols[ci], indexing="ij")
        first = (r * self.shape[1] + c).ravel() * self.esize
        return (first[:, None] + np.arange(self.esize)).ravel()


class MBarrier:
    """An mbarrier object: phase, expected and pending arrivals, transaction
    count, copies in flight that signal it (line, shared bytes, data), and per
    thread of the batch the number of completed phases it has observed."""

    def __init__(self, flat, block, count, agent, epoch, line, T):
        self.flat, self.block, self.count, self.line = flat, block, count, line
        self.init_agent, self.init_epoch, self.fenced = agent, epoch, False
        self.phase, self.pending, self.tx, self.copies = 0, count, 0, []
        self.commits = []  # tcgen05.commit arrivals in flight: (line, MMA records)
        self.observed = np.zeros(T, np.int64)

    def state(self):
        return (f"phase {self.phase} awaits {self.pending} of {self.count} arrivals and "
                f"{self.tx} transaction bytes")

    def add_tx(self, n):
        self.tx += n
        if not -TX_LIMIT <= self.tx <= TX_LIMIT:
            raise EmulationError(f"mbarrier transaction count {self.tx} out of range")
        self.complete()

    def arrive(self):
        if self.pending == 0:
            raise EmulationError(f"arrival on an mbarrier with no pending arrival ({self.state()})")
        self.pending -= 1
        self.complete()

    def complete(self):
        if self.pending == 0 and self.tx == 0:
            self.phase, self.pending = self.phase + 1, self.count


# ----------------------------------------------------------------- emulator
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


# ----------------------------------------------------------------- handlers
def h_alu(em, ins, mask):
    t = ins.parts[-1]
    (h_float if t[0] == "f" else h_int)(em, ins, mask)


def mul_hi64(a, b, signed):
    """The high 64 bits of the 128-bit product of 64-bit a and b."""
    m32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    a0, a1, b0, b1 = a & m32, a >> s32, b & m32, b >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & m32) + (p10 & m32)
    hi = p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)
    if signed:  # two's complement: subtract b when a < 0, a when b < 0
        top = np.uint64(1 << 63)
        hi = hi - np.where(a & top, b, np.uint64(0)) - np.where(b & top, a, np.uint64(0))
    return hi


def fma_f64(a, b, c):
    """a * b + c on float64 arrays, rounded once (exact rationals; numpy has
    no fused multiply-add)."""
    from fractions import Fraction
    out = a * b + c  # non-finite operands and results: as IEEE says
    for i in np.nonzero(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))[0]:
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        try:
            out[i] = float(exact)  # correctly rounded
        except OverflowError:
            out[i] = np.inf if exact > 0 else -np.inf
    return out


def h_int(em, ins, mask):
    """add sub mul.{lo,wide} mad.{lo,wide} and or xor not neg abs min max
    shl shr on .b/.u/.s 16-64, mul.hi on 16-64, bfe.u32/.u64 (and, or, xor,
    not also on .pred)."""
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
    if op == "mul" and mode == "hi" and bits == 64:
        r = mul_hi64(x[0], x[1], signed)
    elif op == "mul" and mode == "hi":
        r = (x[0] * x[1]) >> np.uint64(bits) if not signed else \
            ((sext(x[0], bits) * sext(x[1], bits)) >> bits).view(np.uint64)
    elif op in ("mul", "mad") and mode in ("lo", "wide"):
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
    elif op == "bfe" and not signed:  # bits pos..pos+len-1 of a, zero-extended
        pos, n = (np.minimum(em.read(o, 8), np.uint64(bits)) for o in ops[2:4])
        field = x[0] >> np.minimum(pos, np.uint64(bits - 1))
        ones = np.where(n >= np.uint64(64), mask_of(64),
                        (np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1))
        r = field & ones
        r = np.where(pos >= np.uint64(bits), np.uint64(0), r)
    else:
        unsupported(ins)
    em.write(ops[0], r, mask, bits)


def h_float(em, ins, mask):
    """add sub mul fma neg abs min max on .f32/.f16/.f16x2, and add sub mul
    fma on .f32x2 (sm_100) (.rn, .ftz on f32, .NaN on min/max)."""
    op, ops, t = ins.op, ins.ops, ins.parts[-1]
    mods = set(ins.parts[1:-1])
    lt, lanes = PACKED.get(t, (t, 1))
    if t == "f32x2" and op not in ("add", "sub", "mul", "fma"):
        unsupported(ins)
    op = "fma" if op == "mad" else op  # mad.rn.f32 is fma.rn.f32
    nsrc = {"neg": 1, "abs": 1, "fma": 3}.get(op, 2)
    directed = mods & {"rm", "rp", "rz"}  # f32 add sub mul fma, rounded so
    if op not in ("add", "sub", "mul", "fma", "min", "max", "neg", "abs") or \
            mods - {"rn", "rm", "rp", "rz", "ftz", "NaN"} or len(mods & {"rn", "rm", "rp", "rz"}) > 1 or \
            ("NaN" in mods and op not in ("min", "max")) or \
            ("ftz" in mods and lt != "f32") or (op == "fma" and not mods & {"rn", "rm", "rp", "rz"}) or \
            (directed and (t != "f32" or op not in ("add", "sub", "mul", "fma"))):
        unsupported(ins)
    srcs = [em.read(o, type_bits(t)) for o in ops[1:1 + nsrc]]
    result = np.zeros(em.T, np.uint64)
    for lane in range(lanes):
        sh = np.uint64(type_bits(lt) * lane)
        v = [f_decode(s >> sh, lt) for s in srcs]
        if "ftz" in mods:  # subnormal inputs and results flush to signed zero
            v = [np.where(np.abs(x) < np.float32(2.0 ** -126), np.float32(0) * x, x) for x in v]
        w = [x.astype(np.float64) for x in v]  # f16 +-* are exact in float64
        with np.errstate(all="ignore"):
            if directed:  # exact in float64 (fma: to within its last bits), rounded so
                x = {"add": lambda: w[0] + w[1], "sub": lambda: w[0] - w[1],
                     "mul": lambda: w[0] * w[1], "fma": lambda: w[0] * w[1] + w[2]}[op]()
                r = x.astype(np.float32)
                mode = directed.pop()
                down = (r > x) if mode == "rm" else (r > x) & (x > 0) if mode == "rz" else None
                up = (r < x) if mode == "rp" else (r < x) & (x < 0) if mode == "rz" else None
                if down is not None:
                    r = np.where(down, np.nextafter(r, np.float32(-np.inf)), r)
                if up is not None:
                    r = np.where(up, np.nextafter(r, np.float32(np.inf)), r)
                result |= f_encode(r, lt) << sh
                continue
            if lt == "f64" and op == "fma":  # exact, then rounded once
                w = [fma_f64(*v)]
            r = {"add": lambda: (w[0] + w[1]) if lt == "f16" else v[0] + v[1],
                 "sub": lambda: (w[0] - w[1]) if lt == "f16" else v[0] - v[1],
                 "mul": lambda: (w[0] * w[1]) if lt == "f16" else v[0] * v[1],
                 "fma": lambda: w[0] if lt == "f64" else w[0] * w[1] + w[2],
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


def h_special(em, ins, mask):
    """ex2 lg2 rcp sqrt rsqrt sin cos tanh (.approx, .rn) and div (.rn,
    .full, .approx) on .f32 (.ftz) and .f64 (.rn; rcp.approx.ftz.f64, the
    seed of LLVM's f64 division): computed in float64 and rounded once, which
    is within the .approx variants' error bounds."""
    op, ops, t = ins.op, ins.ops, ins.parts[-1]
    mods = set(ins.parts[1:-1])
    if t not in ("f32", "f64") or not mods <= {"approx", "rn", "full", "ftz"} or \
            (t == "f64" and mods - {"rn"} and (op, mods) != ("rcp", {"approx", "ftz"})):
        unsupported(ins)
    w = [f_decode(em.read(o, type_bits(t)), t).astype(np.float64)
         for o in ops[1:3 if op == "div" else 2]]
    with np.errstate(all="ignore"):
        r = {"ex2": lambda: np.exp2(w[0]), "lg2": lambda: np.log2(w[0]),
             "rcp": lambda: 1.0 / w[0], "sqrt": lambda: np.sqrt(w[0]),
             "rsqrt": lambda: 1.0 / np.sqrt(w[0]), "sin": lambda: np.sin(w[0]),
             "cos": lambda: np.cos(w[0]), "tanh": lambda: np.tanh(w[0]),
             "div": lambda: w[0] / w[1]}[op]()
    em.write(ops[0], f_encode(r, t), mask, type_bits(t))


def h_intdiv(em, ins, mask):
    """div and rem on .s/.u 16-64, as C does (the quotient truncated towards
    zero, the remainder with the dividend's sign); a zero divisor gives all
    ones (what PTX leaves unspecified)."""
    t = ins.parts[-1]
    if len(ins.parts) != 2 or t[0] not in "su":
        unsupported(ins)
    bits = type_bits(t)
    a, b = (em.read(o, bits) for o in ins.ops[1:3])
    zero = b == 0
    if t[0] == "u":
        safe = np.where(zero, np.uint64(1), b)
        r = a // safe if ins.op == "div" else a % safe
    else:
        x, y = sext(a, bits), sext(np.where(zero, np.uint64(1), b), bits)
        with np.errstate(all="ignore"):
            q = np.abs(x) // np.abs(y) * np.sign(x) * np.sign(y)  # towards zero
        r = (q if ins.op == "div" else x - q * y).view(np.uint64)
    em.write(ins.ops[0], np.where(zero, mask_of(bits), r), mask, bits)


def h_div(em, ins, mask):
    (h_intdiv if ins.parts[-1][0] in "su" else h_special)(em, ins, mask)


def h_copysign(em, ins, mask):
    """copysign.{f32,f64} d, a, b: b with the sign of a."""
    t = ins.parts[-1]
    if len(ins.parts) != 2 or t not in ("f32", "f64"):
        unsupported(ins)
    bits = type_bits(t)
    sign = np.uint64(1) << np.uint64(bits - 1)
    a, b = (em.read(o, bits) for o in ins.ops[1:3])
    em.write(ins.ops[0], (b & (mask_of(bits) ^ sign)) | (a & sign), mask, bits)


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
    """cvta{.to}.global (the identity), cvta.shared (shared window ->
    generic), cvta.to.shared{,::cta,::cluster} (generic -> shared window),
    all .u64."""
    kind, v = ins.parts[1:-1], em.read(ins.ops[1])
    if ins.parts[-1] != "u64":
        unsupported(ins)
    if kind in (["to", "global"], ["global"]):
        return em.write(ins.ops[0], v, mask)
    if kind == ["shared"]:
        lo, to, what = SHARED_BASE, GENERIC_SHARED, "a shared"
    elif kind in (["to", "shared"], ["to", "shared::cta"], ["to", "shared::cluster"]):
        lo, to, what = GENERIC_SHARED, SHARED_BASE, "a generic shared"
    else:
        unsupported(ins, "generic addressing of other spaces is not modelled")
    off = v[active(em, mask)] - np.uint64(lo)
    if (off > np.uint64(em.L.shared_size)).any():
        raise EmulationError(f"{hex(int(v[active(em, mask)][np.argmax(off > em.L.shared_size)]))} "
                             f"is not {what} address")
    em.write(ins.ops[0], v - np.uint64(lo) + np.uint64(to), mask)


def h_setp(em, ins, mask):
    """setp.CMP.TYPE p, a, b: integer eq ne lt le gt ge lo ls hi hs; float
    ordered (false on NaN) and unordered (CMP + 'u': true on NaN)."""
    cmp, t = ins.parts[1], ins.parts[-1]
    bits = type_bits(t)
    a, b = em.read(ins.ops[1], bits), em.read(ins.ops[2], bits)
    if t[0] == "f" and cmp in ("nan", "num") and len(ins.parts) == 3:
        a, b = f_decode(a, t), f_decode(b, t)
        nan = np.isnan(a) | np.isnan(b)
        return em.write(ins.ops[0], nan if cmp == "nan" else ~nan, mask)
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
    """cvt between integers, f16/bf16 <-> f32, integer -> float (.rn), float
    -> integer (.rzi/.rni), float -> integral float of the same type
    (.rzi/.rni/.rmi/.rpi), and cvt.rn.{f16x2,bf16x2}.f32 d, hi, lo."""
    dt, st, mods = ins.parts[-2], ins.parts[-1], set(ins.parts[1:-2])
    if dt in ("f16x2", "bf16x2"):
        if mods != {"rn"} or st != "f32":
            unsupported(ins)
        hi, lo = (f_encode(f_decode(em.read(o, 32), "f32"), dt[:-2]) for o in ins.ops[1:3])
        return em.write(ins.ops[0], (hi << np.uint64(16)) | lo, mask, 32)
    dbits, sbits = type_bits(dt), type_bits(st)
    v = em.read(ins.ops[1], sbits)
    df, sf = dt[0] == "f" or dt == "bf16", st[0] == "f" or st == "bf16"
    if not df and not sf and not mods:
        r = sext(v, sbits).view(np.uint64) if st[0] == "s" else v
    elif df and sf and mods <= {"rn"} and (dbits > sbits or mods):
        r = f_encode(f_decode(v, st).astype(np.float64), dt)
    elif df and not sf and mods == {"rn"}:
        r = f_encode((sext(v, sbits) if st[0] == "s" else v).astype(np.float64), dt)
    elif dt == st == "f32" and mods in ({"sat"}, {"rn", "sat"}, {"ftz", "sat"}):
        x = f_decode(v, st)  # clamped to [0, 1]; NaN becomes 0
        r = f_encode(np.clip(np.nan_to_num(x, nan=0.0), 0.0, 1.0), dt)
    elif df and sf and len(mods) == 1 and \
            mods <= {"rzi", "rni", "rmi", "rpi"}:  # to an integral float
        fn = {"rzi": np.trunc, "rni": np.rint, "rmi": np.floor, "rpi": np.ceil}[mods.pop()]
        r = f_encode(fn(f_decode(v, st).astype(np.float64)), dt)
    elif sf and mods in ({"rzi"}, {"rni"}):
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


HANDLERS = {
    **{op: h_int for op in ("shl", "shr", "and", "or", "xor", "not", "bfe")},
    **{op: h_alu for op in ("add", "sub", "mul", "mad", "fma", "neg", "abs", "min", "max")},
    "mov": h_mov, "cvta": h_cvta, "setp": h_setp, "selp": h_selp, "cvt": h_cvt, "ld": h_ld,
    "st": h_st, "cp": h_cp, "bar": h_bar, "barrier": h_bar, "ldmatrix": h_ldmatrix, "mma": h_mma,
    "mbarrier": h_mbarrier, "fence": h_fence, "wgmma": h_wgmma, "tcgen05": h_tcgen05,
    **{op: h_special for op in ("ex2", "lg2", "rcp", "sqrt", "rsqrt", "sin", "cos", "tanh")},
    "div": h_div, "rem": h_intdiv, "copysign": h_copysign,
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


def cmd_run(args):
    kernel = Kernel(args.ptx)
    grid = dims(args.grid)
    buffers, outputs, maps = bind_params(kernel, args.param)
    L, blocks = run_launch(kernel, grid, dims(args.block), args.dynamic_shared, buffers, maps,
                           args.blocks, args.seed)
    for i, path, dt, shape, array in outputs:
        np.save(path, buffers[i].view(dt).reshape(shape) if array is None else array)
    print(f"{kernel.name}: emulated {len(blocks)} of {int(np.prod(grid))} blocks x {L.nt} "
          "threads, "
          f"{L.steps // max(len(blocks), 1)} instructions per block, "
          f"{L.shared_size} bytes of shared memory" +
          (f", {L.tma_copies // max(len(blocks), 1)} TMA copies per block" if L.tma_copies
           else "") +
          (f", {L.tma_stores // max(len(blocks), 1)} TMA stores per block" if L.tma_stores
           else "") + ": no errors")


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


def cmd_gen(args):
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for spec in args.specs:
        name, dt, shape, lo, hi = spec.split(":")
        v = rng.integers(int(lo), int(hi) + 1, tuple(int(x) for x in shape.split("x")))
        if dt == "bf16":  # its bits, as uint16 (exact: small integers)
            v = (v.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        else:
            v = v.astype({"f16": np.float16, "f32": np.float32, "i32": np.int32}[dt])
        np.save(os.path.join(args.dir, name + ".npy"), v)


def load_values(path):
    """An input array as float64; uint16 arrays hold bf16 bits."""
    v = np.load(path)
    if v.dtype == np.uint16:
        v = f_decode(v.astype(np.uint64), "bf16")
    return v.astype(np.float64)


# Element types of artifact tensors and tensor maps, as numpy holds them
# (bf16 as its uint16 bits).
PLAN_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
               "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
               "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
               "u64": np.uint64}


def parse_plan(text):
    """The parts of `orchestra-run --describe` output that run-plan needs."""
    plan = {"devices": {}, "spaces": {}, "inputs": [], "outputs": [], "values": {},
            "constants": [], "modules": {}, "bundle_kernels": {}, "kernels": {}, "steps": []}
    binary, kernel = None, None
    shape = lambda t: tuple(int(d) for d in t.split("x")) if t else ()
    for line in text.splitlines():
        if m := re.match(r"device (\d+) '[^']*': (\S+),", line):
            plan["devices"][int(m[1])] = m[2]
        elif m := re.match(r"memory (\d+) '[^']*' of device (\d+): (\d+) B", line):
            plan["spaces"][int(m[1])] = (int(m[2]), int(m[3]))
        elif m := re.match(r"  (input|output) \d+ (\S+): (\w+)\[([0-9x]*)\] = value (\d+)", line):
            plan[m[1] + "s"].append((m[2], m[3], shape(m[4]), int(m[5])))
        elif m := re.match(r"  value (\d+): memory (\d+) at (\d+), (\d+) B", line):
            plan["values"][int(m[1])] = (int(m[2]), int(m[3]), int(m[4]))
        elif m := re.match(r"  constant: value (\d+), (\d+) B", line):
            plan["constants"].append(int(m[1]))
        elif m := re.match(r"binary (\d+): (\S+), (\S+),", line):
            binary = int(m[1]) if m[3] == "gpu-module-bundle" else None
        elif binary is not None and (m := re.match(r"    module (\d+) '([^']+)'", line)):
            plan["modules"][(binary, int(m[1]))] = m[2]
        elif binary is not None and (m := re.match(r"    kernel (\S+?)(?:, scratch(.*))?$", line)):
            kernel = {"scratch": [int(b) for b in re.findall(r"(\d+) B", m[2] or "")],
                      "launches": []}
            plan["bundle_kernels"][(binary, m[1])] = kernel
        elif kernel is not None and (m := re.match(
                r"      launch \d+: (\S+) of module (\d+), grid (\d+)x(\d+)x(\d+), block "
                r"(\d+)x(\d+)x(\d+), (\d+) B of dynamic shared memory", line)):
            kernel["launches"].append({"module": (binary, int(m[2])),
                                       "grid": tuple(int(x) for x in m.group(3, 4, 5)),
                                       "block": tuple(int(x) for x in m.group(6, 7, 8)),
                                       "shared": int(m[9]), "params": []})
        elif kernel is not None and (m := re.match(r"        param \d+: (.*)", line)):
            kernel["launches"][-1]["params"].append(m[1])
        elif m := re.match(r"kernel (\d+): (\S+) in binary (\d+)", line):
            plan["kernels"][int(m[1])] = (int(m[3]), m[2])
        elif m := re.match(r"step (\d+) on device (\d+): launch kernel (\d+) '[^']*' \(([^)]*)\)",
                           line):
            args = [int(a.split()[1]) for a in m[4].split(", ") if a]
            plan["steps"].append(("launch", int(m[2]), int(m[3]), args))
        elif m := re.match(r"step (\d+) on device (\d+): copy '[^']*' value (\d+) -> value (\d+)",
                           line):
            plan["steps"].append(("copy", int(m[2]), None, [int(m[3]), int(m[4])]))
    return plan


def cmd_run_plan(args):
    """Runs every step of a GPU artifact's plan, from its description and
    its kernels' PTX, on the inputs; saves the outputs."""
    with open(args.describe) as f:
        plan = parse_plan(f.read())
    arenas = {i: np.full(n, 0xFF, np.uint8) for i, (_, n) in plan["spaces"].items()}

    def view(value):
        space, off, n = plan["values"][value]
        return arenas[space][off:off + n]

    for value in plan["constants"]:
        path = os.path.join(args.constants or "", f"value_{value}.bin")
        if not args.constants or not os.path.exists(path):
            raise EmulationError(f"constant value {value}: no {path} (give --constants DIR "
                                 "from orchestra-run --dump-constants DIR)")
        data = np.fromfile(path, np.uint8)
        view(value)[:len(data)] = data

    if len(args.input) != len(plan["inputs"]):
        raise EmulationError(f"the entry takes {len(plan['inputs'])} inputs, got "
                             f"{len(args.input)}")
    for path, (name, dtype, shape, value) in zip(args.input, plan["inputs"]):
        array = np.load(path)
        if array.dtype != PLAN_DTYPES[dtype] or array.shape != shape:
            raise EmulationError(f"input {name} must be {dtype} {shape}, not {array.dtype} "
                                 f"{array.shape} ({path})")
        view(value)[:] = np.frombuffer(np.ascontiguousarray(array).tobytes(), np.uint8)
    ptx_files, scratch, launches = {}, {}, 0
    for number, (kind, device, kernel_index, step_args) in enumerate(plan["steps"]):
        arch = plan["devices"][device]
        if not arch.startswith("nvidia_"):
            raise EmulationError(f"step {number} runs on device {device} ({arch}): run-plan "
                                 "emulates GPU steps only (use a GPU-only topology)")
        if kind == "copy":
            view(step_args[1])[:] = view(step_args[0])
            continue
        binary, symbol = plan["kernels"][kernel_index]
        desc = plan["bundle_kernels"][(binary, symbol)]
        if symbol not in scratch:  # allocated once, reused by every step
            scratch[symbol] = [np.full(n, 0xFF, np.uint8) for n in desc["scratch"]]
        for launch in desc["launches"]:
            module = plan["modules"][launch["module"]]
            if module not in ptx_files:
                found = glob.glob(os.path.join(args.ptx_dir, f"*.{module}.ptx"))
                if len(found) != 1:
                    raise EmulationError(f"no single {args.ptx_dir}/*.{module}.ptx "
                                         "(--dump-device-code)")
                ptx_files[module] = Kernel(found[0])
            kernel = ptx_files[module]
            buffers, maps = [], {}
            for i, param in enumerate(launch["params"]):
                if m := re.fullmatch(r"(buffer|scratch) (\d+)", param):
                    buffers.append(view(step_args[int(m[2])]) if m[1] == "buffer"
                                   else scratch[symbol][int(m[2])])
                elif m := re.fullmatch(r"tensor map of buffer (\d+) \((\w+) (\d+)x(\d+), box "
                                       r"(\d+)x(\d+), row stride \d+ B, swizzle (none|128B)\)",
                                       param):
                    rows, cols = int(m[3]), int(m[4])
                    data = view(step_args[int(m[1])]).view(PLAN_DTYPES[m[2]])
                    maps[i] = TensorMap(f"buffer {m[1]}", data[:rows * cols].reshape(rows, cols),
                                        (int(m[5]), int(m[6])), 128 if m[7] == "128B" else 0)
                    buffers.append(np.zeros(TENSOR_MAP_BYTES, np.uint8))
                else:
                    raise EmulationError(f"step {number}: parameter {i} ({param}) is not "
                                         "supported")
            try:
                run_launch(kernel, launch["grid"], launch["block"], launch["shared"], buffers,
                           maps)
            except EmulationError as e:
                raise EmulationError(f"step {number}, {kernel.name}: {e}") from None
            launches += 1
    os.makedirs(args.output_dir, exist_ok=True)
    for i, (name, dtype, shape, value) in enumerate(plan["outputs"]):
        np.save(os.path.join(args.output_dir, f"output_{i}.npy"),
                view(value).view(PLAN_DTYPES[dtype]).reshape(shape))
    print(f"run-plan: {len(plan['steps'])} step(s), {launches} launch(es): no errors")


def cmd_check_gemm(args):
    a, b = (load_values(os.path.join(args.dir, n + ".npy")) for n in ("a", "b"))
    if args.plain:
        expected, what = a @ b, "a @ b"
    else:
        bias = load_values(os.path.join(args.dir, "bias.npy"))
        expected, what = np.maximum(a @ b + bias, 0), "relu(a @ b + bias)"
    raw, grid = np.load(args.out), dims(args.grid)
    out = raw
    if raw.dtype == np.uint16:  # bf16 bits: one rounding of the exact result
        expected = f_decode(f_encode(expected, "bf16"), "bf16").astype(np.float64)
        out = f_decode(out.astype(np.uint64), "bf16")
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
    stray = ~mine & (raw.view(np.uint8).reshape(raw.shape + (-1,)) != 0xFF).any(axis=-1)
    if stray.any():
        raise EmulationError(f"element {tuple(np.argwhere(stray)[0])} outside the chosen "
                             "blocks' tiles was written")
    print(f"check-gemm: {len(blocks)} tiles of {tm}x{tn} match {what}, "
          f"max abs error {err[mine].max():.3g} (tolerance {args.atol})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="emulate a kernel")
    g = sub.add_parser("gen", help="integer-valued inputs")
    c = sub.add_parser("check-gemm", help="compare with relu(a @ b + bias)")
    pl = sub.add_parser("run-plan", help="run a GPU artifact's plan")
    pl.add_argument("describe")
    pl.add_argument("ptx_dir")
    pl.add_argument("--input", action="append", default=[])
    pl.add_argument("--output-dir", required=True)
    pl.add_argument("--constants", help="the constants' data (orchestra-run --dump-constants)")
    for p, arg in ((r, "ptx"), (g, "dir"), (c, "dir"), (c, "out")):
        p.add_argument(arg)
    for p, flag in ((r, "--grid"), (r, "--block"), (c, "--grid")):
        p.add_argument(flag, required=True)
    r.add_argument("--dynamic-shared", type=int, default=0)
    r.add_argument("--param", action="append", default=[])
    g.add_argument("specs", nargs="+")
    c.add_argument("--atol", type=float, default=0.0)
    c.add_argument("--plain", action="store_true", help="compare with a @ b (no bias.npy)")
    for p, default in ((r, 0), (g, 1), (c, 0)):
        p.add_argument("--seed", type=int, default=default)
    for p in (r, c):
        p.add_argument("--blocks", default="all")
    args = ap.parse_args()
    try:
        {"run": cmd_run, "gen": cmd_gen, "check-gemm": cmd_check_gemm,
         "run-plan": cmd_run_plan}[args.cmd](args)
    except (EmulationError, OSError, ValueError) as e:
        sys.exit(f"ptx_emulator: error: {e}")


if __name__ == "__main__":
    main()
