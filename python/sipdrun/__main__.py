"""python3 -m sipdrun summary RUN.h5 | export RUN.h5 OUT [--every N]"""
import argparse
import sys

from . import open as open_run
from .export import ExportError, export


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m sipdrun",
                                 description="sipd-run results: a summary table, or an export for other tools")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary", help="a table of the run: convergence, penetration, timing")
    s.add_argument("run", help="the run's .h5 file")
    e = sub.add_parser("export", help="OUT's extension picks the format: .usda/.usdc/.usd (USD, needs usd-core), "
                                      ".pvd (a VTU per frame) or .vtu (the last frame; needs meshio), "
                                      "no extension (a folder of OBJ files, one per frame)")
    e.add_argument("run", help="the run's .h5 file")
    e.add_argument("out")
    e.add_argument("--every", type=int, default=1, help="export every N-th frame (default 1)")
    a = ap.parse_args(argv)
    try:
        with open_run(a.run) as run:
            if a.cmd == "summary":
                print(run.summary())
            else:
                written = export(run, a.out, a.every)
                n = len(written) if isinstance(written, list) else 1
                print("%s: %d frames -> %s (%d file%s)" % (a.run, len(range(0, run.nframes, max(1, a.every))),
                                                          a.out, n, "" if n == 1 else "s"))
    except (OSError, ValueError, KeyError, ExportError) as err:
        print("sipdrun: %s" % err, file=sys.stderr)
        return 2 if isinstance(err, (ValueError, KeyError, ExportError)) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
