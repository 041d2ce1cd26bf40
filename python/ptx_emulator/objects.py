"""The objects a kernel reaches through its parameters and shared
memory: tiled tensor maps (TMA) and mbarriers."""

import numpy as np

from .common import EmulationError, TX_LIMIT
from .values import swizzle128


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
