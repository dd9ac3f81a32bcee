#!/usr/bin/python3
"""Shipped scenes (issue 26, item 7): run every scene of scenes/ at its own settings and at the defaults.

Each scene of scenes/*.cfg (not the subfolders) is run twice:
  - "own": the scene as shipped, with its own `solver` group;
  - "defaults": a copy of the scene with its top-level `solver = { ... };` setting removed, so
    sipd-run uses its defaults.  sipd-run has no command-line override of scene keys, so the copy
    is written to the scene's own folder (mesh paths stay relative to it) under a hidden name
    (`.shipped-scenes-*.cfg`, removed afterwards), with the removed text replaced by a
    /* comment */ and as many line breaks, so that sipd-run's line numbers are the original's.  The setting is
    found by a small parser that matches braces and skips comments (#, //, /* */) and strings;
    the copy is checked with `sipd-run --dry-run` first, and a copy that does not load is a row
    with the error.
Both runs use `--device cpu --quiet --output OUT/SCENE--RUN.h5`, `--threads N` and, with
--frames N, `--frames` min(N, the scene's frames) (the scene's frames from the dry run).

It reads each run's HDF5 output (docs/output.md) and prints one Markdown table row per scene and
run:
  - solves converged of all (`/convergence/status`: 0 converged, 1 at-cap, 2 stalled,
    3 diverged);
  - at-cap / stalled (of which at the energy floor: the root attribute `solves_at_energy_floor`,
    stalled solves whose remaining predicted gain is below the energy's resolution,
    docs/convergence.md#the-energy-floor; "–" where the output has no such attribute) / diverged;
  - the share of solves converged or stalled at the energy floor (%), with "**below 95%**" where
    it is under 95%;
  - the mean iterations per solve (`/convergence/iterations`), sipd-run's exit code and the wall
    time of the run (seconds, as measured by this tool: a shared machine inflates it);
  - a note: a scene whose own `solver` group selects a method other than the defaults' (e.g.
    method = "mixed-fem" or "newton": that method is the scene's point, the defaults replace it
    with something else), a scene without a `solver` group (both runs are the defaults), and for
    a failed run (non-zero exit, no output, the timeout) sipd-run's last line on stderr.
A run that ends with an error is still read (the solves of the frames it wrote).  A run that
takes longer than --timeout seconds gets SIGTERM (sipd-run then writes the frames it completed
and exits 3), SIGKILL 30 s later, and is reported as "timeout".

    /usr/bin/python3 tools/shipped-scenes.py [options]
    e.g.  /usr/bin/python3 tools/shipped-scenes.py --threads 1 \\
              --markdown results/shipped-scenes-$(date +%F).md --json /tmp/shipped.json

Options: --exe (default build/sipd-run), --scenes DIR (default scenes), --only a,b (scene names,
the file names without .cfg), --frames N (at most N frames in every run; default the scene's
own), --threads N (default 1), --device D (default cpu), --timeout S (per run, default 600),
--out DIR (keep the .h5 outputs there; default a temporary folder, removed), --json FILE (every
number, for scripts and tests), --markdown FILE (the table also to a file, after a short header
with the date, command, sipd-run version and machine load).
Needs numpy and h5py (/usr/bin/python3 on Debian with python3-h5py).
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

PROG = "shipped-scenes"
NAME_CHAR = re.compile(r"[A-Za-z0-9_*\-]")


def top_level_setting(text, name):
    """The span (start, end) of the top-level setting NAME (`name = value;` or `name : value`,
    its terminator `;` or `,` included) in libconfig TEXT, or None.  Skips comments and strings;
    only settings at nesting depth 0 count.  Raises ValueError on unbalanced brackets."""
    i, n, depth = 0, len(text), 0
    found = None  # start of the name when at depth 0 a NAME token was just seen
    value_start = None
    closing = {"}": "{", ")": "(", "]": "["}
    stack = []
    while i < n:
        c = text[i]
        if c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated /* comment")
            i = j + 2
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise ValueError("unterminated string")
            i = j + 1
            continue
        if c in "{([":
            stack.append(c)
            i += 1
            continue
        if c in "})]":
            if not stack or stack[-1] != closing[c]:
                raise ValueError(f"unbalanced {c!r} at offset {i}")
            stack.pop()
            i += 1
            if not stack and value_start is not None:
                # the value of NAME ended: take blanks and the terminator
                j = i
                while j < n and text[j] in " \t":
                    j += 1
                if j < n and text[j] in ";,":
                    j += 1
                return found, j
            continue
        depth = len(stack)
        if depth == 0 and value_start is None and NAME_CHAR.match(c) and (i == 0 or not NAME_CHAR.match(text[i - 1])):
            j = i
            while j < n and NAME_CHAR.match(text[j]):
                j += 1
            word = text[i:j]
            if word == name:
                # the next significant character must be = or :
                k = j
                while k < n and text[k] in " \t\r\n":
                    k += 1
                if k < n and text[k] in "=:":
                    found, value_start = i, k + 1
                    i = k + 1
                    continue
            i = j
            continue
        if depth == 0 and value_start is not None and c == ";":
            # a scalar value (not a group): ends at the terminator
            return found, i + 1
        i += 1
    if stack:
        raise ValueError(f"unclosed {stack[-1]!r}")
    return None


def without_solver(text):
    """TEXT with its top-level `solver` setting replaced by a comment and the same number of line
    breaks (sipd-run's line numbers stay the original's); None when there is none."""
    span = top_level_setting(text, "solver")
    if span is None:
        return None
    a, b = span
    removed = text[a:b]
    return text[:a] + "/* solver group removed by tools/shipped-scenes.py */" + "\n" * removed.count("\n") + text[b:]


def resolved(stdout):
    """From a dry run's resolved scene: {'frames': int, 'method': str, 'solver': text}."""
    r = {}
    span = top_level_setting(stdout, "time")
    if span:
        m = re.search(r"\bframes\s*=\s*(\d+)", stdout[span[0]:span[1]])
        if m:
            r["frames"] = int(m.group(1))
    span = top_level_setting(stdout, "solver")
    if span:
        s = stdout[span[0]:span[1]]
        r["solver"] = " ".join(s.split())
        m = re.search(r'\bmethod\s*=\s*"([^"]*)"', s)
        if m:
            r["method"] = m.group(1)
    return r


def last_line(stderr, tmp, scene):
    err = [l for l in stderr.splitlines() if l.strip()]
    if tmp:  # name the scene, not the temporary copy
        err = [l.replace(tmp, scene + " (without solver)") for l in err]
    return err[-1] if err else ""


def dry_run(exe, path, device, threads, scene, tmp):
    cmd = [exe, path, "--dry-run", "--device", device]
    if threads:
        cmd += ["--threads", str(threads)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return 124, "dry run: timeout after 300 s", {}
    info = resolved(p.stdout) if p.returncode == 0 else {}
    return p.returncode, last_line(p.stderr, tmp, scene), info


def run(exe, path, out_h5, frames, threads, device, timeout, scene, tmp):
    """Run sipd-run; return (rc, last stderr line, wall s, timed out)."""
    cmd = [exe, path, "--device", device, "--quiet", "--overwrite", "--output", out_h5]
    if frames is not None:
        cmd += ["--frames", str(frames)]
    if threads:
        cmd += ["--threads", str(threads)]
    t0 = time.monotonic()
    timed_out = False
    with tempfile.TemporaryFile(mode="w+") as errf:
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, text=True)
        except OSError as e:  # the executable went away (a rebuild)
            return 127, f"{exe}: {e}", time.monotonic() - t0, False
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            p.send_signal(signal.SIGTERM)  # sipd-run writes the completed frames and exits 3
            try:
                rc = p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
        except BaseException:
            p.kill()
            p.wait()
            raise
        wall = time.monotonic() - t0
        errf.seek(0)
        err = errf.read()
    return rc, last_line(err, tmp, scene), wall, timed_out


def read(h5):
    """What the table needs from one output file: a dict, None when there is none, or a string
    (why it could not be read)."""
    if not os.path.exists(h5):
        return None
    try:
        with h5py.File(h5, "r") as f:
            c = f.get("convergence")
            st = c["status"][:] if c is not None and "status" in c else np.zeros(0, int)
            its = c["iterations"][:] if c is not None and "iterations" in c else np.zeros(0)
            r = {"solves": int(st.size),
                 "converged": int((st == 0).sum()),
                 "at_cap": int((st == 1).sum()),
                 "stalled": int((st == 2).sum()),
                 "diverged": int((st == 3).sum()),
                 "mean_iterations": float(its.mean()) if its.size else float("nan"),
                 "max_iterations": int(its.max()) if its.size else None,
                 "frames": int(f["frames/positions"].shape[0]) if "frames/positions" in f else 0}
            floor = f.attrs.get("solves_at_energy_floor")
            r["at_floor"] = int(floor) if floor is not None else None
            wt = f.attrs.get("wall_time_seconds")
            r["sipd_wall_s"] = float(wt) if wt is not None else None
            er = f.attrs.get("exit_reason")
            r["exit_reason"] = er.decode() if isinstance(er, bytes) else er
    except Exception as e:  # a run killed while writing
        return f"unreadable output ({type(e).__name__}: {e})"
    good = r["converged"] + (r["at_floor"] or 0)
    r["share_ok_pct"] = 100.0 * good / r["solves"] if r["solves"] else float("nan")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", default="build/sipd-run")
    ap.add_argument("--scenes", default="scenes")
    ap.add_argument("--only", default="", help="comma-separated scene names (file names without .cfg)")
    ap.add_argument("--frames", type=int, help="at most N frames in every run (default: the scene's own)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--out", help="keep the outputs in DIR (default: a temporary folder, removed)")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    a = ap.parse_args()

    if not os.access(a.exe, os.X_OK):
        sys.exit(f"{PROG}: {a.exe} is not an executable (build first: make)")
    scenes = sorted(f[:-4] for f in os.listdir(a.scenes)
                    if f.endswith(".cfg") and not f.startswith(".") and os.path.isfile(os.path.join(a.scenes, f)))
    if a.only:
        want = [w for w in a.only.split(",") if w]
        missing = [w for w in want if w not in scenes]
        if missing:
            sys.exit(f"{PROG}: no scene {', '.join(missing)} in {a.scenes}")
        scenes = [s for s in scenes if s in want]

    out = a.out or tempfile.mkdtemp(prefix="shipped-scenes-")
    os.makedirs(out, exist_ok=True)
    rows = []
    t_start = time.monotonic()
    try:
        for s in scenes:
            scene = os.path.join(a.scenes, s + ".cfg")
            text = open(scene).read()
            try:
                stripped = without_solver(text)
                parse_error = None
            except ValueError as e:
                stripped, parse_error = None, str(e)
            rc0, last0, own_info = dry_run(a.exe, scene, a.device, a.threads, scene, None)
            frames = a.frames
            if frames is not None and "frames" in own_info:
                frames = min(frames, own_info["frames"])
            for label in ("own", "defaults"):
                row = {"scene": s, "run": label, "exit": None, "wall_s": None, "message": "", "notes": []}
                rows.append(row)
                path, tmp = scene, None
                if label == "own":
                    row["solver"] = own_info.get("solver")
                else:
                    if parse_error is not None:
                        row["notes"].append(f"cannot remove the solver group: {parse_error}")
                        print(f"{PROG}: {s}: {parse_error}", file=sys.stderr)
                        continue
                    if stripped is None:
                        row["notes"].append("no solver group: both runs are the defaults")
                    else:
                        d = os.path.dirname(os.path.abspath(scene))
                        fd, tmp = tempfile.mkstemp(prefix=f".shipped-scenes-{s}-", suffix=".cfg", dir=d)
                        with os.fdopen(fd, "w") as fh:
                            fh.write(stripped)
                        path = tmp
                try:
                    if label == "defaults":
                        rcd, lastd, info = dry_run(a.exe, path, a.device, a.threads, scene, tmp)
                        row["solver"] = info.get("solver")
                        if rcd != 0:
                            row["exit"] = rcd
                            row["load_error"] = lastd
                            row["message"] = lastd
                            row["notes"].append(f"the copy without solver does not load (dry run exit {rcd})")
                            print(f"{PROG}: {s} / defaults: the copy without solver does not load: {lastd}",
                                  file=sys.stderr)
                            continue
                        om, dm = own_info.get("method"), info.get("method")
                        if om and dm and om != dm:  # on both rows
                            note = f'the scene\'s method is "{om}"; the defaults run "{dm}"'
                            row["notes"].append(note)
                            rows[-2]["notes"].insert(0, note)
                    h5 = os.path.join(out, f"{s}--{label}.h5")
                    for old in (h5, h5 + ".ckpt", h5[:-3] + ".xdmf"):
                        if os.path.exists(old):
                            os.unlink(old)
                    print(f"{PROG}: {s} / {label} ...", file=sys.stderr, end="", flush=True)
                    rc, last, wall, timed_out = run(a.exe, path, h5, frames, a.threads, a.device, a.timeout,
                                                    scene, tmp)
                    print(f" exit {rc}, {wall:.1f} s", file=sys.stderr, flush=True)
                finally:
                    if tmp:
                        os.unlink(tmp)
                row.update(exit=rc, wall_s=round(wall, 2), frames_asked=frames)
                if label == "own" and rc0 != 0 and rc == 0:
                    row["notes"].append(f"dry run exit {rc0}: {last0}")
                if rc != 0:
                    row["message"] = last
                if timed_out:
                    row["timeout"] = True
                    row["notes"].append(f"timeout after {a.timeout:g} s")
                r = read(h5)
                if isinstance(r, str):
                    row["notes"].append(r)
                elif r is not None:
                    row.update(r)
                elif rc == 0:
                    row["notes"].append("no output")
    finally:
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)
    total_wall = time.monotonic() - t_start

    def f(v, fmt):
        return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else format(v, fmt)

    lines = ["| scene | run | solves converged of all | at-cap / stalled (at energy floor) / diverged | "
             "converged or at floor (%) | mean iterations | exit | wall (s) | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        notes = list(r["notes"])
        if r["exit"] not in (None, 0) and r["message"] and not r.get("load_error"):
            notes.append(f"exit {r['exit']}: {r['message']}")
        elif r.get("load_error"):
            notes.append(r["load_error"])
        if "solves" in r and r.get("exit") not in (None, 0):
            notes.append(f"{max(r['frames'] - 1, 0)} frames written")
        note = "; ".join(notes).replace("|", "\\|")
        wall = f(r["wall_s"], ".1f")
        ex = "–" if r["exit"] is None else str(r["exit"])
        if "solves" not in r:
            lines.append(f"| {r['scene']} | {r['run']} | no output | | | | {ex} | {wall} | {note} |")
            continue
        share = f(r["share_ok_pct"], ".1f")
        if not np.isnan(r["share_ok_pct"]) and r["share_ok_pct"] < 95.0:
            share += " **below 95%**"
        lines.append(
            f"| {r['scene']} | {r['run']} | {r['converged']} of {r['solves']} | "
            f"{r['at_cap']} / {r['stalled']} ({f(r['at_floor'], 'd')}) / {r['diverged']} | {share} | "
            f"{f(r['mean_iterations'], '.0f')} | {ex} | {wall} | {note} |")
    table = "\n".join(lines) + "\n"
    sys.stdout.write(table)
    print(f"{PROG}: {len(rows)} runs of {len(scenes)} scenes in {total_wall:.0f} s", file=sys.stderr)
    if a.markdown:
        try:
            version = subprocess.run([a.exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, timeout=60).stdout.strip()
        except Exception:
            version = "?"
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        with open(a.markdown, "w") as fh:
            fh.write(f"# Shipped scenes at their own settings and at the defaults "
                     f"({datetime.date.today().isoformat()})\n\n"
                     f"`{' '.join(['tools/shipped-scenes.py'] + sys.argv[1:])}`; {version}; "
                     f"device {a.device}, {a.threads} thread(s); frames: "
                     f"{'at most ' + str(a.frames) if a.frames else 'each scene its own'}; "
                     f"{len(rows)} runs in {total_wall:.0f} s, load average at the end {load} "
                     f"(wall times are this tool's, on a shared machine).  tools/shipped-scenes.py "
                     f"and docs/benchmarks.md#shipped-scenes-convergence explain the columns.\n\n")
            fh.write(table)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    for r in rows:
        if r["exit"] not in (None, 0) or r.get("timeout"):
            why = "; ".join(r["notes"] + ([r["message"]] if r["message"] else []))
            print(f"{PROG}: {r['scene']} / {r['run']}: exit {r['exit']}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main()
