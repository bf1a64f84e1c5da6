#!/usr/bin/env python3
"""Random schedule scripts run by TVM 0.27 and by tirc, compared.

Each trial takes the module of a tests/schedule case, an example or a te_ or
sched_ workload of the TVM corpus (tests/roundtrip/tvm), writes a
random schedule script of the primitives tirc implements (split with every
kind of factor list, fuse, reorder, parallel, vectorize, unroll, bind,
annotate, unannotate, add_unit_loop, the getters; compute_inline,
reverse_compute_inline, cache_read, cache_write, storage_align, set_scope,
decompose_reduction, compute_at, reverse_compute_at, rfactor,
transform_layout with and without pad_value, reindex, transform_block_layout,
blockize, pad_einsum, reorder_block_iter_var, unsafe_set_dtype,
annotate_buffer_access, unsafe_hide_buffer_access, get_output_blocks, merge,
decompose_padding, read_at, write_at, cache_inplace), with arguments
that are mostly valid (a block's real buffer indices, a consumer's loop for
compute_at, a reduction loop for rfactor) and sometimes wrong (indices out of
range, misspelt scopes, loops of unrelated blocks, spatial loops for rfactor),
and runs it step by step in TVM, stopping at the first step TVM refuses.
tirc then applies the same file.  The two agree when

  * TVM applies every step, tirc does too (and its verifier accepts the
    module after every step), and `tirc diff` finds tirc's module
    structurally equal to TVM's `sch.mod.script()`;
  * TVM refuses step k, tirc refuses it too, with its diagnostic on that line.

and, when both apply every step, TVM replaying the trace `tirc schedule
--trace` prints gives TVM's module again.

Known deliberate differences count apart (see tools/tvm/NOTES.md §14) and are
kept in OUT/deliberate/: tirc refusing an unknown thread tag or an
overflowing fused extent (E0318, E0324) or the scopes "" and `texture*`
(E0326); TVM dropping the allocation of a buffer still in use (seen after
reverse_compute_inline of one of two consumers; its module then declares
`X = T.Buffer(...)` in a body); TVM's compute_inline leaving an unsimplified index (`vj + 1 - 1`) in T.reads.
TVM crashing (a segfault in a primitive) counts apart too (tvm_crash): each
script runs in TVM in a child process, so a crash ends only that trial.

Three kinds are shown by running programs, not by matching text
(tools/tvm/NOTES.md §18): a step tirc refuses and TVM applies counts apart
(tirc_refuses_tvm_miscompute) when TVM's own modules before and after it,
run by `tirc run --no-schedule` on the same seeded inputs, give different
outputs; TVM stopping on an internal check (InternalError, IndexError) at a
step tirc applies counts apart (tvm_internal_error) when `tirc schedule
--check-each` shows every one of tirc's steps right; and a module whose init
TVM's cache_write left storing to the original buffer (tvm_cache_write_init,
NOTES §14) counts apart with rfactor's refusal of that block. A module TVM
gives after every step that tirc's verifier refuses (an undefined variable or
a binding outside its domain) counts apart (tvm_module_ill_formed, NOTES §19)
when `--check-each` shows tirc's steps right, and so does a module that
differs after a TVM step that computes other outputs than the module before
it (tvm_step_miscomputes, NOTES §22).

Disagreements are written to OUT/NAME.tir with what each tool said
(OUT/NAME.txt) so they can become golden cases.

Run from the repository root, after building tirc:
  tools/tvm/python tools/tvm/differential_schedules.py \
      --tirc target/release/tirc --trials 2000 --seed 1 --out /tmp/differential
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import types

import tvm
from tvm import s_tir, tirx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What tirc refuses on purpose where TVM goes on (tools/tvm/NOTES.md §13):
# an unknown thread tag, a fused extent that overflows its type.
STRICTER_THAN_TVM = ("E0318", "E0324")
# tirc refuses the empty storage scope and `texture*` scopes, which TVM takes.
SCOPE_REFUSED_ON_PURPOSE = "E0326"
SCOPES = ["shared", "local", "global", "shared.dyn"]
# Scopes both refuse (typos), "" and "texture" (TVM takes those two, tirc
# refuses them on purpose) and an unknown tag both take ("shared.dny").
BAD_SCOPES = ["sharde", "sharde", "", "texture", "lokal", "shared.dny"]
COMM_REDUCE = 2  # tirx.IterVar.CommReduce
# A body-level buffer declaration (`    X = T.Buffer((4,), "float32")`).
BODY_BUFFER = re.compile(r"^\s+\w+ = T\.Buffer\(", re.M)
# An index compute_inline left unsimplified in T.reads (`vj + 1 - 1`).
UNSIMPLIFIED = re.compile(r" \+ (\d+) - \1\b| - (\d+) \+ \2\b")


# An index TVM's compute_inline leaves in T.reads after reading a store
# through its inverse (`vi // 8 * 8 + vi % 8`).
UNFOLDED_SPLIT = re.compile(r"\b(\w+) // (\d+) \* \2 \+ \1 % \2\b")
# The same sum in the other order (`v0 % 16 + v0 // 16 * 16`).
UNFOLDED_SPLIT_SWAPPED = re.compile(r"\b(\w+) % (\d+) \+ \1 // \2 \* \2\b")
# A cache_write whose consumer_blocks name a block (TVM's init defect,
# tools/tvm/NOTES.md §14: the init keeps storing to the original buffer).
CACHE_WRITE_OF_ITSELF = re.compile(r"cache_write\((\w+),.*consumer_blocks=\[[^\]]*\w")
# A symbolic size a module declares (`n = T.int32()`).
SYMBOLIC_SIZE = re.compile(r"^\s*(\w+) = T\.int(?:32|64)\(\)", re.MULTILINE)
# The variables a loop header defines (`for rx_0 in ...`, `for a, b in T.grid`).
LOOP_HEADER = re.compile(r"^\s*for ([\w, ]+) in ", re.MULTILINE)
# A negative constant TVM's simplifier leaves added (`x + -1`).
PLUS_NEGATIVE = re.compile(r" \+ -(\d+)\b")


def simplify_reads(module_text: str) -> str:
    """TVM's module with `x + c - c` and `x // c * c + x % c` in T.reads
    lines made `x`, and `x + -c` made `x - c` everywhere."""
    lines = []
    for line in module_text.split("\n"):
        if "T.reads(" in line:
            line = UNFOLDED_SPLIT.sub(r"\1", UNSIMPLIFIED.sub("", line))
            line = UNFOLDED_SPLIT_SWAPPED.sub(r"\1", line)
        lines.append(PLUS_NEGATIVE.sub(r" - \1", line))
    return "\n".join(lines)


def fold_split_sums(module_text: str) -> str:
    """A module with every `x // c * c + x % c` (in either order) made `x`:
    both tools leave the sum after an inverse map, in different term orders
    (TVM's inverse adds the inner digit first), and it is `x` for any `x`."""
    return UNFOLDED_SPLIT_SWAPPED.sub(r"\1", UNFOLDED_SPLIT.sub(r"\1", module_text))


THREAD_TAGS = [
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread.x",
    "vthread.y",
    "vthread",
]


def module_of(tirc: str, path: str) -> str | None:
    """The tirx text of the module in a .tir file, or None when TVM cannot read it."""
    printed = subprocess.run(
        [tirc, "fmt", "--dialect", "tirx", path], capture_output=True, text=True
    )
    if printed.returncode != 0:
        return None
    text = printed.stdout
    match = re.search(r"^def \w+\(", text, re.M)
    if match:
        text = text[: match.start()]
    try:
        mod = tvm.script.from_source(text)
    except Exception:  # noqa: BLE001
        return None
    if isinstance(mod, tirx.PrimFunc):
        return None
    return text.rstrip() + "\n"


def block_names(module_text: str) -> list[str]:
    """Names of the non-root blocks of a printed module, in program order."""
    names = re.findall(r'T\.sblock\("([^"]*)"\)', module_text)
    # A name used twice is ambiguous for get_sblock: leave those out.
    return [n for i, n in enumerate(names) if names.count(n) == 1 and n != "root" and n not in names[:i]]


def find_realize(stmt, block):
    """The SBlockRealize of `block` in `stmt`, not looking inside other blocks."""
    if stmt is None:
        return None
    if isinstance(stmt, s_tir.SBlockRealize):
        return stmt if stmt.block.same_as(block) else None
    if isinstance(stmt, tirx.SeqStmt):
        children = list(stmt.seq)
    elif isinstance(stmt, tirx.IfThenElse):
        children = [stmt.then_case, stmt.else_case]
    else:
        children = [getattr(stmt, "body", None)]
    for child in children:
        found = find_realize(child, block)
        if found is not None:
            return found
    return None


class Trial:
    """One random script, built and run in TVM one line at a time."""

    def __init__(self, rng: random.Random, module_text: str):
        self.rng = rng
        self.mod = tvm.script.from_source(module_text)
        self.sch = s_tir.Schedule(self.mod)
        self.namespace = {"sch": self.sch}
        self.lines: list[str] = []
        self.counter = 0
        self.blocks: dict[str, str] = {}  # block name -> handle name
        self.removed: list[str] = []  # handles of blocks inlined away
        self.loops: list[str] = []  # the loops of the latest get_loops
        self.loops_owner: str | None = None  # the name of their block
        self.stale: list[str] = []  # loop handles from earlier steps
        self.refused: tuple[int, str] | None = None
        self.report = lambda line: None  # told each line before TVM runs it

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def run(self, line: str) -> bool:
        """Runs one line in TVM; False (and the trial ends) when TVM refuses it."""
        self.lines.append(line)
        self.report(line)
        try:
            exec(line, self.namespace)  # noqa: S102
        except Exception as error:  # noqa: BLE001
            text = str(error)
            first = text.splitlines()[0] if text else ""
            message = first if first.startswith(type(error).__name__) else f"{type(error).__name__}: {first}"
            detail = re.search(r"^Error message: (.*)$", text, re.M)
            if detail:
                message += " " + detail.group(1)
            self.refused = (len(self.lines) - 1, message)
            return False
        return True

    # What TVM's schedule knows about a block, by name; emits no line.
    def info(self, name: str):
        try:
            return self.sch.get(self.sch.get_sblock(name))
        except Exception:  # noqa: BLE001
            return None

    def related(self, name: str, getter: str) -> list[str]:
        """Names of the consumers ("get_consumers") or producers of a block."""
        try:
            found = getattr(self.sch, getter)(self.sch.get_sblock(name))
            return [self.sch.get(rv).name_hint for rv in found]
        except Exception:  # noqa: BLE001
            return []

    def regions(self, name: str | None, kind: str) -> list[tuple[str, int]]:
        """(buffer name, rank) of each of a block's reads or writes."""
        block = self.info(name) if name else None
        if block is None:
            return []
        return [(str(region.source.name), len(region.region)) for region in getattr(block, kind)]

    def is_reduction(self, name: str) -> bool:
        block = self.info(name)
        return block is not None and any(int(v.iter_type) == COMM_REDUCE for v in block.iter_vars)

    def has_init(self, name: str) -> bool:
        block = self.info(name)
        return block is not None and block.init is not None

    def preferred(self, op: str):
        """What makes a block a likely-valid first argument of `op`."""
        if op in ("compute_inline", "compute_at"):
            return lambda n: bool(self.related(n, "get_consumers")) and (op == "compute_at" or not self.is_reduction(n))
        if op in ("reverse_compute_inline", "reverse_compute_at"):
            return lambda n: bool(self.related(n, "get_producers")) and (op == "reverse_compute_at" or not self.is_reduction(n))
        if op in ("cache_read", "cache_write", "read_at", "write_at"):
            kind = "reads" if op in ("cache_read", "read_at") else "writes"
            return lambda n: bool(self.regions(n, kind))
        if op in ("transform_layout", "reindex"):
            return lambda n: bool(self.regions(n, "reads") or self.regions(n, "writes"))
        if op in ("transform_block_layout", "blockize", "pad_einsum", "reorder_block_iter_var", "annotate_buffer_access"):
            return lambda n: self.info(n) is not None and bool(self.info(n).iter_vars)
        if op in ("storage_align", "set_scope", "unsafe_set_dtype"):
            allocated = self.allocated()
            return lambda n: any(b in allocated for b, _ in self.regions(n, "writes"))
        if op == "decompose_padding":
            return lambda n: self.info(n) is not None and "if_then_else" in str(self.info(n).body)
        if op == "cache_inplace":
            return lambda n: bool({b for b, _ in self.regions(n, "reads")} & {b for b, _ in self.regions(n, "writes")})
        return self.has_init  # decompose_reduction, rfactor

    def allocated(self) -> set[str]:
        return set(re.findall(r"(\w+) = T\.(?:sblock_)?alloc_buffer\(", self.sch.mod.script()))

    def reduction_loops(self, block: str, loops: list[str]) -> list[str]:
        """The loops of `loops` a reduction block variable of `block` is bound to."""
        try:
            rv = self.namespace[block]
            sblock = self.sch.get(rv)
            realize = find_realize(self.sch.get_sref(rv).parent.stmt, sblock)
            used = []
            for var, value in zip(sblock.iter_vars, realize.iter_values):
                if int(var.iter_type) == COMM_REDUCE:
                    used.extend(tirx.analysis.undefined_vars(value, []))
            return [
                loop
                for loop in loops
                if any(v.same_as(self.sch.get(self.namespace[loop]).loop_var) for v in used)
            ]
        except Exception:  # noqa: BLE001
            return []

    # Handles.
    def handle(self, name: str) -> str | None:
        """A handle of the block named `name`, reusing one or getting a fresh one."""
        if name not in self.blocks or self.rng.random() < 0.3:
            handle = self.fresh("b")
            if not self.run(f'{handle} = sch.get_sblock("{name}")'):
                return None
            self.blocks[name] = handle
        return self.blocks[name]

    def register(self, handle: str) -> None:
        """Records the block handle a primitive returned."""
        try:
            self.blocks[self.sch.get(self.namespace[handle]).name_hint] = handle
        except Exception:  # noqa: BLE001
            pass

    def forget(self, name: str | None, handle: str) -> None:
        """The block was inlined away, or moved (its loops are gone)."""
        if self.loops_owner is not None and self.loops_owner == name:
            self.stale.extend(self.loops)
            self.loops = []
            self.loops_owner = None

    def pick(self, prefer=None, liked: list[str] | None = None) -> tuple[str | None, str | None]:
        """(name, handle) of a block, mostly one `prefer` likes (or one of
        `liked`); now and then the handle of a block inlined away (name None)."""
        names = block_names(self.sch.mod.script())
        if self.removed and self.rng.random() < 0.03:
            return None, self.rng.choice(self.removed)
        if not names:
            return None, None
        if (prefer is not None or liked is not None) and self.rng.random() < 0.9:
            if liked is None:
                liked = [n for n in names if prefer(n)]
            if liked:
                names = liked
        name = self.rng.choice(names)
        return name, self.handle(name)

    def block_handle(self) -> str | None:
        return self.pick()[1]

    def own_loop_mostly(self, name: str | None, block: str, chance: float) -> str | None:
        """One of the block's loops with probability `chance`, else a loop of
        another block; "" when there is none, None when TVM refuses get_loops."""
        if self.rng.random() < chance:
            loops = self.loops_for(block)
            if loops is None:
                return None
            return self.rng.choice(loops) if loops else self.other_loop(name)
        return self.other_loop(name)

    def loops_for(self, block: str) -> list[str] | None:
        """Gets the loops of a block (a line); None when TVM refuses it."""
        try:
            rv = self.namespace[block]
            count = len(self.sch.get_loops(rv))
            owner = self.sch.get(rv).name_hint
        except Exception:  # noqa: BLE001
            count, owner = 0, None  # a removed block: TVM refuses the line
        if count == 0:
            return [] if self.run(f"_ = sch.get_loops({block})") else None
        names = [self.fresh("l") for _ in range(count)]
        target = names[0] + "," if count == 1 else ", ".join(names)
        if not self.run(f"{target} = sch.get_loops({block})"):
            return None
        self.stale.extend(self.loops)
        self.loops = names
        self.loops_owner = owner
        return names

    def get_loops(self) -> bool:
        block = self.block_handle()
        if block is None:
            return False
        return self.loops_for(block) is not None

    def loop(self) -> str:
        if self.stale and self.rng.random() < 0.05:
            return self.rng.choice(self.stale)
        return self.rng.choice(self.loops)

    def extent(self, loop: str) -> int | None:
        try:
            extent = self.sch.get(self.namespace[loop]).extent
        except Exception:  # noqa: BLE001
            return None
        return int(extent) if isinstance(extent, tvm.tirx.IntImm) else None

    def factors(self, extent: int | None) -> str:
        rng = self.rng
        n = extent or 16
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        kind = rng.random()
        if kind < 0.4:
            parts = [None, rng.choice(divisors)]
        elif kind < 0.55:
            parts = [rng.choice(divisors), None]
        elif kind < 0.7:
            parts = [None, rng.choice([3, 5, 7, 6, 10, 12, 33])]  # likely not dividing
        elif kind < 0.8:
            a = rng.choice(divisors)
            parts = [None, a, rng.choice([d for d in divisors if (n // a) % d == 0] or [1])]
        elif kind < 0.9:
            a = rng.choice(divisors)
            parts = [n // a, a]
        else:
            parts = [rng.choice([None, 0, -2, 1, 2, 64, n + 1]), rng.choice([None, 1, 4, 2 * n])]
        return "[" + ", ".join("None" if p is None else str(p) for p in parts) + "]"

    def index(self, count: int) -> int:
        """A buffer index: mostly one of `count`, sometimes out of range."""
        if count and self.rng.random() < 0.94:
            return self.rng.randrange(count)
        return self.rng.choice([-1, count, count + 1, 7])

    def index_map(self, rank: int) -> str:
        """A `lambda` over `rank` indices: transposes, tilings by factors that
        may not divide, merges, and now and then the wrong arity."""
        rng = self.rng
        names = ["i", "j", "k", "l", "m", "n", "p", "q", "r", "s", "t", "u"]
        if rng.random() < 0.05:
            rank = max(1, rank + rng.choice([-1, 1]))
        rank = min(rank, len(names))
        params = names[:rank]
        outputs = list(params)
        shape = rng.random()
        if shape < 0.3 and rank >= 2:
            rng.shuffle(outputs)
        elif shape < 0.7:
            axis = rng.randrange(rank)
            factor = rng.choice([2, 4, 8, 16, 3, 5, 10])
            p = params[axis]
            outputs[axis : axis + 1] = [f"{p} // {factor}", f"{p} % {factor}"]
            if rng.random() < 0.5:
                outputs.append(outputs.pop(axis + 1))
        elif shape < 0.85 and rank >= 2:
            factor = rng.choice([4, 8, 16, 64])
            outputs[0:2] = [f"{params[0]} * {factor} + {params[1]}"]
        elif rank >= 1:
            outputs[0] = rng.choice([f"{params[0]} + 1", f"{params[0]} * 2"])
        return f"lambda {', '.join(params)}: ({', '.join(outputs)},)"

    def scope(self) -> str:
        return self.rng.choice(SCOPES) if self.rng.random() < 0.93 else self.rng.choice(BAD_SCOPES)

    def step(self) -> bool:
        rng = self.rng
        op = rng.choice(
            ["split"] * 5
            + ["fuse"] * 3
            + ["reorder"] * 3
            + ["parallel", "vectorize", "unroll", "bind", "bind"]
            + ["annotate", "unannotate", "add_unit_loop", "getters"]
            + ["compute_inline"] * 2
            + ["reverse_compute_inline"] * 2
            + ["cache_read"] * 3
            + ["cache_write"] * 3
            + ["storage_align"] * 2
            + ["set_scope"] * 2
            + ["decompose_reduction"] * 2
            + ["compute_at"] * 3
            + ["reverse_compute_at"] * 3
            + ["rfactor"] * 3
            + ["transform_layout"] * 2
            + ["reindex"] * 2
            + ["transform_block_layout"] * 2
            + ["blockize"] * 2
            + ["pad_einsum"] * 2
            + ["reorder_block_iter_var", "unsafe_set_dtype", "annotate_buffer_access"]
            + ["unsafe_hide_buffer_access", "get_output_blocks"]
            + ["merge"] * 2
            + ["decompose_padding"] * 2
            + ["read_at", "write_at", "cache_inplace"]
        )
        if op in DATAFLOW:
            return self.dataflow(op)
        if op == "merge":
            names = block_names(self.sch.mod.script())
            if len(names) < 2:
                return True
            first, second = rng.sample(names, 2)
            a, b = self.handle(first), self.handle(second)
            if a is None or b is None:
                return False
            loops_a, loops_b = self.loops_for(a), self.loops_for(b)
            if not loops_a or not loops_b:
                return loops_a is not None and loops_b is not None
            depth = rng.randrange(min(len(loops_a), len(loops_b)))
            other = depth if rng.random() < 0.85 else rng.randrange(len(loops_b))
            name = self.fresh("l")
            ok = self.run(f"{name} = sch.merge({loops_a[depth]}, {loops_b[other]})")
            self.stale.extend(self.loops)
            self.loops = []
            self.loops_owner = None
            return ok
        if not self.loops or rng.random() < 0.15:
            return self.get_loops()
        flag = lambda: rng.choice(["True", "False"])  # noqa: E731
        if op == "split":
            loop = self.loop()
            outs = self.factors(self.extent(loop))
            count = outs.count(",") + 1
            names = [self.fresh("l") for _ in range(count)]
            options = ""
            if rng.random() < 0.4:
                options += f", preserve_unit_iters={flag()}"
            if rng.random() < 0.3:
                options += f", disable_predication={flag()}"
            ok = self.run(f"{', '.join(names)} = sch.split({loop}, factors={outs}{options})")
            if ok and loop in self.loops:
                at = self.loops.index(loop)
                self.loops[at : at + 1] = names
            return ok
        if op == "fuse":
            if rng.random() < 0.8 and len(self.loops) >= 2:
                start = rng.randrange(len(self.loops) - 1)
                length = rng.choice([2, 2, 3])
                chosen = self.loops[start : start + length]
            else:
                chosen = rng.sample(self.loops, min(len(self.loops), 2))
            name = self.fresh("l")
            options = f", preserve_unit_iters={flag()}" if rng.random() < 0.4 else ""
            ok = self.run(f"{name} = sch.fuse({', '.join(chosen)}{options})")
            if ok and all(c in self.loops for c in chosen):
                at = self.loops.index(chosen[0])
                self.loops = [l for l in self.loops if l not in chosen]
                self.loops.insert(at, name)
            return ok
        if op == "reorder":
            chosen = rng.sample(self.loops, min(len(self.loops), rng.choice([2, 2, 3, 4])))
            if rng.random() < 0.05:
                chosen.append(chosen[0])
            ok = self.run(f"sch.reorder({', '.join(chosen)})")
            if ok:
                positions = sorted(self.loops.index(c) for c in chosen if c in self.loops)
                if len(positions) == len(chosen):
                    for position, name in zip(positions, chosen):
                        self.loops[position] = name
            return ok
        if op in ("parallel", "vectorize", "unroll"):
            return self.run(f"sch.{op}({self.loop()})")
        if op == "bind":
            return self.run(f'sch.bind({self.loop()}, "{rng.choice(THREAD_TAGS)}")')
        if op in ("annotate", "unannotate"):
            target = self.loop() if rng.random() < 0.6 else self.block_handle()
            if target is None:
                return False
            key = rng.choice(["pragma_unroll_explicit", "my_key", "pragma_auto_unroll_max_step"])
            if op == "unannotate":
                return self.run(f'sch.unannotate({target}, "{key}")')
            value = rng.choice(["1", "16", "0", '"text"', "2.5", "True"])
            return self.run(f'sch.annotate({target}, "{key}", {value})')
        if op == "add_unit_loop":
            target = self.loop() if rng.random() < 0.6 else self.block_handle()
            if target is None:
                return False
            name = self.fresh("l")
            ok = self.run(f"{name} = sch.add_unit_loop({target})")
            self.stale.extend(self.loops)
            self.loops = []
            self.loops_owner = None
            return ok
        block = self.block_handle()
        if block is None:
            return False
        getter = rng.choice(["get_child_blocks", "get_producers", "get_consumers"])
        argument = self.loop() if getter == "get_child_blocks" and rng.random() < 0.5 else block
        return self.run(f"_ = sch.{getter}({argument})")

    def other_loop(self, avoid: str | None) -> str | None:
        """A loop of a block other than `avoid` (a line), or an old handle."""
        names = [n for n in block_names(self.sch.mod.script()) if n != avoid]
        if names and self.rng.random() < 0.8:
            handle = self.handle(self.rng.choice(names))
            if handle is None:
                return None
            loops = self.loops_for(handle)
            if loops is None:
                return None
            if loops:
                return self.rng.choice(loops)
        if self.stale:
            return self.rng.choice(self.stale)
        return self.rng.choice(self.loops) if self.loops else ""

    def dataflow(self, op: str) -> bool:
        """One of the block primitives; True (nothing done) when there is no candidate."""
        rng = self.rng
        flag = lambda: rng.choice(["True", "False"])  # noqa: E731
        liked = [n for n in block_names(self.sch.mod.script()) if self.preferred(op)(n)]
        if not liked and rng.random() < 0.75:
            # Nothing fits: make a block that does (a cache block reads or
            # writes an allocated buffer and has a producer or a consumer).
            if op in ("decompose_reduction", "rfactor", "decompose_padding", "cache_inplace"):
                return True
            if op not in ("cache_read", "cache_write"):
                return self.dataflow("cache_write" if op.startswith("reverse") or rng.random() < 0.5 else "cache_read")
        if op in ("compute_inline", "reverse_compute_inline"):
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            ok = self.run(f"sch.{op}({block})")
            if ok:
                self.forget(name, block)
                self.blocks.pop(name, None)
                self.removed.append(block)
            return ok
        if op == "transform_block_layout":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            info = self.info(name) if name else None
            rank = len(info.iter_vars) if info is not None else rng.randint(1, 3)
            ok = self.run(f"sch.transform_block_layout({block}, {self.index_map(rank)})")
            if ok:
                # The loops above the block are new.
                self.stale.extend(self.loops)
                self.loops = []
                self.loops_owner = None
            return ok
        if op == "pad_einsum":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            info = self.info(name) if name else None
            rank = len(info.iter_vars) if info is not None else rng.randint(1, 3)
            if rng.random() < 0.1:
                rank += rng.choice([-1, 1])
            padding = [rng.choice([1, 1, 2, 4, 8, 16, 32]) for _ in range(max(rank, 0))]
            if padding and rng.random() < 0.05:
                padding[rng.randrange(len(padding))] = 0
            ok = self.run(f"sch.pad_einsum({block}, {padding})")
            if ok:
                self.stale.extend(self.loops)
                self.loops = []
                self.loops_owner = None
            return ok
        if op == "blockize":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            loops = self.loops_for(block)
            if not loops:
                return loops is not None
            loop = rng.choice(loops)
            target = self.fresh("b")
            option = f", preserve_unit_iters={flag()}" if rng.random() < 0.3 else ""
            ok = self.run(f"{target} = sch.blockize({loop}{option})")
            if ok:
                self.register(target)
                self.stale.extend(self.loops)
                self.loops = []
                self.loops_owner = None
            return ok
        if op in ("transform_layout", "reindex"):
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            kind = rng.choice(["read", "write"])
            regions = self.regions(name, kind + "s")
            index = self.index(len(regions))
            if op == "reindex":
                target = self.fresh("b")
                ok = self.run(f'{target} = sch.reindex({block}, ("{kind}", {index}))')
                if ok:
                    self.register(target)
                return ok
            rank = regions[index][1] if 0 <= index < len(regions) else rng.randint(1, 4)
            buffer = f'("{kind}", {index})'
            if 0 <= index < len(regions) and rng.random() < 0.3:
                buffer = f'"{regions[index][0]}"'
            pad = ", pad_value=0.0" if rng.random() < 0.3 else ""
            return self.run(f"sch.transform_layout({block}, {buffer}, {self.index_map(rank)}{pad})")
        if op in ("cache_read", "cache_write"):
            kind = "reads" if op == "cache_read" else "writes"
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            regions = self.regions(name, kind)
            index = self.index(len(regions))
            scope = self.scope()
            options = ""
            if name is not None and rng.random() < 0.3:
                if op == "cache_read":
                    # Other readers of the same buffer.
                    buffer = regions[index][0] if 0 <= index < len(regions) else None
                    pool = [
                        n
                        for n in block_names(self.sch.mod.script())
                        if n != name and any(b == buffer for b, _ in self.regions(n, "reads"))
                    ]
                else:
                    pool = self.related(name, "get_consumers")
                chosen = rng.sample(pool, rng.randint(0, len(pool))) if pool else []
                if op == "cache_read" and rng.random() < 0.7:
                    chosen.insert(rng.randint(0, len(chosen)), name)
                if op == "cache_write" and rng.random() < 0.1:
                    chosen.append(name)
                if rng.random() < 0.15:  # an unrelated block
                    chosen.append(rng.choice(block_names(self.sch.mod.script())))
                handles = []
                for n in chosen:
                    handle = self.handle(n)
                    if handle is None:
                        return False
                    handles.append(handle)
                options = f", consumer_blocks=[{', '.join(handles)}]"
            target = self.fresh("b")
            keyword = "read_buffer_index" if op == "cache_read" else "write_buffer_index"
            if rng.random() < 0.15:
                arguments = f'{block}, {keyword}={index}, storage_scope="{scope}"'
            else:
                arguments = f'{block}, {index}, "{scope}"'
            ok = self.run(f"{target} = sch.{op}({arguments}{options})")
            if ok:
                self.register(target)
            return ok
        if op == "reorder_block_iter_var":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            count = len(self.info(name).iter_vars) if self.info(name) is not None else 2
            order = list(range(count))
            rng.shuffle(order)
            if rng.random() < 0.08:
                order = order[:-1] if order and rng.random() < 0.5 else order + [rng.choice([0, count])]
            return self.run(f"sch.reorder_block_iter_var({block}, {order})")
        if op == "unsafe_hide_buffer_access":
            name, block = self.pick()
            if block is None:
                return name is None and not self.refused
            kind = rng.choice(["reads", "writes"]) if rng.random() < 0.95 else "both"
            count = len(self.regions(name, kind)) if kind != "both" else 1
            indices = sorted({self.index(count) for _ in range(rng.choice([1, 1, 2]))})
            buf_type = kind[:-1] if kind != "both" else "both"
            return self.run(f'sch.unsafe_hide_buffer_access({block}, "{buf_type}", {indices})')
        if op == "annotate_buffer_access":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            kind = rng.choice(["reads", "writes"])
            regions = self.regions(name, kind)
            index = self.index(len(regions))
            info = self.info(name)
            names = [str(v.var.name) for v in info.iter_vars] if info is not None else ["vi"]
            rank = regions[index][1] if 0 <= index < len(regions) else len(names)
            if rng.random() < 0.9:
                rank = len(names)  # TVM wants one range per iterator
            ranges = []
            for k in range(rank):
                v = names[k % len(names)]
                ranges.append(rng.choice([v, f"({v}, {v} + 1)", f"({v} - 1, {v} + 2)", f"({v} // 4 * 4, {v} // 4 * 4 + 4)"]))
            return self.run(f'sch.annotate_buffer_access({block}, {index}, "{kind[:-1]}", lambda {", ".join(names)}: ({", ".join(ranges)},))')
        if op == "get_output_blocks":
            name, block = self.pick()
            if block is None:
                return name is None and not self.refused
            return self.run(f"_ = sch.get_output_blocks({block})")
        if op in ("storage_align", "set_scope", "unsafe_set_dtype"):
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            writes = self.regions(name, "writes")
            index = self.index(len(writes))
            if op == "set_scope":
                return self.run(f'sch.set_scope({block}, {index}, "{self.scope()}")')
            if op == "unsafe_set_dtype":
                dtype = rng.choice(["float64", "float16", "float32", "int32", "float64"])
                return self.run(f'sch.unsafe_set_dtype({block}, {index}, "{dtype}")')
            rank = writes[index][1] if 0 <= index < len(writes) else 2
            if rank and rng.random() < 0.92:
                axis = rng.randrange(rank)
            else:
                axis = rng.choice([-1, rank, -rank - 1])
            factor = rng.choice([16, 32, 8, 4, 2, 1]) if rng.random() < 0.94 else rng.choice([0, -4])
            offset = rng.choice([0, 1, 1, 8, 3, 17, -1])
            return self.run(f"sch.storage_align({block}, {index}, {axis}, {factor}, {offset})")
        if op == "cache_inplace":
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            index = self.index(len(self.regions(name, "reads")))
            targets = f"{self.fresh('b')}, {self.fresh('b')}"
            ok = self.run(f'{targets} = sch.cache_inplace({block}, {index}, "{self.scope()}")')
            if ok:
                for target in targets.split(", "):
                    self.register(target)
            return ok
        if op in ("read_at", "write_at"):
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            kind = "reads" if op == "read_at" else "writes"
            index = self.index(len(self.regions(name, kind)))
            loop = self.own_loop_mostly(name, block, 0.9)
            if not loop:
                return loop is not None
            target = self.fresh("b")
            ok = self.run(f'{target} = sch.{op}({loop}, {block}, {index}, "{self.scope()}")')
            if ok:
                self.register(target)
            return ok
        if op in ("decompose_reduction", "decompose_padding"):
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            loop = self.own_loop_mostly(name, block, 0.85)
            if not loop:
                return loop is not None
            target = self.fresh("b")
            ok = self.run(f"{target} = sch.{op}({block}, {loop})")
            if ok:
                self.register(target)
            return ok
        if op in ("compute_at", "reverse_compute_at"):
            getter = "get_consumers" if op == "compute_at" else "get_producers"
            name, block = self.pick(liked=liked)
            if block is None:
                return name is None and not self.refused
            related = self.related(name, getter) if name else []
            kind = rng.random()
            if related and kind < 0.88:
                other = self.handle(rng.choice(related))
                if other is None:
                    return False
                loops = self.loops_for(other)
                if loops is None:
                    return False
                loop = rng.choice(loops) if loops else self.other_loop(name)
            elif name is not None and kind < 0.94:
                loops = self.loops_for(block)  # its own loop
                if loops is None:
                    return False
                loop = rng.choice(loops) if loops else self.other_loop(name)
            else:
                loop = self.other_loop(name)
            if not loop:
                return loop is not None
            options = ""
            if rng.random() < 0.3:
                options += f", preserve_unit_loops={flag()}"
            if rng.random() < 0.2:
                options += f", index={rng.choice([-1, 0, 1, -2, 2, 5])}"
            ok = self.run(f"sch.{op}({block}, {loop}{options})")
            if ok:
                self.forget(name, block)
            return ok
        # rfactor
        name, block = self.pick(liked=liked)
        if block is None:
            return name is None and not self.refused
        loops = self.loops_for(block)
        if loops is None:
            return False
        if not loops:
            loop = self.other_loop(name)
            if not loop:
                return loop is not None
        else:
            reduction = self.reduction_loops(block, loops)
            loop = rng.choice(reduction if reduction and rng.random() < 0.8 else loops)
        writes = self.regions(name, "writes")
        rank = writes[0][1] if writes else 1
        kind = rng.random()
        if kind < 0.75:
            axis = rng.randrange(rank + 1)
        elif kind < 0.92:
            axis = -rng.randint(1, rank + 1)
        else:
            axis = rng.choice([rank + 1, -rank - 2, 9])
        target = self.fresh("b")
        ok = self.run(f"{target} = sch.rfactor({loop}, {axis})")
        if ok:
            self.register(target)
        return ok


DATAFLOW = (
    "compute_inline",
    "reverse_compute_inline",
    "cache_read",
    "cache_write",
    "storage_align",
    "set_scope",
    "decompose_reduction",
    "compute_at",
    "reverse_compute_at",
    "rfactor",
    "transform_layout",
    "reindex",
    "transform_block_layout",
    "blockize",
    "pad_einsum",
    "reorder_block_iter_var",
    "unsafe_set_dtype",
    "annotate_buffer_access",
    "unsafe_hide_buffer_access",
    "get_output_blocks",
    "decompose_padding",
    "read_at",
    "write_at",
    "cache_inplace",
)


class TvmRun:
    """What TVM did with one random script: its lines, the step it refused
    (index, message), its module after the last step it applied, and whether
    it crashed (the process died, e.g. a segfault, running the last line)."""

    def __init__(self, lines, refused, module, crashed):
        self.lines = lines
        self.refused = tuple(refused) if refused else None
        self.module = module
        self.crashed = crashed


def run_trial(seed: int, module_text: str, steps: int) -> TvmRun:
    """Draws and runs one random script in a child process, so that a TVM
    crash ends the child, not the whole run."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: draw and run the script, reporting each line first
        os.close(read_end)
        with os.fdopen(write_end, "w") as pipe:
            try:
                rng = random.Random(seed)
                trial = Trial(rng, module_text)
                trial.report = lambda line: (pipe.write(json.dumps({"line": line}) + "\n"), pipe.flush())
                for _ in range(rng.randint(1, steps)):
                    if not trial.step():
                        break
                for _ in range(20):  # a trial that drew nothing to do: draw again
                    if trial.lines or not trial.step():
                        break
                pipe.write(json.dumps({"refused": trial.refused, "module": trial.sch.mod.script()}) + "\n")
            except BaseException as error:  # noqa: BLE001
                import traceback

                where = traceback.extract_tb(error.__traceback__)[-1]
                pipe.write(json.dumps({"error": f"{type(error).__name__}: {error} (line {where.lineno}: {where.line})"}) + "\n")
            pipe.flush()
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        messages = [json.loads(line) for line in pipe if line.endswith("\n")]
    os.waitpid(pid, 0)
    lines = [m["line"] for m in messages if "line" in m]
    final = next((m for m in messages if "refused" in m or "error" in m), None)
    if final is not None and "error" in final:
        raise RuntimeError("the trial generator failed: " + final["error"])
    if final is None:
        return TvmRun(lines, None, "", True)
    return TvmRun(lines, final["refused"], final["module"], False)


def tvm_modules_around(module_text: str, lines: list[str], step: int) -> tuple[str, str] | None:
    """TVM's modules before and after it applies `lines[step]` (in a child
    process, as a crash must not end the run), or None."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        with os.fdopen(write_end, "w") as pipe:
            try:
                sch = s_tir.Schedule(tvm.script.from_source(module_text))
                namespace = {"sch": sch}
                for line in lines[:step]:
                    exec(line, namespace)  # noqa: S102
                before = sch.mod.script()
                exec(lines[step], namespace)  # noqa: S102
                pipe.write(json.dumps([before, sch.mod.script()]))
            except BaseException:  # noqa: BLE001
                pass
            pipe.flush()
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    return tuple(json.loads(text)) if text else None


def tvm_step_miscomputes(tirc: str, module_text: str, lines: list[str], step: int, work: str) -> bool:
    """Whether TVM's module after `lines[step]` computes other outputs than
    its module before, on the same seeded random inputs: both are run by
    `tirc run --no-schedule` (JIT-compiled; GPU-bound loops run as CPU
    loops), or the module after it accesses past a buffer (run-time checks).
    False where that cannot be shown (a module tirc cannot run)."""
    modules = tvm_modules_around(module_text, lines, step)
    if modules is None:
        return False
    before, after = (os.path.join(work, f"step_{name}.tir") for name in ("before", "after"))
    for path, text in zip((before, after), modules):
        with open(path, "w") as f:
            f.write(text)
    outputs = os.path.join(work, "step_outputs")
    shutil.rmtree(outputs, ignore_errors=True)
    # Symbolic sizes get a value that no split factor divides.
    sizes = sorted(set(SYMBOLIC_SIZE.findall(modules[0])))
    shape = ["--shape", ",".join(f"{name}=37" for name in sizes)] if sizes else []
    saved = subprocess.run([tirc, "run", "--no-schedule", *shape, "--save-outputs", outputs, before], capture_output=True, text=True)
    if saved.returncode != 0:
        return False
    checked = subprocess.run([tirc, "run", "--no-schedule", *shape, "--expected", outputs, after], capture_output=True, text=True)
    said = (checked.stdout + checked.stderr).lower()
    # Run-time checks stop at an access past a buffer the step introduced.
    return checked.returncode != 0 and ("mismatch" in said or "out-of-bounds" in said)


def tirc_check_each(tirc: str, trial: TvmRun, module_text: str, work: str, lines: list[str] | None = None) -> tuple[bool, str]:
    """Whether every step of the script (or of `lines`, a prefix of it), run
    by tirc, computes what the program computes (`tirc schedule
    --check-each`, seeded inputs), and what tirc said."""
    lines = trial.lines if lines is None else lines
    path = os.path.join(work, "check_each.tir")
    with open(path, "w") as f:
        f.write(module_text + "\ndef schedule(sch: T.Schedule):\n" + "".join(f"    {line}\n" for line in lines))
    try:
        done = subprocess.run([tirc, "schedule", "--check-each", path], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    return done.returncode == 0, done.stderr


def tirc_checks_each_step(tirc: str, trial: TvmRun, module_text: str, work: str) -> bool:
    """Whether every step of the script, run by tirc, computes what the program computes."""
    return tirc_check_each(tirc, trial, module_text, work)[0]


def tvm_module_ill_formed(tirc: str, module: str, work: str) -> bool:
    """Whether tirc's verifier refuses TVM's module: an undefined variable
    (E0210), a region outside its buffer (E0222) or a binding outside its
    iterator's domain (E0230)."""
    # TVM's printer declares a variable used outside its loop as a free
    # size (`rx_0 = T.int32()` for an init's `T.where` over reduction loops
    # that decompose_reduction left out), which reads back as defined.
    declared = set(SYMBOLIC_SIZE.findall(module))
    loop_variables = {name.strip() for header in LOOP_HEADER.findall(module) for name in header.split(",")}
    if declared & loop_variables:
        return True
    path = os.path.join(work, "tvm_module.tir")
    with open(path, "w") as f:
        f.write(module)
    checked = subprocess.run([tirc, "check", path], capture_output=True, text=True)
    return checked.returncode == 1 and any(f"error[{code}]" in checked.stderr for code in ("E0210", "E0222", "E0230"))


def tirc_outcome(tirc: str, path: str) -> tuple[str, str]:
    """('ok', module) or ('refused', stderr) or ('crash', stderr) for `tirc schedule`.

    Every step is verified (`--verify-each`): a step the verifier refuses is
    tirc's bug, reported as a crash, not a refusal."""
    command = [tirc, "schedule", "--verify-each", "--dialect", "tirx", path]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        return "ok", done.stdout
    if done.returncode == 1 and not done.stderr.startswith("internal error"):
        return "refused", done.stderr
    return "crash", done.stderr


def replay_trace(tirc: str, path: str, module_text: str, expected: str) -> str | None:
    """None when the trace `tirc schedule --trace` prints, run by TVM on the
    program, gives the module in `expected`; else what went wrong."""
    trace = subprocess.run([tirc, "schedule", "--trace", "--dialect", "tirx", path], capture_output=True, text=True)
    if trace.returncode != 0:
        return "tirc schedule --trace fails:\n" + trace.stderr
    # An index map over int64 indices prints `T.int64(4)`, in TVM's traces too.
    namespace = {"s_tir": s_tir, "T": tvm.script.tirx}
    sch = s_tir.Schedule(tvm.script.from_source(module_text))
    try:
        exec(trace.stdout, namespace)  # noqa: S102
        namespace["apply_trace"](sch)
    except Exception as error:  # noqa: BLE001
        return f"TVM cannot replay tirc's trace: {type(error).__name__}: {error}\n{trace.stdout}"
    replayed = expected + ".replayed.tir"
    with open(replayed, "w") as f:
        f.write(sch.mod.script())
    diff = subprocess.run([tirc, "diff", replayed, expected], capture_output=True, text=True)
    if diff.returncode != 0:
        return "TVM replaying tirc's trace gives another module:\n" + diff.stdout + trace.stdout
    return None


def deliberate(trial: TvmRun, outcome: str, output: str, first_step_line: int, module_text: str, verdict: str, tirc: str, work: str) -> str | None:
    """The kind of a known, deliberate difference (tools/tvm/NOTES.md §14), or None."""
    if trial.crashed:
        return "tvm_crash"
    applied = trial.refused[0] if trial.refused is not None else len(trial.lines)  # steps TVM applied
    if outcome == "refused":
        located = re.search(r"\S+\.tir:(\d+):\d+", output)
        step = int(located.group(1)) - first_step_line if located else -1
        if 0 <= step < applied:  # tirc refuses a step TVM applied
            if any(f"error[{code}]" in output for code in STRICTER_THAN_TVM):
                return "tirc_stricter"
            if f"error[{SCOPE_REFUSED_ON_PURPOSE}]" in output and re.search(r'"(texture[^"]*)?"', trial.lines[step]):
                return "tirc_refuses_scope"
            # blockize of a function's only loop nest (the new block would
            # read back as the root block), or of loops whose guarded
            # accesses reach outside a buffer (TVM declares a region past
            # the buffer's end): tools/tvm/NOTES.md §14.
            if "error[E0339]" in output and "only loop nest" in output:
                return "tirc_refuses_blockize_root"
            if "error[E0339]" in output and "guarded access" in output:
                return "tirc_refuses_blockize_guarded"
            # compute_inline of a padding stage into a blockized block: the
            # outer block would declare a region past the buffer's ends, as
            # TVM's module does (`inputs[0, -1:5, ...]`, NOTES §20).
            if "error[E0331]" in output and "guarded access" in output:
                return "tirc_refuses_inline_guarded"
            # A cache's consumer list naming a block outside the cached
            # block's scope: TVM ignores it silently, tirc says so.
            if "error[E0336]" in output and "is not in the scope of the block whose buffer is cached" in output:
                return "tirc_refuses_consumer_outside_scope"
            # A cache_write of a block that reads back what it writes with
            # no `T.init()` (after decompose_reduction): TVM's cache starts
            # without the buffer's values (NOTES §15.5). Running cannot always
            # show it, as both interpreters start a new buffer at zero and the
            # init usually writes zero (seed 61 trial 867).
            if "error[E0330]" in output and "without initializing it" in output:
                return "tirc_refuses_uninitialized_cache"
            # reindex with another block of the buffer under the same loops:
            # TVM's copy goes before (after) the whole nest, so that block
            # reads a buffer not yet written, or its writes are overwritten
            # (NOTES §15.2). Running cannot always show it, where the stale
            # values happen to give the same result (seed 51 trial 565, seed
            # 62 trial 54: an argmax whose first step ignores the index).
            if "error[E0342]" in output and "under the same loops" in output:
                return "tirc_refuses_reindex_shared"
            # pad_einsum of a reduction whose padded terms are not zero, with
            # other blocks in the padded loop nest (TVM miscomputes both), or
            # of an iterator bound to a split or fused loop (TVM pads its
            # domain but no loop): tools/tvm/NOTES.md §14.
            if "error[E0345]" in output and ("padding the reduction" in output or "same loop nest" in output or "also under loop" in output or "reads its output" in output or "not to a loop that padding" in output):
                return "tirc_refuses_pad_einsum_miscompute"
            # A parameter given a computed symbolic dimension: the signature
            # would no longer define the variable (tools/tvm/NOTES.md §15.4).
            # merge of nests with other statements between them: TVM moves
            # those statements (NOTES §25); tirc refuses.
            if "error[E0349]" in output and "other statements lie between the nests" in output:
                return "tirc_refuses_merge_across_statements"
            if "error[E0341]" in output and "symbolic dimensions must stay single variables" in output:
                return "tirc_refuses_parameter_shape"
            # Any other step tirc refuses and TVM applies: shown deliberate
            # when TVM's own modules before and after it compute different
            # outputs (tools/tvm/NOTES.md §15).
            if tvm_step_miscomputes(tirc, module_text, trial.lines, step, work):
                return "tirc_refuses_tvm_miscompute"
            # TVM's step makes a module tirc's verifier refuses (blockize
            # dropping a `T.where`, so the block writes past its buffer).
            modules = tvm_modules_around(module_text, trial.lines, step)
            if modules is not None and not tvm_module_ill_formed(tirc, modules[0], work) and tvm_module_ill_formed(tirc, modules[1], work):
                return "tvm_module_ill_formed"
            # TVM's module around the step is ill-formed (an earlier step of
            # TVM's dropped a `T.where`, or this one declares a region past
            # the buffer): tirc's refusal stands (NOTES §21).
            around = tvm_modules_around(module_text, trial.lines, step)
            if around is not None and any(tvm_module_ill_formed(tirc, text, work) for text in around):
                return "tvm_module_ill_formed"
    # TVM stops on an internal check (not a ScheduleError) at a step tirc
    # applies: deliberate when tirc's result is shown right, every step run
    # against the program by `tirc schedule --check-each`.
    if outcome == "ok" and trial.refused and (trial.refused[1].startswith(("InternalError", "IndexError", "KeyError")) or trial.refused[1].startswith("ValueError: Check failed")) and tirc_checks_each_step(tirc, trial, module_text, work):
        return "tvm_internal_error"
    # TVM's subspace division cannot divide a binding tirc's blockize
    # divides after simplifying it (`(f_0 * 64 + f_1) % 32` is `f_1 % 32`):
    # deliberate where `--check-each` shows tirc's steps right (NOTES §18).
    if outcome == "ok" and trial.refused and "can not be blockized by the loops" in trial.refused[1] and tirc_checks_each_step(tirc, trial, module_text, work):
        return "tirc_blockizes_beyond_tvm"
    # TVM applies every step but its module is ill-formed (a binding that
    # leaves its iterator's domain after rfactor of a split tail, an init
    # predicate over loops blockize removed): deliberate where tirc's
    # verifier refuses TVM's module and `--check-each` shows tirc's steps
    # right (NOTES §19).
    if outcome == "ok" and trial.refused is None and verdict.startswith("modules differ:") and tvm_module_ill_formed(tirc, trial.module, work) and tirc_checks_each_step(tirc, trial, module_text, work):
        return "tvm_module_ill_formed"
    # Both apply every step, and one of TVM's steps computes other outputs
    # than its module before it while every one of tirc's steps is right
    # (seed 52 trial 1825: blockize of a compute_at stage binds `h * 3 +
    # ax1` where its consumer reads row `h + rh`).
    if outcome == "ok" and trial.refused is None and verdict.startswith("modules differ:"):
        if any(tvm_step_miscomputes(tirc, module_text, trial.lines, step, work) for step in range(len(trial.lines))) and tirc_checks_each_step(tirc, trial, module_text, work):
            return "tvm_step_miscomputes"
    # A split past the loop's extent with `disable_predication=True` makes
    # the program store out of bounds; the two tools size what later steps
    # derive from that region differently (TVM relaxes it past the buffer,
    # tirc keeps the iterator's domain, or refuses a cache stage that would
    # copy past the buffer), or TVM stops at a later step on what that
    # region became (seed 60 trial 530: an InternalError in rfactor): NOTES §21.
    differs = (outcome == "ok" and (verdict.startswith("modules differ") or trial.refused is not None)) or outcome == "refused"
    if differs and any("disable_predication=True" in line for line in trial.lines):
        # A refused step is checked up to the step before it.
        located = re.search(r"\S+\.tir:(\d+):\d+", output) if outcome == "refused" else None
        prefix = trial.lines[: max(0, int(located.group(1)) - first_step_line)] if located else None
        ok, said = tirc_check_each(tirc, trial, module_text, work, prefix)
        if not ok and ("out-of-bounds" in said or "outside its domain" in said) and re.search(r"step \d+ \(`[^`]*disable_predication=True", said):
            return "program_out_of_bounds"
    tvm_module = trial.module
    if len(BODY_BUFFER.findall(tvm_module)) > len(BODY_BUFFER.findall(module_text)):
        # TVM lost the allocation of a buffer still in use.  tirc may do the
        # same and then fail its own verifier (E0212); any other crash stays
        # a disagreement.
        if outcome != "crash" or "error[E0212]" in output:
            return "tvm_drops_allocation"
    if verdict.startswith("modules differ only in TVM's unsimplified"):
        return "tvm_unsimplified_reads"
    if verdict.startswith("modules differ in TVM's cache_write init"):
        return "tvm_cache_write_init"
    # TVM's rfactor refuses the block its cache_write left with a mismatched
    # init (condition #10 of a reduction block); tirc's block is whole.
    if outcome == "ok" and trial.refused and "condition #10" in trial.refused[1] and any(CACHE_WRITE_OF_ITSELF.search(line) for line in trial.lines):
        return "tvm_cache_write_init"
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "differential"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)

    sources = []
    folders = (("tests/schedule", ""), ("examples", ""), ("tests/roundtrip/tvm", ("te_", "sched_")))
    for folder, prefix in folders:
        directory = os.path.join(REPO, folder)
        for entry in sorted(os.listdir(directory)):
            if not entry.startswith(prefix) or not entry.endswith(".tir"):
                continue
            if entry.endswith((".expected.tir", ".tvm.tir")):
                continue
            text = module_of(args.tirc, os.path.join(directory, entry))
            if text is not None and block_names(text):
                sources.append((entry, text))
    print(f"{len(sources)} programs", flush=True)

    counts = {"agree_ok": 0, "agree_refused": 0, "tirc_stricter": 0, "disagree": 0}
    work = tempfile.mkdtemp()
    for trial_index in range(args.trials):
        name, module_text = rng.choice(sources)
        trial = run_trial(rng.getrandbits(64), module_text, args.steps)
        if not trial.lines:
            counts["empty"] = counts.get("empty", 0) + 1
            continue
        script = "def schedule(sch: T.Schedule):\n" + "".join(f"    {line}\n" for line in trial.lines)
        text = module_text + "\n" + script
        first_step_line = module_text.count("\n") + 3
        path = os.path.join(work, f"trial{trial_index}.tir")
        with open(path, "w") as f:
            f.write(text)
        outcome, output = tirc_outcome(args.tirc, path)
        verdict = None
        if trial.crashed:
            verdict = f"TVM crashed running step {len(trial.lines)}"
        elif outcome == "crash":
            verdict = "tirc crashed or failed to run"
        elif trial.refused is None:
            if outcome != "ok":
                verdict = "TVM applies every step; tirc refuses"
            else:
                expected = os.path.join(work, f"trial{trial_index}.tvm.tir")
                with open(expected, "w") as f:
                    f.write(trial.module)
                actual = os.path.join(work, f"trial{trial_index}.tirc.tir")
                with open(actual, "w") as f:
                    f.write(output)
                diff = subprocess.run([args.tirc, "diff", actual, expected], capture_output=True, text=True)
                if diff.returncode != 0:
                    verdict = "modules differ:\n" + diff.stdout + diff.stderr
                    simplified = fold_split_sums(simplify_reads(trial.module))
                    folded = PLUS_NEGATIVE.sub(r" - \1", fold_split_sums(output))
                    if simplified != trial.module or folded != output:
                        with open(expected, "w") as f:
                            f.write(simplified)
                        with open(actual, "w") as f:
                            f.write(folded)
                        again = subprocess.run([args.tirc, "diff", actual, expected], capture_output=True, text=True)
                        if again.returncode == 0:
                            verdict = "modules differ only in TVM's unsimplified indices:\n" + diff.stdout
                    # The same init, as a block of its own (blockize's outer init) or moved
                    # there by decompose_reduction.
                    init_store = bool(re.search(r"> init > (SeqStmt > )?(Block > )?(BufferStore|writes): buffer", verdict)) or ("decompose_reduction" in script and "> Block > BufferStore: buffer" in verdict)
                    # TVM's block also lists the buffer its init still stores to.
                    writes = re.search(r"> Block > writes: (\d+) items vs (\d+) items", verdict)
                    init_store = init_store or bool(writes and int(writes.group(2)) == int(writes.group(1)) + 1)
                    if verdict.startswith("modules differ:") and CACHE_WRITE_OF_ITSELF.search(script) and init_store:
                        verdict = "modules differ in TVM's cache_write init:\n" + diff.stdout
                else:
                    verdict = replay_trace(args.tirc, path, module_text, expected)
        else:
            step, message = trial.refused
            if outcome == "ok":
                verdict = f"TVM refuses step {step + 1} ({message}); tirc applies every step"
            else:
                wanted = f":{first_step_line + step}:"
                located = re.search(r"(\S+\.tir):(\d+):(\d+)", output)
                if not located or f":{located.group(2)}:" != wanted:
                    verdict = (
                        f"TVM refuses step {step + 1} (line {first_step_line + step}: {message}); "
                        f"tirc refuses elsewhere:\n{output}"
                    )
        if verdict is None:
            counts["agree_ok" if trial.refused is None else "agree_refused"] += 1
            continue
        kind = deliberate(trial, outcome, output, first_step_line, module_text, verdict, args.tirc, work)
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
            folder = os.path.join(args.out, "deliberate")
            os.makedirs(folder, exist_ok=True)
            stem = os.path.join(folder, f"{kind}_s{args.seed}_{trial_index}_{name[:-4]}")
        else:
            counts["disagree"] += 1
            stem = os.path.join(args.out, f"s{args.seed}_{trial_index}_{name[:-4]}")
        with open(stem + ".tir", "w") as f:
            f.write(text)
        with open(stem + ".txt", "w") as f:
            if trial.crashed:
                tvm_said = f"crashes running step {len(trial.lines)}"
            elif trial.refused is None:
                tvm_said = "applies every step"
            else:
                tvm_said = f"refuses step {trial.refused[0] + 1}: {trial.refused[1]}"
            f.write(f"TVM {tvm_said}\n{verdict}\n--- tirc said ---\n{output if outcome != 'ok' else ''}")
        if kind is None:
            print(f"trial {trial_index} ({name}): {verdict.splitlines()[0]}", flush=True)
    print(counts)


if __name__ == "__main__":
    sys.exit(main())
