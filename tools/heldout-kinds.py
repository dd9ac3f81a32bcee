#!/usr/bin/env python3
"""heldout-kinds.py — held-out gmsh cloth, strip and rod through sipd-run (issue 13, "done when").

The meshes were written by gmsh 4.8.4 from tools/meshes/ho_{cloth,strip,rod}.geo into
tests/data/meshes/ and were not used while the shell and rod code was developed.  The scenes are
written here against the scene keys of docs/design.md §4 only (mesh, material, thickness, radius, pin,
time, solver), and sipd-run runs as a user runs it (a subprocess; the answer read back from the
HDF5 file's /frames/positions and /convergence).

Two checks per body:
  theory   (strip, rod) quasi-static, newton (and two-level SIPD on the rod; on the strip it
           stalls at relative residual ~5 after 50000 iterations, docs/verification.md): the tip deflection against
           Kirchhoff plate theory q L^4 / (8 D), D = E t^3 / 12 (nu = 0, the mean over the tip
           edge's vertices) and Euler-Bernoulli q L^4 / (8 E I), I = pi r^4 / 4, q the weight
           per length (rod) or per area (strip).  Every solve must report converged.
  methods  (cloth, strip, rod) a few dynamic frames at dt = 1/60 with every method (tight
           tolerance, a generous iteration cap); the last frame's positions against Newton's,
           relative to the model size (the rest bounding box diagonal).  Every solve of newton,
           sipd (Jacobi + Chebyshev, Gauss-Seidel, two-level) and vbd must report converged;
           the baselines block-jacobi, diag-jacobi and gd (METHODS below) must not diverge; so
           must mixed-fem on the cloth (asserted like the others on the strip and the rod).

Usage:
  heldout-kinds.py --sipd-run BIN --meshes DIR --out DIR [--case cloth|strip|rod]
                   [--theory-tol 0.05] [--methods-tol 1e-4] [--strip-ratio LO,HI]
                   [--bending auto|dihedral|midedge] [--strip-mesh FILE]
Prints one line per run; exits 1 when a check fails, 2 on a usage error, 77 without h5py/numpy.
--strip-ratio LO,HI replaces the strip's theory check |ratio - 1| < theory-tol by LO < ratio < HI:
the dihedral hinges (src/physics/bend.h, --bending dihedral) are mesh dependent, and on this unstructured
gmsh strip about 9% too soft (docs/element-kinds.md); the test pins that number so that a
change of it is seen.  --bending adds bodies[].bending to the cloth and the strip (default: the
key is not written, so "auto": mid-edge for the quasi-static strip, whose bending length the mesh
resolves, hinges for the dynamic cloth and strip); the mid-edge bending (midedge, src/physics/midedge.h)
converges to plate theory on unstructured meshes.  --strip-mesh replaces ho_strip.msh: ho2_strip.msh
(tools/meshes/ho2_strip.geo) is a second held-out strip, made after the mid-edge element was
developed on ho_strip.geo's meshes.
"""
import argparse
import math
import os
import subprocess
import sys

E_STRIP, T_STRIP, RHO, G = 1.0e8, 0.01, 1000.0, 0.0981
E_ROD, R_ROD = 1.0e9, 0.01

# every method of the method table (src/method.c), with settings that converge the three bodies
# (must = 1: every solve must converge to the tolerance and the answer agree with Newton's).  The
# textbook baselines block-jacobi, diag-jacobi and gd converge these bending-dominated bodies far
# too slowly for a test (measured on the cloth: block-jacobi at relative residual 5e-3 after
# 20000 iterations); they run 1000 iterations and must not diverge; their distance from Newton
# is printed, not asserted.
METHODS = [
    ("newton", 'method = "newton"; iterations = 200; tolerance = 1.0e-9;', 1),
    ("sipd-jacobi-chebyshev", 'method = "sipd"; sweep = "jacobi"; chebyshev = true; iterations = 20000; tolerance = 1.0e-5;', 1),
    ("sipd-gauss-seidel", 'method = "sipd"; sweep = "gauss-seidel"; iterations = 20000; tolerance = 1.0e-5;', 1),
    ("sipd-two-level", 'method = "sipd"; iterations = 20000; tolerance = 1.0e-5; coarse = { levels = 2; every = 10; size = 12; };', 1),
    ("vbd", 'method = "vbd"; iterations = 20000; tolerance = 1.0e-5;', 1),
    ("block-jacobi", 'method = "block-jacobi"; iterations = 1000; tolerance = 1.0e-5;', 0),
    ("diag-jacobi", 'method = "diag-jacobi"; chebyshev = true; iterations = 1000; tolerance = 1.0e-5;', 0),
    ("gd", 'method = "gd"; chebyshev = true; iterations = 1000; tolerance = 1.0e-5;', 0),
    # asserted on the strip and the rod; on the swinging cloth the mixed FEM needs more than 200
    # outer iterations per step (docs/solvers.md: the dropped λ-curvature term)
    ("mixed-fem", 'method = "mixed-fem"; iterations = 200; tolerance = 1.0e-7;', 1),
]
STATIC = [
    ("newton", 'method = "newton"; iterations = 200; tolerance = 1.0e-5;'),
    ("sipd-two-level", 'method = "sipd"; iterations = 50000; tolerance = 1.0e-4; coarse = { levels = 2; every = 10; size = 16; };'),
]


def body(case, meshdir, static, bending=None, strip_mesh="ho_strip.msh"):
    """(body text, material text, gravity): the body keys of docs/design.md §4 for each case.  The
    dynamic runs use full gravity and E = 1e5 for all three (every method must converge them at
    a tight tolerance within the iteration cap: VBD does not on a 1 GPa rod, and took 125 s on
    the strip at 1 MPa)."""
    bk = ' bending = "%s";' % bending if bending else ""
    if case == "cloth":   # pinned at its two corners on the x axis (z = 0)
        return ('{ mesh = "%s/ho_cloth.msh"; material = "m"; thickness = 0.002;%s\n'
                '  pin = ( { box_min = [-1.0, -1.0, -1.0]; box_max = [0.001, 1.0, 0.001]; },\n'
                '          { box_min = [0.499, -1.0, -1.0]; box_max = [1.0, 1.0, 0.001]; } ); }' % (meshdir, bk),
                'youngs = 1.0e5; poisson = 0.3; density = 200.0;', -9.81)
    if case == "strip":   # clamped on the band x <= 0 (its line x = 0 included)
        return ('{ mesh = "%s/%s"; material = "m"; thickness = %r;%s\n'
                '  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [1.0e-9, 1.0, 1.0]; }; }' % (meshdir, strip_mesh, T_STRIP, bk),
                'youngs = %r; poisson = 0.0; density = %r;' % (E_STRIP if static else 1.0e5, RHO), -G if static else -9.81)
    # rod: the first two vertices (-a/2 and a/2, a = 1/40) are the clamp
    return ('{ mesh = "%s/ho_rod.msh"; material = "m"; radius = %r;\n'
            '  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [0.02, 1.0, 1.0]; }; }' % (meshdir, R_ROD),
            'youngs = %r; poisson = 0.3; density = %r;' % (E_ROD if static else 1.0e5, RHO), -G if static else -9.81)


def run(a, name, case, solver, static, frames):
    import h5py
    import numpy as np
    b, mat, g = body(case, os.path.abspath(a.meshes), static, a.bending, a.strip_mesh)
    h5 = os.path.join(a.out, "%s_%s_%s.h5" % (case, "static" if static else "dyn", name))
    cfg = h5[:-3] + ".cfg"
    time = ("time = { dt = 1.0; frames = 1; quasistatic = true; };" if static
            else "time = { dt = 0.0166667; frames = %d; };" % frames)
    with open(cfg, "w") as f:
        f.write("# generated by tools/heldout-kinds.py\n%s\nsolver = { %s };\ngravity = [0.0, %r, 0.0];\n"
                'materials = ( { name = "m"; model = "stable-neohookean"; %s } );\nbodies = ( %s );\n'
                'output = { file = "%s"; xdmf = false; };\n' % (time, solver, g, mat, b, h5))
    r = subprocess.run([a.sipd_run, cfg, "--quiet"], capture_output=True, text=True)
    with h5py.File(h5, "r") as f:
        X = f["/mesh/rest_positions"][:].astype(float)
        x = f["/frames/positions"][-1].astype(float)
        st = f["/convergence/status"][:]
        it = f["/convergence/iterations"][:]
        res = f["/convergence/residual"][:]
    conv = r.returncode == 0 and bool(np.all(st == 0))
    return X, x, conv, int(it.max()), float(res.max()), r, bool(np.any(st == 3)) or not np.all(np.isfinite(x))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sipd-run", required=True)
    p.add_argument("--meshes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--case", choices=["cloth", "strip", "rod"], action="append")
    p.add_argument("--theory-tol", type=float, default=0.05)
    p.add_argument("--methods-tol", type=float, default=1e-4)
    p.add_argument("--frames", type=int, default=3)
    p.add_argument("--strip-ratio", default=None)
    p.add_argument("--bending", choices=["auto", "dihedral", "midedge"], default=None)
    p.add_argument("--strip-mesh", default="ho_strip.msh")
    a = p.parse_args()
    try:
        import h5py  # noqa: F401
        import numpy as np
    except ImportError:
        print("skipped: python3-h5py/numpy not found")
        sys.exit(77)
    os.makedirs(a.out, exist_ok=True)
    cases = a.case or ["cloth", "strip", "rod"]
    bad = []
    for case in cases:
        if case != "cloth":
            for name, solver in STATIC:
                if case == "strip" and name != "newton":
                    continue   # two-level SIPD stalls on the quasi-static strip (docs/verification.md): not asserted
                X, x, conv, it, res, r, _ = run(a, name, case, solver, True, 1)
                if case == "strip":
                    D = E_STRIP * T_STRIP ** 3 / 12
                    ref = RHO * T_STRIP * G / (8 * D)
                    tip = X[:, 0] > 1 - 1e-9
                    d = -(x[tip, 1] - X[tip, 1]).mean()
                else:
                    I = math.pi * R_ROD ** 4 / 4
                    ref = RHO * math.pi * R_ROD ** 2 * G / (8 * E_ROD * I)
                    tip = int(np.argmax(X[:, 0]))
                    d = -(x[tip, 1] - X[tip, 1])
                ratio = d / ref
                if case == "strip" and a.strip_ratio:
                    lo, hi = (float(v) for v in a.strip_ratio.split(","))
                    ok = lo < ratio < hi
                    want = "in (%g, %g), the known bias" % (lo, hi)
                else:
                    ok = abs(ratio - 1) < a.theory_tol
                    want = "within %g of 1" % a.theory_tol
                ok = ok and conv
                print("%-5s quasi-static %-22s tip %.6e m, theory %.6e m, ratio %.5f (%s)  %d iterations, "
                      "residual %.1e%s" % (case, name, d, ref, ratio, want, it, res, "" if conv else "  NOT CONVERGED"))
                if not ok:
                    bad.append("%s quasi-static %s" % (case, name))
        ref_x = None
        for name, solver, must in METHODS:
            X, x, conv, it, res, r, diverged = run(a, name, case, solver, False, a.frames)
            diag = float(np.linalg.norm(X.max(0) - X.min(0)))
            if ref_x is None:
                ref_x = x
                print("%-5s dynamic      %-22s reference (%d frames), %d iterations max, residual %.1e%s"
                      % (case, name, a.frames, it, res, "" if conv else "  NOT CONVERGED"))
                if not conv:
                    bad.append("%s dynamic newton" % case)
                continue
            err = float(np.abs(x - ref_x).max()) / diag
            if name == "mixed-fem" and case == "cloth":
                must = 0
            ok = (conv and err < a.methods_tol) if must else not diverged
            print("%-5s dynamic      %-22s max |x - x_newton| / size %.2e (%s)  %d iterations max, residual %.1e%s"
                  % (case, name, err, "< %g" % a.methods_tol if must else "baseline: not asserted", it, res,
                     "" if conv else "  NOT CONVERGED" if not diverged else "  DIVERGED"))
            if not ok:
                bad.append("%s dynamic %s" % (case, name))
    if bad:
        print("heldout-kinds: FAILED: " + "; ".join(bad))
        sys.exit(1)
    print("heldout-kinds: all checks passed")


if __name__ == "__main__":
    main()
