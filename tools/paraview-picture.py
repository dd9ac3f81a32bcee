# paraview-picture.py RUN.xdmf OUT.png [TIME] — render a sipd-run output with ParaView
# (pvbatch; under `xvfb-run -a -s "-screen 0 1280x1024x24"` without a display), coloured by
# body, at TIME (default: the last frame).  The ParaView picture of docs/looking-at-results.md is made with it:
#   build/sipd-run scenes/twisted_beams.cfg --frames 30 --output /tmp/tb/tb.h5
#   xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch tools/paraview-picture.py /tmp/tb/tb.xdmf results/img/paraview_twisted_beams.png
import os
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, Render, ResetCamera, SaveScreenshot, Show,
                             Xdmf3ReaderS)

path = os.path.abspath(sys.argv[1])   # Xdmf3ReaderS joins a relative HDF path to the XDMF's name
r = Xdmf3ReaderS(FileName=path)
r.UpdatePipelineInformation()
t = float(sys.argv[3]) if len(sys.argv) > 3 else list(r.TimestepValues)[-1]
view = GetActiveViewOrCreate("RenderView")
view.ViewTime = t
d = Show(r, view)
ColorBy(d, ("POINTS", "body"))
view.CameraPosition = [0.3, -0.9, 0.5]
view.CameraFocalPoint = [0.3, 0.0, 0.0]
view.CameraViewUp = [0, 0, 1]
ResetCamera(view)
Render(view)
SaveScreenshot(sys.argv[2], view, ImageResolution=[800, 450])
sys.stdout.flush()
os._exit(0)   # ParaView's GL teardown under Xvfb fails after the picture is written
