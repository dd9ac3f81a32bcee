#!/usr/bin/env python3
"""Convergence study: run one scene with several solvers and compare how they converge.

    python3 tools/convergence_study.py SCENE [--methods LIST] [--nu NU] [--frames 1]
        [--iterations N] [--tolerance T] [--out results/convergence/NAME] [--threads N]
    python3 tools/convergence_study.py --summarize results/convergence

For every method label (table METHODS below) the scene is copied with its `solver` group
replaced (and, with --nu, every material's `poisson` replaced), run with build/sipd-run, and
the HDF5 convergence log of the FIRST solve (frame 1, substep 0) is read.  Outputs, next to
each other: NAME-residual.png (relative force residual vs iteration and vs wall time),
NAME-linesearch.png (step-length statistics), NAME.md (table) and NAME.json (the numbers).

Common residual.  Each method's own `residual` (max|D^-1 g| / bbox diagonal) depends on its
preconditioner D, so methods are compared by the force residual max_a |g_a| (N), logged for
every method, divided by F0 = the force residual of the initial iterate of the solve.  F0 is
measured once per scene by a one-iteration probe run (Jacobi sweeps log the force of the
iterate they start from; Gauss-Seidel sweeps log each vertex's force just before its own
update, i.e. mid-sweep, so their first row is not F0).

"Iterations to 1e-3" = the 1-based number of the first logged iteration whose relative force
is <= 1e-3; "time" = the solve's wall clock at the end of that iteration.  For Jacobi sweeps
the force is that of the iterate the iteration starts from, so both are conservative by one
iteration.

Scene conveniences: relative mesh paths are rewritten to absolute ones (the modified scene
lives in a temporary directory); a comment line `# genbox: MESHPATH NX NY NZ LX LY LZ` makes
the script generate MESHPATH with build/tools/sipd-genbox (into the temporary directory) when
it does not exist next to the scene.

Needs numpy, h5py and matplotlib (pip install numpy h5py matplotlib); nothing else in the
project depends on them.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

# ---------------------------------------------------------------------------------------------
# Method labels -> solver keys (libconfig text; floats written with a decimal point).
# Jacobi-sweep methods without Chebyshev use line_search "always" (a backtracking search every
# iteration, so the logged step length is the accepted one).  SIPD's Chebyshev runs use "auto"
# (energy checked every 8 iterations, the recurrence restarted if it rose: the designed
# configuration; "-always" checks every iteration).  The block/diag Chebyshev comparisons use
# "always": under "auto" their unchecked windows diverge and are restored, and the log then
# shows the discarded iterates ("-auto" labels keep that variant).  Gauss-Seidel sweeps use
# "auto" (= per-vertex backtracking, without the total-energy evaluation per sweep that
# "always" adds only for the log).
# ---------------------------------------------------------------------------------------------
METHODS = {
    # label                  solver keys
    "sipd-jacobi":           'method = "sipd"; sweep = "jacobi"; projection = "expanded"; chebyshev = false; line_search = "always";',
    "sipd-jacobi-auto":      'method = "sipd"; sweep = "jacobi"; projection = "expanded"; chebyshev = false; line_search = "auto";',
    "sipd-jacobi-cheb":      'method = "sipd"; sweep = "jacobi"; projection = "expanded"; chebyshev = true; chebyshev_rho = 0.0; line_search = "auto";',
    "sipd-jacobi-cheb-always": 'method = "sipd"; sweep = "jacobi"; projection = "expanded"; chebyshev = true; chebyshev_rho = 0.0; line_search = "always";',
    "sipd-jacobi-sign":      'method = "sipd"; sweep = "jacobi"; projection = "sign"; chebyshev = false; line_search = "always";',
    "sipd-jacobi-sign-cheb": 'method = "sipd"; sweep = "jacobi"; projection = "sign"; chebyshev = true; chebyshev_rho = 0.0; line_search = "auto";',
    "sipd-gs":               'method = "sipd"; sweep = "gauss-seidel"; projection = "sign"; line_search = "auto";',
    "sipd-gs-expanded":      'method = "sipd"; sweep = "gauss-seidel"; projection = "expanded"; line_search = "auto";',
    "sipd-gs-sor":           'method = "sipd"; sweep = "gauss-seidel"; projection = "sign"; omega = 1.8; line_search = "auto";',
    "sipd-clamp":            'method = "sipd"; sweep = "jacobi"; projection = "clamp"; chebyshev = false; line_search = "always";',
    "sipd-abs":              'method = "sipd"; sweep = "jacobi"; projection = "abs"; chebyshev = false; line_search = "always";',
    "sipd-none":             'method = "sipd"; sweep = "jacobi"; projection = "none"; chebyshev = false; line_search = "always";',
    "vbd":                   'method = "vbd"; line_search = "auto";',
    "vbd-sor":               'method = "vbd"; omega = 1.8; line_search = "auto";',
    "block-jacobi":          'method = "block-jacobi"; chebyshev = false; line_search = "always";',
    "block-jacobi-cheb":     'method = "block-jacobi"; chebyshev = true; chebyshev_rho = 0.0; line_search = "always";',
    "block-jacobi-cheb-auto": 'method = "block-jacobi"; chebyshev = true; chebyshev_rho = 0.0; line_search = "auto";',
    "diag-jacobi":           'method = "diag-jacobi"; chebyshev = false; line_search = "always";',
    "diag-jacobi-cheb":      'method = "diag-jacobi"; chebyshev = true; chebyshev_rho = 0.0; line_search = "always";',
    "diag-jacobi-cheb-auto": 'method = "diag-jacobi"; chebyshev = true; chebyshev_rho = 0.0; line_search = "auto";',
    "gd":                    'method = "gd"; chebyshev = false; line_search = "always";',
    "newton":                'method = "newton"; line_search = "always";',
}
# Methods whose iterations are far more expensive get their own cap (a Newton step = a PCG solve).
MAX_ITERATIONS = {"newton": 100}
# Gauss-Seidel sweeps (their step statistics are per-vertex halvings, not a global alpha).
GS_METHODS = {"sipd-gs", "sipd-gs-expanded", "sipd-gs-sor", "vbd", "vbd-sor"}
# Reference for the time ratios.
VBD = "vbd"
THRESHOLDS = (1e-3, 1e-5)
DEFAULT_METHODS = "sipd-jacobi-cheb,sipd-jacobi,sipd-jacobi-sign,sipd-gs,sipd-gs-expanded,vbd,block-jacobi-cheb,diag-jacobi-cheb,gd,newton"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENBOX = os.path.join(ROOT, "build", "tools", "sipd-genbox")


def style(label, i):
    """Line colour/style: SIPD variants solid, comparison methods dashed, Newton black."""
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("tab20")
    fixed = {"vbd": ("tab:red", "--"), "vbd-sor": ("darkred", ":"), "newton": ("black", "-."),
             "gd": ("tab:gray", "--"), "block-jacobi": ("tab:orange", "--"),
             "block-jacobi-cheb": ("tab:orange", "-."), "block-jacobi-cheb-auto": ("peru", ":"),
             "diag-jacobi": ("tab:purple", "--"), "diag-jacobi-cheb": ("tab:purple", "-."),
             "diag-jacobi-cheb-auto": ("orchid", ":")}
    if label in fixed:
        return fixed[label]
    sipd = ["sipd-jacobi-cheb", "sipd-jacobi-cheb-always", "sipd-jacobi", "sipd-jacobi-auto", "sipd-jacobi-sign",
            "sipd-jacobi-sign-cheb", "sipd-gs", "sipd-gs-expanded", "sipd-gs-sor", "sipd-clamp",
            "sipd-abs", "sipd-none"]
    colours = ["tab:blue", "navy", "tab:cyan", "steelblue", "tab:green", "limegreen", "tab:brown",
               "tab:olive", "tab:pink", "goldenrod", "slategray", "deeppink"]
    if label in sipd:
        return colours[sipd.index(label)], "-"
    return cmap(i % 20), "-"


# ------------------------------------------------------------------------ scene text handling
def strip_comments(text):
    """Blank out comments (#, //, /* */) outside strings, keeping offsets."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif c == "#" or text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def find_top_group(text, name):
    """(start, end) of the top-level setting `name = { ... };`, or None."""
    clean = strip_comments(text)
    depth, i, n = 0, 0, len(clean)
    pat = re.compile(r"\b%s\s*[=:]\s*\{" % re.escape(name))
    while i < n:
        c = clean[i]
        if c == '"':
            i = clean.find('"', i + 1) + 1
            continue
        if depth == 0:
            m = pat.match(clean, i)
            if m and (i == 0 or not (clean[i - 1].isalnum() or clean[i - 1] == "_")):
                j, d = m.end(), 1
                while d and j < n:
                    d += {"{": 1, "}": -1}.get(clean[j], 0)
                    j += 1
                k = j
                while k < n and clean[k] in " \t":
                    k += 1
                if k < n and clean[k] in ";,":
                    j = k + 1
                return i, j
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        i += 1
    return None


def make_scene(text, scene_dir, tmpdir, solver_keys, nu):
    """The scene text with the solver group replaced, poisson overridden, meshes absolute."""
    # meshes generated from `# genbox:` lines when missing
    gen = {}
    for m in re.finditer(r"^#\s*genbox:\s*(\S+)\s+(.+)$", text, re.M):
        gen[m.group(1)] = m.group(2).split()

    def mesh_path(m):
        p = m.group(2)
        if os.path.isabs(p):
            return m.group(0)
        full = os.path.normpath(os.path.join(scene_dir, p))
        exists = os.path.exists(full) or glob.glob(full + ".*")
        if not exists and p in gen:
            full = os.path.join(tmpdir, "mesh-" + re.sub(r"[^A-Za-z0-9_.-]", "_", p))
            if not glob.glob(full + ".node"):
                subprocess.run([GENBOX] + gen[p] + [full], check=True, stdout=subprocess.DEVNULL)
        return '%s"%s"' % (m.group(1), full)

    text = re.sub(r'(\bmesh\s*[=:]\s*)"([^"]*)"', mesh_path, text)
    if nu is not None:
        text, n = re.subn(r"(\bpoisson\s*[=:]\s*)[-+0-9.eE]+", lambda m: m.group(1) + repr(float(nu)), text)
        if n == 0:
            sys.exit("--nu given but the scene sets no poisson ratio")
    group = "solver = { %s };" % solver_keys
    span = find_top_group(text, "solver")
    if span:
        text = text[:span[0]] + group + text[span[1]:]
    else:
        text = text.rstrip("\n") + "\n" + group + "\n"
    return text


def solver_keys(label, iterations, tolerance):
    its = min(iterations, MAX_ITERATIONS.get(label, iterations))
    return "%s iterations = %d; tolerance = %s;" % (METHODS[label], its, repr(float(tolerance)))


# ------------------------------------------------------------------------------ running, reading
def run_scene(exe, scene_text, tmpdir, tag, frames, threads):
    path = os.path.join(tmpdir, tag + ".cfg")
    out = os.path.join(tmpdir, tag + ".h5")
    with open(path, "w") as f:
        f.write(scene_text)
    cmd = [exe, path, "--output", out, "--frames", str(frames), "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr.strip(), out


def first_solve(h5path):
    """Per-iteration arrays of the first solve and its per-solve row."""
    import h5py
    with h5py.File(h5path, "r") as f:
        c = f["convergence"]
        h = c["history"]
        o, n = int(c["history_offset"][0]), int(c["iterations"][0])
        d = {k: np.asarray(h[k][o:o + n], dtype=float) for k in ("residual", "energy", "alpha", "force", "wall_time")}
        d["ls_steps"] = int(c["line_search_steps"][0])
        d["solve_wall"] = float(c["wall_time"][0])
        d["nv"] = int(f["mesh/rest_positions"].shape[0])
        d["nt"] = int(f["mesh/tets"].shape[0])
    return d


def reach(rel, wall, tol):
    idx = np.nonzero(rel <= tol)[0]
    if len(idx) == 0:
        return None, None
    k = int(idx[0])
    return k + 1, float(wall[k])


def line_stats(label, d, budget):
    a = d["alpha"]
    if 0 < len(a) < budget and label not in GS_METHODS:
        a = a[:-1]            # a solve that stopped early logs a last row without a step
    n = len(a)
    s = {"iterations": n, "halvings": d["ls_steps"]}
    if label in GS_METHODS:
        s["halvings_per_vertex_sweep"] = d["ls_steps"] / max(1, n * d["nv"])
    else:
        s["full"] = float(np.mean(a == 1.0)) if n else 0.0
        s["reduced"] = float(np.mean((a > 0) & (a < 1))) if n else 0.0
        s["rejected"] = float(np.mean(a == 0)) if n else 0.0
        s["cheb"] = float(np.mean(a > 1)) if n else 0.0
    return s


# ------------------------------------------------------------------------------------- output
def fmt_int(v):
    return "—" if v is None else str(v)


def fmt_ms(v):
    return "—" if v is None else ("%.1f" % (1e3 * v) if v < 10 else "%.0f" % (1e3 * v))


def ratio(res, label, tol):
    """time-to-tol(label) / time-to-tol(vbd), with bounds when one side never got there."""
    a, b = res.get(label), res.get(VBD)
    if not a or not b or "error" in a or "error" in b:
        return None, "n/a"
    ta, tb = a["reach"][str(tol)][1], b["reach"][str(tol)][1]
    Ta, Tb = a["wall_total"], b["wall_total"]
    if ta is not None and tb is not None:
        r = ta / tb
        return r, "%.2f" % r
    if ta is not None:            # VBD never reached: ratio < ta / (VBD's whole run)
        return None, "< %.2f" % (ta / Tb)
    if tb is not None and Ta / tb >= 0.005:   # (a run that stopped at once bounds nothing)
        return None, "> %.2f" % (Ta / tb)
    return None, "—"


def machine_info():
    cpu = "unknown"
    try:
        for line in subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
        if dirty:
            rev += " (working tree modified)"
    except OSError:
        rev = "unknown"
    return cpu, rev, os.cpu_count()


def shrink_png(path):
    """Re-save as a 256-colour palette PNG (about 3x smaller, visually the same)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        q = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    q.save(path, optimize=True)


def plot_residual(res, labels, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(12.5, 4.6), dpi=90)
    lo = 1.0
    for i, lab in enumerate(labels):
        r = res.get(lab)
        if not r or "error" in r:
            continue
        c, ls = style(lab, i)
        rel = np.maximum(np.array(r["rel"]), 1e-16)
        lo = min(lo, float(rel.min()) if len(rel) else lo)
        it = np.arange(1, len(rel) + 1)
        ax[0].semilogy(it, rel, ls, color=c, lw=1.3, label=lab)
        ax[1].loglog(1e3 * np.array(r["wall"]), rel, ls, color=c, lw=1.3, label=lab)
    for a in ax:
        for t in THRESHOLDS:
            a.axhline(t, color="0.6", lw=0.7, ls=":")
        a.set_ylabel("relative force residual  max|g| / max|g$_0$|")
        a.grid(True, which="major", alpha=0.3)
        a.set_ylim(bottom=max(1e-13, min(1e-6, lo / 3)), top=10)
    ax[0].set_xlabel("iteration (sweep / Newton step)")
    ax[1].set_xlabel("wall time since the start of the solve (ms, log scale)")
    h, l = ax[0].get_legend_handles_labels()
    fig.legend(h, l, fontsize=8, loc="center right", frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.85, 1))
    fig.savefig(path)
    plt.close(fig)
    shrink_png(path)


def plot_linesearch(res, labels, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    jac = [l for l in labels if l in res and "error" not in res[l] and l not in GS_METHODS]
    gs = [l for l in labels if l in res and "error" not in res[l] and l in GS_METHODS]
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4), dpi=90, gridspec_kw={"width_ratios": [1.1, 1.6, 0.8]})
    # (1) outcome of each Jacobi-type iteration
    parts = [("full", "full step (α = 1)", "tab:green"), ("reduced", "reduced (0 < α < 1)", "tab:orange"),
             ("rejected", "rejected / undone (α = 0)", "tab:red"), ("cheb", "Chebyshev step (ω > 1)", "tab:blue")]
    y = np.arange(len(jac))
    left = np.zeros(len(jac))
    for key, name, col in parts:
        v = np.array([res[l]["ls"][key] for l in jac])
        ax[0].barh(y, v, left=left, color=col, label=name)
        left += v
    ax[0].set_yticks(y)
    ax[0].set_yticklabels(jac, fontsize=8)
    ax[0].invert_yaxis()
    ax[0].set_xlim(0, 1)
    ax[0].set_xlabel("fraction of iterations")
    ax[0].set_title("Jacobi-type sweeps: accepted step", fontsize=9)
    ax[0].legend(fontsize=7, loc="lower right", framealpha=0.9)
    # (2) distribution of the accepted step length alpha = 2^-k over the iterations, per method
    kmax = 16
    M = np.full((len(jac), kmax + 2), np.nan)
    for i, l in enumerate(jac):
        al = np.array(res[l]["alpha"])
        if len(al) == 0:
            continue
        k = np.clip(np.round(-np.log2(np.where((al > 0) & (al <= 1), al, 1.0))), 0, kmax)
        for j in range(kmax + 1):
            M[i, j] = np.sum(((al > 0) & (al <= 1)) & (k == j)) / len(al)
        M[i, kmax + 1] = np.sum(al > 1) / len(al)
    Mp = np.where(M > 0, M, np.nan)
    im = ax[1].imshow(Mp, aspect="auto", cmap="viridis", norm=matplotlib.colors.LogNorm(vmin=1e-3, vmax=1),
                      interpolation="nearest")
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] >= 0.01:
                ax[1].text(j, i, "%.0f" % (100 * M[i, j]), ha="center", va="center", fontsize=6.5,
                           color="white" if M[i, j] < 0.3 else "black")
    ax[1].set_yticks(np.arange(len(jac)))
    ax[1].set_yticklabels(jac, fontsize=8)
    ax[1].set_xticks(list(range(0, kmax, 2)) + [kmax, kmax + 1])
    ax[1].set_xticklabels([str(j) for j in range(0, kmax, 2)] + ["≥%d" % kmax, "ω>1"], fontsize=8)
    ax[1].set_xlabel("halvings k of the accepted step α = 2$^{-k}$ (last column: Chebyshev ω > 1)")
    ax[1].set_title("Jacobi-type sweeps: % of iterations per accepted step length", fontsize=9)
    fig.colorbar(im, ax=ax[1], fraction=0.04, pad=0.02)
    # (3) Gauss-Seidel: per-vertex backtracking
    if gs:
        v = [res[l]["ls"]["halvings_per_vertex_sweep"] for l in gs]
        ax[2].barh(np.arange(len(gs)), v, color=[style(l, 0)[0] for l in gs])
        ax[2].set_yticks(np.arange(len(gs)))
        ax[2].set_yticklabels(gs, fontsize=8)
        ax[2].invert_yaxis()
        for i, x in enumerate(v):
            ax[2].text(x, i, " %.3f" % x, va="center", fontsize=7)
        ax[2].set_xlim(0, max(max(v) * 1.4, 0.05))
    ax[2].set_xlabel("halvings per vertex update")
    ax[2].set_title("Gauss–Seidel sweeps: local line search", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    shrink_png(path)


def write_markdown(res, labels, meta, path):
    L = []
    L.append("# Convergence study: %s" % meta["name"])
    L.append("")
    L.append("- date (UTC): %s; commit %s; `%s`; CPU: %s (%s logical CPUs), CPU backend, float64%s"
             % (meta["date"], meta["commit"], meta["version"], meta["cpu"], meta["ncpu"],
                ", --threads %s" % meta["threads"] if meta["threads"] else ""))
    L.append("- scene: `%s`%s; %d vertices, %d tets; first solve (frame 1, substep 0) of the run"
             % (meta["scene"], ", Poisson ratio overridden to ν = %s" % meta["nu"] if meta["nu"] is not None else "",
                meta["nv"], meta["nt"]))
    L.append("- budget: %d iterations per method (Newton %d), solver tolerance %g (r = max|D⁻¹g|/bbox, "
             "method-dependent; small enough that methods run their budget or stop at round-off)"
             % (meta["iterations"], min(meta["iterations"], MAX_ITERATIONS["newton"]), meta["tolerance"]))
    L.append("- relative residual = max_a |g_a| / F0, F0 = %.4g N (force of the initial iterate); "
             "same measure for every method" % meta["F0"])
    L.append("- command: `%s`%s" % (meta["command"], " (one step of `%s`)" % meta["part_of"] if meta.get("part_of") else ""))
    L.append("")
    L.append("| method | iterations to 1e-3 | time to 1e-3 (ms) | iterations to 1e-5 | time to 1e-5 (ms) "
             "| final rel. residual | iterations run | ms / iteration | full steps | time ratio / VBD at 1e-3 | at 1e-5 |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lab in labels:
        r = res.get(lab)
        if not r:
            continue
        if "error" in r:
            L.append("| %s | %s | | | | | | | | | |" % (lab, r["error"].replace("|", "/")[:120]))
            continue
        i3, t3 = r["reach"][str(THRESHOLDS[0])]
        i5, t5 = r["reach"][str(THRESHOLDS[1])]
        n = len(r["rel"])
        full = "—" if lab in GS_METHODS else "%.0f%%" % (100 * r["ls"]["full"])
        r3 = ratio(res, lab, THRESHOLDS[0])[1] if lab != VBD else "1"
        r5 = ratio(res, lab, THRESHOLDS[1])[1] if lab != VBD else "1"
        L.append("| %s | %s | %s | %s | %s | %.2e | %d | %.3f | %s | %s | %s |"
                 % (lab, fmt_int(i3), fmt_ms(t3), fmt_int(i5), fmt_ms(t5), r["rel"][-1] if n else float("nan"),
                    n, 1e3 * r["wall_total"] / max(n, 1), full, r3, r5))
    L.append("")
    L.append("Solver keys per label:")
    L.append("")
    for lab in labels:
        L.append("- `%s`: `%s`" % (lab, METHODS[lab]))
    L.append("")
    L.append("\"—\": not reached within the budget. Ratios < 1 mean faster than VBD; \"< x\" / \"> x\": "
             "one side never reached the level, bound from its whole run. \"full steps\": fraction of "
             "iterations whose accepted step length was exactly 1 (Jacobi-type sweeps; Chebyshev "
             "steps count as ω > 1, not full). Wall times are single runs on a shared machine.")
    L.append("")
    L.append("Plots: `%s`, `%s`." % (os.path.basename(meta["png_res"]), os.path.basename(meta["png_ls"])))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    return "\n".join(L)


# ------------------------------------------------------------------------------------- summary
def summarize(directory):
    """summary.md: one line per case with the SIPD/VBD time ratios and full-step fractions."""
    rows = []
    for p in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(p) as f:
            rows.append(json.load(f))
    if not rows:
        sys.exit("no *.json in %s" % directory)
    L = ["# Convergence study: summary", "",
         "Time to reach a relative force residual of 1e-3 / 1e-5, as a ratio method / VBD measured in "
         "the same run (< 1: faster than VBD; Newton = the PCG reference, for scale). Generated by `python3 tools/convergence_study.py --summarize %s` from the "
         "per-case `.json` files; each case's `.md` has the date, commit, CPU and command." % directory, ""]
    main = ("sipd-jacobi-cheb", "sipd-gs", "sipd-gs-expanded", "sipd-jacobi", "sipd-jacobi-sign", "newton")
    present = [l for l in main if any(l in r["results"] for r in rows)]
    head = "| case | ν | VBD time to 1e-3 / 1e-5 (ms) | " + " | ".join("%s 1e-3 / 1e-5" % l for l in present) + " |"
    L += [head, "|---|---:|---:|" + "---:|" * len(present)]
    for r in rows:
        res = r["results"]
        v = res.get(VBD, {})
        vt = " / ".join(fmt_ms(v["reach"][str(t)][1]) if v and "error" not in v else "n/a" for t in THRESHOLDS)
        cells = []
        for l in present:
            cells.append(" / ".join(ratio(res, l, t)[1] for t in THRESHOLDS) if l in res else "")
        L.append("| %s | %s | %s | %s |" % (r["meta"]["name"], r["meta"]["nu"] if r["meta"]["nu"] is not None else "scene",
                                            vt, " | ".join(cells)))
    L += ["", "Fraction of iterations with the full step (α = 1) accepted, plain Jacobi sweeps with a "
          "line search every iteration:", ""]
    jl = [l for l in ("sipd-jacobi", "sipd-jacobi-sign", "sipd-clamp", "sipd-abs", "sipd-none", "block-jacobi",
                      "diag-jacobi", "gd") if any(l in r["results"] for r in rows)]
    L += ["| case | ν | " + " | ".join(jl) + " |", "|---|---:|" + "---:|" * len(jl)]
    for r in rows:
        res = r["results"]
        cells = []
        for l in jl:
            x = res.get(l)
            cells.append("%.0f%%" % (100 * x["ls"]["full"]) if x and "error" not in x else "")
        L.append("| %s | %s | %s |" % (r["meta"]["name"], r["meta"]["nu"] if r["meta"]["nu"] is not None else "scene",
                                       " | ".join(cells)))
    L += ["", "Final relative force residual after the budget (iterations run in brackets):", ""]
    al = [l for l in METHODS if any(l in r["results"] for r in rows)]
    L += ["| case | ν | " + " | ".join(al) + " |", "|---|---:|" + "---:|" * len(al)]
    for r in rows:
        res = r["results"]
        cells = []
        for l in al:
            x = res.get(l)
            cells.append("%.0e (%d)" % (x["final"], x["n"]) if x and "error" not in x and x["n"]
                         else ("error" if x else ""))
        L.append("| %s | %s | %s |" % (r["meta"]["name"], r["meta"]["nu"] if r["meta"]["nu"] is not None else "scene",
                                       " | ".join(cells)))
    text = "\n".join(L) + "\n"
    with open(os.path.join(directory, "summary.md"), "w") as f:
        f.write(text)
    print(text)


# ---------------------------------------------------------------------------------------- main
def main():
    global GENBOX
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", nargs="?")
    ap.add_argument("--methods", default=DEFAULT_METHODS,
                    help="comma-separated labels (default %(default)s); known: " + ", ".join(METHODS))
    ap.add_argument("--nu", type=float, help="override every material's Poisson ratio")
    ap.add_argument("--frames", type=int, default=1, help="frames to run (only the first solve is analysed)")
    ap.add_argument("--iterations", type=int, default=2000, help="iteration budget per solve")
    ap.add_argument("--tolerance", type=float, default=1e-12, help="solver.tolerance (default %(default)g)")
    ap.add_argument("--threads", type=int, default=0, help="--threads for sipd-run (default: its own)")
    ap.add_argument("--out", help="output prefix (default results/convergence/<scene>[-nuX])")
    ap.add_argument("--title", help="plot title prefix")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "sipd-run"))
    ap.add_argument("--genbox", default=GENBOX, help="sipd-genbox for `# genbox:` meshes")
    ap.add_argument("--keep", action="store_true", help="keep the temporary scenes and HDF5 files")
    ap.add_argument("--summarize", metavar="DIR", help="only write DIR/summary.md from DIR/*.json")
    a = ap.parse_args()
    if a.summarize:
        summarize(a.summarize)
        return
    if not a.scene:
        ap.error("SCENE is required")
    labels = [l.strip() for l in a.methods.split(",") if l.strip()]
    bad = [l for l in labels if l not in METHODS]
    if bad:
        ap.error("unknown method label(s) %s; known: %s" % (", ".join(bad), ", ".join(METHODS)))
    if not os.access(a.exe, os.X_OK):
        sys.exit("%s not found: build it with `make` first" % a.exe)
    GENBOX = a.genbox
    version = subprocess.run([a.exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True).stdout.strip().splitlines()
    version = version[0] if version else "unknown"
    scene = os.path.abspath(a.scene)
    base = os.path.splitext(os.path.basename(scene))[0]
    name = base + ("-nu%s" % ("%g" % a.nu) if a.nu is not None else "")
    out = a.out or os.path.join(ROOT, "results", "convergence", name)
    name = os.path.basename(out)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(scene) as f:
        text = f.read()
    tmpdir = tempfile.mkdtemp(prefix="sipd-conv-")
    quasi = re.search(r"\bquasistatic\s*[=:]\s*true", strip_comments(text)) is not None
    try:
        # F0: one Jacobi iteration logs the force of the initial iterate
        probe = make_scene(text, os.path.dirname(scene), tmpdir,
                           'method = "sipd"; sweep = "jacobi"; chebyshev = false; line_search = "never"; '
                           'iterations = 1; tolerance = 0.0;', a.nu)
        rc, err, h5 = run_scene(a.exe, probe, tmpdir, "probe", 1, a.threads)
        if rc != 0:
            sys.exit("probe run failed (exit %d): %s" % (rc, err))
        p = first_solve(h5)
        F0, nv, nt = float(p["force"][0]), p["nv"], p["nt"]
        res = {}
        for lab in labels:
            if lab == "gd" and quasi:
                res[lab] = {"error": "not run: gd is rejected with time.quasistatic = true"}
                print("%-22s skipped (quasistatic)" % lab, file=sys.stderr)
                continue
            sc = make_scene(text, os.path.dirname(scene), tmpdir, solver_keys(lab, a.iterations, a.tolerance), a.nu)
            t0 = time.time()
            rc, err, h5 = run_scene(a.exe, sc, tmpdir, lab, a.frames, a.threads)
            if rc != 0 and not os.path.exists(h5):
                res[lab] = {"error": "exit %d: %s" % (rc, err.splitlines()[-1] if err else "")}
                print("%-22s FAILED: %s" % (lab, res[lab]["error"]), file=sys.stderr)
                continue
            try:
                d = first_solve(h5)
            except Exception as e:  # noqa: BLE001 (a run that died before its first solve)
                res[lab] = {"error": "exit %d: %s (%s)" % (rc, err.splitlines()[-1] if err else "", e)}
                print("%-22s FAILED: %s" % (lab, res[lab]["error"]), file=sys.stderr)
                continue
            rel = d["force"] / F0
            budget = min(a.iterations, MAX_ITERATIONS.get(lab, a.iterations))
            steps = d["alpha"] if len(rel) >= budget or lab in GS_METHODS else d["alpha"][:-1]
            r = {"rel": rel.tolist(), "wall": d["wall_time"].tolist(), "alpha": steps.tolist(),
                 "wall_total": float(d["wall_time"][-1]) if len(rel) else 0.0,
                 "reach": {str(t): reach(rel, d["wall_time"], t) for t in THRESHOLDS},
                 "ls": line_stats(lab, d, budget),
                 "exit": rc}
            if rc != 0:
                r["note"] = err.splitlines()[-1] if err else "exit %d" % rc
            res[lab] = r
            print("%-22s %6d its  %8.3f s  final %.2e  (run %.1f s)%s"
                  % (lab, len(rel), r["wall_total"], rel[-1] if len(rel) else float("nan"), time.time() - t0,
                     "  exit %d" % rc if rc else ""), file=sys.stderr)
            if not a.keep:
                os.remove(h5)
    finally:
        if a.keep:
            print("kept %s" % tmpdir, file=sys.stderr)
        else:
            shutil.rmtree(tmpdir, ignore_errors=True)
    cpu, rev, ncpu = machine_info()
    argv, skip = [], False
    for x in sys.argv[1:]:                      # private binary copies are not part of the recipe
        if skip or x in ("--exe", "--genbox") or x.startswith(("--exe=", "--genbox=")):
            skip = x in ("--exe", "--genbox")
            continue
        argv.append(os.path.relpath(x, ROOT) if os.path.isabs(x) and x.startswith(ROOT) else x)
    meta = {"name": name, "scene": os.path.relpath(scene, ROOT), "nu": a.nu, "nv": nv, "nt": nt, "F0": F0,
            "iterations": a.iterations, "tolerance": a.tolerance, "frames": a.frames, "threads": a.threads,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "commit": rev, "cpu": cpu, "ncpu": ncpu, "version": version,
            "command": "python3 tools/convergence_study.py " + " ".join(shlex.quote(x) for x in argv),
            "part_of": os.environ.get("STUDY_COMMAND"),
            "png_res": out + "-residual.png", "png_ls": out + "-linesearch.png"}
    title = (a.title + ": " if a.title else "") + "%s%s, %d tets, first solve" % (
        meta["scene"], ", ν = %g" % a.nu if a.nu is not None else "", nt)
    plot_residual(res, labels, title, meta["png_res"])
    plot_linesearch(res, labels, title, meta["png_ls"])
    print(write_markdown(res, labels, meta, out + ".md"))
    with open(out + ".json", "w") as f:
        slim = {}
        for k, v in res.items():     # the per-iteration arrays stay out (size); keep what summary needs
            slim[k] = v if "error" in v else dict(
                {kk: vv for kk, vv in v.items() if kk not in ("alpha", "rel", "wall")},
                final=v["rel"][-1] if v["rel"] else None, n=len(v["rel"]))
        json.dump({"meta": meta, "labels": labels, "results": slim}, f, indent=1)


if __name__ == "__main__":
    main()
