#!/usr/bin/env python3
"""Random schedule scripts run by TVM 0.27 and by tirc, compared.

Each trial takes the module of a tests/schedule case, an example or a te_ or
sched_ workload of the TVM corpus (tests/roundtrip/tvm), writes a
random schedule script of the loop primitives tirc implements (split with
every kind of factor list, fuse, reorder, parallel, vectorize, unroll, bind,
annotate, unannotate, add_unit_loop, the getters), and runs it step by step in
TVM, stopping at the first step TVM refuses.  tirc then applies the same
file.  The two agree when

  * TVM applies every step, tirc does too (and its verifier accepts the
    module after every step), and `tirc diff` finds tirc's module
    structurally equal to TVM's `sch.mod.script()`;
  * TVM refuses step k, tirc refuses it too, with its diagnostic on that line.

and, when both apply every step, TVM replaying the trace `tirc schedule
--trace` prints gives TVM's module again.

Disagreements are written to OUT/NAME.tir with what each tool said
(OUT/NAME.txt) so they can become golden cases.

Run from the repository root, after building tirc:
  tools/tvm/python tools/tvm/differential_schedules.py \
      --tirc target/release/tirc --trials 2000 --seed 1 --out /tmp/differential
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
        self.loops: list[str] = []  # the loops of the latest get_loops
        self.stale: list[str] = []  # loop handles from earlier steps
        self.refused: tuple[int, str] | None = None

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def run(self, line: str) -> bool:
        """Runs one line in TVM; False (and the trial ends) when TVM refuses it."""
        self.lines.append(line)
        try:
            exec(line, self.namespace)  # noqa: S102
        except Exception as error:  # noqa: BLE001
            self.refused = (len(self.lines) - 1, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
            return False
        return True

    def block_handle(self) -> str | None:
        names = block_names(self.sch.mod.script())
        if not names:
            return None
        name = self.rng.choice(names)
        if name not in self.blocks or self.rng.random() < 0.3:
            handle = self.fresh("b")
            if not self.run(f'{handle} = sch.get_sblock("{name}")'):
                return None
            self.blocks[name] = handle
        return self.blocks[name]

    def get_loops(self) -> bool:
        block = self.block_handle()
        if block is None:
            return False
        count = len(self.sch.get_loops(self.namespace[block]))
        if count == 0:
            return self.run(f"_ = sch.get_loops({block})")
        names = [self.fresh("l") for _ in range(count)]
        self.stale.extend(self.loops)
        self.loops = names
        target = names[0] + "," if count == 1 else ", ".join(names)
        return self.run(f"{target} = sch.get_loops({block})")

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

    def step(self) -> bool:
        rng = self.rng
        if not self.loops or rng.random() < 0.15:
            return self.get_loops()
        op = rng.choice(
            ["split"] * 5
            + ["fuse"] * 3
            + ["reorder"] * 3
            + ["parallel", "vectorize", "unroll", "bind", "bind"]
            + ["annotate", "unannotate", "add_unit_loop", "getters"]
        )
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
            return ok
        block = self.block_handle()
        if block is None:
            return False
        getter = rng.choice(["get_child_blocks", "get_producers", "get_consumers"])
        argument = self.loop() if getter == "get_child_blocks" and rng.random() < 0.5 else block
        return self.run(f"_ = sch.{getter}({argument})")


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
    namespace = {"s_tir": s_tir}
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
        trial = Trial(rng, module_text)
        for _ in range(rng.randint(1, args.steps)):
            if not trial.step():
                break
        if not trial.lines:
            continue
        script = "def schedule(sch: T.Schedule):\n" + "".join(f"    {line}\n" for line in trial.lines)
        text = module_text + "\n" + script
        first_step_line = module_text.count("\n") + 3
        path = os.path.join(work, f"trial{trial_index}.tir")
        with open(path, "w") as f:
            f.write(text)
        outcome, output = tirc_outcome(args.tirc, path)
        verdict = None
        if outcome == "crash":
            verdict = "tirc crashed or failed to run"
        elif trial.refused is None:
            if outcome != "ok" and any(f"error[{code}]" in output for code in STRICTER_THAN_TVM):
                counts["tirc_stricter"] += 1
                continue
            if outcome != "ok":
                verdict = "TVM applies every step; tirc refuses"
            else:
                expected = os.path.join(work, f"trial{trial_index}.tvm.tir")
                with open(expected, "w") as f:
                    f.write(trial.sch.mod.script())
                actual = os.path.join(work, f"trial{trial_index}.tirc.tir")
                with open(actual, "w") as f:
                    f.write(output)
                diff = subprocess.run([args.tirc, "diff", actual, expected], capture_output=True, text=True)
                if diff.returncode != 0:
                    verdict = "modules differ:\n" + diff.stdout + diff.stderr
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
        counts["disagree"] += 1
        stem = os.path.join(args.out, f"s{args.seed}_{trial_index}_{name[:-4]}")
        with open(stem + ".tir", "w") as f:
            f.write(text)
        with open(stem + ".txt", "w") as f:
            tvm_said = "applies every step" if trial.refused is None else f"refuses step {trial.refused[0] + 1}: {trial.refused[1]}"
            f.write(f"TVM {tvm_said}\n{verdict}\n--- tirc said ---\n{output if outcome != 'ok' else ''}")
        print(f"trial {trial_index} ({name}): {verdict.splitlines()[0]}", flush=True)
    print(counts)


if __name__ == "__main__":
    sys.exit(main())
