#!/usr/bin/env python3
"""Check that reprinted TVMScript files parse in TVM 0.27 to the same IR.

    check_roundtrip.py DIR_OF_ORIGINALS DIR_OF_REPRINTS [-r] [-v] [-q]

For every NAME.tir in DIR_OF_ORIGINALS (recursively with -r; *.expected.tir
included) both the original and DIR_OF_REPRINTS/NAME.tir (same relative path)
are parsed with `tvm.script.from_source` and compared with structural equality
(free variables mapped).  One line per file:

    PASS  te_matmul_128x128x128.tir
    FAIL  hand_literals.tir: not structurally equal
    FAIL  x.tir: reprint does not parse: <first line of TVM's error>

then a summary `N passed, M failed`.  Exit status 0 when nothing failed.

A schedule section after the module (a `# from tvm import s_tir` line or a
top-level `def NAME(sch...)`, as in tests/tvm/schedule/*.tir) is cut off before
parsing: only the module is compared.  With --text the reprint must also be
byte-identical to the original (`print(parse(t)) == t` for canonical t).

Intended use: DIR_OF_REPRINTS is the output of `tirc fmt --dialect tirx` over the
corpus; run it on the corpus against itself to check the checker.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings

warnings.filterwarnings("ignore")

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402

SCHEDULE_START = re.compile(r"^(# from tvm import s_tir\s*$|def \w+\(\s*sch\b)", re.M)


def module_part(text: str) -> str:
    m = SCHEDULE_START.search(text)
    return text if m is None else text[: m.start()].rstrip() + "\n"


def first_error_line(err: BaseException) -> str:
    lines = [l.strip() for l in str(err).splitlines() if l.strip()]
    for l in lines:
        if l.startswith("error:"):
            return l
    return (lines[-1] if lines else type(err).__name__)[:200]


def parse(text: str):
    obj = tvm.script.from_source(module_part(text))
    if isinstance(obj, tvm.tirx.PrimFunc):
        obj = tvm.IRModule({"main": obj})
    return obj


def collect(root: str, recursive: bool) -> list[str]:
    out = []
    if recursive:
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".tir"):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    else:
        out = [f for f in os.listdir(root) if f.endswith(".tir") and os.path.isfile(os.path.join(root, f))]
    return sorted(out)


def check_one(orig_path: str, re_path: str, exact_text: bool) -> str | None:
    with open(orig_path, encoding="utf-8") as f:
        orig_text = f.read()
    if not os.path.exists(re_path):
        return "no reprint"
    with open(re_path, encoding="utf-8") as f:
        re_text = f.read()
    try:
        a = parse(orig_text)
    except Exception as e:  # noqa: BLE001
        return "original does not parse: " + first_error_line(e)
    try:
        b = parse(re_text)
    except Exception as e:  # noqa: BLE001
        return "reprint does not parse: " + first_error_line(e)
    if not tvm_ffi.structural_equal(a, b, map_free_vars=True):
        return "not structurally equal"
    if exact_text and module_part(orig_text) != module_part(re_text):
        return "structurally equal but text differs"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("originals")
    ap.add_argument("reprints")
    ap.add_argument("-r", "--recursive", action="store_true", help="descend into subdirectories")
    ap.add_argument("--text", action="store_true", help="also require identical text")
    ap.add_argument("--missing-ok", action="store_true", help="skip originals that have no reprint")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    args = ap.parse_args(argv)
    names = collect(args.originals, args.recursive)
    passed = failed = 0
    for name in names:
        if args.missing_ok and not os.path.exists(os.path.join(args.reprints, name)):
            continue
        problem = check_one(os.path.join(args.originals, name), os.path.join(args.reprints, name), args.text)
        if problem is None:
            passed += 1
            if not args.quiet:
                print(f"PASS  {name}")
        else:
            failed += 1
            print(f"FAIL  {name}: {problem}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
