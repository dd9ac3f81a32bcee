# paraview-picture.py RUN.xdmf OUT.png [TIME] [--color NAME] — render a sipd-run output with ParaView
# (pvbatch; under `xvfb-run -a -s "-screen 0 1280x1024x24"` without a display), coloured by body or by
# an output field (--color displacement, von_mises, ...: docs/looking-at-results.md), at TIME (default:
# the last frame).  Paths may be relative (they are made absolute: Xdmf3ReaderS joins a relative HDF
# path to the XDMF's name).  The camera looks from a three-quarter view above, "up" being against the
# run's gravity (the resolved parameters in the .h5 beside the .xdmf; +y when there is none).
# The ParaView picture of docs/looking-at-results.md is made with it:
#   build/sipd-run scenes/twisted_beams.cfg --frames 30 --output /tmp/tb/tb.h5
#   xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch tools/paraview-picture.py /tmp/tb/tb.xdmf results/img/paraview_twisted_beams.png
import math
import os
import re
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, Render, ResetCamera, SaveScreenshot, Show,
                             Xdmf3ReaderS)


def gravity_of(xdmf):
    """the run's gravity from the resolved parameters of the .h5 the XDMF names; None if unknown"""
    try:
        text = open(xdmf).read()
        m = re.search(r">([^<>:]+\.h5):/", text)
        if not m:
            return None
        import h5py
        with h5py.File(os.path.join(os.path.dirname(xdmf), m.group(1)), "r") as f:
            rp = f.attrs.get("resolved_parameters", b"")
        rp = rp.decode() if isinstance(rp, bytes) else str(rp)
        g = re.search(r"^gravity\s*=\s*\[([^\]]*)\]", rp, re.M)
        return [float(v) for v in g.group(1).split(",")] if g else None
    except Exception:   # no h5py, no file: the default camera
        return None


def camera_axes(g):
    """up = -g / |g| (+y when g is zero or unknown), and a viewing direction from a three-quarter view above"""
    up = [0.0, 1.0, 0.0]
    if g and math.sqrt(sum(c * c for c in g)) > 0:
        n = math.sqrt(sum(c * c for c in g))
        up = [-c / n for c in g]
    # a horizontal axis: the world axis least aligned with up, made orthogonal to it
    k = min(range(3), key=lambda i: abs(up[i]))
    a = [1.0 if i == k else 0.0 for i in range(3)]
    d = sum(a[i] * up[i] for i in range(3))
    h1 = [a[i] - d * up[i] for i in range(3)]
    n1 = math.sqrt(sum(c * c for c in h1))
    h1 = [c / n1 for c in h1]
    h2 = [up[1] * h1[2] - up[2] * h1[1], up[2] * h1[0] - up[0] * h1[2], up[0] * h1[1] - up[1] * h1[0]]
    view = [h1[i] + 0.8 * h2[i] + 0.6 * up[i] for i in range(3)]   # from where the camera looks
    return up, view


def main(argv):
    args = [a for a in argv[1:]]
    color = None
    if "--color" in args:
        i = args.index("--color")
        color = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        sys.stderr.write("usage: pvbatch paraview-picture.py RUN.xdmf OUT.png [TIME] [--color FIELD]\n")
        return 2
    path, png = os.path.abspath(args[0]), os.path.abspath(args[1])
    r = Xdmf3ReaderS(FileName=path)
    r.UpdatePipelineInformation()
    t = float(args[2]) if len(args) > 2 else list(r.TimestepValues)[-1]
    view = GetActiveViewOrCreate("RenderView")
    view.ViewTime = t
    d = Show(r, view)
    r.UpdatePipeline(t)
    if color is None:
        ColorBy(d, ("POINTS", "body"))
    else:
        info = r.GetDataInformation()
        where = "POINTS" if info.GetPointDataInformation().GetArrayInformation(color) else "CELLS"
        ColorBy(d, (where, color))
        d.RescaleTransferFunctionToDataRange(True, False)
        d.SetScalarBarVisibility(view, True)
    up, eye = camera_axes(gravity_of(path))
    b = r.GetDataInformation().GetBounds()
    c = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
    view.CameraFocalPoint = c
    view.CameraPosition = [c[i] + eye[i] for i in range(3)]
    view.CameraViewUp = up
    ResetCamera(view)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[800, 450])
    return 0


rc = main(sys.argv)
sys.stdout.flush()
os._exit(rc)   # ParaView's GL teardown under Xvfb fails after the picture is written
