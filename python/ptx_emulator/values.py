"""Register values: bit masks, sign extension, the floating-point
encodings (f16, bf16, f32, f64 and packed pairs) and the 128-byte swizzle."""

import re

import numpy as np

from .common import EmulationError


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
