# paraview_check.py XDMF EXPECT.json PNG — run by tests/cli/test_clients.sh under `xvfb-run pvbatch`.
# Opens XDMF with each of ParaView's XDMF readers and checks the number of time steps, points
# and cells and the bounds at the first and last time against EXPECT (computed from the HDF5
# file with h5py); renders the last frame to PNG with the first reader.  Exit 1 on a mismatch.
import json
import os
import sys

from paraview.simple import (GetActiveViewOrCreate, Render, ResetCamera, SaveScreenshot, Show, XDMFReader,
                             Xdmf3ReaderS, Xdmf3ReaderT)

xdmf, expect_path, png = sys.argv[1], sys.argv[2], sys.argv[3]
with open(expect_path) as f:
    want = json.load(f)
fail = 0


def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


readers = [("Xdmf3ReaderS", lambda: Xdmf3ReaderS(FileName=xdmf)),
           ("Xdmf3ReaderT", lambda: Xdmf3ReaderT(FileName=xdmf)),
           ("XDMFReader", lambda: XDMFReader(FileNames=[xdmf]))]
first = None
for name, make in readers:
    r = make()
    r.UpdatePipelineInformation()
    steps = list(r.TimestepValues) if r.TimestepValues else []
    ok = len(steps) == want["frames"] and close(steps, want["times"], 1e-9)
    for which, t in (("first", 0), ("last", want["frames"] - 1)):
        r.UpdatePipeline(steps[t] if steps else 0.0)   # the proxy method: paraview.simple drops time 0.0
        info = r.GetDataInformation()
        b = list(info.GetBounds())
        good = (info.GetNumberOfPoints() == want["points_paraview"] and info.GetNumberOfCells() == want["cells"] and
                close(b, want["bounds_" + which], 1e-6 * want["diag"]))
        print("%s: %s frame: %d points, %d cells, bounds %s (expected %d, %d, %s)" %
              (name, which, info.GetNumberOfPoints(), info.GetNumberOfCells(), b, want["points_paraview"],
               want["cells"], want["bounds_" + which]))
        ok = ok and good
    print("%s: %d time steps (expected %d): %s" % (name, len(steps), want["frames"], "ok" if ok else "MISMATCH"))
    fail |= not ok
    if first is None:
        first = (r, steps)

r, steps = first
view = GetActiveViewOrCreate("RenderView")
view.ViewTime = steps[-1]
Show(r, view)
ResetCamera(view)
Render(view)
SaveScreenshot(png, view, ImageResolution=[640, 360])
# leave without ParaView's teardown: under Xvfb its GL context release fails with GLXBadContext
# (after the picture is written), which would turn the exit status into 1
sys.stdout.flush()
os._exit(1 if fail else 0)
