#!/usr/bin/env python3
"""Where tirc puts __syncthreads() compared with TVM 0.27, on the same schedules.

For each case NAME.tir with a NAME.tvm.cu beside it (by default every
tests/codegen/cuda/dlight/*.tir, written by gen_dlight_cases.py), this

1. gets tirc's CUDA C:  tirc build NAME.tir --target cuda --emit cu -o TMP
2. splits every kernel body, in TVM's and in tirc's source, at __syncthreads()
   into segments, and lists each __shared__ buffer's accesses (W: the buffer is
   on the left of an assignment, R: anywhere else; `+=` is R then W), in text
   order with their segment;
3. turns each buffer's accesses into hazards: consecutive runs of reads or of
   writes ("phases"); each change W>R, R>W (and W>W between two write phases
   in different segments) is a hazard, "separated" when a barrier lies between
   the last access of one phase and the first of the next;
4. matches hazards between the two sources: user-named buffers (those the
   schedule made: A_shared, T_softmax_maxelem_shared, ...) by name (TVM's
   `_ptr` suffix and `_N` duplicates dropped), the reduction scratch buffers
   (TVM's red_buf0 / red_buf_staging / red_result, tirc's <block>_red_buf*)
   as one class; within a buffer (or the class) the hazard sequences are
   aligned with difflib;
5. counts, per kernel: hazards both separate ("matching"), hazards only TVM
   separates ("TVM-only": tirc may lack a barrier), hazards only tirc
   separates ("tirc-only": an extra barrier, or a hazard TVM does not have),
   the one-sided ones as NAMED+SCRATCH (named buffers + the scratch class;
   a one-sided scratch hazard may just be a buffer the other side does not
   use, e.g. TVM's red_result where tirc writes the result buffer directly);
6. runs tirc run NAME.tir --target cuda --emulate --check and classifies the
   result: pass / race / wrong / emu-cc (the emulated C++ does not compile) /
   refused (tirc rejects the program) / timeout / fail.

One line per case, the one-sided named-buffer hazards under it, and totals.

Limits (it is a diagnostic, not a test): the analysis is textual and
sequential; a barrier inside a loop or an `if` is treated as if the code ran
once, top to bottom (such kernels are flagged `loop-barrier`); dynamic shared
memory carved by pointer arithmetic is not followed; which element of a
buffer is accessed, and by which threads, is ignored, so a "hazard" may be
harmless (e.g. the same thread writing then reading its own element).

Usage, from the repository root (only the Python standard library):

    python3 tools/tvm/differential_barriers.py target/release/tirc [--no-run] [-v] [--only] [CASE.tir ...]

CASE.tir: other cases to compare (each needs CASE.tvm.cu beside it), after
every tests/codegen/cuda/dlight/*.tir (only them with --only).  --no-run skips the emulation.
-v prints every hazard.  The exit status is 0 unless tirc could not be run.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_DIR = os.path.join("tests", "codegen", "cuda", "dlight")
TIMEOUT = 120

SCRATCH = re.compile(r"(?:^|_)(?:red_buf\d*|red_buf_staging|red_result)(?:_\d+)?$")
KERNEL = re.compile(r'__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(')
DYN_DECL = re.compile(r"[\w: ]+?\s*\*\s*(\w+)\s*=\s*\([\w: ]+?\s*\*\)\s*\(\s*\w*dynamic_shared\w*\s*(?:\+\s*\d+\s*)?\)")
SHARED_DECL = re.compile(r"__shared__\s+(?:(?:alignas|__align__)\s*\(\s*\d+\s*\)\s*)*[\w:<>, ]*?\b(\w+)\s*\[")


# ============================================================ parsing CUDA C

def strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def matching(src: str, i: int, open_c: str, close_c: str) -> int:
    """Index of the bracket closing the one at src[i]."""
    depth = 0
    for j in range(i, len(src)):
        if src[j] == open_c:
            depth += 1
        elif src[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return len(src) - 1


def kernels(src: str):
    """[(name, body)] of the kernel definitions (declarations are skipped)."""
    src = strip_comments(src)
    out = []
    for m in KERNEL.finditer(src):
        close = matching(src, m.end() - 1, "(", ")")
        rest = src[close + 1:].lstrip()
        if not rest.startswith("{"):
            continue  # a declaration
        start = src.index("{", close)
        out.append((m.group(1), src[start + 1:matching(src, start, "{", "}")]))
    return out


def statements(body: str):
    """Split at ; { } keeping, per statement, its text and whether a `for`/`while`
    or an `if` encloses it (to flag barriers in loops)."""
    out, buf, stack, pending = [], [], [], None
    depth_paren = 0
    for ch in body:
        if ch == "(":
            depth_paren += 1
        elif ch == ")":
            depth_paren -= 1
        if ch in ";{}" and depth_paren == 0:
            text = "".join(buf).strip()
            buf = []
            if ch == "{":
                kind = "loop" if re.match(r"(for|while|do)\b", text) else ("if" if re.match(r"(if|else)\b", text) else "block")
                stack.append(kind)
                if text:
                    out.append((text, tuple(stack[:-1])))
            elif ch == "}":
                if text:
                    out.append((text, tuple(stack)))
                if stack:
                    stack.pop()
            else:
                if text:
                    out.append((text, tuple(stack)))
            continue
        buf.append(ch)
    if "".join(buf).strip():
        out.append(("".join(buf).strip(), tuple(stack)))
    return out


def assignment_split(stmt: str):
    """(lhs, op, rhs) at the first top-level assignment, or None."""
    depth = 0
    for i, ch in enumerate(stmt):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "=" and depth == 0:
            nxt = stmt[i + 1] if i + 1 < len(stmt) else ""
            prev = stmt[i - 1] if i > 0 else ""
            if nxt == "=" or prev in "=!":
                continue
            if prev in "<>" and not stmt[:i].endswith(("<<", ">>")):
                continue  # <= >=
            op_start = i
            while op_start > 0 and stmt[op_start - 1] in "+-*/%&|^<>":
                op_start -= 1
            return stmt[:op_start], stmt[op_start:i + 1], stmt[i + 1:]
    return None


def analyse(body: str):
    """shared buffer names, number of barriers, barrier-in-loop flag and, per
    buffer, its accesses [(order, segment, 'R'|'W')]."""
    stmts = statements(body)
    shared = []
    for text, _ in stmts:
        for m in SHARED_DECL.finditer(text):
            shared.append(m.group(1))
        m = DYN_DECL.fullmatch(text)
        if m:
            shared.append(m.group(1))
    if not shared:
        shared_re = None
    else:
        shared_re = re.compile(r"\b(" + "|".join(map(re.escape, sorted(set(shared), key=len, reverse=True))) + r")\b")
    seg, barriers, in_loop, order = 0, 0, False, 0
    acc = {name: [] for name in shared}
    for text, ctx in stmts:
        if re.fullmatch(r"__syncthreads\s*\(\s*\)", text):
            seg += 1
            barriers += 1
            if any(k in ("loop", "if") for k in ctx):
                in_loop = True
            continue
        if shared_re is None or "__shared__" in text or DYN_DECL.fullmatch(text):
            continue
        split = assignment_split(text)
        lhs, op, rhs = split if split else ("", "", text)
        for m in shared_re.finditer(rhs):
            acc[m.group(1)].append((order, seg, "R"))
            order += 1
        for m in shared_re.finditer(lhs):
            if op != "=":
                acc[m.group(1)].append((order, seg, "R"))
                order += 1
            acc[m.group(1)].append((order, seg, "W"))
            order += 1
    return shared, barriers, in_loop, acc


def hazards(accesses):
    """[(order, kind 'W>R'|'R>W'|'W>W', separated)] from a buffer's accesses."""
    phases = []  # [kind, first (order, seg), last (order, seg)]
    for order, seg, kind in accesses:
        if phases and phases[-1][0] == kind and not (kind == "W" and seg != phases[-1][2][1]):
            phases[-1][2] = (order, seg)
        else:
            phases.append([kind, (order, seg), (order, seg)])
    out = []
    for a, b in zip(phases, phases[1:]):
        out.append((b[1][0], f"{a[0]}>{b[0]}", b[1][1] > a[2][1]))
    return out


def normalise(name: str, tvm: bool) -> str:
    if tvm:
        name = re.sub(r"_ptr(_\d+)?$", "", name)
    return name


def loose(name: str) -> str:
    return re.sub(r"_\d+(?=_|$)", "", name)


def buffer_groups(shared, acc, tvm: bool):
    """{key: [hazards]}: one key per user-named buffer, one 'scratch' key for the class."""
    groups = {}
    for name in shared:
        key = normalise(name, tvm)
        hz = hazards(acc[name])
        m = SCRATCH.search(key)
        if m:
            role = re.sub(r"^_|_?\d+$", "", m.group(0))  # red_buf, red_buf_staging, red_result
            groups.setdefault("<scratch>", []).extend((o, f"{role} {kind}", sep) for o, kind, sep in hz)
        else:
            groups.setdefault(key, []).extend(hz)
    return {k: [(kind, sep) for _, kind, sep in sorted(v)] for k, v in groups.items()}


def match_keys(tvm_keys, tirc_keys):
    pairs, left = {}, set(tirc_keys)
    for k in tvm_keys:
        if k in left:
            pairs[k] = k
            left.discard(k)
    for k in tvm_keys:
        if k in pairs:
            continue
        cands = [t for t in left if loose(t) == loose(k)]
        if len(cands) == 1:
            pairs[k] = cands[0]
            left.discard(cands[0])
    return pairs, sorted(left)


def compare_kernel(tvm_body: str, tirc_body: str):
    t_shared, t_bar, t_loop, t_acc = analyse(tvm_body)
    c_shared, c_bar, c_loop, c_acc = analyse(tirc_body)
    tg = buffer_groups(t_shared, t_acc, True)
    cg = buffer_groups(c_shared, c_acc, False)
    pairs, tirc_unpaired = match_keys(list(tg), list(cg))
    res = {"both": 0, "tvm_only": 0, "tirc_only": 0, "tvm_only_scratch": 0, "tirc_only_scratch": 0,
           "tvm_barriers": t_bar, "tirc_barriers": c_bar,
           "loop_barrier": t_loop or c_loop, "notes": [], "detail": []}

    def count(key, t_hz, c_hz, label):
        sfx = "_scratch" if key == "<scratch>" else ""
        sm = difflib.SequenceMatcher(a=[k for k, _ in t_hz], b=[k for k, _ in c_hz], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                for (kind, ts), (_, cs) in zip(t_hz[i1:i2], c_hz[j1:j2]):
                    res["detail"].append(f"{label} {kind}: tvm {'|' if ts else '-'} tirc {'|' if cs else '-'}")
                    if ts and cs:
                        res["both"] += 1
                    elif ts:
                        res["tvm_only" + sfx] += 1
                        if key != "<scratch>":
                            res["notes"].append(f"TVM-only: {label} {kind} (tirc has no barrier between)")
                    elif cs:
                        res["tirc_only" + sfx] += 1
                        if key != "<scratch>":
                            res["notes"].append(f"tirc-only: {label} {kind}")
            else:
                for kind, ts in t_hz[i1:i2]:
                    res["detail"].append(f"{label} {kind}: tvm {'|' if ts else '-'} tirc (none)")
                    if ts:
                        res["tvm_only" + sfx] += 1
                        if key != "<scratch>":
                            res["notes"].append(f"TVM-only: {label} {kind} (no such hazard in tirc)")
                for kind, cs in c_hz[j1:j2]:
                    res["detail"].append(f"{label} {kind}: tvm (none) tirc {'|' if cs else '-'}")
                    if cs:
                        res["tirc_only" + sfx] += 1
                        if key != "<scratch>":
                            res["notes"].append(f"tirc-only: {label} {kind} (no such hazard in TVM)")

    for key, t_hz in tg.items():
        if key in pairs:
            ckey = pairs[key]
            label = key if ckey == key else f"{key}~{ckey}"
            count(key, t_hz, cg[ckey], label)
        else:
            if t_hz:
                res["notes"].append(f"only in TVM: shared {key}")
            count(key, t_hz, [], key)
    for ckey in tirc_unpaired:
        if cg[ckey]:
            res["notes"].append(f"only in tirc: shared {ckey}")
        count(ckey, [], cg[ckey], ckey)
    return res


# ============================================================ running tirc

def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, (p.stdout + p.stderr)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {TIMEOUT} s"


def first_error(text: str) -> str:
    """The headline of tirc's message, on one line (tirc wraps long messages)."""
    lines = [l.strip().lstrip("x|").strip() for l in text.strip().splitlines() if l.strip()]
    flat = re.sub(r"\s+", " ", " ".join(lines))
    m = re.search(r"check (\S+) against .*?MISMATCH: (\d+ of \d+) values.*?(the first at .*?, found \S+)", flat)
    if m:
        return f"{m.group(1)}: {m.group(2)} values differ, {m.group(3)}"
    for pat in (r"error\[\w+\]:.*?(?= = in pass| = help| ┌|$)",            # tirc refuses the program
                r"kernels\.cu:\d+:\d+: error: .*?(?=\s+\d+ \||$)",  # the emulated C++ does not compile
                r"data race .*?__syncthreads\(\) between",
                r"MISMATCH: .{0,150}"):
        m = re.search(pat, flat)
        if m:
            return m.group(0).strip()[:200]
    return (lines[-1] if lines else "")[:200]


def emulate(tirc: str, path: str):
    rc, out = run([tirc, "run", path, "--target", "cuda", "--emulate", "--check"])
    if rc is None:
        return "timeout", out
    if rc == 0:
        return "pass", ""
    if "data race" in out or "barrier divergence" in out.lower() or "diverge" in out.lower():
        return "race", first_error(out)
    if "MISMATCH" in out:
        return "wrong", first_error(out)
    if "did not compile the emulated" in out:
        return "emu-cc", first_error(out)
    if re.search(r"^error(\[\w+\])?:", out, re.M):
        return "refused", first_error(out)
    return "fail", first_error(out)


# ============================================================ main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tirc", help="the tirc binary (e.g. target/release/tirc)")
    ap.add_argument("cases", nargs="*", help="more NAME.tir files with NAME.tvm.cu beside them")
    ap.add_argument("--no-run", action="store_true", help="skip `tirc run --emulate --check`")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every hazard")
    ap.add_argument("--only", action="store_true", help="only the given cases, not tests/codegen/cuda/dlight/")
    args = ap.parse_intermixed_args()
    if not os.access(args.tirc, os.X_OK):
        print(f"{args.tirc}: not an executable", file=sys.stderr)
        return 2

    files = ([] if args.only else sorted(glob.glob(os.path.join(DEFAULT_DIR, "*.tir")))) + list(args.cases)
    tot = dict(cases=0, kernels=0, both=0, tvm_only=0, tirc_only=0, tvm_only_scratch=0, tirc_only_scratch=0,
               tvm_barriers=0, tirc_barriers=0,
               build_refused=0, no_tvm=0)
    emu = {}
    tmp = tempfile.mkdtemp(prefix="tirc-barriers-")
    width = max((len(os.path.basename(f)) - 4 for f in files), default=10)
    for path in files:
        name = os.path.basename(path)[:-4]
        tvm_cu = path[:-4] + ".tvm.cu"
        tot["cases"] += 1
        if not os.path.exists(tvm_cu):
            print(f"{name:<{width}}  no {os.path.basename(tvm_cu)}: skipped")
            tot["no_tvm"] += 1
            continue
        out_cu = os.path.join(tmp, name + ".cu")
        rc, out = run([args.tirc, "build", path, "--target", "cuda", "--emit", "cu", "-o", out_cu])
        if rc is None:
            print(f"{name:<{width}}  tirc build: {out}")
            tot["build_refused"] += 1
            continue
        if rc != 0:
            line = f"{name:<{width}}  tirc build refused: {first_error(out)}"
            tot["build_refused"] += 1
            if not args.no_run:
                emu["refused"] = emu.get("refused", 0) + 1
            print(line)
            continue
        with open(tvm_cu, encoding="utf-8") as f:
            tk = kernels(f.read())
        with open(out_cu, encoding="utf-8") as f:
            ck = kernels(f.read())
        cmap = dict(ck)
        sums = dict(both=0, tvm_only=0, tirc_only=0, tvm_only_scratch=0, tirc_only_scratch=0,
                    tvm_barriers=0, tirc_barriers=0)
        notes, details, flags = [], [], set()
        for i, (kname, tbody) in enumerate(tk):
            cbody = cmap.get(kname) or (ck[i][1] if i < len(ck) else None)
            if cbody is None:
                notes.append(f"kernel {kname}: not in tirc's source")
                continue
            r = compare_kernel(tbody, cbody)
            tot["kernels"] += 1
            for k in sums:
                sums[k] += r[k]
            if r["loop_barrier"]:
                flags.add("loop-barrier")
            notes += [f"{kname}: {n}" if len(tk) > 1 else n for n in r["notes"]]
            details += [f"{kname}: {d}" for d in r["detail"]]
        if len(ck) != len(tk):
            notes.append(f"kernels: TVM {len(tk)}, tirc {len(ck)}")
        for k in sums:
            tot[k] += sums[k]
        status = ""
        if not args.no_run:
            kind, msg = emulate(args.tirc, path)
            emu[kind] = emu.get(kind, 0) + 1
            status = f"  emu {kind}" + (f": {msg}" if msg else "")
        print(f"{name:<{width}}  barriers tvm {sums['tvm_barriers']} tirc {sums['tirc_barriers']}"
              f"  hazards: both {sums['both']} tvm-only {sums['tvm_only']}+{sums['tvm_only_scratch']}"
              f" tirc-only {sums['tirc_only']}+{sums['tirc_only_scratch']}"
              + (f"  [{', '.join(sorted(flags))}]" if flags else "") + status)
        for n in dict.fromkeys(notes):
            print(f"    {n}")
        if args.verbose:
            for d in details:
                print(f"      {d}")
    print()
    print(f"cases {tot['cases']} (tirc build refused {tot['build_refused']}, no TVM source {tot['no_tvm']}), "
          f"kernels compared {tot['kernels']}")
    print(f"__syncthreads(): TVM {tot['tvm_barriers']}, tirc {tot['tirc_barriers']}")
    print(f"hazards separated by a barrier: matching {tot['both']}, "
          f"TVM-only {tot['tvm_only']} named + {tot['tvm_only_scratch']} scratch, "
          f"tirc-only {tot['tirc_only']} named + {tot['tirc_only_scratch']} scratch")
    print("  (named: buffers the schedule made, matched by name; scratch: the reduction buffers as a class,"
          " a one-sided scratch hazard may be a buffer only one side uses)")
    if not args.no_run:
        order = ["pass", "race", "wrong", "emu-cc", "refused", "timeout", "fail"]
        print("emulation: " + ", ".join(f"{k} {emu.get(k, 0)}" for k in order if emu.get(k, 0) or k == "pass")
              + f" (fail total {sum(v for k, v in emu.items() if k != 'pass')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
