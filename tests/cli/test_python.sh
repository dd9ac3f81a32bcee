#!/usr/bin/env bash
# test_python.sh SIPD_RUN SOURCE_DIR SCRATCH CASE — the Python package python/sipdrun (issue 28) on a
# short run of a solid, a cloth and a rod with every output field (tests/data/fields_kinds.cfg):
#   install  `pip install ./python` (into a scratch target, no network: --no-build-isolation) imports
#   reader   sipdrun.open: frames per body and kind, fields, convergence, the resolved scene — each
#            against h5py reading the contract paths directly; `python3 -m sipdrun summary`
#   usd      export to .usda and .usdc, read back with usd-core: time samples = frames, points =
#            the HDF5 positions (float32, exactly), face and curve counts, widths, frame rate
#   obj      a folder of OBJ files: one per frame, vertices and faces as in the HDF5 file
#   vtu      .pvd + one .vtu per frame, read back with meshio: points, cells, point and cell data
# Exit 77 (skipped) when /usr/bin/python3 lacks numpy/h5py (all), setuptools (install), usd-core
# (usd) or meshio (vtu); tools/setup-debian.sh installs them.
set -uo pipefail
bin=$1; src=$2; dir=$3; case=$4
py=/usr/bin/python3
$py -c "import h5py, numpy" 2>/dev/null || { echo "skipped: $py lacks h5py or numpy"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
export PYTHONPATH=$src/python PYTHONDONTWRITEBYTECODE=1   # nothing written into the source tree
sed "s|@MESHES@|$src/scenes/meshes|" "$src/tests/data/fields_kinds.cfg" > k.cfg
"$bin" k.cfg --quiet --device cpu --output "$dir/k.h5" || { echo "FAIL: sipd-run exited $?"; exit 1; }

case $case in
install)
  $py -c "import setuptools" 2>/dev/null || { echo "skipped: $py lacks setuptools"; exit 77; }
  # a copy: pip's build writes python/build and *.egg-info next to the sources
  cp -r "$src/python" pkg
  $py -m pip install --quiet --no-build-isolation --no-deps --target "$dir/site" ./pkg ||
    { echo "FAIL: pip install ./python"; exit 1; }
  PYTHONPATH=$dir/site $py -c "
import sipdrun, sys
assert sipdrun.__file__.startswith('$dir/site'), sipdrun.__file__
r = sipdrun.open('k.h5'); print('installed', sipdrun.__version__, r)" || exit 1
  PYTHONPATH=$dir/site $py -m sipdrun summary k.h5 > summary.txt || { echo "FAIL: summary from the install"; exit 1; }
  ;;
reader)
  $py - <<'EOF' || exit 1
import h5py, numpy as np
import sipdrun
f = h5py.File("k.h5", "r")
r = sipdrun.open("k.h5")
x = f["frames/positions"][:]
ok = True
def check(what, good):
    global ok
    print("%-60s %s" % (what, "ok" if good else "FAIL"))
    ok &= bool(good)
check("times", np.array_equal(r.times, f["frames/time"][:]))
check("positions", np.array_equal(r.positions, x))
check("3 bodies: solid, shell, rod", [b.kind for b in r.bodies] == ["solid", "shell", "rod"])
for b in r.bodies:
    v = np.nonzero(f["mesh/body"][:] == b.index)[0]
    check("body %d positions = /frames/positions of its vertices" % b.index, np.array_equal(b.positions, x[:, v]))
    for kind, conn in b.elements.items():
        glob = f["mesh/" + kind][:][b.element_index[kind]]
        check("body %d %s renumbered back = /mesh/%s" % (b.index, kind, kind), np.array_equal(v[conn], glob))
p, idx = r.frames(body=1, kind="triangles")
check("frames(body=1, kind=triangles)", np.array_equal(p, x[:, np.unique(f["mesh/triangles"][:])]))
for n in ("displacement", "velocity", "contact_force"):
    check("field %s" % n, np.array_equal(r.field(n), f["frames/fields/" + n][:]))
for n in ("J", "von_mises", "energy_density"):
    for k in ("tets", "triangles", "edges"):
        check("field %s/%s (squeezed)" % (n, k), np.array_equal(r.field(n, k), f["frames/fields/%s/%s" % (n, k)][:, :, 0]))
check("field strain/edges", np.array_equal(r.fields["strain"]["edges"], f["frames/fields/strain/edges"][:]))
check("body field", np.array_equal(r.bodies[2].field("von_mises", "edges"), f["frames/fields/von_mises/edges"][:, :, 0]))
check("displacement = positions - rest", np.abs(r.field("displacement") - (x - r.rest)).max() < 1e-6)
for k in f["convergence"]:
    if isinstance(f["convergence"][k], h5py.Dataset):
        d = f["convergence"][k][:]   # (min_gap is NaN for a solve without contact: NaN equals NaN here)
        check("convergence/%s" % k, np.array_equal(r.convergence[k], d, equal_nan=np.issubdtype(d.dtype, np.floating)))
check("convergence/history/residual", np.array_equal(r.history["residual"], f["convergence/history/residual"][:]))
check("scene: time.dt, bodies[2].radius, output.fields", r.scene["time"]["dt"] == 0.01 and
      r.scene["bodies"][2]["radius"] == 0.01 and "strain" in r.scene["output"]["fields"])
check("frame rate", abs(r.frame_rate - 100.0) < 1e-6)
try:
    r.field("nonsense")
    check("unknown field refused", False)
except KeyError:
    check("unknown field refused", True)
exit(0 if ok else 1)
EOF
  $py -m sipdrun summary k.h5 > summary.txt || { echo "FAIL: summary exited $?"; exit 1; }
  cat summary.txt
  for w in "solves" "iterations per solve" "max penetration" "solve time" "fields"; do
    grep -q "^$w " summary.txt || { echo "FAIL: summary has no '$w' line"; exit 1; }
  done
  $py -m sipdrun summary nothing.h5 2>/dev/null && { echo "FAIL: a missing file did not fail"; exit 1; }
  ;;
usd)
  $py -c "import pxr.Usd" 2>/dev/null || { echo "skipped: $py lacks usd-core (pip install usd-core)"; exit 77; }
  for ext in usda usdc; do
    $py -m sipdrun export k.h5 k.$ext || { echo "FAIL: export $ext"; exit 1; }
  done
  $py - <<'EOF' || exit 1
import h5py, numpy as np
from pxr import Usd, UsdGeom
f = h5py.File("k.h5", "r")
x, t, body = f["frames/positions"][:], f["frames/time"][:], f["mesh/body"][:]
st, edges = f["mesh/surface_triangles"][:], f["mesh/edges"][:]
ok = True
for ext in ("usda", "usdc"):
    s = Usd.Stage.Open("k." + ext)
    good = (s.GetTimeCodesPerSecond() == 100.0 and s.GetStartTimeCode() == 0 and s.GetEndTimeCode() == len(t) - 1 and
            UsdGeom.GetStageUpAxis(s) == UsdGeom.Tokens.y and s.GetDefaultPrim().GetPath() == "/World")
    print("%s: %g time codes per second, %g..%g, up %s: %s" % (ext, s.GetTimeCodesPerSecond(), s.GetStartTimeCode(),
                                                               s.GetEndTimeCode(), UsdGeom.GetStageUpAxis(s), good))
    ok &= good
    for b in range(3):
        prim = s.GetPrimAtPath("/World/body_%d" % b)
        pts = prim.GetAttribute("points")
        vert = np.array(prim.GetAttribute("primvars:sipd:vertex").Get())
        samples = pts.GetTimeSamples()
        same = all(np.array_equal(np.array(pts.Get(Usd.TimeCode(i)), dtype=np.float32), x[i, vert]) for i in range(len(t)))
        good = samples == list(range(len(t))) and same and np.all(body[vert] == b)
        if b < 2:   # meshes: the body's outward surface triangles
            m = UsdGeom.Mesh(prim)
            want = st[body[st[:, 0]] == b]
            idx = np.array(m.GetFaceVertexIndicesAttr().Get()).reshape(-1, 3)
            good &= prim.GetTypeName() == "Mesh" and len(m.GetFaceVertexCountsAttr().Get()) == len(want)
            good &= np.array_equal(vert[idx], want)
            good &= np.allclose(np.array(UsdGeom.PrimvarsAPI(prim).GetPrimvar("displacement").Get(Usd.TimeCode(len(t) - 1))),
                                f["frames/fields/displacement"][-1][vert])
            what = "%d faces" % len(idx)
        else:       # the rod: BasisCurves over its polyline, width = 2 radius
            c = UsdGeom.BasisCurves(prim)
            counts = list(c.GetCurveVertexCountsAttr().Get())
            want = edges[body[edges[:, 0]] == b]
            seg = {tuple(sorted(e)) for e in want}
            got = {tuple(sorted((vert[i], vert[i + 1]))) for i in range(len(vert) - 1)}
            good &= prim.GetTypeName() == "BasisCurves" and counts == [len(want) + 1] and got == seg
            good &= list(c.GetWidthsAttr().Get()) == [np.float32(0.02)]
            what = "curves %s, widths %s" % (counts, list(c.GetWidthsAttr().Get()))
        print("%s body_%d: %s, %d points x %d time samples equal the HDF5 frames: %s" % (ext, b, what, len(vert),
                                                                                      len(samples), good))
        ok &= good
exit(0 if ok else 1)
EOF
  ;;
obj)
  $py -m sipdrun export k.h5 objs || { echo "FAIL: export obj"; exit 1; }
  $py - <<'EOF' || exit 1
import glob, h5py, numpy as np
f = h5py.File("k.h5", "r")
x, body = f["frames/positions"][:], f["mesh/body"][:]
st = f["mesh/surface_triangles"][:]
files = sorted(glob.glob("objs/frame_*.obj"))
ok = len(files) == x.shape[0]
for i, path in enumerate(files):
    v, faces, lines, objs = [], [], [], []
    for line in open(path):
        w = line.split()
        if not w or w[0] == "#":
            continue
        if w[0] == "v":
            v.append([float(a) for a in w[1:]])
        elif w[0] == "f":
            faces.append([int(a) - 1 for a in w[1:]])
        elif w[0] == "l":
            lines.append([int(a) - 1 for a in w[1:]])
        elif w[0] == "o":
            objs.append(w[1])
    v, faces = np.array(v), np.array(faces)
    # every face's corners at the positions of the HDF5 surface triangles, in order
    good = objs == ["body_0", "body_1", "body_2"] and len(faces) == len(st) and len(lines) == 1
    good = good and np.allclose(v[faces], x[i][st], atol=1e-7) and len(lines[0]) == 6
    ok &= good
print("%d OBJ files, %d faces and one 6-point rod each, equal to the HDF5 frames: %s" % (len(files), len(st), ok))
exit(0 if ok else 1)
EOF
  ;;
vtu)
  $py -c "import meshio" 2>/dev/null || { echo "skipped: $py lacks meshio"; exit 77; }
  $py -m sipdrun export k.h5 k.pvd && $py -m sipdrun export k.h5 last.vtu || { echo "FAIL: export vtu"; exit 1; }
  $py - <<'EOF' || exit 1
import re, h5py, meshio, numpy as np
f = h5py.File("k.h5", "r")
x, t = f["frames/positions"][:], f["frames/time"][:]
pvd = open("k.pvd").read()
files = re.findall(r'file="([^"]+)"', pvd)
steps = [float(s) for s in re.findall(r'timestep="([^"]+)"', pvd)]
ok = len(files) == len(t) and np.allclose(steps, t)
for i, name in enumerate(files + ["last.vtu"]):
    i = min(i, len(t) - 1)
    m = meshio.read(name)
    good = np.array_equal(m.points.astype(np.float32), x[i])
    good &= [(c.type, len(c.data)) for c in m.cells] == [("tetra", 384), ("triangle", 32), ("line", 5)]
    good &= np.allclose(m.point_data["displacement"], f["frames/fields/displacement"][i])
    good &= np.allclose(m.cell_data["von_mises"][1].ravel(), f["frames/fields/von_mises/triangles"][i].ravel())
    good &= m.cell_data["strain"][0].shape[-1] == 6
    ok &= good
print("%d VTU files + last.vtu read back with meshio (points, cells, fields): %s" % (len(files), ok))
exit(0 if ok else 1)
EOF
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
echo "python $case: ok"
