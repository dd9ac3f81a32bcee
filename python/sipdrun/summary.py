"""`python3 -m sipdrun summary RUN.h5`: a table of the run (what, convergence, penetration, timing)."""
import numpy as np

STATUS = ("converged", "at-cap", "stalled", "diverged")


def _fmt(v):
    if isinstance(v, float):
        return "%.4g" % v
    return str(v)


def summary_text(run):
    a, c, sc = run.attrs, run.convergence, run.scene
    rows = []

    def row(k, v):
        rows.append((k, _fmt(v)))

    row("file", run.path)
    row("program", a.get("version", "?"))
    row("command line", a.get("command_line", "?"))
    row("device", "%s, %s" % (a.get("device", "?"), a.get("precision", "?")))
    row("exit reason", a.get("exit_reason", "?"))
    solver = sc.get("solver", {})
    if solver:
        row("solver", "%s %s, %s iterations, tolerance %s" % (solver.get("method", "?"), solver.get("sweep", ""),
                                                             solver.get("iterations", "?"), solver.get("tolerance", "?")))
    t = run.times
    row("frames", "%d (t = %.6g .. %.6g s, %.4g frames/s)" % (run.nframes, t[0] if len(t) else 0,
                                                              t[-1] if len(t) else 0, run.frame_rate))
    row("vertices", run.nv)
    for k, v in run.elements.items():
        row(k, len(v))
    row("bodies", ", ".join("%d: %s (%d vertices)" % (b.index, b.kind, len(b.vertices)) for b in run.bodies))
    row("fields", ", ".join(run.field_names) or "none (output.fields)")
    if c.get("iterations") is not None and len(c["iterations"]):
        it, st = c["iterations"], c.get("status")
        row("solves", len(it))
        row("iterations per solve", "mean %.1f, max %d, total %d" % (it.mean(), it.max(), it.sum()))
        if st is not None:
            row("solve status", ", ".join("%s %d" % (STATUS[s], int((st == s).sum())) for s in range(4)))
        res = c.get("residual")
        if res is not None:
            row("final relative residual", "median %.3g, worst %.3g (frame %d)" % (
                np.median(res), res.max(), int(c["frame"][int(np.argmax(res))])))
        if "max_penetration" in c:
            pen = c["max_penetration"]
            row("max penetration", "%.4g m (frame %d)" % (pen.max(), int(c["frame"][int(np.argmax(pen))])))
        if "contacts" in c:
            row("active contacts", "max %d, mean %.1f" % (c["contacts"].max(), c["contacts"].mean()))
        if "momentum_error" in c and np.isfinite(c["momentum_error"]).any():
            row("momentum error", "max %.3g N s" % np.nanmax(c["momentum_error"]))
        if "wall_time" in c:
            w = c["wall_time"]
            row("solve time", "%.3f s total, %.3g ms per solve, %.3g ms per iteration" % (
                w.sum(), 1e3 * w.mean(), 1e3 * w.sum() / max(1, int(it.sum()))))
    if "wall_time_s" in a:
        row("wall time", "%s s" % a["wall_time_s"])
    width = max(len(k) for k, _ in rows)
    lines = ["%-*s  %s" % (width, k, v) for k, v in rows]
    if c.get("iterations") is not None and len(c["iterations"]):
        lines.append("")
        lines.append("per frame (solves of the frame's steps):")
        lines.append("%6s %6s %8s %10s %10s %12s %9s" % ("frame", "solves", "iters", "residual", "status",
                                                       "penetration", "time s"))
        fr = c["frame"]
        for f in np.unique(fr):
            s = fr == f
            worst = int(c["status"][s].max()) if "status" in c else 0
            lines.append("%6d %6d %8d %10.3g %10s %12.4g %9.4f" % (
                f, s.sum(), c["iterations"][s].sum(), c["residual"][s].max(), STATUS[worst] if worst < 4 else "?",
                c["max_penetration"][s].max() if "max_penetration" in c else 0.0, c["wall_time"][s].sum()))
    return "\n".join(lines)
