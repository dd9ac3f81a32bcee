#!/usr/bin/env python3
"""Render a sipd-run output file (HDF5) to PNG images and MP4 videos, headless.

    python3 tools/render.py OUT.h5 --frames 0,30,60 --png results/img/NAME
        writes results/img/NAME_f0000.png, NAME_f0030.png, NAME_f0060.png
        (with exactly one frame and a NAME ending in .png, writes that file)
    python3 tools/render.py OUT.h5 --mp4 results/NAME.mp4 [--fps 30] [--every N]
        the whole run (every N-th stored frame) as an H.264 video (needs ffmpeg)

Frames are indices into /frames (0 = the initial state; negative counts from the end;
ranges a:b[:step] as in Python) or, with --times, the frames nearest the given times (s).

What is drawn: the surface triangles (/mesh/surface_triangles, outward) and the shells'
triangles (/mesh/triangles, two-sided: never culled, a back face shaded with its flipped normal)
at the frame's positions, rods and springs (/mesh/edges) as thick lines (--rod-width) on top,
flat-shaded (ambient + wrapped Lambert from the face normal and a key light + a headlight), back faces
culled and the rest sorted far-to-near (painter's algorithm), in an orthographic view set by
--azimuth/--elevation about the world up axis (--up, default y). Faces are coloured by body
(/mesh/body) or by displacement magnitude from /mesh/rest_positions (--color displacement).
The camera is fixed for a run: it frames the projection of every vertex of every frame (plus
the rest shape with --ghost), so a video does not jump and images of one run compare. Corner
labels: the scene name and its first comment line, the simulated time and frame number, and a
small x/y/z axis triad.

Speed: the projection, shading and sorting are numpy; matplotlib (Agg) only fills 2-D
polygons: ~20 frames/s for the example scenes including H.264 encoding (400 triangles,
960x640 on one core); a few thousand triangles stay above 10 frames/s.

Needs numpy, h5py, matplotlib (pip install numpy h5py matplotlib) and, for --mp4, ffmpeg
(apt-get install ffmpeg).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import textwrap

try:
    import numpy as np
except ImportError:
    sys.exit("render.py: needs numpy, h5py and matplotlib: pip install numpy h5py matplotlib")

BODY_COLOURS = ["#4f8fd8", "#e58a3c", "#5cb36a", "#cf5552", "#9474c8",
                "#c49a3a", "#4fb5b8", "#d573b5", "#8c8c8c", "#a2b83c"]


def die(msg, code=2):
    print("render.py: " + msg, file=sys.stderr)
    sys.exit(code)


def hex_rgb(h):
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4)])


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------
class Run:
    """The parts of an output file the renderer needs. Positions are read frame by frame."""

    def __init__(self, path):
        import h5py
        try:
            self.f = h5py.File(path, "r")
        except OSError as e:
            die("cannot open %s: %s" % (path, e), 1)
        f = self.f
        for key in ("mesh/surface_triangles", "mesh/rest_positions", "frames/positions",
                    "frames/time"):
            if key not in f:
                die("%s: no /%s (not a sipd-run output file?)" % (path, key), 1)
        surf = f["mesh/surface_triangles"][()].astype(np.int64).reshape(-1, 3)
        # shells (/mesh/triangles, the elastic triangles of cloth) are drawn two-sided: never
        # culled, a face seen from behind shaded with its flipped normal; rods and springs
        # (/mesh/edges) as thick lines on top of the faces
        shell = f["mesh/triangles"][()].astype(np.int64).reshape(-1, 3) if "mesh/triangles" in f \
            else np.zeros((0, 3), np.int64)
        if shell.size and surf.size:   # a generated cloth's triangles are also its contact surface
            key = lambda t: set(map(tuple, np.sort(t, axis=1)))
            ss = key(shell)
            surf = surf[[tuple(r) not in ss for r in np.sort(surf, axis=1)]].reshape(-1, 3)
        self.tris = np.concatenate([surf, shell]).astype(np.int64)
        self.two_sided = np.concatenate([np.zeros(len(surf), bool), np.ones(len(shell), bool)])
        self.edges = f["mesh/edges"][()].astype(np.int64).reshape(-1, 2) if "mesh/edges" in f \
            else np.zeros((0, 2), np.int64)
        self.rest = f["mesh/rest_positions"][()].astype(np.float64)
        nv = self.rest.shape[0]
        self.body = f["mesh/body"][()].astype(np.int64) if "mesh/body" in f \
            else np.zeros(nv, np.int64)
        self.pos = f["frames/positions"]
        self.time = f["frames/time"][()]
        # A run that is still being written (or was killed) may have one more time than
        # complete frames or vice versa: use what both have.
        self.nframes = min(self.pos.shape[0], self.time.shape[0])
        if self.nframes == 0:
            die("%s: the file has no frames" % path, 1)
        if self.tris.size and (self.tris.min() < 0 or self.tris.max() >= nv):
            die("%s: surface triangle index out of range" % path, 1)
        if self.edges.size and (self.edges.min() < 0 or self.edges.max() >= nv):
            die("%s: edge index out of range" % path, 1)
        self.name, self.description = self._labels(path)

    def _labels(self, path):
        """Scene name (from the resolved parameters' header) and the scene's first comment."""
        def attr(k):
            v = self.f.attrs.get(k)
            if v is None:
                return ""
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
        name = os.path.splitext(os.path.basename(path))[0]
        m = re.search(r"\(from ([^)]*)\)", attr("resolved_parameters").split("\n", 1)[0])
        if m:
            name = os.path.splitext(os.path.basename(m.group(1)))[0]
        # the scene's leading comment block, first sentence
        lines = []
        for line in attr("scene").splitlines():
            st = line.strip()
            if not st.startswith("#"):
                if st or lines:
                    break
                continue
            lines.append(st.lstrip("#").strip())
        desc = " ".join(lines)
        m = re.search(r"[.!?](\s|$)", desc)
        if m:
            desc = desc[:m.start() + 1]
        return name, desc

    def positions(self, i):
        return np.asarray(self.pos[i], dtype=np.float64)


def parse_frames(spec, n):
    """'0,30,-1', '0:60:10', 'last', 'all' -> sorted unique list of frame indices."""
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if part == "all":
            out.extend(range(n))
        elif part in ("last", "end"):
            out.append(n - 1)
        elif ":" in part:
            bits = [int(b) if b.strip() else None for b in part.split(":")]
            if len(bits) > 3:
                die("bad frame range '%s'" % part)
            out.extend(range(n)[slice(*bits)])
        else:
            try:
                i = int(part)
            except ValueError:
                die("bad frame '%s' (write e.g. 0,30,60 or 0:60:10 or last)" % part)
            if i < -n or i >= n:
                die("frame %d out of range: the file has frames 0..%d" % (i, n - 1))
            out.append(i % n)
    if not out:
        die("no frames selected")
    return sorted(set(out))


def frames_at_times(spec, times):
    out = []
    for part in spec.split(","):
        try:
            t = float(part)
        except ValueError:
            die("bad time '%s'" % part)
        out.append(int(np.argmin(np.abs(times - t))))
    return sorted(set(out))


# --------------------------------------------------------------------------------------------
# Camera and shading
# --------------------------------------------------------------------------------------------
class Camera:
    """Orthographic camera. azimuth 0 looks from the +e2 side (y-up: from +z, x to the right;
    z-up: from -y), positive azimuth swings the camera towards +x; elevation lifts it above the
    horizontal plane."""

    def __init__(self, azimuth, elevation, up="y"):
        az, el = np.radians(azimuth), np.radians(np.clip(elevation, -89.9, 89.9))
        axes = {"x": (np.array([0., 1, 0]), np.array([0., 0, 1]), np.array([1., 0, 0])),
                "y": (np.array([1., 0, 0]), np.array([0., 0, 1]), np.array([0., 1, 0])),
                "z": (np.array([1., 0, 0]), np.array([0., -1, 0]), np.array([0., 0, 1]))}
        e1, e2, upw = axes[up]
        self.view = np.cos(el) * (np.sin(az) * e1 + np.cos(az) * e2) + np.sin(el) * upw
        self.right = np.cross(upw, self.view)
        self.right /= np.linalg.norm(self.right)
        self.up = np.cross(self.view, self.right)
        # rows: screen x, screen y, depth (towards the viewer)
        self.R = np.stack([self.right, self.up, self.view])

    def project(self, p):
        return p @ self.R.T


def light_vector(az, el):
    """Light direction in camera coordinates (x right, y up, z towards the viewer):
    az rotates it to the right of the view axis, el raises it."""
    a, e = np.radians(az), np.radians(el)
    return np.array([np.cos(e) * np.sin(a), np.sin(e), np.cos(e) * np.cos(a)])


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------
class Renderer:
    def __init__(self, run, args):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import PolyCollection

        self.run, self.args = run, args
        self.cam = Camera(args.azimuth, args.elevation, args.up)
        self.light = light_vector(*args.light)
        self.W, self.H = args.size
        nb = int(run.body.max()) + 1 if run.body.size else 1
        palette = [hex_rgb(c) for c in (args.body_colours or BODY_COLOURS)]
        self.body_rgb = np.array([palette[b % len(palette)] for b in range(nb)])
        # body of a triangle = body of its first vertex (bodies do not share vertices)
        self.tri_body = run.body[run.tris[:, 0]] if run.tris.size else np.zeros(0, np.int64)

        # Fixed framing and (for displacement colouring) a fixed colour scale over all frames.
        self.frame_list = args.frame_list
        lo, hi, umax = np.full(2, np.inf), np.full(2, -np.inf), 0.0
        scan = range(run.nframes) if not args.frame_only else self.frame_list
        for i in scan:
            p = run.positions(i)
            s = self.cam.project(p)[:, :2]
            lo, hi = np.minimum(lo, s.min(0)), np.maximum(hi, s.max(0))
            if args.color == "displacement":
                umax = max(umax, float(np.linalg.norm(p - run.rest, axis=1).max()))
        if args.ghost:
            s = self.cam.project(run.rest)[:, :2]
            lo, hi = np.minimum(lo, s.min(0)), np.maximum(hi, s.max(0))
        self.umax = args.umax if args.umax else max(umax, 1e-30)
        centre, half = (lo + hi) / 2, (hi - lo) / 2
        half = np.maximum(half, 1e-9)
        # subtitle wrapped to the image width (at most 2 lines, ~6.5 px per character at 9 pt)
        desc = args.subtitle if args.subtitle is not None else run.description
        self.desc_lines = textwrap.wrap(desc or "", max(20, int(self.W / 6.5)))
        if len(self.desc_lines) > 2:
            self.desc_lines = self.desc_lines[:2]
            self.desc_lines[1] = self.desc_lines[1][:-3] + "..."
        # leave room for the labels: margins in fractions of the image
        top = (62.0 + 16.0 * len(self.desc_lines)) / self.H
        bottom, side = 75.0 / self.H, 0.05
        if args.color == "displacement":
            side = 0.05
        aspect_img = self.W / self.H
        # world units per image width/height so that the box fits with margins
        sx = 2 * half[0] / (1 - 2 * side)
        sy = 2 * half[1] / (1 - top - bottom)
        if sx / sy < aspect_img:
            sx = sy * aspect_img
        else:
            sy = sx / aspect_img
        cy = centre[1] + (top - bottom) / 2 * sy
        self.xlim = (centre[0] - sx / 2, centre[0] + sx / 2)
        self.ylim = (cy - sy / 2, cy + sy / 2)

        dpi = 100
        self.fig = plt.figure(figsize=(self.W / dpi, self.H / dpi), dpi=dpi)
        self.fig.patch.set_facecolor(args.background)
        ax = self.fig.add_axes([0, 0, 1, 1])
        ax.set_xlim(*self.xlim)
        ax.set_ylim(*self.ylim)
        ax.set_aspect("equal", adjustable="box")
        ax.set_axis_off()
        ax.set_facecolor(args.background)
        self.ax = ax

        if args.ghost:
            self._draw_ghost(PolyCollection)
        lw = args.edge_width
        self.coll = PolyCollection([], closed=True, linewidths=lw, antialiased=True,
                                   edgecolors="face" if lw <= 0 else None)
        ax.add_collection(self.coll)
        from matplotlib.collections import LineCollection
        self.lines = LineCollection([], linewidths=args.rod_width, capstyle="round", zorder=3)
        ax.add_collection(self.lines)
        self.edge_body = run.body[run.edges[:, 0]] if run.edges.size else np.zeros(0, np.int64)

        fg = "#222222" if np.mean(matplotlib.colors.to_rgb(args.background)) > 0.5 else "#eeeeee"
        self.fg = fg
        title = args.title if args.title is not None else run.name
        self.fig.text(0.015, 1 - 12.0 / self.H, title, ha="left", va="top", fontsize=15,
                      fontweight="bold", color=fg)
        if self.desc_lines:
            self.fig.text(0.015, 1 - 50.0 / self.H, "\n".join(self.desc_lines), ha="left",
                          va="top", fontsize=9, color=fg, alpha=0.8, linespacing=1.3)
        self.time_text = self.fig.text(0.015, 0.02, "", ha="left", va="bottom", fontsize=13,
                                       color=fg, family="monospace")
        self._draw_triad()
        if args.color == "body" and nb > 1:
            from matplotlib.patches import Patch
            handles = [Patch(facecolor=self.body_rgb[b], edgecolor=self.body_rgb[b] * 0.55,
                             label="body %d" % b) for b in range(min(nb, 12))]
            self.fig.legend(handles=handles, loc="lower center", ncol=min(nb, 6), fontsize=9,
                            frameon=False, bbox_to_anchor=(0.5, 0.0), labelcolor=fg)
        if args.color == "displacement":
            self._draw_colourbar(plt)

    # -- static decorations ------------------------------------------------------------------
    def _draw_ghost(self, PolyCollection):
        verts, _, _ = self._faces(self.run.rest, np.full(len(self.run.tris), 0.85))
        self.ax.add_collection(PolyCollection(verts, facecolors=(0.6, 0.6, 0.6, 0.18),
                                              edgecolors=(0.4, 0.4, 0.4, 0.35),
                                              linewidths=0.4, linestyles="dashed"))

    def _draw_triad(self):
        """x/y/z axis directions, bottom right."""
        ax = self.fig.add_axes([0.86, 0.01, 0.13, 0.13 * self.W / self.H])
        ax.set_xlim(-1.5, 1.5)
        ax.set_ylim(-1.5, 1.5)
        ax.set_aspect("equal")
        ax.set_axis_off()
        cols = {"x": "#cc3333", "y": "#2f9e44", "z": "#3366cc"}
        for k, e in zip("xyz", np.eye(3)):
            d = self.cam.R[:2] @ e
            ax.annotate("", xy=d, xytext=(0, 0),
                        arrowprops=dict(arrowstyle="-|>", color=cols[k], lw=1.6))
            n = np.linalg.norm(d)
            lab = d / n * (n + 0.35) if n > 0.05 else np.array([0.25, 0.25])
            ax.text(lab[0], lab[1], k, color=cols[k], ha="center", va="center", fontsize=10,
                    fontweight="bold")

    def _draw_colourbar(self, plt):
        import matplotlib as mpl
        cax = self.fig.add_axes([0.52, 0.05, 0.25, 0.022])
        sm = mpl.cm.ScalarMappable(norm=mpl.colors.Normalize(0, self.umax),
                                   cmap=plt.get_cmap(self.args.cmap))
        cb = self.fig.colorbar(sm, cax=cax, orientation="horizontal")
        cb.ax.tick_params(labelsize=8, colors=self.fg)
        cb.outline.set_edgecolor(self.fg)
        cb.ax.set_title("|displacement| (m)", fontsize=8, color=self.fg, pad=3)
        cb.locator = mpl.ticker.MaxNLocator(4)
        cb.update_ticks()
        self.cmap = plt.get_cmap(self.args.cmap)

    # -- per frame -----------------------------------------------------------------------------
    def _faces(self, p, base_shade=None):
        """Projected, culled, depth-sorted triangles: (verts nf'x3x2, lambert nf', index nf')."""
        q = self.cam.project(p)
        t = self.run.tris
        a, b, c = q[t[:, 0]], q[t[:, 1]], q[t[:, 2]]
        n = np.cross(b - a, c - a)
        nn = np.linalg.norm(n, axis=1)
        nn[nn == 0] = 1.0
        n /= nn[:, None]
        two = self.run.two_sided if self.args.cull else np.ones(len(t), bool)
        keep = (n[:, 2] > 0.0) | two
        # two-sided shading for shells and when not culling (faces seen from behind use the
        # flipped normal); wrapped ("half") Lambert: faces turned away from the key light fade
        # instead of going black
        nl = n @ self.light
        nl = np.where(two & (n[:, 2] < 0), -nl, nl)
        lam = (0.5 * nl + 0.5) ** 2
        depth = (a[:, 2] + b[:, 2] + c[:, 2]) / 3.0
        idx = np.nonzero(keep)[0]
        idx = idx[np.argsort(depth[idx], kind="stable")]     # far first
        verts = np.stack([a[idx, :2], b[idx, :2], c[idx, :2]], axis=1)
        self._nz = n[idx, 2]
        return verts, lam[idx], idx

    def draw(self, i):
        run, args = self.run, self.args
        p = run.positions(i)
        verts, lam, idx = self._faces(p)
        if args.color == "displacement":
            u = np.linalg.norm(p - run.rest, axis=1)
            uf = u[run.tris[idx]].mean(axis=1) / self.umax
            base = self.cmap(np.clip(uf, 0, 1))[:, :3]
        else:
            base = self.body_rgb[self.tri_body[idx]]
        # key light (Lambert) plus a weaker headlight along the view so that faces turned
        # away from the key light keep their colour
        head = np.abs(self._nz)
        diffuse = (1.0 - args.headlight) * lam + args.headlight * head
        shade = np.minimum(args.ambient + (1.0 - args.ambient) * args.gain * diffuse, 1.0)
        rgb = np.clip(base * shade[:, None], 0, 1)
        self.coll.set_verts(verts)
        self.coll.set_facecolors(rgb)
        if run.edges.size:   # rods and springs: thick lines in the body colour (or displacement)
            q = self.cam.project(p)[:, :2]
            seg = np.stack([q[run.edges[:, 0]], q[run.edges[:, 1]]], axis=1)
            if args.color == "displacement":
                u = np.linalg.norm(p - run.rest, axis=1)
                ec = self.cmap(np.clip(u[run.edges].mean(axis=1) / self.umax, 0, 1))[:, :3]
            else:
                ec = self.body_rgb[self.edge_body] * 0.8
            self.lines.set_segments(seg)
            self.lines.set_color(ec)
        if args.edge_width > 0:
            self.coll.set_edgecolors(rgb * 0.55)
        t = run.time[i]
        self.time_text.set_text("t = %.3f s   frame %d/%d" % (t, i, run.nframes - 1))
        self.fig.canvas.draw()

    def rgba(self):
        buf = np.asarray(self.fig.canvas.buffer_rgba())
        return buf

    def save_png(self, path):
        import matplotlib.pyplot as plt
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        # write the canvas as drawn (no re-layout), 8-bit RGB: smaller files than RGBA
        rgb = self.rgba()[:, :, :3]
        plt.imsave(path, np.ascontiguousarray(rgb), format="png")


# --------------------------------------------------------------------------------------------
# Video
# --------------------------------------------------------------------------------------------
def encode_mp4(renderer, frames, path, fps, crf):
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        die("ffmpeg not found on PATH: --mp4 needs it (Debian/Ubuntu: apt-get install ffmpeg; "
            "conda: conda install -c conda-forge ffmpeg). PNG output works without it.", 1)
    enc = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True, text=True)
    codec = ["-c:v", "libx264", "-crf", str(crf), "-preset", "medium"] \
        if "libx264" in enc.stdout else ["-c:v", "mpeg4", "-q:v", "3"]
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    W, H = renderer.W, renderer.H
    cmd = [ffmpeg, "-y", "-hide_banner", "-loglevel", "error",
           "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "%dx%d" % (W, H), "-r", str(fps),
           "-i", "-", "-an"] + codec + ["-pix_fmt", "yuv420p", "-movflags", "+faststart", path]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    try:
        for k, i in enumerate(frames):
            renderer.draw(i)
            buf = renderer.rgba()
            if buf.shape[:2] != (H, W):
                die("internal: canvas is %dx%d, expected %dx%d" % (buf.shape[1], buf.shape[0],
                                                                    W, H), 1)
            proc.stdin.write(np.ascontiguousarray(buf).tobytes())
            if not renderer.args.quiet and (k % 20 == 0 or k == len(frames) - 1):
                print("render.py: frame %d/%d" % (k + 1, len(frames)), file=sys.stderr,
                      end="\r")
    except BrokenPipeError:
        pass
    finally:
        if proc.stdin:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        rc = proc.wait()
    if not renderer.args.quiet:
        print(file=sys.stderr)
    if rc != 0:
        die("ffmpeg failed (exit %d) writing %s" % (rc, path), 1)


# --------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Render a sipd-run HDF5 output file to PNG images and/or an MP4 video.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 2)[1])
    ap.add_argument("h5", help="sipd-run output file (.h5)")
    ap.add_argument("--frames", help="frames for --png: e.g. 0,30,60 | 0:60:10 | last | all "
                    "(default: first and last)")
    ap.add_argument("--times", help="frames nearest these simulated times (s), e.g. 0.5,1")
    ap.add_argument("--png", metavar="PREFIX",
                    help="write PREFIX_fNNNN.png per frame (PREFIX.png if one frame and "
                    "PREFIX ends in .png)")
    ap.add_argument("--mp4", metavar="FILE", help="write the run as an MP4 video")
    ap.add_argument("--fps", type=float, default=30.0, help="video frame rate (default 30)")
    ap.add_argument("--every", type=int, default=1, help="video: every N-th stored frame")
    ap.add_argument("--crf", type=int, default=23, help="video quality, x264 CRF (default 23)")
    ap.add_argument("--azimuth", "--az", type=float, default=30.0,
                    help="view azimuth in degrees about the up axis (default 30)")
    ap.add_argument("--elevation", "--el", type=float, default=20.0,
                    help="view elevation in degrees (default 20)")
    ap.add_argument("--up", choices=("x", "y", "z"), default="y",
                    help="world up axis (default y: the scenes' gravity is -y)")
    ap.add_argument("--light", type=float, nargs=2, default=(-15.0, 55.0), metavar=("AZ", "EL"),
                    help="key light direction relative to the view, degrees (default -15 55: "
                    "upper left)")
    ap.add_argument("--ambient", type=float, default=0.3, help="ambient light 0..1 (0.3)")
    ap.add_argument("--gain", type=float, default=1.1,
                    help="diffuse light gain; shades are clipped at full colour (1.1)")
    ap.add_argument("--headlight", type=float, default=0.4,
                    help="share of the diffuse light from a headlight along the view, 0..1 "
                    "(default 0.4; the rest comes from --light)")
    ap.add_argument("--size", default="960x640",
                    help="image size WxH in pixels (default 960x640; even for video)")
    ap.add_argument("--color", "--colour", choices=("body", "displacement"), default="body",
                    help="face colour: by body (default) or by |x - rest| (fixed scale)")
    ap.add_argument("--cmap", default="viridis", help="colormap for --color displacement")
    ap.add_argument("--umax", type=float, help="displacement colour scale maximum (m)")
    ap.add_argument("--body-colours", "--body-colors", type=lambda s: s.split(","),
                    help="comma-separated colours (#rrggbb) for bodies 0, 1, ...")
    ap.add_argument("--background", default="white", help="background colour (white)")
    ap.add_argument("--rod-width", type=float, default=3.0,
                    help="line width (points) of rods and springs (/mesh/edges)")
    ap.add_argument("--edge-width", type=float, default=0.3,
                    help="mesh edge line width in points, 0 = none (default 0.3)")
    ap.add_argument("--ghost", action="store_true",
                    help="draw the rest shape as a faint outline behind the body")
    ap.add_argument("--no-cull", dest="cull", action="store_false",
                    help="draw back faces too (for open or inverted surfaces)")
    ap.add_argument("--frame-only", action="store_true",
                    help="frame only the selected frames, not the whole run")
    ap.add_argument("--title", help="label, top left (default: the scene name)")
    ap.add_argument("--subtitle", help="second line (default: the scene's first comment line)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    if not args.png and not args.mp4:
        ap.error("nothing to do: give --png PREFIX and/or --mp4 FILE")
    m = re.fullmatch(r"(\d+)[xX](\d+)", args.size)
    if not m:
        ap.error("--size: write WIDTHxHEIGHT, e.g. 960x640")
    W, H = int(m.group(1)), int(m.group(2))
    if W < 64 or H < 64:
        ap.error("--size: at least 64x64")
    if args.mp4:
        W, H = W + W % 2, H + H % 2
    args.size = (W, H)
    if args.every < 1:
        ap.error("--every must be >= 1")
    if args.fps <= 0:
        ap.error("--fps must be > 0")

    if args.mp4 and shutil.which("ffmpeg") is None:
        die("ffmpeg not found on PATH: --mp4 needs it (Debian/Ubuntu: apt-get install ffmpeg; "
            "conda: conda install -c conda-forge ffmpeg). PNG output works without it.", 1)
    try:
        import h5py  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as e:
        die("%s: pip install numpy h5py matplotlib" % e, 1)
    run = Run(args.h5)
    if args.frames and args.times:
        ap.error("give --frames or --times, not both")
    if args.times:
        png_frames = frames_at_times(args.times, run.time[:run.nframes])
    elif args.frames:
        png_frames = parse_frames(args.frames, run.nframes)
    else:
        png_frames = sorted({0, run.nframes - 1})
    video_frames = list(range(0, run.nframes, args.every))
    if args.mp4 and video_frames[-1] != run.nframes - 1:
        video_frames.append(run.nframes - 1)
    args.frame_list = sorted(set((png_frames if args.png else []) +
                                 (video_frames if args.mp4 else [])))

    r = Renderer(run, args)
    if args.png:
        single = args.png.lower().endswith(".png") and len(png_frames) == 1
        for i in png_frames:
            path = args.png if single else "%s_f%04d.png" % (
                args.png[:-4] if args.png.lower().endswith(".png") else args.png, i)
            r.draw(i)
            r.save_png(path)
            if not args.quiet:
                print("render.py: wrote %s (t = %g s)" % (path, run.time[i]), file=sys.stderr)
    if args.mp4:
        encode_mp4(r, video_frames, args.mp4, args.fps, args.crf)
        if not args.quiet:
            print("render.py: wrote %s (%d frames at %g fps)" % (args.mp4, len(video_frames),
                                                                 args.fps), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
