#!/usr/bin/env python3
"""Expand one sipd-run scene and a parameter grid into a SLURM job array.

    python3 tools/slurm/sweep.py BASE.cfg --set solver.iterations=50,100,200 \
        --set 'materials.[0].poisson=0.3,0.45' --out sweepdir [--submit]

writes sweepdir/scene_000.cfg ... (one scene per point of the cartesian product of the --set
values; the first --set varies slowest), sweepdir/list.txt (one scene per line, the array task
index is the line number counted from 0), sweepdir/params.tsv (index, scene, output and the
value of every swept key; strings without quotes) and prints the sbatch command that runs the array with
tools/slurm/sweep.sbatch (or runs it with --submit).

Scenes are edited through a small parser of the libconfig syntax (groups, lists, arrays,
scalars, comments, @include) that records where each value sits in the text, so only the
edited values change and comments and layout survive. Key paths:

    solver.iterations        a setting inside a group
    materials.[0].poisson    element 0 of a list (materials[0].poisson is accepted too)
    materials.rubber.poisson the element of a list of groups whose `name` is "rubber"
    output.checkpoint_every  a key missing from the scene is added (with its groups)

Values are libconfig literals: 50, 0.3, 1.0e5, true, "gauss-seidel", [0.0, -9.81, 0.0].
A bare word (gauss-seidel) becomes a string; an integer given for a key that is a float in
the base scene gets a decimal point (1 -> 1.0), since sipd-run refuses integers for floats.
Write floats with a decimal point for keys the base scene does not set. Values are separated
by commas outside brackets and quotes.

Every generated scene must pass `sipd-run --dry-run` (SIPD_RUN, build/sipd-run or sipd-run on
PATH) before list.txt, the file the array job reads, is written: a --set key sipd-run does not
know (solver.iteration=50) or a value it refuses stops the sweep here, not on the cluster
(--no-validate skips the check where sipd-run cannot run).

In each generated scene, relative `mesh` paths (and @include files, which are inlined) are
rewritten so they still name the files next to the base scene, and output.file is set to
scene_NNN.h5 in the sweep directory (so the checkpoint is scene_NNN.h5.ckpt).
Python 3 standard library only.
"""

import argparse
import concurrent.futures
import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys

PROG = "sweep.py"


class SceneError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# libconfig subset: tokenizer and parser that keep the source span of every value
# ---------------------------------------------------------------------------------------------

_TOKEN_RES = [
    ("ws", re.compile(r"[ \t\r\n]+")),
    ("comment", re.compile(r"#[^\n]*|//[^\n]*|/\*.*?\*/", re.S)),
    ("string", re.compile(r'"(?:[^"\\]|\\.)*"', re.S)),
    ("float", re.compile(r"[-+]?(?:[0-9]*\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)(?![A-Za-z0-9_.])")),
    ("int", re.compile(r"[-+]?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|0[oO][0-7]+|[0-9]+)(?:LL|L)?(?![A-Za-z0-9_.])")),
    ("bool", re.compile(r"(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])(?![-A-Za-z0-9_*])")),
    ("name", re.compile(r"[A-Za-z*][-A-Za-z0-9_*]*")),
    ("punct", re.compile(r"[=:;,{}\[\]()]")),
]


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line")

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = kind, text, start, end, line


def tokenize(text, fname):
    toks, pos, line = [], 0, 1
    while pos < len(text):
        for kind, rx in _TOKEN_RES:
            m = rx.match(text, pos)
            if m and m.end() > pos:
                if kind == "float" and not re.search(r"[0-9]", m.group()):
                    continue
                if kind not in ("ws", "comment"):
                    toks.append(Tok(kind, m.group(), pos, m.end(), line))
                line += m.group().count("\n")
                pos = m.end()
                break
        else:
            raise SceneError("%s:%d: unexpected character %r" % (fname, line, text[pos]))
    toks.append(Tok("eof", "", len(text), len(text), line))
    return toks


class Value:
    """kind: 'group' | 'list' | 'array' | 'scalar'; for scalars stype: int/float/bool/string."""

    def __init__(self, kind, start, line):
        self.kind, self.start, self.end, self.line = kind, start, start, line
        self.stype = None
        self.items = []      # group: [Setting]; list/array: [Value]
        self.text = ""       # scalar: its source text


class Setting:
    def __init__(self, name, start, line, value):
        self.name, self.start, self.line, self.value = name, start, line, value


class Parser:
    def __init__(self, text, fname):
        self.text, self.fname = text, fname
        self.toks = tokenize(text, fname)
        self.i = 0

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def fail(self, tok, msg):
        raise SceneError("%s:%d: %s" % (self.fname, tok.line, msg))

    def expect(self, text):
        t = self.take()
        if t.kind != "punct" or t.text != text:
            self.fail(t, "expected '%s', found %r" % (text, t.text or "end of file"))
        return t

    def parse_config(self):
        root = Value("group", 0, 1)
        root.items = self.parse_settings(closing=None)
        root.end = len(self.text)
        t = self.peek()
        if t.kind != "eof":
            self.fail(t, "unexpected %r" % t.text)
        return root

    def parse_settings(self, closing):
        out, names = [], set()
        while True:
            t = self.peek()
            if t.kind == "eof" or (t.kind == "punct" and t.text == closing):
                return out
            if t.kind != "name":
                self.fail(t, "expected a setting name, found %r" % (t.text or "end of file"))
            self.take()
            if t.text in names:
                self.fail(t, "duplicate setting '%s'" % t.text)
            names.add(t.text)
            sep = self.take()
            if sep.kind != "punct" or sep.text not in "=:":
                self.fail(sep, "expected '=' after '%s'" % t.text)
            val = self.parse_value()
            out.append(Setting(t.text, t.start, t.line, val))
            nt = self.peek()
            if nt.kind == "punct" and nt.text in ";,":
                self.take()

    def parse_value(self):
        t = self.peek()
        if t.kind == "punct" and t.text in "{[(":
            self.take()
            kind, close = {"{": ("group", "}"), "[": ("array", "]"), "(": ("list", ")")}[t.text]
            v = Value(kind, t.start, t.line)
            if kind == "group":
                v.items = self.parse_settings(closing="}")
            else:
                while not (self.peek().kind == "punct" and self.peek().text == close):
                    v.items.append(self.parse_value())
                    nt = self.peek()
                    if nt.kind == "punct" and nt.text == ",":
                        self.take()
                    elif not (nt.kind == "punct" and nt.text == close):
                        self.fail(nt, "expected ',' or '%s', found %r" % (close, nt.text or "end of file"))
                if kind == "array" and any(x.kind != "scalar" for x in v.items):
                    self.fail(t, "an array [...] holds scalars only (use a list (...))")
            v.end = self.expect(close).end
            return v
        if t.kind in ("int", "float", "bool", "string"):
            self.take()
            v = Value("scalar", t.start, t.line)
            v.stype = t.kind
            v.end = t.end
            if t.kind == "string":   # adjacent strings concatenate
                while self.peek().kind == "string":
                    v.end = self.take().end
            v.text = self.text[v.start:v.end]
            return v
        self.fail(t, "expected a value, found %r" % (t.text or "end of file"))


def parse(text, fname):
    return Parser(text, fname).parse_config()


_ESC = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "\\": "\\", '"': '"'}


def string_value(v):
    """The decoded text of a string scalar (adjacent pieces joined)."""
    out = []
    for piece in re.findall(r'"((?:[^"\\]|\\.)*)"', v.text, re.S):
        i = 0
        while i < len(piece):
            c = piece[i]
            if c == "\\" and i + 1 < len(piece):
                n = piece[i + 1]
                if n == "x" and re.match(r"[0-9A-Fa-f]{2}", piece[i + 2:i + 4]):
                    out.append(chr(int(piece[i + 2:i + 4], 16)))
                    i += 4
                    continue
                out.append(_ESC.get(n, n))
                i += 2
                continue
            out.append(c)
            i += 1
    return "".join(out)


def quote(s):
    r = ['"']
    for c in s:
        if c in '"\\':
            r.append("\\" + c)
        elif c == "\n":
            r.append("\\n")
        elif c == "\t":
            r.append("\\t")
        elif ord(c) < 32:
            r.append("\\x%02x" % ord(c))
        else:
            r.append(c)
    r.append('"')
    return "".join(r)


# ---------------------------------------------------------------------------------------------
# key paths and edits
# ---------------------------------------------------------------------------------------------

def split_path(key):
    """'materials.[0].poisson' / 'materials[0].poisson' -> ['materials', 0, 'poisson']."""
    parts = []
    for comp in re.sub(r"(?<=[^.])\[", ".[", key).split("."):
        m = re.fullmatch(r"\[(\d+)\]", comp)
        if m:
            parts.append(int(m.group(1)))
        elif re.fullmatch(r"[A-Za-z*][-A-Za-z0-9_*]*", comp):
            parts.append(comp)
        else:
            raise SceneError("bad key path '%s': components are names or [index] "
                             "(e.g. solver.iterations, materials.[0].poisson)" % key)
    if not parts or not isinstance(parts[-1], str):
        raise SceneError("bad key path '%s': it must end with a setting name" % key)
    return parts


def _child(node, comp):
    """Child of node for one path component, or None."""
    if node.kind == "group":
        if isinstance(comp, int):
            raise SceneError("[%d] applied to a group" % comp)
        for s in node.items:
            if s.name == comp:
                return s.value
        return None
    if node.kind in ("list", "array"):
        if isinstance(comp, int):
            return node.items[comp] if comp < len(node.items) else None
        for el in node.items:   # select a group in a list by its `name`
            if el.kind == "group":
                for s in el.items:
                    if s.name == "name" and s.value.kind == "scalar" and s.value.stype == "string" \
                            and string_value(s.value) == comp:
                        return el
        return None
    raise SceneError("'%s' applied to a scalar" % comp)


def lookup(root, parts):
    """(value or None, deepest existing node, index of the first missing component)."""
    node = root
    for i, comp in enumerate(parts):
        nxt = _child(node, comp)
        if nxt is None:
            return None, node, i
        node = nxt
    return node, node, len(parts)


def nested_text(parts, value_text):
    """'a', 'b', v -> 'a = { b = v; };'"""
    txt = "%s = %s;" % (parts[-1], value_text)
    for name in reversed(parts[:-1]):
        txt = "%s = { %s };" % (name, txt)
    return txt


def set_value(text, fname, key, value_text):
    """Return text with `key` set to value_text (a libconfig literal)."""
    parts = split_path(key)
    root = parse(text, fname)
    try:
        found, node, i = lookup(root, parts)
    except SceneError as e:
        raise SceneError("%s: %s: %s" % (fname, key, e))
    if found is not None:
        return text[:found.start] + value_text + text[found.end:]
    missing = parts[i:]
    if any(isinstance(c, int) for c in missing) or node.kind != "group":
        raise SceneError("%s: %s: '%s' does not exist in the scene" % (fname, key, parts[i]))
    ins = nested_text(missing, value_text)
    if node is root:
        sep = "" if text.endswith("\n") or not text else "\n"
        return text + sep + ins + "\n"
    at = node.end - 1   # just before the closing brace
    return text[:at].rstrip(" ") + " " + ins + " " + text[at:]


def existing_type(text, fname, key):
    found, _, _ = lookup(parse(text, fname), split_path(key))
    if found is None:
        return None
    return found.stype if found.kind == "scalar" else found.kind


def normalise_value(raw, key, etype):
    """Turn a value from the command line into a libconfig literal for key (base type etype)."""
    raw = raw.strip()
    if raw == "":
        raise SceneError("%s: empty value" % key)
    try:
        p = Parser(raw, "<value>")
        v = p.parse_value()
        if p.peek().kind != "eof":
            v = None
    except SceneError:
        v = None
    if v is None:                      # a bare word: a string
        return quote(raw)
    kind = v.stype if v.kind == "scalar" else v.kind
    if etype == "float" and kind == "int" and re.fullmatch(r"[-+]?[0-9]+", raw):
        return raw + ".0"
    if etype in ("int", "float", "bool", "string") and kind != etype and not (etype == "float" and kind == "int"):
        want = {"int": "an integer", "float": "a float", "bool": "true or false", "string": "a string"}[etype]
        raise SceneError("%s: the base scene has %s here, got %s" % (key, want, raw))
    return raw


def tsv_value(literal):
    """params.tsv cell: strings without their quotes, anything else as written in the scene."""
    v = Parser(literal, "<value>").parse_value()
    if v.kind == "scalar" and v.stype == "string":
        return string_value(v)
    return literal


def split_values(s):
    """Split on commas outside brackets, braces, parentheses and quotes."""
    out, depth, cur, inq, esc = [], 0, [], False, False
    for c in s:
        if inq:
            cur.append(c)
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                inq = False
            continue
        if c == '"':
            inq = True
        elif c in "[({":
            depth += 1
        elif c in "])}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    out.append("".join(cur))
    return [x.strip() for x in out]


# ---------------------------------------------------------------------------------------------
# scene preparation
# ---------------------------------------------------------------------------------------------

_INCLUDE = re.compile(r'^[ \t]*@include[ \t]+"((?:[^"\\]|\\.)*)"[ \t]*$', re.M)


def inline_includes(text, basedir, fname, depth=0):
    """Replace @include lines by the files' text (libconfig resolves them against the scene's
    directory in sipd-run), so every key is editable and the scene can move."""
    if depth > 10:
        raise SceneError("%s: @include nested too deeply" % fname)

    def repl(m):
        inc = m.group(1)
        path = inc if os.path.isabs(inc) else os.path.join(basedir, inc)
        try:
            with open(path) as f:
                body = f.read()
        except OSError as e:
            raise SceneError("%s: @include \"%s\": %s" % (fname, inc, e.strerror))
        body = inline_includes(body, basedir, path, depth + 1)
        return "# --- begin @include \"%s\"\n%s\n# --- end @include\n" % (inc, body.rstrip("\n"))

    return _INCLUDE.sub(repl, text)


def mesh_settings(node):
    """Every string setting named `mesh`, anywhere in the tree."""
    if node.kind == "group":
        for s in node.items:
            if s.name == "mesh" and s.value.kind == "scalar" and s.value.stype == "string":
                yield s.value
            else:
                yield from mesh_settings(s.value)
    elif node.kind in ("list", "array"):
        for el in node.items:
            yield from mesh_settings(el)


def rewrite_meshes(text, fname, basedir, newdir):
    """Relative mesh paths name files relative to the base scene's directory; make them name the
    same files from newdir."""
    edits = []
    for v in mesh_settings(parse(text, fname)):
        p = string_value(v)
        if not os.path.isabs(p):
            target = os.path.normpath(os.path.join(basedir, p))
            # relative when both live under a common directory (the tree can move as a whole),
            # absolute otherwise (no ../../../ up to the root)
            if os.path.commonpath([target, newdir]) != os.path.sep:
                np = os.path.relpath(target, newdir)
            else:
                np = target
            edits.append((v.start, v.end, quote(np)))
    for start, end, rep in sorted(edits, reverse=True):
        text = text[:start] + rep + text[end:]
    return text


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------

def die(msg, code=2):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


def find_sipd_run():
    """$SIPD_RUN, else build/sipd-run of this checkout, else sipd-run on PATH; None if none runs."""
    if os.environ.get("SIPD_RUN"):
        return os.environ["SIPD_RUN"]
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.join(here, "..", "..", "build", "sipd-run")
    if os.access(cand, os.X_OK):
        return os.path.normpath(cand)
    return shutil.which("sipd-run")


def dry_run(sipd, path):
    try:
        r = subprocess.run([sipd, "--dry-run", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    except OSError as e:
        return 2, "%s: cannot run %s: %s\n" % (PROG, sipd, e.strerror)
    return r.returncode, r.stderr


def validate(sipd, outdir, names, keys):
    """`sipd-run --dry-run` on every generated scene: the first alone (every --set key is in it, so
    a key sipd-run does not know stops the sweep once), then the rest in parallel.  Exit 2 naming
    the scenes that fail; their warnings (an empty pin box, ...) are printed once each."""
    def unknown_key(err):
        for m in re.finditer(r"unknown key '([^']+)'", err):
            for k in keys:
                if k.replace(".[", "[") == m.group(1):
                    return k
        return None

    rc, err = dry_run(sipd, os.path.join(outdir, names[0]))
    results = [(names[0], rc, err)]
    if rc == 0 and len(names) > 1:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futs = [(nm, pool.submit(dry_run, sipd, os.path.join(outdir, nm))) for nm in names[1:]]
            results += [(nm,) + f.result() for nm, f in futs]
    bad = [(nm, err) for nm, rc, err in results if rc != 0]
    warnings = {}
    for nm, rc, err in results:
        for line in err.splitlines():
            if rc == 0 and ": warning: " in line:
                warnings.setdefault(line.replace(os.path.join(outdir, nm), "scene_*.cfg"), []).append(nm)
    for w, where in warnings.items():
        print("%s: %s (in %d of %d scenes)" % (PROG, w, len(where), len(names)), file=sys.stderr)
    if not bad:
        return
    k = unknown_key(bad[0][1])
    if k:
        die("--set %s: sipd-run does not know this key (a typo?): %s" % (k, bad[0][1].strip()))
    for nm, err in bad[:10]:
        sys.stderr.write(err if err.endswith("\n") else err + "\n")
    if len(bad) > 10:
        print("%s: ... and %d more" % (PROG, len(bad) - 10), file=sys.stderr)
    if len(results) < len(names):
        what = "%s fails `sipd-run --dry-run` (the other scenes were not checked)" % names[0]
    else:
        what = "%d of %d generated scenes fail `sipd-run --dry-run`" % (len(bad), len(names))
    die("%s; no list.txt was written: nothing to submit" % what)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Expand a scene and a parameter grid into scene files and a SLURM job array.",
        epilog="Key syntax: solver.iterations, materials.[0].poisson (or materials[0].poisson), "
               "materials.rubber.poisson (list element by name). Values: libconfig literals "
               "separated by commas outside brackets/quotes.")
    ap.add_argument("base", metavar="BASE.cfg", help="the scene to vary")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=V1,V2,...",
                    help="a swept key and its values (repeatable; the grid is the cartesian product)")
    ap.add_argument("--out", required=True, metavar="DIR", help="directory for the generated files")
    ap.add_argument("--max-parallel", type=int, default=10, metavar="K",
                    help="run at most K array tasks at once (--array=...%%K; 0 = no limit; default 10)")
    ap.add_argument("--sbatch-arg", dest="sbatch_args", action="append", default=[], metavar="ARG",
                    help="extra sbatch option, e.g. --sbatch-arg=--time=02:00:00 (repeatable)")
    ap.add_argument("--sipd-args", default="", metavar="'ARGS'",
                    help="extra sipd-run options for every task, e.g. '--frames 200'")
    ap.add_argument("--validate", action="store_true",
                    help="check every generated scene with `sipd-run --dry-run` (SIPD_RUN, build/sipd-run or "
                         "sipd-run on PATH) before writing list.txt: the default")
    ap.add_argument("--no-validate", dest="no_validate", action="store_true",
                    help="skip that check (where sipd-run cannot run: a typo in a --set key then fails on the cluster)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing sweep in DIR")
    ap.add_argument("--submit", action="store_true", help="run the sbatch command instead of printing it")
    a = ap.parse_args(argv)

    try:
        with open(a.base) as f:
            base_text = f.read()
    except OSError as e:
        die("%s: %s" % (a.base, e.strerror))
    basedir = os.path.dirname(os.path.abspath(a.base))
    outdir = os.path.abspath(a.out)

    try:
        text = inline_includes(base_text, basedir, a.base)
        parse(text, a.base)
        keys, grids = [], []
        for s in a.sets:
            if "=" not in s:
                raise SceneError("--set %s: expected KEY=V1,V2,..." % s)
            key, vals = s.split("=", 1)
            key = key.strip()
            split_path(key)
            if key in keys:
                raise SceneError("--set %s given twice" % key)
            if key in ("output.file",):
                raise SceneError("--set output.file: the sweep sets it for each scene")
            etype = existing_type(text, a.base, key)
            values = [normalise_value(v, key, etype) for v in split_values(vals)]
            keys.append(key)
            grids.append(values)
    except SceneError as e:
        die(str(e))

    combos = list(itertools.product(*grids))
    n = len(combos)
    width = max(3, len(str(n - 1)))
    list_path = os.path.join(outdir, "list.txt")
    if os.path.exists(list_path) and not a.force:
        die("%s exists: a sweep is already there (use --force to overwrite it)" % list_path)
    sipd = None
    if not a.no_validate:
        sipd = find_sipd_run()
        if not sipd:
            die("cannot validate the scenes: no sipd-run (set SIPD_RUN, build it with `make`, or put it on PATH; "
                "--no-validate skips the check)")
    os.makedirs(outdir, exist_ok=True)
    if os.path.exists(list_path):   # --force: no job can start from a half-made sweep
        os.remove(list_path)

    names, rows = [], []
    try:
        for idx, combo in enumerate(combos):
            stem = "scene_%0*d" % (width, idx)
            scene_name, out_name = stem + ".cfg", stem + ".h5"
            t = text
            for key, val in zip(keys, combo):
                t = set_value(t, a.base, key, val)
            t = rewrite_meshes(t, a.base, basedir, outdir)
            t = set_value(t, a.base, "output.file", quote(out_name))
            header = "# generated by tools/slurm/sweep.py from %s, index %d:%s\n" % (
                os.path.abspath(a.base), idx, "".join(" %s=%s" % kv for kv in zip(keys, combo)))
            parse(t, scene_name)   # never write a file we cannot read back
            tmp = os.path.join(outdir, "." + scene_name + ".tmp")
            with open(tmp, "w") as f:
                f.write(header + t)
            os.replace(tmp, os.path.join(outdir, scene_name))
            names.append(scene_name)
            rows.append([str(idx), scene_name, out_name] + [tsv_value(v) for v in combo])
    except SceneError as e:
        die(str(e))

    if sipd:   # every scene passes `sipd-run --dry-run` before list.txt (what sbatch runs) exists
        validate(sipd, outdir, names, keys)

    with open(os.path.join(outdir, "params.tsv"), "w") as f:
        f.write("\t".join(["index", "scene", "output"] + keys) + "\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
    with open(list_path + ".tmp", "w") as f:
        f.write("".join(x + "\n" for x in names))
    os.replace(list_path + ".tmp", list_path)

    print("%s: %d scenes in %s (list.txt, params.tsv)" % (PROG, n, a.out), file=sys.stderr)
    if n > 1001:
        print("%s: warning: %d tasks exceeds SLURM's default MaxArraySize (1001)" % (PROG, n),
              file=sys.stderr)
    sbatch_script = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep.sbatch"))
    array = "0-%d" % (n - 1) + ("%%%d" % a.max_parallel if a.max_parallel > 0 else "")
    cmd = ["sbatch", "--array=" + array] + a.sbatch_args + \
        [sbatch_script, os.path.join(a.out, "list.txt")] + shlex.split(a.sipd_args)
    if not a.submit:
        print(" ".join(shlex.quote(c) for c in cmd))
        return 0
    os.makedirs("logs", exist_ok=True)   # the templates log to logs/ under the submit directory
    r = subprocess.run(cmd)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
