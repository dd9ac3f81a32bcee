#!/usr/bin/env bash
# test_clients_fields.sh SIPD_RUN SOURCE_DIR SCRATCH — output.fields in the real clients (issue 28's
# "done when"): a run with output.fields = ["displacement", "velocity", "J", "von_mises"] (a cube
# dropped onto the ground, 3 frames) opens in ParaView's three XDMF readers with those arrays
# (displacement = positions - rest at the last step) and its `sipdrun export` PVD in PVDReader
# (tests/cli/clients/paraview_fields.py, pvbatch under xvfb-run); meshio's time-series reader returns
# the last frame's displacement = positions - rest (meshio keeps frame 0's points for every step:
# the displacement is how it sees the motion).  A run of three kinds (tests/data/fields_kinds.cfg)
# must carry the fields on every kind's grid; tools/paraview-picture.py renders with relative paths.  Exit 77 without pvbatch, xvfb-run, h5py or meshio.
set -uo pipefail
bin=$1; src=$2; dir=$3
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
for t in pvbatch xvfb-run; do command -v $t >/dev/null || { echo "skipped: $t not found"; exit 77; }; done
$py -c "import h5py, meshio, numpy" 2>/dev/null || { echo "skipped: $py lacks h5py, meshio or numpy"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export PYTHONPATH=$src/python PYTHONDONTWRITEBYTECODE=1
cat > "$dir/one.cfg" <<CFG
time     = { dt = 0.0166667; substeps = 2; frames = 3; };
materials = ( { name = "soft"; youngs = 1.0e5; poisson = 0.4; density = 1000.0; } );
bodies   = ( { mesh = "$src/scenes/meshes/cube"; material = "soft"; translate = [0.0, 0.003, 0.0]; velocity = [0.0, -1.0, 0.0]; } );
contact  = { dhat = 0.01; ground = { height = 0.0; }; };
output   = { fields = ["displacement", "velocity", "J", "von_mises"]; };
CFG
sed "s|@MESHES@|$src/scenes/meshes|" "$src/tests/data/fields_kinds.cfg" > "$dir/kinds.cfg"
"$bin" "$dir/one.cfg" --quiet --device cpu --output "$dir/one.h5" &&
  "$bin" "$dir/kinds.cfg" --quiet --device cpu --output "$dir/kinds.h5" || { echo "FAIL: sipd-run"; exit 1; }
$py -m sipdrun export "$dir/one.h5" "$dir/one.pvd" || { echo "FAIL: sipdrun export"; exit 1; }
$py - "$dir" <<'PY' || exit 1
import json, sys
import h5py, meshio, numpy as np
d = sys.argv[1]
f = h5py.File(d + "/one.h5", "r")
x, X, t = f["frames/positions"][:], f["mesh/rest_positions"][:], f["frames/time"][:]
want = {"frames": len(t), "times": [float(v) for v in t], "last_positions": x[-1].tolist(),
        "last_displacement": (x[-1].astype(np.float64) - X).tolist(),
        "last_von_mises": f["frames/fields/von_mises/tets"][-1, :, 0].astype(np.float64).tolist(),
        "diag": float(np.linalg.norm(X.max(0) - X.min(0)))}
assert np.abs(f["frames/fields/von_mises/tets"][-1]).max() > 0, "no stress: the check would prove little"
json.dump(want, open(d + "/expect.json", "w"))
with meshio.xdmf.TimeSeriesReader(d + "/one.xdmf") as r:
    pts, cells = r.read_points_cells()
    tl, pdata, cdata = r.read_data(r.num_steps - 1)
err = np.abs(pdata["displacement"] - (x[-1].astype(np.float64) - X)).max()
ok = (r.num_steps == len(t) and tl == t[-1] and err <= 1e-6 * want["diag"] and np.abs(pdata["displacement"]).max() > 0.01
      and np.allclose(cdata["von_mises"][0].ravel(), want["last_von_mises"]) and "velocity" in pdata and "J" in cdata)
print("meshio: %d steps; last step's displacement - (x - rest) = %.3g m, von_mises as in HDF5: %s" %
      (r.num_steps, err, "ok" if ok else "MISMATCH"))
sys.exit(0 if ok else 1)
PY
for attempt in 1 2 3 4 5; do
  timeout 300 xvfb-run -a -n $((100 + RANDOM % 800)) -s "-screen 0 640x480x24" pvbatch "$here/clients/paraview_fields.py" \
    "$dir/one.xdmf" "$dir/one.pvd" "$dir/kinds.xdmf" "$dir/expect.json" 2>&1 | grep -v "^$"; rc=${PIPESTATUS[0]}
  case $rc in 0|1) break ;; esac   # 0/1: the check's verdict; else X or xvfb-run trouble (134, 5)
  echo "clients_fields: pvbatch or xvfb-run failed (exit $rc: X display trouble?), attempt $attempt of 5"
done
[ "$rc" = 0 ] || { echo "FAIL: ParaView (exit $rc)"; exit 1; }
# tools/paraview-picture.py from the run's folder with relative paths, coloured by a cell field
for attempt in 1 2 3; do
  (cd "$dir" && timeout 300 xvfb-run -a -n $((100 + RANDOM % 800)) -s "-screen 0 1280x1024x24" pvbatch \
     "$src/tools/paraview-picture.py" one.xdmf picture.png --color von_mises 2>&1 | grep -v "^$"; exit ${PIPESTATUS[0]})
  rc=$?
  case $rc in 0|1) break ;; esac   # 0/1: the check's verdict; else X or xvfb-run trouble (134, 5)
done
[ "$rc" = 0 ] && [ -s "$dir/picture.png" ] || { echo "FAIL: tools/paraview-picture.py with relative paths (exit $rc)"; exit 1; }
echo "clients_fields: ParaView (3 XDMF readers, PVD) and meshio see the fields"
