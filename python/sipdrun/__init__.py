"""sipdrun — read a sipd-run output file (HDF5) as numpy arrays.

    run = sipdrun.open("results/drop.h5")
    run.times                      # (frames,) s
    run.positions                  # (frames, nv, 3) float32, every body
    run.rest                       # (nv, 3) rest positions
    run.bodies[1].positions        # (frames, nv_body, 3): one body's vertices
    run.bodies[1].elements["tets"] # its tets in its own vertex numbering
    run.frames(body=1, kind="triangles")  # positions of the vertices of a body's elements of a kind
    run.field("displacement")      # (frames, nv, 3)
    run.field("von_mises", "tets") # (frames, nt) (one component: squeezed)
    run.convergence["iterations"]  # one row per solve; run.history["residual"] per iteration
    run.scene                      # the resolved parameters as dicts and lists
    run.summary()                  # the table of `python3 -m sipdrun summary`

The file layout is documented in docs/looking-at-results.md (HDF5 paths are a contract of
sipd-run).  Exporters: sipdrun.export (USD, OBJ, VTU/PVD).
"""
import numpy as np
import h5py

from . import _libconfig

__all__ = ["open", "Run", "Body", "KINDS"]
__version__ = "0.1.0"

#: element kinds of /mesh, in the order the per-element fields use
KINDS = ("tets", "triangles", "edges")
#: the meshio / VTK cell type of each kind
CELL_TYPES = {"tets": "tetra", "triangles": "triangle", "edges": "line"}


def _attr(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _attr(v[()])
    return v


class Body:
    """One body of the run: its vertices (global indices into /mesh), its elements per kind and
    surface triangles renumbered to its own vertices, and its positions over the frames."""

    def __init__(self, run, index, vertices):
        self.run = run
        self.index = index
        self.vertices = vertices                 # global vertex indices, ascending
        local = np.full(run.nv, -1, dtype=np.int64)
        local[vertices] = np.arange(len(vertices))
        self.elements = {}
        self.element_index = {}                  # kind -> indices of the body's elements in /mesh/<kind>
        for kind, conn in run.elements.items():
            sel = np.nonzero(run.body[conn[:, 0]] == index)[0] if len(conn) else np.zeros(0, dtype=np.int64)
            if len(sel):
                self.elements[kind] = local[conn[sel]]
                self.element_index[kind] = sel
        st = run.surface_triangles
        sel = np.nonzero(run.body[st[:, 0]] == index)[0] if len(st) else np.zeros(0, dtype=np.int64)
        self.surface = local[st[sel]]            # outward triangles (tets' surface, cloth triangles)
        params = run.scene.get("bodies", [])
        self.parameters = params[index] if index < len(params) else {}

    @property
    def positions(self):
        """(frames, nv_body, 3) float32"""
        return self.run.positions[:, self.vertices]

    @property
    def rest(self):
        return self.run.rest[self.vertices]

    @property
    def kind(self):
        """what the body is, for exporters: "solid", "shell" or "rod" (edges only)"""
        if "tets" in self.elements:
            return "solid"
        if "triangles" in self.elements or len(self.surface):
            return "shell"
        return "rod"

    @property
    def radius(self):
        """bodies[].radius of the resolved scene (rods and springs; default 0.001 m)"""
        return float(self.parameters.get("radius", 0.001))

    def field(self, name, kind=None):
        """A field restricted to this body: per vertex (frames, nv_body[, k]) or per element of
        `kind` (frames, ne_body[, k])."""
        data = self.run.field(name, kind)
        if kind is None:
            return data[:, self.vertices]
        return data[:, self.element_index.get(kind, np.zeros(0, dtype=np.int64))]

    def __repr__(self):
        return "<sipdrun.Body %d: %d vertices, %s>" % (
            self.index, len(self.vertices), ", ".join("%d %s" % (len(v), k) for k, v in self.elements.items()))


class Run:
    """A sipd-run output file, read into numpy arrays (positions and fields are read on first
    use; `close()` or a `with` block releases the file)."""

    def __init__(self, path):
        self.path = str(path)
        self.file = h5py.File(self.path, "r")
        f = self.file
        if "frames/positions" not in f or "mesh/rest_positions" not in f:
            raise ValueError("%s: not a sipd-run output (no /frames/positions or /mesh)" % self.path)
        self.attrs = {k: _attr(v) for k, v in f.attrs.items()}
        self.scene_text = self.attrs.get("resolved_parameters", "")
        try:
            self.scene = _libconfig.loads(self.scene_text) if self.scene_text else {}
        except ValueError:
            self.scene = {}
        self.rest = f["mesh/rest_positions"][:]
        self.body = f["mesh/body"][:]
        self.nv = self.rest.shape[0]
        self.elements = {k: f["mesh/" + k][:] for k in KINDS if "mesh/" + k in f and f["mesh/" + k].shape[0] > 0}
        st = f["mesh/surface_triangles"]
        self.surface_triangles = st[:] if st.shape[0] > 0 else np.zeros((0, 3), dtype=np.int32)
        self.times = f["frames/time"][:]
        nb = int(self.body.max()) + 1 if self.nv else 0
        self.bodies = [Body(self, b, np.nonzero(self.body == b)[0]) for b in range(nb)]
        self._positions = None
        self.convergence = {}
        self.history = {}
        if "convergence" in f:
            for k, d in f["convergence"].items():
                if isinstance(d, h5py.Dataset):
                    self.convergence[k] = d[:]
            if "convergence/history" in f:
                self.history = {k: d[:] for k, d in f["convergence/history"].items()}

    # ---- frames
    @property
    def nframes(self):
        return len(self.times)

    @property
    def positions(self):
        """(frames, nv, 3) float32, every body's vertices in scene order"""
        if self._positions is None:
            self._positions = self.file["frames/positions"][:]
        return self._positions

    def frames(self, body=None, kind=None):
        """Positions (frames, n, 3) of one body's vertices (body = index), or of the vertices used by
        elements of one kind ("tets", "triangles", "edges"), or both; with the global indices.
        Returns (positions, vertex_indices)."""
        sel = np.ones(self.nv, dtype=bool)
        if body is not None:
            sel &= self.body == body
        if kind is not None:
            used = np.zeros(self.nv, dtype=bool)
            if kind in self.elements:
                used[self.elements[kind].ravel()] = True
            sel &= used
        idx = np.nonzero(sel)[0]
        return self.positions[:, idx], idx

    @property
    def frame_rate(self):
        """frames per second of the output (1 / (dt × output.every)), from the frame times"""
        if self.nframes > 1:
            return float(1.0 / np.median(np.diff(self.times)))
        t = self.scene.get("time", {})
        return 1.0 / float(t.get("dt", 1.0 / 60)) / float(self.scene.get("output", {}).get("every", 1))

    @property
    def gravity(self):
        return np.asarray(self.scene.get("gravity", [0.0, -9.81, 0.0]), dtype=float)

    # ---- fields
    @property
    def field_names(self):
        """output.fields present in the file"""
        return list(self.file["frames/fields"].keys()) if "frames/fields" in self.file else []

    def field_kinds(self, name):
        """None for a per-vertex field, else the kinds it has a dataset for"""
        d = self.file["frames/fields/" + name]
        return None if isinstance(d, h5py.Dataset) else [k for k in KINDS if k in d]

    def field(self, name, kind=None, squeeze=True):
        """A field over all frames: per vertex (frames, nv, k), or per element of `kind` (frames, ne, k);
        one component is squeezed to (frames, n) unless squeeze=False."""
        if name not in self.field_names:
            raise KeyError("%s: no field %r (the run wrote %s; output.fields)" % (self.path, name, self.field_names))
        kinds = self.field_kinds(name)
        if kinds is None:
            if kind is not None:
                raise ValueError("%s is a per-vertex field: no kind" % name)
            data = self.file["frames/fields/" + name][:]
        else:
            if kind is None:
                if len(kinds) != 1:
                    raise ValueError("%s is per element: give a kind (%s)" % (name, ", ".join(kinds)))
                kind = kinds[0]
            if kind not in kinds:
                raise KeyError("%s has no %s (kinds: %s)" % (name, kind, kinds))
            data = self.file["frames/fields/%s/%s" % (name, kind)][:]
        return data[..., 0] if squeeze and data.shape[-1] == 1 else data

    @property
    def fields(self):
        """every field: {name: array} per vertex, {name: {kind: array}} per element"""
        out = {}
        for n in self.field_names:
            kinds = self.field_kinds(n)
            out[n] = self.field(n) if kinds is None else {k: self.field(n, k) for k in kinds}
        return out

    # ---- the rest
    def summary(self):
        """the run as a text table (convergence, penetration, timing)"""
        from .summary import summary_text
        return summary_text(self)

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<sipdrun.Run %s: %d frames, %d vertices, %s>" % (
            self.path, self.nframes, self.nv, ", ".join("%d %s" % (len(v), k) for k, v in self.elements.items()))


def open(path):   # noqa: A001 (the package's entry point, as h5py.File / meshio.read)
    """Open a sipd-run output file (the .h5)."""
    return Run(path)
