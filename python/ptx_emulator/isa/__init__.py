"""The instruction families: one handler per PTX opcode."""

from .matrix import h_ldmatrix, h_mma, h_wgmma
from .memory import h_bar, h_cp, h_fence, h_ld, h_mbarrier, h_st
from .scalar import (
    h_alu, h_copysign, h_cvt, h_cvta, h_div, h_int, h_intdiv, h_mov, h_selp, h_setp, h_special)
from .tcgen05 import h_tcgen05
from .warp import h_activemask, h_atom, h_popc, h_vote


HANDLERS = {
    **{op: h_int for op in ("shl", "shr", "and", "or", "xor", "not", "bfe")},
    **{op: h_alu for op in ("add", "sub", "mul", "mad", "fma", "neg", "abs", "min", "max")},
    "mov": h_mov, "cvta": h_cvta, "setp": h_setp, "selp": h_selp, "cvt": h_cvt, "ld": h_ld,
    "st": h_st, "cp": h_cp, "bar": h_bar, "barrier": h_bar, "ldmatrix": h_ldmatrix, "mma": h_mma,
    "mbarrier": h_mbarrier, "fence": h_fence, "wgmma": h_wgmma, "tcgen05": h_tcgen05,
    **{op: h_special for op in ("ex2", "lg2", "rcp", "sqrt", "rsqrt", "sin", "cos", "tanh")},
    "div": h_div, "rem": h_intdiv, "copysign": h_copysign,
    "activemask": h_activemask, "vote": h_vote, "popc": h_popc, "atom": h_atom,
}
