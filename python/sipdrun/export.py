"""Exporters: USD (usd-core), OBJ sequences, VTU/PVD (meshio).

    export(run, "run.usda")     # .usda / .usdc / .usd: one Mesh per body, BasisCurves for rods
    export(run, "objs/")        # a folder (no extension): frame_00000.obj, ...
    export(run, "run.pvd")      # run.pvd + run/run_00000.vtu, ...; "x.vtu": one frame (the last)

USD and OBJ carry the bodies' surfaces (a solid's outer triangles, a cloth's triangles) and the
rods' polylines, each body's points compacted to the vertices they use; the primvar
`sipd:vertex` (USD) maps each point back to its vertex in /mesh.  VTU carries the whole mesh:
every vertex, the tets, triangles and edges, the per-vertex fields as point data and the
per-element fields as cell data.
"""
import os

import numpy as np

from . import CELL_TYPES, KINDS


class ExportError(Exception):
    pass


def _frames(run, every):
    return list(range(0, run.nframes, max(1, int(every))))


def _polylines(edges):
    """Chain the edges (local indices) into polylines: a list of vertex index arrays.  Vertices of
    degree > 2 end a polyline; cycles are closed by repeating the first vertex."""
    if len(edges) == 0:
        return []
    adj = {}
    for a, b in edges:
        adj.setdefault(int(a), []).append(int(b))
        adj.setdefault(int(b), []).append(int(a))
    used = set()

    def key(a, b):
        return (a, b) if a < b else (b, a)

    lines = []
    starts = [v for v, n in adj.items() if len(n) != 2] + list(adj.keys())
    for s in starts:
        for nb in adj[s]:
            if key(s, nb) in used:
                continue
            line = [s, nb]
            used.add(key(s, nb))
            prev, cur = s, nb
            while len(adj[cur]) == 2:
                nxt = adj[cur][0] if adj[cur][0] != prev else adj[cur][1]
                if key(cur, nxt) in used:
                    break
                used.add(key(cur, nxt))
                line.append(nxt)
                prev, cur = cur, nxt
            lines.append(np.asarray(line, dtype=np.int64))
    return lines


def body_geometry(body):
    """What a body exports as: (kind, vertex indices into /mesh, faces or polylines in their
    numbering).  kind "mesh" (triangles) or "curves" (polylines of the rod's edges)."""
    if len(body.surface):
        used = np.unique(body.surface)
        remap = np.full(len(body.vertices), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        return "mesh", body.vertices[used], remap[body.surface]
    edges = body.elements.get("edges", np.zeros((0, 2), dtype=np.int64))
    used = np.unique(edges)
    remap = np.full(len(body.vertices), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return "curves", body.vertices[used], _polylines(remap[edges])


# ---------------------------------------------------------------------------------------------- USD

def export_usd(run, path, every=1):
    try:
        from pxr import Gf, Sdf, Usd, UsdGeom, Vt
    except ImportError as e:
        raise ExportError("USD export needs Pixar's usd-core (pip install usd-core): %s" % e)
    frames = _frames(run, every)
    if os.path.exists(path):
        os.remove(path)
    stage = Usd.Stage.CreateNew(path)
    if stage is None:
        raise ExportError("%s: cannot create the USD stage" % path)
    fps = run.frame_rate / max(1, int(every))
    stage.SetTimeCodesPerSecond(fps)
    stage.SetFramesPerSecond(fps)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(len(frames) - 1)
    g = run.gravity
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z if abs(g[2]) > abs(g[1]) else UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    world.GetPrim().SetCustomDataByKey("sipd:source", os.path.abspath(run.path))
    pos = run.positions
    vfields = [n for n in run.field_names if run.field_kinds(n) is None]
    for body in run.bodies:
        what, verts, topo = body_geometry(body)
        if len(verts) == 0:
            continue
        name = "/World/body_%d" % body.index
        if what == "mesh":
            prim = UsdGeom.Mesh.Define(stage, name)
            prim.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(topo)))
            prim.CreateFaceVertexIndicesAttr(Vt.IntArray([int(i) for i in topo.ravel()]))
            prim.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            prim.CreateOrientationAttr(UsdGeom.Tokens.rightHanded)
        else:
            prim = UsdGeom.BasisCurves.Define(stage, name)
            prim.CreateTypeAttr(UsdGeom.Tokens.linear)
            prim.CreateCurveVertexCountsAttr(Vt.IntArray([len(c) for c in topo]))
            curve_points = np.concatenate(topo) if topo else np.zeros(0, dtype=np.int64)
            prim.CreateWidthsAttr(Vt.FloatArray([2.0 * body.radius]))
            prim.SetWidthsInterpolation(UsdGeom.Tokens.constant)
        pv = UsdGeom.PrimvarsAPI(prim.GetPrim())
        pv.CreatePrimvar("sipd:vertex", Sdf.ValueTypeNames.IntArray, UsdGeom.Tokens.constant).Set(
            Vt.IntArray([int(i) for i in (verts if what == "mesh" else verts[curve_points])]))
        prim.GetPrim().SetCustomDataByKey("sipd:body", int(body.index))
        prim.GetPrim().SetCustomDataByKey("sipd:kind", body.kind)
        pts, ext = prim.CreatePointsAttr(), prim.CreateExtentAttr()
        fattrs = [(n, pv.CreatePrimvar(n, Sdf.ValueTypeNames.Vector3fArray, UsdGeom.Tokens.vertex))
                  for n in vfields]
        fdata = {n: run.field(n) for n in vfields}
        for i, f in enumerate(frames):
            p = pos[f, verts] if what == "mesh" else pos[f, verts[curve_points]]
            p = np.ascontiguousarray(p, dtype=np.float32)
            tc = Usd.TimeCode(i)
            pts.Set(Vt.Vec3fArray.FromNumpy(p), tc)
            pad = body.radius if what == "curves" else 0.0
            lo, hi = p.min(axis=0) - pad, p.max(axis=0) + pad
            ext.Set(Vt.Vec3fArray([Gf.Vec3f(*map(float, lo)), Gf.Vec3f(*map(float, hi))]), tc)
            for n, a in fattrs:
                v = fdata[n][f, verts] if what == "mesh" else fdata[n][f, verts[curve_points]]
                a.Set(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(v, dtype=np.float32)), tc)
    stage.GetRootLayer().Save()
    return path


# ---------------------------------------------------------------------------------------------- OBJ

def export_obj(run, folder, every=1):
    os.makedirs(folder, exist_ok=True)
    geo = [(b, body_geometry(b)) for b in run.bodies]
    pos = run.positions
    written = []
    for i, f in enumerate(_frames(run, every)):
        path = os.path.join(folder, "frame_%05d.obj" % i)
        with open(path, "w") as out:
            out.write("# sipd-run %s frame %d, t = %.9g s\n" % (os.path.basename(run.path), f, run.times[f]))
            base = 1
            for body, (what, verts, topo) in geo:
                if len(verts) == 0:
                    continue
                out.write("o body_%d\n" % body.index)
                np.savetxt(out, pos[f, verts].astype(np.float64), fmt="v %.9g %.9g %.9g")
                if what == "mesh":
                    np.savetxt(out, topo + base, fmt="f %d %d %d")
                else:
                    for line in topo:
                        out.write("l " + " ".join(str(int(k) + base) for k in line) + "\n")
                base += len(verts)
        written.append(path)
    return written


# ---------------------------------------------------------------------------------------------- VTU

def _vtu_mesh(run, f, meshio, pdata_names, cdata):
    cells = [(CELL_TYPES[k], run.elements[k]) for k in KINDS if k in run.elements]
    point_data = {"body": run.body.astype(np.int32)}
    for n in pdata_names:
        point_data[n] = run.field(n)[f]
    cell_data = {}
    for n, per_kind in cdata.items():
        blocks = []
        for k in KINDS:
            if k not in run.elements:
                continue
            d = per_kind.get(k)
            blocks.append(d[f] if d is not None else np.full(len(run.elements[k]), np.nan, dtype=np.float32))
        cell_data[n] = blocks
    return meshio.Mesh(run.positions[f], cells, point_data=point_data, cell_data=cell_data)


def export_vtu(run, path, every=1, frame=None):
    """path.pvd: a VTU per frame in the folder path-without-.pvd plus the PVD collection;
    path.vtu: one frame (`frame`, default the last)."""
    try:
        import meshio
    except ImportError as e:
        raise ExportError("VTU export needs meshio (pip install meshio): %s" % e)
    pnames = [n for n in run.field_names if run.field_kinds(n) is None]
    cdata = {n: {k: run.field(n, k) for k in run.field_kinds(n)} for n in run.field_names
             if run.field_kinds(n) is not None}
    if path.endswith(".vtu"):
        f = run.nframes - 1 if frame is None else int(frame)
        meshio.write(path, _vtu_mesh(run, f, meshio, pnames, cdata), file_format="vtu")
        return [path]
    stem = path[:-4]
    folder, name = stem, os.path.basename(stem)
    os.makedirs(folder, exist_ok=True)
    entries, written = [], []
    for i, f in enumerate(_frames(run, every)):
        vtu = os.path.join(folder, "%s_%05d.vtu" % (name, i))
        meshio.write(vtu, _vtu_mesh(run, f, meshio, pnames, cdata), file_format="vtu")
        entries.append('    <DataSet timestep="%.17g" part="0" file="%s/%s"/>\n' % (
            run.times[f], name, os.path.basename(vtu)))
        written.append(vtu)
    with open(path, "w") as out:
        out.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n  <Collection>\n')
        out.writelines(entries)
        out.write("  </Collection>\n</VTKFile>\n")
    return [path] + written


def export(run, out, every=1):
    """Export by the extension of `out`: .usda/.usdc/.usd, .pvd/.vtu, or none (a folder of OBJ)."""
    ext = os.path.splitext(out)[1].lower()
    if ext in (".usda", ".usdc", ".usd"):
        return export_usd(run, out, every)
    if ext in (".pvd", ".vtu"):
        return export_vtu(run, out, every)
    if ext == "" or out.endswith(os.sep):
        return export_obj(run, out, every)
    raise ExportError("%s: unknown output type %r (.usda, .usdc, .usd, .pvd, .vtu, or a folder for OBJ)" % (out, ext))
