"""Scalar instructions: integer and floating-point arithmetic, special
functions, moves, address conversion, comparisons, selects and conversions."""

import numpy as np

from ..common import EmulationError, GENERIC_SHARED, SHARED_BASE, unsupported
from .memory import active
from ..values import CANONICAL_NAN, PACKED, f_decode, f_encode, mask_of, sext, type_bits


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
