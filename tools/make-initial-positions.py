#!/usr/bin/env python3
"""make-initial-positions.py — starting positions for a mesh, for bodies[].initial_positions.

Writes a TetGen .node file with the mesh's vertices in the mesh's order (the order sipd-run
loads them: the file order of the .msh $Nodes section, or of the TetGen .node), moved to one of
the SIPD paper's stress-test starts.  Positions stay in the mesh file's frame: sipd-run applies
the body's scale/rotate_deg/translate to them as to the mesh.  Plain python3 (no numpy).

  make-initial-positions.py MESH OUT.node flatten [--axis y] [--factor 0.01]
      every vertex scaled by FACTOR along AXIS about the bounding-box centre (1% by default)
  make-initial-positions.py MESH OUT.node stretch [--axis x] [--factor 3]
      scaled by FACTOR (3x by default) along AXIS (x, y, z or all) about the centre
  make-initial-positions.py MESH OUT.node random [--radius R] [--seed 1]
      every vertex at an independent uniformly random point ON the sphere of radius R about the
      centre (default R = the bounding-box diagonal, larger than the body).  Not a point and not
      a ball: the simplified stable neo-Hookean has a local minimum at F = 0, so a start
      collapsed to (or near) a point stays collapsed; on a sphere larger than the body the tets
      are stretched (|J| of order (R/edge)^3, about half of them inverted), never near F = 0,
      and the elastic force pulls the body back together from outside.

MESH is a gmsh .msh (v2.2 or v4.1, ASCII) or a TetGen .node file (or its base name).
"""
import argparse
import math
import random
import sys


def read_msh_nodes(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        sys.exit(f"{path}: binary .msh is not supported here: write it as ASCII (gmsh -format msh22)")
    lines = text.splitlines()
    i = 0
    version = None
    while i < len(lines):
        s = lines[i].strip()
        if s == "$MeshFormat":
            fields = lines[i + 1].split()
            version = fields[0]
            if fields[1] != "0":
                sys.exit(f"{path}: binary .msh is not supported here: write it as ASCII")
        elif s == "$Nodes":
            if version is None:
                sys.exit(f"{path}: $Nodes before $MeshFormat")
            i += 1
            if version.startswith("2"):
                n = int(lines[i])
                pts = []
                for k in range(n):
                    w = lines[i + 1 + k].split()
                    pts.append((float(w[1]), float(w[2]), float(w[3])))
                return pts
            if version.startswith("4.1"):
                nblocks = int(lines[i].split()[0])
                i += 1
                pts = []
                for _ in range(nblocks):
                    w = lines[i].split()
                    parametric, n = int(w[2]), int(w[3])
                    i += 1 + n  # the tags
                    for k in range(n):
                        c = lines[i + k].split()
                        pts.append((float(c[0]), float(c[1]), float(c[2])))
                    i += n
                    if parametric:
                        sys.exit(f"{path}: parametric nodes are not supported")
                return pts
            sys.exit(f"{path}: msh version {version} is not supported (2.2 or 4.1)")
        i += 1
    sys.exit(f"{path}: no $Nodes section")


def read_node(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                rows.append(line)
    n, dim = int(rows[0][0]), int(rows[0][1])
    if dim != 3:
        sys.exit(f"{path}: dimension {dim}, expected 3")
    return [(float(r[1]), float(r[2]), float(r[3])) for r in rows[1:1 + n]]


def read_mesh(path):
    if path.endswith(".msh"):
        return read_msh_nodes(path)
    return read_node(path if path.endswith(".node") else path + ".node")


AXES = {"x": (0,), "y": (1,), "z": (2,), "all": (0, 1, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh")
    ap.add_argument("out")
    ap.add_argument("mode", choices=["flatten", "stretch", "random"])
    ap.add_argument("--axis", choices=sorted(AXES), help="flatten: y (default); stretch: x (default)")
    ap.add_argument("--factor", type=float, help="flatten: 0.01 (default); stretch: 3 (default)")
    ap.add_argument("--radius", type=float, help="random: sphere radius (default: bounding-box diagonal)")
    ap.add_argument("--seed", type=int, default=1, help="random: seed (default 1)")
    a = ap.parse_args()

    pts = read_mesh(a.mesh)
    lo = [min(p[k] for p in pts) for k in range(3)]
    hi = [max(p[k] for p in pts) for k in range(3)]
    c = [0.5 * (lo[k] + hi[k]) for k in range(3)]
    diag = math.sqrt(sum((hi[k] - lo[k]) ** 2 for k in range(3)))
    if a.mode in ("flatten", "stretch"):
        axis = a.axis or ("y" if a.mode == "flatten" else "x")
        factor = a.factor if a.factor is not None else (0.01 if a.mode == "flatten" else 3.0)
        if not factor > 0:
            sys.exit("--factor must be > 0")
        out = []
        for p in pts:
            q = list(p)
            for k in AXES[axis]:
                q[k] = c[k] + factor * (p[k] - c[k])
            out.append(q)
        what = f"{a.mode} x{factor:g} along {axis} about the bounding-box centre"
    else:
        r = a.radius if a.radius is not None else diag
        if not r > 0:
            sys.exit("--radius must be > 0")
        rng = random.Random(a.seed)
        out = []
        for _ in pts:
            while True:  # uniform on the sphere: a normalised Gaussian vector
                g = [rng.gauss(0.0, 1.0) for _ in range(3)]
                n = math.sqrt(sum(x * x for x in g))
                if n > 1e-12:
                    break
            out.append([c[k] + r * g[k] / n for k in range(3)])
        what = f"random on the sphere of radius {r:.17g} about the bounding-box centre, seed {a.seed}"
    with open(a.out, "w") as f:
        f.write(f"# initial positions of {a.mesh}: {what}\n")
        f.write(f"# written by tools/make-initial-positions.py; vertex order = the mesh's\n")
        f.write(f"{len(out)} 3 0 0\n")
        for i, q in enumerate(out):
            f.write(f"{i} {q[0]:.17g} {q[1]:.17g} {q[2]:.17g}\n")
    print(f"{a.out}: {len(out)} vertices, {what}", file=sys.stderr)


if __name__ == "__main__":
    main()
