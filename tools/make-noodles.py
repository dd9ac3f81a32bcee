#!/usr/bin/env python3
"""make-noodles.py — write a "noodles in a bowl" scene (the paper's Fig. 6) for sipd-run.

    python3 tools/make-noodles.py COUNT MESH OUTPUT FRAMES [options]

COUNT noodles (the mesh MESH, a rod along x centred at the origin, e.g. meshes/noodle.msh
from tools/meshes/make-meshes.sh; the path is written into the scene as given, so give it
relative to OUTPUT's directory) are dropped in horizontal layers into a rigid hemispherical
bowl (meshes/bowl.msh, a kinematic obstacle). Each layer has a random direction in the
horizontal plane; its noodles lie side by side, each turned by a further random angle, and
are placed by rejection so that no two noodles come closer than their diameter plus a
clearance (> 2 d̂) anywhere. Layers are stacked with the same clearance, the lowest just
above the bowl's rim, and every noodle lies inside the rim's circle so that it falls in.
A fixed seed (--seed) makes the scene reproducible. Standard library only.

The examples in scenes/ were made with
    python3 tools/make-noodles.py 10 meshes/noodle.msh scenes/noodles.cfg 45 --substeps 8
    python3 tools/make-noodles.py 81 meshes/noodle_fine.msh scenes/noodles_bench.cfg 120 \
        --per-layer 9 --substeps 8 --bench
"""
import argparse
import math
import os
import random
import sys


def mesh_extent(path):
    """Bounding box of the nodes of an ASCII gmsh .msh (2.2 or 4.1) file: (lo, hi)."""
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    with open(path) as f:
        lines = iter(f.read().splitlines())
    version = None
    for line in lines:
        if line == "$MeshFormat":
            fields = next(lines).split()
            version = fields[0]
            if fields[1] != "0":
                raise ValueError(f"{path}: binary .msh: give --length and --radius instead")
        elif line == "$Nodes":
            pts = []
            if version and version.startswith("2"):
                n = int(next(lines))
                for _ in range(n):
                    pts.append([float(v) for v in next(lines).split()[1:4]])
            else:  # 4.1: blocks of "dim tag parametric n", n tags, n coordinate rows
                nblocks = int(next(lines).split()[0])
                for _ in range(nblocks):
                    n = int(next(lines).split()[3])
                    for _ in range(n):
                        next(lines)
                    for _ in range(n):
                        pts.append([float(v) for v in next(lines).split()[:3]])
            for p in pts:
                for k in range(3):
                    lo[k] = min(lo[k], p[k])
                    hi[k] = max(hi[k], p[k])
            return lo, hi
    raise ValueError(f"{path}: no $Nodes section")


def seg_dist(p0, p1, q0, q1):
    """Distance between segments p0p1 and q0q1 in 3-D (clamped closest points)."""
    d1 = [p1[k] - p0[k] for k in range(3)]
    d2 = [q1[k] - q0[k] for k in range(3)]
    r = [p0[k] - q0[k] for k in range(3)]
    dot = lambda u, v: sum(u[k] * v[k] for k in range(3))
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    c, b = dot(d1, r), dot(d1, d2)
    den = a * e - b * b
    s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > 1e-14 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0:
        t, s = 0.0, min(max(-c / a, 0.0), 1.0)
    elif t > 1:
        t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    w = [p0[k] + s * d1[k] - q0[k] - t * d2[k] for k in range(3)]
    return math.sqrt(dot(w, w))


def place(args, L, R, rng):
    """Noodles as (centre, yaw_deg); the local x axis maps to (cos yaw, 0, -sin yaw)."""
    clear = max(2.5 * args.dhat, 0.004)        # surface clearance between noodles
    pitch = 2 * R + clear + args.spacing       # side by side within a layer
    rim = args.bowl_radius - R - 0.01          # every point of a noodle inside this circle
    y = args.bowl_top + R + clear              # lowest layer: just above the rim
    placed, segs = [], []
    left = args.count
    layer = 0
    while left:
        k = min(args.per_layer, left)
        base = rng.uniform(0.0, math.pi)
        for j in range(k):
            off = (j - (k - 1) / 2) * pitch
            for attempt in range(2000):
                jit = args.jitter * (1 - attempt / 2000)   # shrink the spread if it keeps failing
                yaw = base + math.radians(rng.uniform(-jit, jit))
                d = (math.cos(yaw), 0.0, -math.sin(yaw))
                n = (math.sin(base), 0.0, math.cos(base))  # across the layer
                along = rng.uniform(-0.5, 0.5) * args.shift
                c = (off * n[0] + along * math.cos(base), y, off * n[2] - along * math.sin(base))
                e0 = tuple(c[i] - L / 2 * d[i] for i in range(3))
                e1 = tuple(c[i] + L / 2 * d[i] for i in range(3))
                if math.hypot(e0[0], e0[2]) > rim or math.hypot(e1[0], e1[2]) > rim:
                    continue
                if all(seg_dist(e0, e1, s0, s1) >= 2 * R + clear - 1e-9 for s0, s1 in segs):
                    break
            else:
                if j == 0:
                    sys.exit(f"make-noodles: cannot place noodle {len(placed) + 1} in layer {layer + 1}")
                break                                      # this layer is full: start the next
            placed.append((c, math.degrees(yaw) % 360.0))
            segs.append((e0, e1))
        left = args.count - len(placed)
        layer += 1
        y += 2 * R + clear
    return placed, layer, clear


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("count", type=int, help="number of noodles")
    ap.add_argument("mesh", help="noodle mesh as written in the scene (relative to OUTPUT's directory)")
    ap.add_argument("output", help="scene file to write, e.g. scenes/noodles.cfg")
    ap.add_argument("frames", type=int, help="time.frames")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-layer", type=int, default=0, help="noodles per layer (default ceil(sqrt(count)))")
    ap.add_argument("--jitter", type=float, default=12.0, help="max turn of a noodle against its layer (deg)")
    ap.add_argument("--shift", type=float, default=0.04, help="spread of the noodles along the layer direction (m)")
    ap.add_argument("--spacing", type=float, default=0.004, help="extra side-by-side spacing in a layer (m)")
    ap.add_argument("--bowl", default="meshes/bowl.msh", help="bowl mesh (hemispherical shell at the origin, y <= 0)")
    ap.add_argument("--bowl-radius", type=float, default=0.25, help="inner radius of the bowl (m)")
    ap.add_argument("--bowl-top", type=float, default=0.27,
                    help="height of the bowl's rim: the bowl is translated up by this (outer bottom at y = 0)")
    ap.add_argument("--length", type=float, help="noodle length (default: from the mesh)")
    ap.add_argument("--radius", type=float, help="noodle radius (default: from the mesh)")
    ap.add_argument("--dhat", type=float, default=0.003)
    ap.add_argument("--friction", type=float, default=0.3)
    ap.add_argument("--youngs", type=float, default=2.0e5)
    ap.add_argument("--poisson", type=float, default=0.4)
    ap.add_argument("--density", type=float, default=1000.0)
    ap.add_argument("--substeps", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--tolerance", type=float, default=1.0e-5)
    ap.add_argument("--self", action="store_true", help="contact.self = true (contact within a noodle)")
    ap.add_argument("--bench", action="store_true", help="benchmark header comment and device = \"auto\"")
    args = ap.parse_args()
    if args.count < 1 or args.frames < 1:
        ap.error("count and frames must be positive")
    if not args.per_layer:
        args.per_layer = math.ceil(math.sqrt(args.count))

    L, R = args.length, args.radius
    if L is None or R is None:
        mpath = os.path.join(os.path.dirname(os.path.abspath(args.output)), args.mesh)
        lo, hi = mesh_extent(mpath)
        L = L if L is not None else hi[0] - lo[0]
        R = R if R is not None else max(hi[1] - lo[1], hi[2] - lo[2]) / 2
        if max(abs(lo[0] + hi[0]), abs(lo[1] + hi[1]), abs(lo[2] + hi[2])) > 1e-6 * L:
            sys.exit(f"make-noodles: {mpath} is not centred at the origin")

    rng = random.Random(args.seed)
    noodles, layers, clear = place(args, L, R, rng)
    name = os.path.splitext(os.path.basename(args.output))[0]
    cmd = "python3 tools/make-noodles.py " + " ".join(sys.argv[1:])
    top = max(c[1] for c, _ in noodles) + R
    fall = math.sqrt(2 * 9.81 * (top - (args.bowl_top - args.bowl_radius)))
    step = fall * 0.0166667 / args.substeps

    out = []
    w = out.append
    w(f"# {args.count} soft noodles dropped in {layers} layers into a rigid bowl (the paper's Fig. 6).")
    w(f"# Written by: {cmd}")
    w(f"# (seed {args.seed}; regenerate with that command rather than editing by hand.)")
    w(f"# Noodles: rods r = {R:g} m, {L:g} m long (mesh {args.mesh}); the bowl is a hemispherical")
    w(f"# shell of inner radius {args.bowl_radius:g} m (meshes/bowl.msh), a static obstacle (obstacle = true).")
    w("# Each layer lies in a random horizontal direction. What to look at: the noodles fall in,")
    w("# bend over the bowl's curved wall and over each other and pile up without passing")
    w("# through each other or the bowl (body-body and obstacle contact with friction "
      f"mu = {args.friction:g});")
    w("# /convergence/contacts counts the active pairs, /convergence/max_penetration the depth.")
    w(f"# The bowl's rim is at y = {args.bowl_top:g} m and its outer bottom at y = 0; "
      f"layers {2 * R + clear:.4g} m apart.")
    w(f"# Fastest fall ~{fall:.1f} m/s = {step * 1000:.1f} mm per substep (noodle diameter {2000 * R:.0f} mm).")
    if args.bench:
        w("# GPU benchmark scene: aimed at ~1M contact pairs once the noodles have settled;")
        w("# run with --device cuda (or auto) and compare iterations/s and the contact counts.")
    w(f"time     = {{ dt = 0.0166667; substeps = {args.substeps}; frames = {args.frames}; }};")
    w(f"solver   = {{ sweep = \"jacobi\"; iterations = {args.iterations}; tolerance = {args.tolerance:.1e};"
      " chebyshev = true; };")
    w("gravity  = [0.0, -9.81, 0.0];")
    w(f"materials = ( {{ name = \"noodle\"; youngs = {args.youngs:.1e}; poisson = {args.poisson}; "
      f"density = {args.density:.1f}; }} );")
    w(f"contact  = {{ enabled = true; dhat = {args.dhat}; friction = {args.friction}; "
      f"self = {'true' if args.self else 'false'}; }};")
    w("bodies   = (")
    w("  # the bowl: rigid and static; its material only enters the automatic contact stiffness")
    w(f"  {{ mesh = \"{args.bowl}\"; material = \"noodle\"; obstacle = true; "
      f"translate = [0.0, {args.bowl_top:.4f}, 0.0]; }},")
    for i, (c, yaw) in enumerate(noodles):
        sep = "," if i + 1 < len(noodles) else ""
        w(f"  {{ mesh = \"{args.mesh}\"; material = \"noodle\"; rotate_deg = [0.0, {yaw:.3f}, 0.0]; "
          f"translate = [{c[0]:.5f}, {c[1]:.5f}, {c[2]:.5f}]; }}{sep}")
    w(");")
    w(f"output   = {{ file = \"../results/{name}.h5\"; }};")
    with open(args.output, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"make-noodles: {args.output}: {args.count} noodles in {layers} layers "
          f"(L = {L:g}, R = {R:g}, clearance {clear:g} m, top at y = {top:.3f})", file=sys.stderr)


if __name__ == "__main__":
    main()
