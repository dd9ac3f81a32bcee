#!/usr/bin/env python3
"""ptx-fpcmp.py — do two builds of a .cu file compute the same floating-point values?  (No GPU needed.)

Usage: tools/ptx-fpcmp.py [--depth N] BASE.ptx NEW.ptx [FUNCTION ...]
  BASE.ptx / NEW.ptx: `nvcc -DSIPD_REAL_FLOAT -Isrc -O3 -DNDEBUG -std=c++17 -arch=sm_90 -ptx -o X.ptx
  kernels/backend_cuda.cu` at the two commits.  Prints every function (entry or .func) whose PTX text
  differs once the file-specific names (_INTERNAL_<hash>), .loc/.file lines and callseq numbers are
  taken out.  For each FUNCTION named (mangled, as in the PTX), compares the floating-point
  expressions: every f32 add/sub/mul/fma/div result as an expression tree over loads (by the kernel
  parameter their address starts from, and the immediate offset), kernel parameters and constants,
  commutative operands sorted, a register defined more than once (a value merged from several
  blocks or a loop) a leaf "PHI", mul.rn counted as mul (both are one rounding).  Prints how many of
  NEW's expressions (trees cut at --depth, default 10) are not among BASE's, and the smallest such
  nodes (all their operands are BASE's): an FMA contracted differently, an operation order changed.
  An empty list means the same roundings; a node listed needs a look (it may be a legitimate merge
  of equal values, e.g. 1 − sel(p, −∞, x) for sel(p, ∞, 1 − x)).

nvcc contracts a·b + c into an FMA per basic block, so moving code can change a result's rounding
without changing its source expression: results/registers-29.md ("neo-Hookean tet Gauss–Seidel
corner") used this to keep k_gs_color_tet_model<*,*,1> bit-identical while reordering it.
"""
import collections
import re
import sys

COMM = {'add', 'mul', 'min', 'max', 'and', 'or', 'xor'}


def split_functions(path):
    s = open(path).read()
    s = re.sub(r'_INTERNAL_[0-9a-f]+_\d+_\w+?_cu_[0-9a-f]+', '_INTERNAL_X', s)
    s = re.sub(r'\.loc.*\n', '', s)
    s = re.sub(r'\.file.*\n', '', s)
    s = re.sub(r'callseq \d+', 'callseq N', s)
    funcs = {}
    for part in re.split(r'\n(?=(?:\.visible |\.weak |)?\.(?:entry|func) )', s):
        m = re.match(r'(?:\.visible |\.weak |)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\S+?)\(', part)
        name = m.group(1) if m else '<head>'
        funcs[name] = funcs.get(name, '') + part
    return funcs


def instructions(text):
    ins = []
    for line in text.split('\n'):
        line = line.strip().rstrip(';')
        if not line or line.startswith(('.', '//', '{', '}', '$')):
            continue
        if line.startswith('@'):
            line = line.split(None, 1)[1]
        m = re.match(r'(\S+)\s+(.*)', line)
        if not m:
            continue
        op, args = m.group(1), m.group(2)
        if op.startswith(('st.', 'atom', 'red.', 'bar', 'call', 'membar', 'bra', 'ret')):
            continue
        vec = re.match(r'\{([^}]*)\},\s*(.*)', args)
        if vec:   # a vector load: one entry per register
            rest = [x.strip() for x in re.split(r',(?![^\[]*\])', vec.group(2))]
            for j, reg in enumerate(x.strip() for x in vec.group(1).split(',')):
                ins.append((op + '#%d' % j, reg, rest))
            continue
        a = [x.strip() for x in re.split(r',(?![^\[]*\])', args)]
        ins.append((op, a[0], a[1:]))
    return ins


def expressions(text, nodes):
    """The set of node ids of the f32 arithmetic results of one function (nodes: shared interning)."""
    ins = instructions(text)
    defs = collections.defaultdict(list)
    for i, (op, d, s) in enumerate(ins):
        if d and d.startswith('%'):
            defs[d].append(i)
    memo = {}

    def node(t):
        return nodes.setdefault(t, len(nodes))

    def root(r, depth=0):   # the parameter an address starts from
        if depth > 6 or r not in defs or len(defs[r]) > 1:
            return 'PHI'
        op, d, s = ins[defs[r][0]]
        if op.startswith('ld.param'):
            return re.sub(r'%\w+', 'R', s[0])
        if op.startswith(('cvta', 'mov')):
            return root(s[0], depth + 1) if s[0].startswith('%') else s[0]
        if op.startswith('add.s64'):
            x = root(s[0], depth + 1) if s[0].startswith('%') else 'PHI'
            return x if x != 'PHI' else (root(s[1], depth + 1) if s[1].startswith('%') else 'PHI')
        return 'PHI'

    def operand(x):
        if x.startswith('['):
            m = re.match(r'\[(%\w+)(\+(-?\d+))?\]$', x)
            return node(('L', 'A(%s+%s)' % (root(m.group(1)), m.group(3) or '0') if m else x))
        return reg(x) if x.startswith('%') else node(('L', x))

    def insn(i):
        op, d, s = ins[i]
        op = op.replace('mul.rn.f32', 'mul.f32')
        if op.startswith('ld.param'):
            return node(('L', re.sub(r'%\w+', 'R', s[0]) + op.split('#')[-1]))
        ops = [operand(x) for x in s]
        base = op.split('.')[0]
        if base in COMM:
            ops = sorted(ops)
        elif base in ('fma', 'mad'):
            ops = sorted(ops[:2]) + ops[2:]
        if op.startswith('mov') and len(ops) == 1:
            return ops[0]
        return node((op, tuple(ops)))

    def reg(r):
        if r in memo:
            return memo[r]
        if r not in defs:
            v = node(('L', r))
        elif len(defs[r]) > 1:
            v = node(('L', 'PHI'))
        else:
            memo[r] = node(('L', 'CYC'))
            v = insn(defs[r][0])
        memo[r] = v
        return v

    return {insn(i) for i, (op, d, s) in enumerate(ins)
            if d and op.split('.')[0] in ('fma', 'mul', 'add', 'sub', 'div') and 'f32' in op}


def main(argv):
    depth = 10
    if len(argv) > 2 and argv[1] == '--depth':
        depth = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    a, b = split_functions(argv[1]), split_functions(argv[2])
    same = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print('PTX differs:', k)
        else:
            same += 1
    print('%d of %d functions identical' % (same, len(set(a) | set(b))))
    nodes = {}
    for k in argv[3:]:
        ea, eb = expressions(a[k], nodes), expressions(b[k], nodes)
        inv = {v: t for t, v in nodes.items()}

        def kids(n):
            t = inv[n]
            return list(t[1]) if len(t) > 1 and isinstance(t[1], tuple) else []

        def reach(ns):
            seen, stack = set(), list(ns)
            while stack:
                n = stack.pop()
                if n not in seen:
                    seen.add(n)
                    stack.extend(kids(n))
            return seen

        def cut(n, d):   # the tree of n to depth d, as text
            t = inv[n]
            if t[0] == 'L':
                return t[1]
            return '*' if d == 0 else t[0] + '(' + ','.join(cut(c, d - 1) for c in t[1]) + ')'

        ra, rb = reach(ea), reach(eb)
        sa = {cut(n, depth) for n in ea}
        new = [n for n in eb if cut(n, depth) not in sa]
        minimal = [n for n in rb - ra if all(c in ra for c in kids(n))]
        print('%s: %d f32 expressions (base %d), %d not among the base\'s (depth %d), smallest new nodes %d'
              % (k, len(eb), len(ea), len(new), depth, len(minimal)))
        for n in minimal[:20]:
            print('   ', cut(n, 3)[:300])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
