"""Generates the simplifier parity corpus with TVM 0.27 as the oracle.

Each line: ranges <TAB> expression as an s-expression <TAB> TVM's simplified text.
Run (from the repository root; see README.md beside this file for the seeds):
  tools/tvm/python compiler/src/arith/testdata/gen_tvm_simplify.py SEED COUNT [scaled|shifted] \
      > compiler/src/arith/testdata/tvm_simplify.txt
"""
import random
import sys
import tvm
from tvm import tirx as tir
from tvm import sym as arith

VARS = ["x0", "x1", "x2"]
BIN = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": tir.floordiv, "floormod": tir.floormod,
    "truncdiv": tir.truncdiv, "truncmod": tir.truncmod,
    "min": tir.min, "max": tir.max,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: tir.EQ(a, b) if False else a == b,
    "ne": lambda a, b: a != b,
    "and": tir.And, "or": tir.Or,
}

def const(r):
    return r.choice([r.randint(-8, 8)] * 4 + [r.choice([16, 32, 64, 128, -16, 24, 100])])

def divisor(r):
    return r.choice([2, 3, 4, 8, 16, 32, 5, 7, 2, 4, 8])

def tree(r, depth):
    if depth == 0 or r.random() < 0.25:
        return r.choice(VARS) if r.random() < 0.6 else str(const(r))
    k = r.random()
    sub = lambda: tree(r, depth - 1)
    if k < 0.25: return ("add", sub(), sub())
    if k < 0.35: return ("sub", sub(), sub())
    if k < 0.5: return ("mul", sub(), str(const(r)))
    if k < 0.53: return ("mul", sub(), sub())
    if k < 0.65: return ("floordiv", sub(), str(divisor(r)))
    if k < 0.77: return ("floormod", sub(), str(divisor(r)))
    if k < 0.8: return ("truncdiv", sub(), str(divisor(r)))
    if k < 0.83: return ("truncmod", sub(), str(divisor(r)))
    if k < 0.89: return ("min", sub(), sub())
    if k < 0.95: return ("max", sub(), sub())
    return ("select", (r.choice(["lt", "le", "eq"]), sub(), sub()), sub(), sub())

def split_fuse(r):
    """Index shapes that schedules produce."""
    a, b, c = r.sample(VARS, 3)
    f1, f2 = r.choice([2, 4, 8, 16, 32]), r.choice([2, 4, 8, 128])
    fused = ("add", ("mul", a, str(f1)), b)
    choices = [
        fused,
        ("floordiv", fused, str(f1)), ("floormod", fused, str(f1)),
        ("add", ("mul", ("floordiv", a, str(f2)), str(f2)), ("floormod", a, str(f2))),
        ("floordiv", ("add", ("mul", fused, str(f2)), c), str(f2)),
        ("floormod", ("floordiv", a, str(f1)), str(f2)),
        ("lt", fused, str(r.randint(1, 200))),
        ("add", ("mul", ("add", ("mul", a, str(f1)), b), str(f2)), c),
        ("floordiv", ("add", fused, str(r.randint(0, 40))), str(f2)),
        ("min", fused, str(r.randint(1, 200))),
    ]
    return r.choice(choices)

def scaled_plus_small(r):
    """`(x * c1 + y) // c3` and `% c3` with `c1` dividing `c3`: the regions of
    a split of a fused loop (`(f * 32 + 31) // 64`)."""
    a, b = r.sample(VARS, 2)
    c1 = r.choice([2, 4, 8, 16, 32])
    c3 = c1 * r.choice([1, 2, 3, 4]) if r.random() < 0.8 else r.choice([3, 5, 12, 64])
    small = str(r.randint(-40, 40)) if r.random() < 0.6 else ("floormod", b, str(r.choice([c1, c1 * 2, 3])))
    return (r.choice(["floordiv", "floormod"]), ("add", ("mul", a, str(c1)), small), str(c3))

def shifted_quotients(r):
    """`(x + c1) // d - (x + c2) // d`, alone or within a sum: the extents of
    the regions `compute_at` relaxes over a strided read (`(h + 3) // 2 + 1 -
    h // 2` rows)."""
    a, b = r.sample(VARS, 2)
    d = str(r.choice([2, 3, 4, 8]))
    x = a if r.random() < 0.7 else ("add", a, b)
    c1, c2 = r.randint(0, 12), r.choice([0, 0, r.randint(-3, 5)])
    shifted = lambda c: x if c == 0 else ("add", x, str(c))
    q1, q2 = ("floordiv", shifted(c1), d), ("floordiv", shifted(c2), d)
    c = str(r.randint(1, 4))
    return r.choice([
        ("sub", q1, q2),
        ("sub", ("add", q1, c), q2),
        ("add", ("sub", q1, q2), c),
        ("add", ("sub", c, q2), q1),
        ("sub", ("mul", q1, c), ("mul", q2, c)),
        ("add", ("sub", q1, q2), b),
    ])

def condition(r, depth):
    if depth == 0 or r.random() < 0.5:
        return (r.choice(["lt", "le", "gt", "ge", "eq", "ne"]), tree(r, 2), tree(r, 2))
    k = r.random()
    if k < 0.4: return ("and", condition(r, depth - 1), condition(r, depth - 1))
    if k < 0.8: return ("or", condition(r, depth - 1), condition(r, depth - 1))
    return ("not", condition(r, depth - 1))

def show(t):
    if isinstance(t, str): return t
    return "(" + " ".join(show(x) for x in t) + ")"

def build(t, env):
    if isinstance(t, str):
        return env[t] if t in env else tir.const(int(t), "int32")
    op = t[0]
    if op == "select":
        return tir.Select(build(t[1], env), build(t[2], env), build(t[3], env))
    if op == "not":
        return tir.Not(build(t[1], env)) if not isinstance(build(t[1], env), tir.IntImm) else tir.const(not build(t[1], env).value, "bool")
    return BIN[op](build(t[1], env), build(t[2], env))

def main():
    r = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 20260427)
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    shapes = sys.argv[3] if len(sys.argv) > 3 else "mixed"
    out = []
    for n in range(count):
        env = {v: tir.Var(v, "int32") for v in VARS}
        ranges = []
        ana = arith.Analyzer()
        for v in VARS:
            if r.random() < 0.8:
                lo, ext = (0 if r.random() < 0.7 else r.randint(-8, 8)), r.choice([1, 2, 3, 4, 5, 8, 16, 30, 32, 100, 128])
                if ext == 1:
                    ext = 2
                ana.bind(env[v], tvm.ir.Range(lo, lo + ext))
                ranges.append(f"{v}:{lo}:{ext}")
        kind = r.random()
        if shapes == "scaled": t = scaled_plus_small(r)
        elif shapes == "shifted": t = shifted_quotients(r)
        elif kind < 0.35: t = split_fuse(r)
        elif kind < 0.8: t = tree(r, 4)
        else: t = condition(r, 2)
        try:
            e = build(t, env)
            s = ana.simplify(e)
        except Exception as err:  # division by zero and the like
            continue
        text = str(s).replace("\n", " ")
        out.append(f"{' '.join(ranges) or '-'}\t{show(t)}\t{text}")
    print("\n".join(out))

main()
