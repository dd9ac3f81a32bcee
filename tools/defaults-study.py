#!/usr/bin/python3
"""Defaults study (issue 26): run each study scene at the defaults and against Newton.

Each scene of scenes/study/ is written the way a new user writes one: no `solver` group, so
sipd-run uses its defaults.  This tool runs every scene
  - at the defaults (the scene as it is),
  - with solver.method = "newton" (the reference trajectory),
  - and with each VARIANT given on the command line: settings `key=value` separated by blanks,
    optionally after a label and a colon, e.g.
        "cheb400: solver.chebyshev=true solver.iterations=400"
        "solver.coarse.levels=2"
        'solver.sweep="gauss-seidel"'
    Values are libconfig literals (true, 400, 1.0e-6, "text").  sipd-run has no command-line
    override of scene keys, so a variant is run from a copy of the scene with the settings
    written as new groups in front of it (`solver = { chebyshev = true; iterations = 400; };`),
    in the scene's own folder (mesh paths stay relative to it) under a hidden name, removed
    afterwards.  A variant may only set groups the scene does not have (the study scenes have
    no `solver` group); nested keys (solver.coarse.levels) become nested groups.

It reads each run's HDF5 output (docs/output.md) and prints one Markdown table row per scene
and variant:
  - solves: converged / total, at-cap, stalled (of which at the energy floor: the root attribute
    `solves_at_energy_floor`), diverged (`/convergence/status`) and the mean
    iterations per solve (`/convergence/iterations`);
  - the final positions against Newton's at the same frame: the largest and the mean distance
    over the vertices (mm), and the largest as a percentage of Newton's motion;
  - Newton's motion: the largest distance a vertex moved from frame 0 to the last frame (mm),
    the scale of "1% of the motion" (issue 26, "Done when");
  - the deepest penetration of any solve (`/convergence/max_penetration`, mm);
  - a scene check where the tool knows one: "above" (the upper body's centre stays above the
    body under it in every frame: above the highest vertex of the lower body within the upper
    body's half width in x-z, or its nearest vertex within 1.5 vertex spacings where there is
    none; "below@F" gives the first frame where it is not: it passed through, or tipped over
    the edge, look at the run; "off@F" the first where nothing is under it) and "slide" (how
    far the body's centre moved along the slope, mm, for the block on the slope);
  - the wall time of the run (seconds, as measured by this tool: a shared machine inflates it).
A run that ends with an error (a refused combination, a divergence) is still read: the frames it
wrote are compared at its last frame, and the exit code and sipd-run's last line are reported.

    /usr/bin/python3 tools/defaults-study.py [options] [VARIANT ...]
    e.g.  /usr/bin/python3 tools/defaults-study.py --threads 1 \\
              "cheb400: solver.chebyshev=true solver.iterations=400" "coarse2: solver.coarse.levels=2"

Options: --exe (default build/sipd-run), --scenes DIR (default scenes/study), --only a,b (scene
names), --frames N (every run), --threads N (default 1), --out DIR (keep the .h5 outputs there;
default a temporary folder, removed), --json FILE (every number, for scripts and tests),
--markdown FILE (the table also to a file), --no-defaults (run only Newton and the variants),
--reuse (with --out: tabulate the runs already in DIR, each with its exit code and wall time in
NAME.run.json beside NAME.h5, and run only the missing ones).
Needs numpy and h5py (/usr/bin/python3 on Debian with python3-h5py).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

# Scene checks the tool knows (by scene name): ("above", upper body, lower body) or
# ("slide", body, slope normal): how far the body's centre moved along the slope (the motion
# along the normal, settling into the penalty layer, left out).  Body indices are scene order.
CHECKS = {
    "stack": ("above", 1, 0),
    "ball_cloth": ("above", 1, 0),
    "throw": ("above", 1, 0),
    "slope": ("slide", 0, (-0.342020, 0.939693, 0.0)),
}


def parse_variant(text):
    """'label: a.b=1 c=true' -> (label, {'a': {'b': '1'}, 'c': 'true'})."""
    label = None
    m = re.match(r"\s*([A-Za-z0-9_+\-.]+):\s+(.*)$", text)
    if m and "=" not in m.group(1):
        label, text = m.group(1), m.group(2)
    tree = {}
    # key=value tokens; a quoted value may hold blanks
    for key, value in re.findall(r'([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*("[^"]*"|\[[^\]]*\]|[^\s]+)', text):
        node = tree
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise SystemExit(f"defaults-study: variant {text!r}: {key} sets inside a value")
        node[parts[-1]] = value
    if not tree:
        raise SystemExit(f"defaults-study: variant {text!r} has no key=value setting")
    if label is None:
        label = " ".join(f"{k}={v}" for k, v in re.findall(
            r'([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*("[^"]*"|\[[^\]]*\]|[^\s]+)', text))
    return label, tree


def libconfig_group(tree):
    out = []
    for k, v in tree.items():
        out.append(f"{k} = {{ {libconfig_group(v)} }};" if isinstance(v, dict) else f"{k} = {v};")
    return " ".join(out)


def scene_has_group(text, name):
    body = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return re.search(r"(^|[\s;])" + re.escape(name) + r"\s*[=:]\s*\{", body) is not None


def run(exe, scene, tree, out_h5, frames, threads):
    """Run sipd-run on SCENE with the groups of TREE in front; return (rc, last stderr line, wall s)."""
    text = open(scene).read()
    for group in tree:
        if scene_has_group(text, group):
            raise SystemExit(f"defaults-study: {scene} already has a `{group}` group; a variant "
                             f"may only add groups the scene does not have")
    path = scene
    tmp = None
    if tree:
        d = os.path.dirname(os.path.abspath(scene))
        fd, tmp = tempfile.mkstemp(prefix=".defaults-study-", suffix=".cfg", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write("# defaults-study variant: " + libconfig_group(tree) + "\n")
            f.write(libconfig_group(tree) + "\n")
            f.write(text)
        path = tmp
    cmd = [exe, path, "--device", "cpu", "--quiet", "--overwrite", "--output", out_h5]
    if frames is not None:
        cmd += ["--frames", str(frames)]
    if threads:
        cmd += ["--threads", str(threads)]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        if tmp:
            os.unlink(tmp)
    wall = time.monotonic() - t0
    err = [l for l in p.stderr.splitlines() if l.strip()]
    if tmp:  # name the scene and the variant, not the temporary copy
        err = [l.replace(tmp, scene + " (+ variant)") for l in err]
    return p.returncode, (err[-1] if err else ""), wall


def read(h5):
    """What the table needs from one output file (None when there is none)."""
    if not os.path.exists(h5):
        return None
    with h5py.File(h5, "r") as f:
        if "frames/positions" not in f:
            return None
        r = {"positions": f["frames/positions"][:].astype(np.float64),
             "body": f["mesh/body"][:]}
        c = f.get("convergence")
        st = c["status"][:] if c is not None and "status" in c else np.zeros(0, int)
        r["solves"] = int(st.size)
        r["converged"] = int((st == 0).sum())
        r["at_cap"] = int((st == 1).sum())
        r["stalled"] = int((st == 2).sum())
        r["diverged"] = int((st == 3).sum())
        # stalled solves at the energy floor (docs/convergence.md#the-energy-floor; 0.8 and later)
        r["at_floor"] = int(f.attrs.get("solves_at_energy_floor", 0))
        its = c["iterations"][:] if c is not None and "iterations" in c else np.zeros(0)
        r["mean_iterations"] = float(its.mean()) if its.size else float("nan")
        pen = c["max_penetration"][:] if c is not None and "max_penetration" in c else np.zeros(0)
        r["max_penetration_mm"] = float(np.nanmax(pen) * 1e3) if pen.size else float("nan")
    return r


def check(name, r):
    """The scene check (a short string and its number) or ("", None)."""
    spec = CHECKS.get(name)
    if spec is None or r is None:
        return "", None
    x, body = r["positions"], r["body"]
    if spec[0] == "slide":
        sel = body == spec[1]
        c = x[:, sel].mean(axis=1)
        n = np.array(spec[2]) / np.linalg.norm(spec[2])
        u = c[-1] - c[0]
        d = float(np.linalg.norm(u - (u @ n) * n) * 1e3)
        return f"slide {d:.1f} mm", d
    _, a, b = spec
    A, B = body == a, body == b
    # "under A": B's vertices within A's half width of A's centre (in x-z); where there is none
    # (a 3 cm ball over a cloth of 2.5 cm triangles), B's nearest vertex if it is within 1.5 of
    # B's vertex spacing (a wider disc would take in the cloth rising around the ball)
    p0 = x[0, B]
    d2 = ((p0[:, None, :] - p0[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    spacing = float(np.median(np.sqrt(d2.min(axis=1)))) if p0.shape[0] > 1 else 0.0
    for fi in range(x.shape[0]):
        pa, pb = x[fi, A], x[fi, B]
        ca = pa.mean(axis=0)
        rad = 0.5 * max(np.ptp(pa[:, 0]), np.ptp(pa[:, 2]))
        dist = np.hypot(pb[:, 0] - ca[0], pb[:, 2] - ca[2])
        under = dist < rad
        if not under.any() and dist.min() < 1.5 * spacing:
            under = dist == dist.min()
        if not under.any():
            return f"off@{fi}", fi
        if ca[1] <= pb[under, 1].max():
            return f"below@{fi}", fi
    return "above", -1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="*", help='"[label:] key=value ..." (see the module text)')
    ap.add_argument("--exe", default="build/sipd-run")
    ap.add_argument("--scenes", default="scenes/study")
    ap.add_argument("--only", default="", help="comma-separated scene names")
    ap.add_argument("--frames", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("--no-defaults", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="with --out: read the runs already there (their .run.json) instead of running them again")
    a = ap.parse_args()
    if a.reuse and not a.out:
        sys.exit("defaults-study: --reuse needs --out DIR")

    if not os.access(a.exe, os.X_OK):
        sys.exit(f"defaults-study: {a.exe} is not an executable (build first: make)")
    scenes = sorted(f[:-4] for f in os.listdir(a.scenes) if f.endswith(".cfg") and not f.startswith("."))
    if a.only:
        want = a.only.split(",")
        missing = [w for w in want if w not in scenes]
        if missing:
            sys.exit(f"defaults-study: no scene {', '.join(missing)} in {a.scenes}")
        scenes = [s for s in scenes if s in want]
    variants = [] if a.no_defaults else [("defaults", {})]
    variants.append(("newton", {"solver": {"method": '"newton"'}}))
    variants += [parse_variant(v) for v in a.variants]

    out = a.out or tempfile.mkdtemp(prefix="defaults-study-")
    os.makedirs(out, exist_ok=True)
    rows = []
    try:
        for s in scenes:
            scene = os.path.join(a.scenes, s + ".cfg")
            res = {}
            for label, tree in variants:
                h5 = os.path.join(out, f"{s}--{re.sub(r'[^A-Za-z0-9_.+-]+', '_', label)}.h5")
                if os.path.exists(h5) and not a.reuse:
                    os.unlink(h5)
                side = h5[:-3] + ".run.json"
                if a.reuse and os.path.exists(side) and os.path.exists(h5):
                    rc, last, wall = json.load(open(side))
                else:
                    print(f"defaults-study: {s} / {label}", file=sys.stderr, flush=True)
                    rc, last, wall = run(a.exe, scene, tree, h5, a.frames, a.threads)
                    with open(side, "w") as fh:
                        json.dump([rc, last, wall], fh)
                res[label] = (rc, last, wall, read(h5))
            ref = res["newton"][3]
            for label, _ in variants:
                rc, last, wall, r = res[label]
                row = {"scene": s, "variant": label, "exit": rc, "wall_s": round(wall, 2),
                       "message": last if rc != 0 else ""}
                if r is not None:
                    for k in ("solves", "converged", "at_cap", "stalled", "at_floor", "diverged",
                              "mean_iterations", "max_penetration_mm"):
                        row[k] = r[k]
                    row["frames"] = int(r["positions"].shape[0])
                    txt, num = check(s, r)
                    row["check"], row["check_value"] = txt, num
                if r is not None and ref is not None:
                    fi = min(r["positions"].shape[0], ref["positions"].shape[0]) - 1
                    d = np.linalg.norm(r["positions"][fi] - ref["positions"][fi], axis=1) * 1e3
                    motion = float(np.linalg.norm(ref["positions"][fi] - ref["positions"][0], axis=1).max() * 1e3)
                    row.update(compared_frame=fi, diff_max_mm=float(d.max()), diff_mean_mm=float(d.mean()),
                               newton_motion_mm=motion,
                               diff_pct_motion=float(100.0 * d.max() / motion) if motion > 0 else float("nan"))
                rows.append(row)
    finally:
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)

    def f(v, fmt):
        return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else format(v, fmt)

    lines = ["| scene | variant | solves converged | at-cap / stalled (at the energy floor) / diverged | mean its | "
             "max / mean diff to Newton (mm) | % of Newton's motion | Newton's motion (mm) | "
             "deepest penetration (mm) | check | wall (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "solves" not in r:
            lines.append(f"| {r['scene']} | {r['variant']} | no output (exit {r['exit']}: {r['message']}) "
                         f"| | | | | | | | {r['wall_s']:.1f} |")
            continue
        note = ""
        if r["exit"] != 0:
            note = f" (exit {r['exit']}, {r['frames'] - 1} frames)"
        elif "compared_frame" in r and r["compared_frame"] != r["frames"] - 1:
            note = f" (frame {r['compared_frame']})"
        lines.append(
            f"| {r['scene']} | {r['variant']} | {r['converged']} of {r['solves']}{note} | "
            f"{r['at_cap']} / {r['stalled']} ({r['at_floor']}) / {r['diverged']} | {f(r['mean_iterations'], '.0f')} | "
            f"{f(r.get('diff_max_mm'), '.1f')} / {f(r.get('diff_mean_mm'), '.1f')} | "
            f"{f(r.get('diff_pct_motion'), '.1f')} | {f(r.get('newton_motion_mm'), '.0f')} | "
            f"{f(r['max_penetration_mm'], '.2f')} | {r['check']} | {r['wall_s']:.1f} |")
    table = "\n".join(lines) + "\n"
    sys.stdout.write(table)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(table)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    messages = [r for r in rows if r["exit"] != 0]
    for r in messages:
        print(f"defaults-study: {r['scene']} / {r['variant']}: exit {r['exit']}: {r['message']}", file=sys.stderr)


if __name__ == "__main__":
    main()
