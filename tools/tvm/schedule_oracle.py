#!/usr/bin/env python3
"""Run tirc's own schedule test cases in TVM 0.27 and write what TVM does.

For every tests/schedule/NAME.tir (not the tvm/ subfolder, which came from
gen_schedule_cases.py) this prints the program in the tirx dialect with tirc,
runs the file's schedule def on it with tvm.s_tir.Schedule, and writes
NAME.tvm.tir = sch.mod.script().  For tests/schedule_refused/NAME.tir it
writes NAME.tvm.txt: what TVM says (its error class and message), or that TVM
accepts the schedule (tirc refuses some schedules TVM accepts).

`sch.get_block` is forwarded to `get_sblock` (TVM 0.27's only spelling).

Run from the repository root, after building tirc:
  tools/tvm/python tools/tvm/schedule_oracle.py target/debug/tirc [OK_FOLDER REFUSED_FOLDER]
OK_FOLDER and REFUSED_FOLDER are folders under tests/ (default: schedule and
schedule_refused).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import tvm
from tvm import s_tir, tirx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Forward:
    """The schedule, with the classic `get_block` spelling forwarded."""

    def __init__(self, sch):
        self._sch = sch

    def __getattr__(self, name):
        if name == "get_block":
            name = "get_sblock"
        return getattr(self._sch, name)


class ScriptNamespace:
    """`T` in a schedule def: `T.Schedule` for annotations, TVMScript's `T`
    for the rest (`T.float32(0.0)` in a pad value, as traces print it)."""

    Schedule = object

    def __getattr__(self, name):
        from tvm.script import tirx

        return getattr(tirx, name)


def split_program(text: str):
    """(module text, {def name: def source}) of a tirx-printed .tir file."""
    starts = [m.start() for m in re.finditer(r"^def \w+\(", text, re.M)]
    if not starts:
        return text, {}
    module = text[: starts[0]]
    defs = {}
    bounds = starts + [len(text)]
    for begin, end in zip(bounds, bounds[1:]):
        source = text[begin:end]
        name = re.match(r"def (\w+)\(", source).group(1)
        defs[name] = source
    return module, defs


def run_case(tirc: str, path: str):
    """('ok', module text) or ('error', message)."""
    printed = subprocess.run(
        [tirc, "fmt", "--dialect", "tirx", path], capture_output=True, text=True, check=True
    ).stdout
    module_text, defs = split_program(printed)
    name = "schedule" if "schedule" in defs or len(defs) != 1 else next(iter(defs))
    mod = tvm.script.from_source(module_text)
    if isinstance(mod, tirx.PrimFunc):
        mod = tvm.IRModule({"main": mod})
    sch = s_tir.Schedule(mod)
    namespace = {"T": ScriptNamespace(), "s_tir": s_tir}
    exec(compile(defs[name], path, "exec"), namespace)  # noqa: S102
    try:
        namespace[name](Forward(sch))
    except Exception as error:  # noqa: BLE001
        lines = str(error).splitlines()
        keep = [lines[0]] if lines else []
        keep += [line for line in lines if line.startswith("Error message:")]
        return "error", type(error).__name__ + "\n" + "\n".join(keep)
    return "ok", sch.mod.script()


def main() -> None:
    tirc = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug", "tirc")
    ok_folder = sys.argv[2] if len(sys.argv) > 2 else "schedule"
    refused_folder = sys.argv[3] if len(sys.argv) > 3 else "schedule_refused"
    for folder, refused in ((ok_folder, False), (refused_folder, True)):
        directory = os.path.join(REPO, "tests", folder)
        for entry in sorted(os.listdir(directory)):
            if not entry.endswith(".tir") or entry.endswith((".expected.tir", ".tvm.tir")):
                continue
            path = os.path.join(directory, entry)
            stem = path[: -len(".tir")]
            outcome, text = run_case(tirc, path)
            if refused:
                report = text if outcome == "error" else "TVM accepts this schedule"
                with open(stem + ".tvm.txt", "w") as f:
                    f.write(report + "\n")
                print(f"{entry}: {report.splitlines()[0]}")
            elif outcome == "ok":
                with open(stem + ".tvm.tir", "w") as f:
                    f.write(text)
                print(f"{entry}: ok")
            else:
                print(f"{entry}: TVM refuses: {text}")


if __name__ == "__main__":
    main()
