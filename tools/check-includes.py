#!/usr/bin/env python3
"""check-includes.py [--allow M,M,...] ROOT, or --selftest — is the include graph of src/ free of circles?

Reads every .c and .h under ROOT/src and its folders (physics/, solvers/, …), joins a .c with
its .h into one module (src/model.c and src/model.h are "model"; src/physics/tet.h is
"physics/tet", src/solvers/common.c and .h "solvers/common"), and draws
an edge from module A to module B when a file of A includes a header of B ("..." includes that
resolve under src/).  Prints every circle (a strongly connected set of two or more modules) and
exits 1 when there is one, 0 when there is none (docs/architecture.md: Layers).

--selftest       check the checker: a made-up tree with a circle fails, one without passes, and
                 a circle through a folder of src/ is found.
--allow M,M,...  a circle of exactly these modules is known and reported as such, without failing
                 (one --allow per known circle); an allowed circle that has gone is reported too,
                 so the allowance can be removed.
"""
import os
import re
import sys
import tempfile


def modules(root):
    src = os.path.join(os.path.abspath(root), "src")
    files = []
    for d, dirs, names in os.walk(src):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                files.append(os.path.join(d, name))
    graph = {}
    for path in files:
        rel = os.path.relpath(path, src)
        mod = os.path.splitext(rel)[0]
        graph.setdefault(mod, set())
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
            if not os.path.exists(target) or not target.startswith(src + os.sep):
                continue
            other = os.path.splitext(os.path.relpath(target, src))[0]
            if other != mod:
                graph[mod].add(other)
    return graph


def circles(graph):
    """The strongly connected sets of two or more modules (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def selftest():
    """A circle through a .c and a physics header is found; the same tree without it is clean."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "physics"))
        files = {"src/low.h": '#include "physics/m.h"\n', "src/physics/m.h": "",
                 "src/mid.h": '#include "low.h"\n', "src/top.c": '#include "mid.h"\n#include "low.h"\n',
                 "src/low.c": '#include "low.h"\n'}
        for rel, text in files.items():
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        clean = circles(modules(root))
        with open(os.path.join(root, "src/low.c"), "a") as f:
            f.write('#include "top.h"\n')   # top.h does not exist yet: no edge
        missing = circles(modules(root))
        with open(os.path.join(root, "src/top.h"), "w") as f:
            f.write("")
        found = circles(modules(root))
    with tempfile.TemporaryDirectory() as root:   # a circle through a folder below src/physics
        os.makedirs(os.path.join(root, "src", "deep", "er"))
        files = {"src/a.h": "", "src/a.c": '#include "a.h"\n#include "deep/er/b.h"\n',
                 "src/deep/er/b.h": "", "src/deep/er/b.c": '#include "b.h"\n#include "../../a.h"\n'}
        for rel, text in files.items():
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        nested = circles(modules(root))
    ok = clean == [] and missing == [] and found == [["low", "mid", "top"]] and nested == [["a", "deep/er/b"]]
    print(f"check-includes selftest: clean {clean}, include of a missing header {missing}, circle {found}, "
          f"circle through a folder {nested}: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def main(argv):
    allowed = []
    args = argv[1:]
    if args == ["--selftest"]:
        return selftest()
    while args and args[0] == "--allow":
        if len(args) < 2:
            break
        allowed.append(sorted(m for m in args[1].split(",") if m))
        args = args[2:]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[0] + "\n")
        return 2
    graph = modules(args[0])
    bad = 0
    found = circles(graph)
    for comp in found:
        members = set(comp)
        path = "; ".join(f"{a} includes {', '.join(sorted(graph[a] & members))}" for a in comp)
        if comp in allowed:
            print(f"known circle (allowed): {', '.join(comp)}: {path}")
        else:
            print(f"include circle: {', '.join(comp)}: {path}")
            bad = 1
    for comp in allowed:
        if comp not in found:
            print(f"allowed circle {', '.join(comp)} is gone: remove its --allow")
    print(f"check-includes: {len(graph)} modules, {len(found)} circle(s), "
          f"{'none unexpected' if not bad else 'UNEXPECTED CIRCLE'}")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
