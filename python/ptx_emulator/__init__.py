"""A lockstep emulator for the PTX of the tensor-core kernels, so that tests
without a GPU check that a kernel computes the right numbers.

  python3 -m ptx_emulator run KERNEL.ptx --grid X[,Y[,Z]] --block X[,Y[,Z]]
      [--dynamic-shared BYTES] --param P=in:FILE.npy ...
      --param P=tmap:FILE.npy:BOXROWSxBOXCOLS[:swizzle128] ...
      --param P=out:FILE.npy:DTYPE:SHAPE ...
      --param P=tmap-out:FILE.npy:DTYPE:ROWSxCOLS:BOXROWSxBOXCOLS ...
      [--blocks SPEC [--seed S]]
  python3 -m ptx_emulator run-plan PLAN.json PTX_DIR --input FILE.npy ...
      --output-dir DIR
                  every step of a GPU artifact's plan (`orchestra-run
                  --describe=json` output; its kernels' PTX from orchestra-compile
                  --dump-device-code): its values in arenas (0xff until
                  written), scratch buffers per kernel, each launch's buffer,
                  scratch and tensor-map parameters; the outputs saved as
                  DIR/output_<i>.npy; --constants DIR gives the constants'
                  data (orchestra-run --dump-constants DIR). A kernel with a
                  program (a loop) runs as the program says, reading each
                  loop condition from its buffer. Plans with CPU steps are
                  refused
  python3 -m ptx_emulator gen DIR NAME:DTYPE:SHAPE:LO:HI ...  integer-valued inputs
                                                      (DTYPE f16/bf16/f32/i32;
                                                      bf16 saved as its uint16 bits)
  python3 -m ptx_emulator check-gemm DIR OUT.npy --grid X,Y [--blocks SPEC [--seed S]]
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
atomics other than atom.global.add on integers, clusters of more than one
block.

Warps (the branch profiler's probes). A warp is 32 consecutive threads of a
block (the last one partial when the block is not whole warps).
activemask.b32 gives each thread the lanes of its warp that run the
instruction; vote.sync.ballot.b32 the lanes of its membermask whose
predicate is true (a membermask naming a lane that does not run it is an
error: the GPU would wait for it); popc counts bits. atom.global.add
(.u32/.s32/.u64/.s64, any .sem and .scope) adds for each running thread in
turn and returns the old value; atomics are not writes of a block, so
blocks may add to the same bytes.

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

The package (python/ptx_emulator, on PYTHONPATH) is split by concern:
parser (PTX text to instructions), values (register encodings), objects
(tensor maps, mbarriers), machine (launches and lockstep batches), isa (one
module per instruction family and the opcode table), runner (one launch),
plan (a whole artifact's plan) and cli (the commands above). Its unit tests
are python/ptx_emulator/tests (run by test/Target/NVIDIA/ptx-emulator-unit.test).
"""

from .common import EmulationError
from .parser import Kernel
from .plan import PLAN_DTYPES, parse_plan
from .runner import run_launch
from .values import f_decode, f_encode

__all__ = ["EmulationError", "Kernel", "PLAN_DTYPES", "f_decode", "f_encode", "parse_plan",
           "run_launch"]
