"""Parsing PTX: instructions, operands, declarations and the kernel
(its .entry, the .func device functions it calls, labels and shared and
local declarations)."""

import re

import numpy as np

from .common import EmulationError


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
