# paraview_fields.py ONE.xdmf ONE.pvd KINDS.xdmf EXPECT.json — run by tests/cli/test_clients_fields.sh
# under `xvfb-run pvbatch`.  output.fields as ParaView sees them:
#   ONE.xdmf (one element kind, tets), with each of the three XDMF readers: the point arrays
#     displacement and velocity and the cell arrays J and von_mises exist at every time step, and at
#     the last one displacement equals positions - rest and von_mises the HDF5 values (EXPECT, h5py);
#   ONE.pvd (python3 -m sipdrun export): PVDReader gives every time step and the last frame's points;
#   KINDS.xdmf (tets, triangles and edges: one grid per kind): every block carries the fields.
# Exit 1 on a mismatch.
import json
import os
import sys

from paraview import servermanager
from paraview.simple import PVDReader, XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT
from vtk.numpy_interface import dataset_adapter as dsa
import numpy as np

one, pvd, kinds, expect_path = sys.argv[1:5]
want = json.load(open(expect_path))
fail = 0


def blocks(data):
    if data.IsA("vtkMultiBlockDataSet"):
        out = []
        it = data.NewIterator()
        it.InitTraversal()
        while not it.IsDoneWithTraversal():
            out.append(it.GetCurrentDataObject())
            it.GoToNextItem()
        return out
    return [data]


def fetch(r, t):
    r.UpdatePipeline(t)
    return blocks(servermanager.Fetch(r))


for name, make in (("Xdmf3ReaderS", lambda f: Xdmf3ReaderS(FileName=f)), ("Xdmf3ReaderT", lambda f: Xdmf3ReaderT(FileName=f)),
                   ("XDMFReader", lambda f: XDMFReader(FileNames=[f]))):
    r = make(one)
    r.UpdatePipelineInformation()
    steps = list(r.TimestepValues)
    ok = len(steps) == want["frames"]
    for i, t in enumerate(steps):
        d = dsa.WrapDataObject(fetch(r, t)[0])
        have = all(n in d.PointData.keys() for n in ("displacement", "velocity")) and \
            all(n in d.CellData.keys() for n in ("J", "von_mises"))
        ok = ok and have
        if i == len(steps) - 1 and have:
            disp = np.asarray(d.PointData["displacement"])
            vm = np.asarray(d.CellData["von_mises"]).ravel()
            e1 = float(np.abs(disp - np.asarray(want["last_displacement"])).max())
            e2 = float(np.abs(vm - np.asarray(want["last_von_mises"])).max())
            print("%s: %d steps, fields %s / %s; last step: |displacement - (x - rest)| %.3g, |von_mises - HDF5| %.3g" %
                  (name, len(steps), list(d.PointData.keys()), list(d.CellData.keys()), e1, e2))
            ok = ok and e1 <= 1e-6 * want["diag"] and e2 == 0.0 and float(np.abs(disp).max()) > 0
    print("%s: %s" % (name, "ok" if ok else "MISMATCH"))
    fail |= not ok

    rk = make(kinds)
    rk.UpdatePipelineInformation()
    bl = fetch(rk, list(rk.TimestepValues)[-1])
    good = len(bl) == 3
    for b in bl:
        d = dsa.WrapDataObject(b)
        print("  block: %d cells, point arrays %s, cell arrays %s" % (b.GetNumberOfCells(), list(d.PointData.keys()),
                                                                     list(d.CellData.keys())))
        good = good and "displacement" in d.PointData.keys() and all(n in d.CellData.keys() for n in ("J", "strain"))
        good = good and b.GetCellData().GetArray("strain").GetNumberOfComponents() == 9   # the 3x3 view of the 6 stored
    print("%s on three kinds: %d blocks, each with displacement, J and strain (9 components): %s" %
          (name, len(bl), "ok" if good else "MISMATCH"))
    fail |= not good

r = PVDReader(FileName=pvd)
r.UpdatePipelineInformation()
steps = list(r.TimestepValues)
d = dsa.WrapDataObject(fetch(r, steps[-1])[0])
pts = np.asarray(d.Points)
ok = (len(steps) == want["frames"] and np.allclose(steps, want["times"]) and
      np.array_equal(pts.astype(np.float32), np.asarray(want["last_positions"], dtype=np.float32)) and
      "displacement" in d.PointData.keys() and "von_mises" in d.CellData.keys())
print("PVDReader: %d steps, last frame's points equal the HDF5 frame, fields %s / %s: %s" %
      (len(steps), list(d.PointData.keys()), list(d.CellData.keys()), "ok" if ok else "MISMATCH"))
fail |= not ok
sys.stdout.flush()
os._exit(1 if fail else 0)
