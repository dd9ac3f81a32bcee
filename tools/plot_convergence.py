#!/usr/bin/env python3
"""Plot the solver convergence log of a sipd-run output file (HDF5) to one PNG.

    python3 tools/plot_convergence.py OUT.h5 --png results/img/NAME_convergence.png
        [--solves first,middle,last] [--wall] [--size 1100x800]

Four panels:
  residual   the method's own residual r (max|D^-1 g| / bbox diagonal) per iteration, for the
             chosen solves (default: first, middle and last), with the scene's tolerance;
  force      the force residual max_a |g_a| (N) per iteration, the same measure for every method;
  iterations iterations per solve over the run (x = frame + substep/substeps), with each
             solve's final residual on a second axis;
  energy     the incremental potential per iteration, minus the solve's lowest logged value,
             where the iteration evaluated it (the log holds NaN where it did not; e.g. the
             "auto" line search evaluates it only every 8 iterations).
With --wall the per-iteration panels use the solve's wall-clock time (s) instead of the
iteration number.

Reads /convergence/{frame, substep, iterations, residual, energy, history_offset} and
/convergence/history/{residual, force, energy, wall_time}: solve k's rows start at
history_offset[k] and number iterations[k].

Needs numpy, h5py and matplotlib (pip install numpy h5py matplotlib).
"""
import argparse
import os
import re
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("plot_convergence.py: needs numpy, h5py and matplotlib: "
             "pip install numpy h5py matplotlib")

SOLVE_COLOURS = ["#1f5fbf", "#e07b1f", "#2a9d4a", "#c03c3c", "#7b52b8", "#8a6d3b"]


def die(msg, code=2):
    print("plot_convergence.py: " + msg, file=sys.stderr)
    sys.exit(code)


def attr_text(f, key):
    v = f.attrs.get(key)
    if v is None:
        return ""
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def solver_settings(resolved):
    """method, sweep, chebyshev, tolerance, iterations and substeps from the resolved scene."""
    out = {}
    m = re.search(r"solver\s*=\s*\{(.*?)\};", resolved, re.S)
    body = m.group(1) if m else ""
    for key in ("method", "sweep", "chebyshev", "tolerance", "iterations", "projection",
                "line_search"):
        mm = re.search(r"\b%s\s*=\s*\"?([^\";]+)\"?\s*;" % key, body)
        if mm:
            out[key] = mm.group(1).strip()
    m = re.search(r"time\s*=\s*\{(.*?)\};", resolved, re.S)
    if m:
        mm = re.search(r"\bsubsteps\s*=\s*(\d+)", m.group(1))
        if mm:
            out["substeps"] = int(mm.group(1))
        mm = re.search(r"\bquasistatic\s*=\s*(\w+)", m.group(1))
        if mm:
            out["quasistatic"] = mm.group(1)
    return out


def pick_solves(spec, n):
    out = []
    for part in spec.split(","):
        part = part.strip().lower()
        if part == "first":
            out.append(0)
        elif part in ("middle", "mid"):
            out.append(n // 2)
        elif part == "last":
            out.append(n - 1)
        elif part:
            try:
                k = int(part)
            except ValueError:
                die("bad solve '%s' (write first, middle, last or an index)" % part)
            if k < -n or k >= n:
                die("solve %d out of range: the file logs solves 0..%d" % (k, n - 1))
            out.append(k % n)
    seen = []
    for k in out:
        if k not in seen:
            seen.append(k)
    if not seen:
        die("no solves selected")
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Plot the convergence log of a sipd-run HDF5 output file.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("h5", help="sipd-run output file (.h5)")
    ap.add_argument("--png", required=True, help="output image (PNG)")
    ap.add_argument("--solves", default="first,middle,last",
                    help="solves to draw per iteration: first, middle, last and/or 0-based "
                    "indices into /convergence rows (default first,middle,last)")
    ap.add_argument("--wall", action="store_true",
                    help="per-iteration panels against the solve's wall time (s)")
    ap.add_argument("--size", default="1100x800", help="image size WxH in pixels (1100x800)")
    ap.add_argument("--dpi", type=int, default=100, help="dots per inch (100)")
    ap.add_argument("--title", help="title (default: scene name and solver settings)")
    args = ap.parse_args(argv)

    m = re.fullmatch(r"(\d+)[xX](\d+)", args.size)
    if not m:
        ap.error("--size: write WIDTHxHEIGHT, e.g. 1200x860")
    W, H = int(m.group(1)), int(m.group(2))

    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        f = h5py.File(args.h5, "r")
    except OSError as e:
        die("cannot open %s: %s" % (args.h5, e), 1)
    if "convergence/iterations" not in f or "convergence/history/residual" not in f:
        die("%s: no /convergence log (not a sipd-run output file?)" % args.h5, 1)
    c = f["convergence"]
    h = c["history"]
    iters = c["iterations"][()].astype(np.int64)
    n = len(iters)
    if n == 0:
        die("%s: the convergence log is empty (no step was solved)" % args.h5, 1)
    frame = c["frame"][()]
    substep = c["substep"][()]
    final_res = c["residual"][()]
    offset = c["history_offset"][()].astype(np.int64)
    hres = h["residual"][()]
    hforce = h["force"][()]
    henergy = h["energy"][()]
    hwall = h["wall_time"][()]
    nh = len(hres)

    resolved = attr_text(f, "resolved_parameters")
    st = solver_settings(resolved)
    substeps = st.get("substeps") or (int(substep.max()) + 1)
    name = os.path.splitext(os.path.basename(args.h5))[0]
    mm = re.search(r"\(from ([^)]*)\)", resolved.split("\n", 1)[0])
    if mm:
        name = os.path.splitext(os.path.basename(mm.group(1)))[0]
    desc = [st.get("method", "?")]
    if st.get("method", "sipd") in ("sipd",):
        desc.append(st.get("sweep", ""))
    if st.get("chebyshev") == "true":
        desc.append("+ Chebyshev")
    if st.get("projection") and st.get("method", "sipd") == "sipd":
        desc.append("(%s split)" % st["projection"])
    title = args.title or "%s: convergence of %s" % (name, " ".join(d for d in desc if d))
    tol = None
    try:
        tol = float(st["tolerance"])
    except (KeyError, ValueError):
        pass

    def rows(k):
        a = int(offset[k])
        b = min(a + int(iters[k]), nh)
        return slice(a, max(a, b))

    solves = pick_solves(args.solves, n)
    fig, axs = plt.subplots(2, 2, figsize=(W / args.dpi, H / args.dpi), dpi=args.dpi)
    (ax_r, ax_f), (ax_it, ax_e) = axs
    xlabel = "wall time in the solve (s)" if args.wall else "iteration"
    any_energy = False
    for j, k in enumerate(solves):
        col = SOLVE_COLOURS[j % len(SOLVE_COLOURS)]
        s = rows(k)
        it = np.arange(1, s.stop - s.start + 1)
        x = hwall[s] if args.wall else it
        lab = "solve %d: frame %d, substep %d (%d it.)" % (k, frame[k], substep[k], iters[k])
        r = hres[s]
        fo = hforce[s]
        ok = np.isfinite(r) & (r > 0)
        sty = "-" if len(it) > 3 else "o-"         # short solves would be invisible as lines
        ax_r.semilogy(x[ok], r[ok], sty, color=col, lw=1.4, ms=4, label=lab)
        ok = np.isfinite(fo) & (fo > 0)
        ax_f.semilogy(x[ok], fo[ok], sty, color=col, lw=1.4, ms=4)
        e = henergy[s]
        ok = np.isfinite(e)
        if ok.any():
            any_energy = True
            de = e[ok] - e[ok].min()
            pos = de > 0
            ax_e.semilogy(x[ok][pos], de[pos], "o-", color=col, ms=3, lw=1.0)
    if tol is not None:
        ax_r.axhline(tol, color="0.35", ls="--", lw=1)
        ax_r.text(0.55, tol, "tolerance %g" % tol, transform=ax_r.get_yaxis_transform(),
                  ha="center", va="bottom", fontsize=8, color="0.3")
    ax_r.set_title("residual r = max|D⁻¹g| / bbox diagonal (method's own)", fontsize=10)
    ax_r.set_xlabel(xlabel)
    ax_r.set_ylabel("r")
    ax_f.set_title("force residual max |g| (N)", fontsize=10)
    ax_f.set_xlabel(xlabel)
    ax_f.set_ylabel("max |g| (N)")

    # iterations per solve over the run
    xs = frame + substep / float(max(substeps, 1))
    ax_it.plot(xs, iters, "-", color="#1f5fbf", lw=1.2, drawstyle="steps-mid",
               label="iterations")
    ax_it.set_xlabel("frame (+ substep / substeps)")
    ax_it.set_ylabel("iterations per solve", color="#1f5fbf")
    cap = st.get("iterations")
    if cap:
        ax_it.axhline(float(cap), color="#1f5fbf", ls=":", lw=1)
        ax_it.text(0.01, float(cap), "cap %s" % cap, transform=ax_it.get_yaxis_transform(),
                   ha="left", va="bottom", fontsize=8, color="#1f5fbf")
    ax_it.set_ylim(bottom=0, top=max(float(cap or 0), iters.max()) * 1.12 + 1)
    for j, k in enumerate(solves):
        ax_it.plot(xs[k], iters[k], "o", color=SOLVE_COLOURS[j % len(SOLVE_COLOURS)], ms=6,
                   zorder=5)
    ax2 = ax_it.twinx()
    ok = np.isfinite(final_res) & (final_res > 0)
    ax2.semilogy(xs[ok], final_res[ok], ".", color="#c03c3c", ms=2.5, alpha=0.6)
    ax2.set_ylabel("final residual r (dots)", color="#c03c3c")
    if ok.any():
        lo, hi = final_res[ok].min(), final_res[ok].max()
        if tol is not None:
            ax2.axhline(tol, color="#c03c3c", ls="--", lw=0.8, alpha=0.6)
            lo, hi = min(lo, tol), max(hi, tol)
        # a few decades around the data so the dots sit in a band and do not hide the steps
        ax2.set_ylim(lo / 1e3, hi * 10)
    ax_it.set_title("iterations per solve (%d solves, %d frames)" % (n, int(frame.max())),
                    fontsize=10)

    ax_e.set_title("energy above the solve's lowest logged value", fontsize=10)
    ax_e.set_xlabel(xlabel)
    ax_e.set_ylabel("E − min E (J)")
    if any_energy:
        frac = np.isfinite(henergy).mean() if nh else 0.0
        ax_e.text(0.99, 0.98, "energy logged at %.0f%% of iterations" % (100 * frac),
                  transform=ax_e.transAxes, ha="right", va="top", fontsize=8, color="0.3")
    else:
        ax_e.text(0.5, 0.5, "energy not logged for these solves", transform=ax_e.transAxes,
                  ha="center", va="center", color="0.4")
    for ax in (ax_r, ax_f, ax_e, ax_it):
        ax.grid(True, which="major", alpha=0.3)
    fig.suptitle(title, fontsize=13, fontweight="bold", y=0.985)
    fig.legend(*ax_r.get_legend_handles_labels(), loc="upper center", ncol=min(3, len(solves)),
               fontsize=9, frameon=False, bbox_to_anchor=(0.5, 0.955))
    fig.tight_layout(rect=(0, 0, 1, 0.925))
    d = os.path.dirname(args.png)
    if d:
        os.makedirs(d, exist_ok=True)
    fig.savefig(args.png, dpi=args.dpi)
    print("plot_convergence.py: wrote %s" % args.png, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
