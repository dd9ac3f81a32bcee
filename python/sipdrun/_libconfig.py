"""A reader for the libconfig text sipd-run stores as the run's resolved parameters.

sipd-run writes that text itself (scene_print): groups, lists, arrays, strings, integers,
floats and booleans.  This parser reads that syntax (and comments), which is all the resolved
parameters use; it is not a full libconfig implementation (no @include, no integer suffixes).
The package's dependencies are numpy and h5py only, so no libconfig binding is required.
"""
import re

_TOKEN = re.compile(r"""
    (?P<ws>\s+|\#[^\n]*|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<num>[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|0[xX][0-9a-fA-F]+|\d+))
  | (?P<name>[A-Za-z*][-A-Za-z0-9_*]*)
  | (?P<punct>[=:;,{}\[\]()])
""", re.VERBOSE | re.DOTALL)

_ESC = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "\\": "\\", '"': '"'}


def _tokens(text):
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            line = text.count("\n", 0, pos) + 1
            raise ValueError("libconfig text, line %d: cannot read %r" % (line, text[pos:pos + 20]))
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        yield kind, m.group(kind)


def _string(tok):
    body, out, i = tok[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "x" and i + 3 < len(body) + 1:
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(_ESC.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _Parser:
    def __init__(self, text):
        self.toks = list(_tokens(text))
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, want=None):
        kind, val = self.peek()
        if kind is None or (want is not None and val != want):
            raise ValueError("libconfig text: expected %r, got %r" % (want, val))
        self.i += 1
        return kind, val

    def settings(self, end):
        out = {}
        while self.peek()[1] != end:
            kind, name = self.take()
            if kind != "name":
                raise ValueError("libconfig text: expected a setting name, got %r" % name)
            sep = self.take()[1]
            if sep not in ("=", ":"):
                raise ValueError("libconfig text: expected = after %s" % name)
            out[name] = self.value()
            if self.peek()[1] in (";", ","):
                self.i += 1
        return out

    def value(self):
        kind, val = self.take()
        if kind == "str":
            s = _string(val)
            while self.peek()[0] == "str":   # adjacent strings concatenate
                s += _string(self.take()[1])
            return s
        if kind == "num":
            if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+", val):
                return int(val, 16)
            if re.fullmatch(r"[-+]?\d+", val):
                return int(val)
            return float(val)
        if kind == "name" and val.lower() in ("true", "false"):
            return val.lower() == "true"
        if val == "{":
            out = self.settings("}")
            self.take("}")
            return out
        if val in ("[", "("):
            end = "]" if val == "[" else ")"
            items = []
            while self.peek()[1] != end:
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.i += 1
            self.take(end)
            return items
        raise ValueError("libconfig text: unexpected %r" % val)


def loads(text):
    """The settings of a libconfig text as nested dicts and lists."""
    p = _Parser(text)
    out = p.settings(None)
    return out
