/* mesh.c — mesh loaders (TetGen, gmsh 2.2/4.1 ASCII and binary, Wavefront OBJ; mesh.h).
 *
 * Design.  Every input file is read whole into memory (sipd_read_file) and parsed with a
 * cursor over that buffer: text is consumed line by line (strtod/strtoll on the line, never
 * fscanf), binary payloads by memcpy from the same cursor after an explicit bounds check.
 * Every record is checked as it is read, so an error names the mesh file and the line (text)
 * or the section and element number (binary), and nothing is ever read past the buffer end.
 *
 * Counts from headers are never trusted for allocation beyond what the file could hold:
 * node arrays are sized from the header only after checking that the remaining bytes could
 * contain that many records; element arrays grow geometrically as elements are actually read.
 *
 * gmsh node tags (sparse, unordered, up to 64 bit) are mapped to dense 0-based indices in
 * order of appearance: through a direct table when the tags are compact, else a sorted
 * (tag, index) array with binary search.  Duplicate tags are refused.
 *
 * Each tet is checked and oriented as it is read (nodes always precede elements): 6V =
 * det[x1-x0, x2-x0, x3-x0]; |6V| <= 1e-12 Lmax^3 (Lmax its longest edge) is degenerate and
 * refused naming the element; 6V < 0 swaps corners 2 and 3.
 *
 * The surface is always extracted from the tets (faces that belong to exactly one tet),
 * which is the same for every input format.  Triangles given by the file (gmsh type 2,
 * TetGen .face) are parsed and validated (node references) but not otherwise used.  The
 * extraction buckets faces by their smallest vertex (counting sort, O(n)) and sorts each
 * small bucket, so it scales to millions of tets.  Faces shared by more than two tets make
 * the mesh non-manifold and are refused.
 */
#define _POSIX_C_SOURCE 200809L
#include "mesh.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESH_MAX_COUNT (INT_MAX / 4)

/* ------------------------------------------------------------------------------------ */
/* Buffer cursor                                                                         */

typedef struct {
    const char *file;       /* name used in messages       */
    const char *buf, *end;  /* whole file, *end == '\0'    */
    const char *p;          /* next unread byte            */
    int line;               /* line number of current line */
    const char *lp, *le;    /* current line [lp, le)       */
    int hash_comments;      /* TetGen: '#' starts a comment, blank lines skipped */
    int binary;             /* gmsh binary: report sections/elements, not lines  */
} reader;

static void rd_init(reader *r, const char *file, const char *buf, size_t len, int comments)
{
    memset(r, 0, sizeof *r);
    r->file = file;
    r->buf = buf;
    r->end = buf + len;
    r->p = buf;
    r->hash_comments = comments;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Next raw line; returns 0 at end of file. */
static int rd_raw_line(reader *r)
{
    const char *nl;
    if (r->p >= r->end)
        return 0;
    nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    r->lp = r->p;
    r->le = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    return 1;
}

/* Next line with content: for TetGen strips '#' comments and skips blank lines;
 * for gmsh skips blank lines only. Returns 0 at end of file. */
static int rd_line(reader *r)
{
    while (rd_raw_line(r)) {
        if (r->hash_comments) {
            const char *h = memchr(r->lp, '#', (size_t)(r->le - r->lp));
            if (h)
                r->le = h;
        }
        while (r->lp < r->le && is_blank(*r->lp))
            r->lp++;
        while (r->le > r->lp && is_blank(r->le[-1]))
            r->le--;
        if (r->lp < r->le)
            return 1;
    }
    return 0;
}

static int rd_line_is(const reader *r, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(r->le - r->lp) == n && memcmp(r->lp, s, n) == 0;
}

/* Copy of the current token (for messages), truncated. */
static void rd_token(const reader *r, char *out, size_t cap)
{
    const char *s = r->lp, *e = s;
    size_t n;
    while (e < r->le && !is_blank(*e))
        e++;
    n = (size_t)(e - s);
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
    out[n] = '\0';
}

static int rd_at_eol(reader *r)
{
    while (r->lp < r->le && is_blank(*r->lp))
        r->lp++;
    return r->lp >= r->le;
}

static void rd_err(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rd_err(const reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sipd_error_at(r->file, r->binary ? 0 : r->line, "%s", msg);
}

/* Integer token on the current line. */
static int rd_ll(reader *r, long long *v, const char *what)
{
    char *e;
    char tok[40];
    if (rd_at_eol(r)) {
        rd_err(r, "missing %s (line ends early)", what);
        return SIPD_EINPUT;
    }
    rd_token(r, tok, sizeof tok);
    if (!(isdigit((unsigned char)*r->lp) || *r->lp == '-' || *r->lp == '+')) {
        rd_err(r, "expected an integer %s, found '%s'", what, tok);
        return SIPD_EINPUT;
    }
    {
        long long x = strtoll(r->lp, &e, 10);
        if (e == r->lp || (e < r->le && !is_blank(*e))) {
            rd_err(r, "expected an integer %s, found '%s'", what, tok);
            return SIPD_EINPUT;
        }
        if (x == LLONG_MAX || x == LLONG_MIN) {
            rd_err(r, "%s '%s' is out of range", what, tok);
            return SIPD_EINPUT;
        }
        *v = x;
    }
    r->lp = e;
    return SIPD_OK;
}

/* Integer token ending at a blank, the line end or a '/' (OBJ corners). */
static int rd_ll_slash(reader *r, long long *v, const char *what)
{
    char *e;
    char tok[40];
    long long x;
    if (rd_at_eol(r)) {
        rd_err(r, "missing %s (line ends early)", what);
        return SIPD_EINPUT;
    }
    rd_token(r, tok, sizeof tok);
    if (!(isdigit((unsigned char)*r->lp) || *r->lp == '-' || *r->lp == '+')) {
        rd_err(r, "expected an integer %s, found '%s'", what, tok);
        return SIPD_EINPUT;
    }
    x = strtoll(r->lp, &e, 10);
    if (e == r->lp || (e < r->le && !is_blank(*e) && *e != '/')) {
        rd_err(r, "expected an integer %s, found '%s'", what, tok);
        return SIPD_EINPUT;
    }
    if (x == LLONG_MAX || x == LLONG_MIN || x > INT_MAX || x < -(long long)INT_MAX) {
        rd_err(r, "%s '%s' is out of range", what, tok);
        return SIPD_EINPUT;
    }
    *v = x;
    r->lp = e;
    return SIPD_OK;
}

static int rd_int(reader *r, int *v, long long lo, long long hi, const char *what)
{
    long long x;
    int rc = rd_ll(r, &x, what);
    if (rc)
        return rc;
    if (x < lo || x > hi) {
        rd_err(r, "%s %lld out of range [%lld, %lld]", what, x, lo, hi);
        return SIPD_EINPUT;
    }
    *v = (int)x;
    return SIPD_OK;
}

static int rd_double(reader *r, double *v, const char *what)
{
    char *e;
    char tok[40];
    double x;
    if (rd_at_eol(r)) {
        rd_err(r, "missing %s (line ends early)", what);
        return SIPD_EINPUT;
    }
    rd_token(r, tok, sizeof tok);
    x = strtod(r->lp, &e);
    if (e == r->lp || (e < r->le && !is_blank(*e))) {
        rd_err(r, "expected a number for %s, found '%s'", what, tok);
        return SIPD_EINPUT;
    }
    if (!isfinite(x)) {
        rd_err(r, "%s is not finite ('%s')", what, tok);
        return SIPD_EINPUT;
    }
    *v = x;
    r->lp = e;
    return SIPD_OK;
}

/* Node coordinates: finite and |x| <= MESH_MAX_COORD, so that a tet's 6V (a product of three
 * coordinate differences) and the rest-shape inverse stay far from overflow. */
#define MESH_MAX_COORD 1e30

static int coord_ok(double x)
{
    return isfinite(x) && fabs(x) <= MESH_MAX_COORD;
}

static int rd_coord(reader *r, double *v, const char *what)
{
    int rc = rd_double(r, v, what);
    if (rc == SIPD_OK && !coord_ok(*v)) {
        rd_err(r, "%s %g out of range (|coordinate| must be at most %g)", what, *v, MESH_MAX_COORD);
        return SIPD_EINPUT;
    }
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* Mesh under construction                                                               */

typedef struct {
    int nv;
    double *x;
    int nt, tcap;
    int *tets;
    /* the file's triangles and line segments (gmsh types 2 and 1, OBJ f and l): kept, and
       checked for degeneracy only if they are the mesh's highest-dimensional elements (a tet
       mesh's boundary triangles are only validated, as before) */
    int ntr, trcap;
    int *tris;
    int nl, lcap;
    int *lines;
    char bad_tri[512], bad_line[512];   /* the first degenerate one's message, "" if none */
    int bad_tri_line, bad_line_line;    /* and its line (0: binary or none)              */
} builder;

static void bld_free(builder *b)
{
    free(b->x);
    free(b->tets);
    free(b->tris);
    free(b->lines);
    memset(b, 0, sizeof *b);
}

static int grow_ints(int **a, int *cap, int need, int per)
{
    if (need <= *cap)
        return SIPD_OK;
    {
        size_t nc = *cap ? (size_t)*cap * 2 : 1024;
        int *na;
        while (nc < (size_t)need)
            nc *= 2;
        if (nc > (size_t)MESH_MAX_COUNT)
            nc = MESH_MAX_COUNT;
        if (nc < (size_t)need) {
            sipd_error("mesh: too many elements");
            return SIPD_EFAIL;
        }
        na = realloc(*a, nc * (size_t)per * sizeof(int));
        if (!na) {
            sipd_error("out of memory (%zu elements)", nc);
            return SIPD_EFAIL;
        }
        *a = na;
        *cap = (int)nc;
    }
    return SIPD_OK;
}

/* Append a tet (0-based indices already range-checked); check degeneracy and orient.
 * `elem` is the element's number in the file, used in messages together with the reader's
 * line (text) or `section` (binary). */
static int bld_add_tet(builder *b, const reader *r, const int v[4], long long elem)
{
    const double *p0 = b->x + 3 * (size_t)v[0], *p1 = b->x + 3 * (size_t)v[1];
    const double *p2 = b->x + 3 * (size_t)v[2], *p3 = b->x + 3 * (size_t)v[3];
    const double *pts[4] = {p0, p1, p2, p3};
    double a[3], c[3], d[3], det, lmax2 = 0.0, lmax;
    int *t, rc;
    for (int k = 0; k < 3; k++) {
        a[k] = p1[k] - p0[k];
        c[k] = p2[k] - p0[k];
        d[k] = p3[k] - p0[k];
    }
    det = a[0] * (c[1] * d[2] - c[2] * d[1]) - a[1] * (c[0] * d[2] - c[2] * d[0]) +
          a[2] * (c[0] * d[1] - c[1] * d[0]);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double l2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double e = pts[j][k] - pts[i][k];
                l2 += e * e;
            }
            if (l2 > lmax2)
                lmax2 = l2;
        }
    lmax = sqrt(lmax2);
    if (!(fabs(det) > 1e-12 * lmax * lmax * lmax)) {
        rd_err(r, "element %lld: degenerate tetrahedron (nodes %d %d %d %d, 6V = %g, longest edge %g)",
               elem, v[0], v[1], v[2], v[3], det, lmax);
        return SIPD_EINPUT;
    }
    if ((rc = grow_ints(&b->tets, &b->tcap, b->nt + 1, 4)))
        return rc;
    t = b->tets + 4 * (size_t)b->nt++;
    t[0] = v[0];
    t[1] = v[1];
    if (det > 0) {
        t[2] = v[2];
        t[3] = v[3];
    } else {
        t[2] = v[3];
        t[3] = v[2];
    }
    return SIPD_OK;
}

/* Append a triangle or a line segment (indices range-checked).  A zero-area triangle
 * (|cross| <= 1e-12 Lmax^2) or a zero-length segment (<= 1e-12 times the coordinates'
 * magnitude) is recorded, not refused here: it matters only in a mesh whose body it is. */
static void bld_note(char *msg, int *line, const reader *r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void bld_note(char *msg, int *line, const reader *r, const char *fmt, ...)
{
    va_list ap;
    if (msg[0])
        return;
    va_start(ap, fmt);
    vsnprintf(msg, 512, fmt, ap);
    va_end(ap);
    *line = r->binary ? 0 : r->line;
}

static int bld_add_tri(builder *b, const reader *r, const int v[3], long long elem)
{
    const double *p0 = b->x + 3 * (size_t)v[0], *p1 = b->x + 3 * (size_t)v[1], *p2 = b->x + 3 * (size_t)v[2];
    double e1[3], e2[3], e3[3], c[3], l2 = 0, a2;
    int rc, k;
    for (k = 0; k < 3; k++) {
        e1[k] = p1[k] - p0[k];
        e2[k] = p2[k] - p0[k];
        e3[k] = p2[k] - p1[k];
    }
    c[0] = e1[1] * e2[2] - e1[2] * e2[1];
    c[1] = e1[2] * e2[0] - e1[0] * e2[2];
    c[2] = e1[0] * e2[1] - e1[1] * e2[0];
    a2 = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    {
        double d1 = 0, d2 = 0, d3 = 0;
        for (k = 0; k < 3; k++) {
            d1 += e1[k] * e1[k];
            d2 += e2[k] * e2[k];
            d3 += e3[k] * e3[k];
        }
        l2 = fmax(d1, fmax(d2, d3));
    }
    if (!(a2 > 1e-12 * l2))
        bld_note(b->bad_tri, &b->bad_tri_line, r,
                 "element %lld: degenerate triangle (nodes %d %d %d, 2A = %g, longest edge %g)", elem, v[0], v[1],
                 v[2], a2, sqrt(l2));
    if ((rc = grow_ints(&b->tris, &b->trcap, b->ntr + 1, 3)))
        return rc;
    memcpy(b->tris + 3 * (size_t)b->ntr++, v, 3 * sizeof(int));
    return SIPD_OK;
}

static int bld_add_line(builder *b, const reader *r, const int v[2], long long elem)
{
    const double *p0 = b->x + 3 * (size_t)v[0], *p1 = b->x + 3 * (size_t)v[1];
    double l2 = 0, m = 0;
    int rc, k;
    for (k = 0; k < 3; k++) {
        l2 += (p1[k] - p0[k]) * (p1[k] - p0[k]);
        m = fmax(m, fmax(fabs(p0[k]), fabs(p1[k])));
    }
    if (!(sqrt(l2) > 1e-12 * m) || v[0] == v[1])
        bld_note(b->bad_line, &b->bad_line_line, r, "element %lld: degenerate line segment (nodes %d %d, length %g)",
                 elem, v[0], v[1], sqrt(l2));
    if ((rc = grow_ints(&b->lines, &b->lcap, b->nl + 1, 2)))
        return rc;
    memcpy(b->lines + 2 * (size_t)b->nl++, v, 2 * sizeof(int));
    return SIPD_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Boundary extraction                                                                   */

typedef struct {
    int b, c;   /* the two larger vertices of the face (a is the bucket) */
    int id;     /* tet*4 + local face */
} face_rec;

static int face_cmp(const void *pa, const void *pb)
{
    const face_rec *x = pa, *y = pb;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Outward faces of a positively oriented tet (v0 v1 v2 v3): face k is opposite vertex k. */
static const int FACE_LOCAL[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

static int extract_surface(const char *file, int nv, int nt, const int *tets, int **tris_out, int *nf_out)
{
    size_t nface = 4 * (size_t)nt;
    int *start = NULL, *tris = NULL;
    face_rec *recs = NULL;
    int nf = 0, rc = SIPD_OK;
    size_t fcap = 0;

    start = calloc((size_t)nv + 1, sizeof *start);
    recs = malloc(nface * sizeof *recs);
    if (!start || !recs) {
        sipd_error("out of memory (surface extraction, %d tets)", nt);
        rc = SIPD_EFAIL;
        goto done;
    }
    /* counting sort of faces by smallest vertex */
    for (size_t f = 0; f < nface; f++) {
        const int *t = tets + 4 * (f / 4);
        const int *l = FACE_LOCAL[f % 4];
        int a = t[l[0]], b = t[l[1]], c = t[l[2]];
        int m = a < b ? (a < c ? a : c) : (b < c ? b : c);
        start[m + 1]++;
    }
    for (int i = 0; i < nv; i++)
        start[i + 1] += start[i];
    for (size_t f = 0; f < nface; f++) {
        const int *t = tets + 4 * (f / 4);
        const int *l = FACE_LOCAL[f % 4];
        int s[3] = {t[l[0]], t[l[1]], t[l[2]]}, tmp;
        if (s[0] > s[1]) { tmp = s[0]; s[0] = s[1]; s[1] = tmp; }
        if (s[1] > s[2]) { tmp = s[1]; s[1] = s[2]; s[2] = tmp; }
        if (s[0] > s[1]) { tmp = s[0]; s[0] = s[1]; s[1] = tmp; }
        face_rec *fr = recs + start[s[0]]++;
        fr->b = s[1];
        fr->c = s[2];
        fr->id = (int)f;
    }
    /* start[i] now is the end of bucket i; bucket i begins at start[i-1] (0 for i = 0) */
    fcap = 1024;
    tris = malloc(fcap * 3 * sizeof *tris);
    if (!tris) {
        sipd_error("out of memory (surface extraction)");
        rc = SIPD_EFAIL;
        goto done;
    }
    for (int v = 0; v < nv; v++) {
        size_t lo = v ? (size_t)start[v - 1] : 0, hi = (size_t)start[v];
        if (hi - lo > 1)
            qsort(recs + lo, hi - lo, sizeof *recs, face_cmp);
        for (size_t i = lo; i < hi;) {
            size_t j = i + 1;
            while (j < hi && recs[j].b == recs[i].b && recs[j].c == recs[i].c)
                j++;
            if (j - i > 2) {
                sipd_error_at(file, 0, "non-manifold mesh: face (%d %d %d) is shared by %zu tetrahedra "
                              "(e.g. elements %d and %d of the loaded mesh)",
                              v, recs[i].b, recs[i].c, j - i, recs[i].id / 4 + 1, recs[i + 1].id / 4 + 1);
                rc = SIPD_EINPUT;
                goto done;
            }
            if (j - i == 1) {
                const int *t = tets + 4 * (size_t)(recs[i].id / 4);
                const int *l = FACE_LOCAL[recs[i].id % 4];
                if ((size_t)nf == fcap) {
                    int *nt2 = realloc(tris, 2 * fcap * 3 * sizeof *tris);
                    if (!nt2) {
                        sipd_error("out of memory (surface extraction)");
                        rc = SIPD_EFAIL;
                        goto done;
                    }
                    tris = nt2;
                    fcap *= 2;
                }
                tris[3 * (size_t)nf + 0] = t[l[0]];
                tris[3 * (size_t)nf + 1] = t[l[1]];
                tris[3 * (size_t)nf + 2] = t[l[2]];
                nf++;
            }
            i = j;
        }
    }
done:
    free(start);
    free(recs);
    if (rc) {
        free(tris);
        return rc;
    }
    *tris_out = tris;
    *nf_out = nf;
    return SIPD_OK;
}

static int finish(const char *file, builder *b, sipd_mesh *m)
{
    int rc;
    if (b->nt == 0 && b->ntr > 0) {   /* a surface mesh: its triangles are the body */
        if (b->bad_tri[0]) {
            sipd_error_at(file, b->bad_tri_line, "%s", b->bad_tri);
            return SIPD_EINPUT;
        }
        m->dim = 2;
        m->nv = b->nv;
        m->x = b->x;
        m->nf = b->ntr;
        m->tris = b->tris;
        b->x = NULL;
        b->tris = NULL;
        return SIPD_OK;
    }
    if (b->nt == 0 && b->nl > 0) {   /* a curve mesh: its segments are the body */
        if (b->bad_line[0]) {
            sipd_error_at(file, b->bad_line_line, "%s", b->bad_line);
            return SIPD_EINPUT;
        }
        m->dim = 1;
        m->nv = b->nv;
        m->x = b->x;
        m->nl = b->nl;
        m->lines = b->lines;
        b->x = NULL;
        b->lines = NULL;
        return SIPD_OK;
    }
    if (b->nt == 0) {
        sipd_error_at(file, 0, "no tetrahedra, triangles or line segments in the mesh (gmsh -3, -2 or -1, or a "
                      "Physical Volume, Surface or Curve)");
        return SIPD_EINPUT;
    }
    m->dim = 3;
    m->nv = b->nv;
    m->nt = b->nt;
    m->x = b->x;
    m->tets = b->tets;
    m->nf = 0;
    m->tris = NULL;
    b->x = NULL;
    b->tets = NULL;
    rc = extract_surface(file, m->nv, m->nt, m->tets, &m->tris, &m->nf);
    if (rc) {
        mesh_free(m);
        return rc;
    }
    return SIPD_OK;
}

void mesh_free(sipd_mesh *m)
{
    if (!m)
        return;
    free(m->x);
    free(m->tets);
    free(m->tris);
    free(m->lines);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------------------ */
/* TetGen                                                                                */

static char *tg_name(const char *base, const char *ext)
{
    size_t lb = strlen(base), le = strlen(ext);
    char *s = sipd_malloc(lb + le + 1);
    if (s) {
        memcpy(s, base, lb);
        memcpy(s + lb, ext, le + 1);
    }
    return s;
}

/* Checks that a header count fits in the bytes left (each record needs >= minbytes). */
static int check_count(const reader *r, long long n, size_t minbytes, const char *what)
{
    size_t left = (size_t)(r->end - r->p);
    if (n < 0) {
        rd_err(r, "negative number of %s (%lld)", what, n);
        return SIPD_EINPUT;
    }
    if (n > MESH_MAX_COUNT || (unsigned long long)n > left / minbytes + 1) {
        rd_err(r, "the header announces %lld %s but the file (%zu bytes left) cannot hold that many "
               "(wrong count or truncated file)", n, what, left);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

static int tg_trailing(reader *r, long long n, const char *what)
{
    if (rd_line(r)) {
        rd_err(r, "unexpected data after the %lld %s announced in the header (wrong count?)", n, what);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

static int tg_eof(reader *r, long long got, long long n, const char *what)
{
    rd_err(r, "file ends after %lld of the %lld %s announced in the header (truncated?)", got, n, what);
    return SIPD_EINPUT;
}

static int tg_nodes(const char *file, builder *b, int *base)
{
    size_t len;
    char *buf = sipd_read_file(file, &len);
    reader r;
    long long n;
    int dim, nattr = 0, nmark = 0, rc = SIPD_OK;
    if (!buf) {
        sipd_error_at(file, 0, "cannot read TetGen node file");
        return SIPD_EFAIL;
    }
    rd_init(&r, file, buf, len, 1);
    if (!rd_line(&r)) {
        rd_err(&r, "empty TetGen .node file");
        rc = SIPD_EINPUT;
        goto done;
    }
    if ((rc = rd_ll(&r, &n, "node count")) || (rc = rd_int(&r, &dim, 0, 100, "dimension")))
        goto done;
    if (dim != 3) {
        rd_err(&r, "dimension %d in the .node header: only 3-D meshes are supported", dim);
        rc = SIPD_EINPUT;
        goto done;
    }
    if (!rd_at_eol(&r) && (rc = rd_int(&r, &nattr, 0, 1000000, "attribute count")))
        goto done;
    if (!rd_at_eol(&r) && (rc = rd_int(&r, &nmark, 0, 1, "boundary marker flag")))
        goto done;
    if ((rc = check_count(&r, n, 2, "nodes")))
        goto done;
    if (n < 4) {
        rd_err(&r, "%lld nodes: a tetrahedral mesh needs at least 4", n);
        rc = SIPD_EINPUT;
        goto done;
    }
    b->x = sipd_malloc((size_t)n * 3 * sizeof(double));
    if (!b->x) {
        rc = SIPD_EFAIL;
        goto done;
    }
    b->nv = (int)n;
    for (long long i = 0; i < n; i++) {
        long long idx;
        if (!rd_line(&r)) {
            rc = tg_eof(&r, i, n, "nodes");
            goto done;
        }
        if ((rc = rd_ll(&r, &idx, "node number")))
            goto done;
        if (i == 0) {
            if (idx != 0 && idx != 1) {
                rd_err(&r, "first node number is %lld: TetGen numbering starts at 0 or 1", idx);
                rc = SIPD_EINPUT;
                goto done;
            }
            *base = (int)idx;
        } else if (idx != *base + i) {
            rd_err(&r, "node number %lld, expected %lld (nodes must be numbered consecutively)", idx,
                   *base + i);
            rc = SIPD_EINPUT;
            goto done;
        }
        for (int k = 0; k < 3; k++)
            if ((rc = rd_coord(&r, &b->x[3 * i + k], k == 0 ? "x coordinate" : k == 1 ? "y coordinate" : "z coordinate")))
                goto done;
        /* attributes and marker: tolerated, not used */
    }
    rc = tg_trailing(&r, n, "nodes");
done:
    free(buf);
    return rc;
}

static int tg_elems(const char *file, builder *b, int base)
{
    size_t len;
    char *buf = sipd_read_file(file, &len);
    reader r;
    long long n;
    int npt, nattr = 0, rc = SIPD_OK;
    if (!buf) {
        sipd_error_at(file, 0, "cannot read TetGen element file");
        return SIPD_EFAIL;
    }
    rd_init(&r, file, buf, len, 1);
    if (!rd_line(&r)) {
        rd_err(&r, "empty TetGen .ele file");
        rc = SIPD_EINPUT;
        goto done;
    }
    if ((rc = rd_ll(&r, &n, "element count")) || (rc = rd_int(&r, &npt, 0, 1000, "nodes per tetrahedron")))
        goto done;
    if (npt == 10) {
        rd_err(&r, "second-order tetrahedra (10 nodes per element) are not supported: mesh without -o2");
        rc = SIPD_EINPUT;
        goto done;
    }
    if (npt != 4) {
        rd_err(&r, "%d nodes per tetrahedron: expected 4", npt);
        rc = SIPD_EINPUT;
        goto done;
    }
    if (!rd_at_eol(&r) && (rc = rd_int(&r, &nattr, 0, 1000000, "region attribute count")))
        goto done;
    if ((rc = check_count(&r, n, 2, "tetrahedra")))
        goto done;
    for (long long i = 0; i < n; i++) {
        long long idx;
        int v[4];
        if (!rd_line(&r)) {
            rc = tg_eof(&r, i, n, "tetrahedra");
            goto done;
        }
        if ((rc = rd_ll(&r, &idx, "element number")))
            goto done;
        for (int k = 0; k < 4; k++) {
            long long q;
            if ((rc = rd_ll(&r, &q, "node index")))
                goto done;
            if (q < base || q - base >= b->nv) {
                rd_err(&r, "element %lld: node index %lld out of range [%d, %d]", idx, q, base,
                       b->nv - 1 + base);
                rc = SIPD_EINPUT;
                goto done;
            }
            v[k] = (int)(q - base);
        }
        for (int k = 0; k < nattr; k++) {
            double a;
            if ((rc = rd_double(&r, &a, "region attribute")))
                goto done;
        }
        if ((rc = bld_add_tet(b, &r, v, idx)))
            goto done;
    }
    rc = tg_trailing(&r, n, "tetrahedra");
done:
    free(buf);
    return rc;
}

/* Optional .face: validated (node references), not otherwise used (see the design note). */
static int tg_faces(const char *file, const builder *b, int base)
{
    size_t len;
    char *buf;
    reader r;
    long long n;
    int nmark = 0, rc = SIPD_OK;
    FILE *f = fopen(file, "rb");
    if (!f)
        return SIPD_OK; /* optional */
    fclose(f);
    buf = sipd_read_file(file, &len);
    if (!buf) {
        sipd_error_at(file, 0, "cannot read TetGen face file");
        return SIPD_EFAIL;
    }
    rd_init(&r, file, buf, len, 1);
    if (!rd_line(&r)) {
        rd_err(&r, "empty TetGen .face file");
        rc = SIPD_EINPUT;
        goto done;
    }
    if ((rc = rd_ll(&r, &n, "face count")))
        goto done;
    if (!rd_at_eol(&r) && (rc = rd_int(&r, &nmark, 0, 1, "boundary marker flag")))
        goto done;
    if ((rc = check_count(&r, n, 2, "faces")))
        goto done;
    for (long long i = 0; i < n; i++) {
        long long idx;
        if (!rd_line(&r)) {
            rc = tg_eof(&r, i, n, "faces");
            goto done;
        }
        if ((rc = rd_ll(&r, &idx, "face number")))
            goto done;
        for (int k = 0; k < 3; k++) {
            long long q;
            if ((rc = rd_ll(&r, &q, "node index")))
                goto done;
            if (q < base || q - base >= b->nv) {
                rd_err(&r, "face %lld: node index %lld out of range [%d, %d]", idx, q, base,
                       b->nv - 1 + base);
                rc = SIPD_EINPUT;
                goto done;
            }
        }
        /* marker and extra columns (-nn) tolerated */
    }
    rc = tg_trailing(&r, n, "faces");
done:
    free(buf);
    return rc;
}

int mesh_load_tetgen(const char *base, sipd_mesh *m)
{
    builder b;
    int nbase = 0, rc;
    char *fn = tg_name(base, ".node"), *fe = tg_name(base, ".ele"), *ff = tg_name(base, ".face");
    memset(&b, 0, sizeof b);
    memset(m, 0, sizeof *m);
    if (!fn || !fe || !ff) {
        rc = SIPD_EFAIL;
        goto done;
    }
    if ((rc = tg_nodes(fn, &b, &nbase)) || (rc = tg_elems(fe, &b, nbase)) ||
        (rc = tg_faces(ff, &b, nbase)))
        goto done;
    rc = finish(fe, &b, m);
done:
    bld_free(&b);
    free(fn);
    free(fe);
    free(ff);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* gmsh                                                                                  */

typedef struct {
    reader r;
    builder b;
    int v4;          /* 0: 2.2, 1: 4.1 */
    int have_nodes;
    long long *tags; /* nv tags in order of appearance */
    int *nline;      /* line of each node (text) for duplicate messages */
    /* tag -> index map */
    int *direct;     /* direct[tag - tmin] or -1; NULL when sorted is used */
    long long tmin, tmax;
    long long *sorted_tags;
    int *sorted_idx;
} gmsh;

static void gm_free(gmsh *g)
{
    bld_free(&g->b);
    free(g->tags);
    free(g->nline);
    free(g->direct);
    free(g->sorted_tags);
    free(g->sorted_idx);
}

/* Nodes per element type (0: unknown). */
static int gm_type_nodes(long long t)
{
    static const int n[] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13,
                            9, 10, 12, 15, 15, 21, 4, 5, 6, 20, 35, 56};
    if (t >= 0 && t < (long long)(sizeof n / sizeof n[0]))
        return n[t];
    if (t == 92)
        return 64;
    if (t == 93)
        return 125;
    return 0;
}

/* Refuses higher-order tets, triangles and lines. */
/* elem < 0: a whole v4.1 element block. */
static int gm_check_type(gmsh *g, long long type, long long elem)
{
    const char *kind = NULL;
    char where[64];
    if (type == 11 || type == 29 || type == 30 || type == 31)
        kind = "tetrahedra";
    else if (type == 9 || (type >= 20 && type <= 25))
        kind = "triangles";
    else if (type == 8 || (type >= 26 && type <= 28))
        kind = "lines";
    if (kind) {
        if (elem >= 0)
            snprintf(where, sizeof where, "element %lld", elem);
        else
            snprintf(where, sizeof where, "element block");
        rd_err(&g->r, "%s%s: higher-order %s (gmsh type %lld) are not supported: mesh with first-order "
               "elements (gmsh -order 1)", g->r.binary ? "$Elements: " : "", where, kind, type);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

typedef struct {
    long long tag;
    int idx;
} tag_pair;

static int tag_pair_cmp(const void *pa, const void *pb)
{
    const tag_pair *x = pa, *y = pb;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static void gm_dup_err(gmsh *g, long long tag, int first, int second)
{
    if (g->nline)
        sipd_error_at(g->r.file, g->nline[second], "duplicate node tag %lld (first defined on line %d)",
                      tag, g->nline[first]);
    else
        sipd_error_at(g->r.file, 0, "$Nodes: duplicate node tag %lld (nodes number %d and %d in the section)",
                      tag, first + 1, second + 1);
}

static int gm_build_map(gmsh *g)
{
    int nv = g->b.nv;
    long long tmin = LLONG_MAX, tmax = LLONG_MIN;
    for (int i = 0; i < nv; i++) {
        if (g->tags[i] < tmin)
            tmin = g->tags[i];
        if (g->tags[i] > tmax)
            tmax = g->tags[i];
    }
    g->tmin = tmin;
    g->tmax = tmax;
    if (nv > 0 && tmax - tmin < 4LL * nv + 1024) {
        size_t sz = (size_t)(tmax - tmin + 1);
        g->direct = malloc(sz * sizeof *g->direct);
        if (!g->direct) {
            sipd_error("out of memory (node map)");
            return SIPD_EFAIL;
        }
        memset(g->direct, 0xff, sz * sizeof *g->direct);
        for (int i = 0; i < nv; i++) {
            int *slot = &g->direct[g->tags[i] - tmin];
            if (*slot >= 0) {
                gm_dup_err(g, g->tags[i], *slot, i);
                return SIPD_EINPUT;
            }
            *slot = i;
        }
        return SIPD_OK;
    }
    {
        tag_pair *tp = malloc((size_t)nv * sizeof *tp);
        if (!tp) {
            sipd_error("out of memory (node map)");
            return SIPD_EFAIL;
        }
        for (int i = 0; i < nv; i++) {
            tp[i].tag = g->tags[i];
            tp[i].idx = i;
        }
        qsort(tp, (size_t)nv, sizeof *tp, tag_pair_cmp);
        for (int i = 1; i < nv; i++)
            if (tp[i].tag == tp[i - 1].tag) {
                gm_dup_err(g, tp[i].tag, tp[i - 1].idx, tp[i].idx);
                free(tp);
                return SIPD_EINPUT;
            }
        g->sorted_tags = malloc((size_t)nv * sizeof *g->sorted_tags);
        g->sorted_idx = malloc((size_t)nv * sizeof *g->sorted_idx);
        if (!g->sorted_tags || !g->sorted_idx) {
            free(tp);
            sipd_error("out of memory (node map)");
            return SIPD_EFAIL;
        }
        for (int i = 0; i < nv; i++) {
            g->sorted_tags[i] = tp[i].tag;
            g->sorted_idx[i] = tp[i].idx;
        }
        free(tp);
    }
    return SIPD_OK;
}

static int gm_lookup(const gmsh *g, long long tag)
{
    if (tag < g->tmin || tag > g->tmax)
        return -1;
    if (g->direct)
        return g->direct[tag - g->tmin];
    {
        int lo = 0, hi = g->b.nv - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (g->sorted_tags[mid] == tag)
                return g->sorted_idx[mid];
            if (g->sorted_tags[mid] < tag)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
    }
    return -1;
}

/* Handles one element (type, its tag, its node tags): tets, triangles and 2-node lines are
 * kept (finish() decides which are the body); other types are ignored. */
static int gm_element(gmsh *g, long long type, long long elem, const long long *nodes, int nn)
{
    int v[4], rc;
    if ((rc = gm_check_type(g, type, elem)))
        return rc;
    if (type != 4 && type != 2 && type != 1)
        return SIPD_OK;
    for (int k = 0; k < nn; k++) {
        int i = gm_lookup(g, nodes[k]);
        if (i < 0) {
            rd_err(&g->r, "%selement %lld references unknown node tag %lld", g->r.binary ? "$Elements: " : "",
                   elem, nodes[k]);
            return SIPD_EINPUT;
        }
        if (k < 4)
            v[k] = i;
    }
    if (type == 4)
        return bld_add_tet(&g->b, &g->r, v, elem);
    if (type == 2)
        return bld_add_tri(&g->b, &g->r, v, elem);
    return bld_add_line(&g->b, &g->r, v, elem);
}

/* --- binary helpers --- */

static int gm_bytes(gmsh *g, void *dst, size_t n, const char *what)
{
    if ((size_t)(g->r.end - g->r.p) < n) {
        sipd_error_at(g->r.file, 0, "%s: file ends in the middle of binary data (truncated?)", what);
        return SIPD_EINPUT;
    }
    memcpy(dst, g->r.p, n);
    g->r.p += n;
    return SIPD_OK;
}

static size_t gm_left(const gmsh *g) { return (size_t)(g->r.end - g->r.p); }

/* After binary data: optional newline, then the $End line. */
static int gm_expect_end(gmsh *g, const char *endname, const char *what)
{
    int ok = rd_line(&g->r);
    if (!ok || !rd_line_is(&g->r, endname)) {
        char tok[40] = "end of file";
        if (ok)
            rd_token(&g->r, tok, sizeof tok);
        rd_err(&g->r, "expected %s after %s, found '%s' (wrong count?)", endname, what, tok);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

/* Next text record line inside a section; refuses EOF and '$' lines with a count message. */
static int gm_record(gmsh *g, long long got, long long n, const char *what)
{
    if (!rd_line(&g->r)) {
        rd_err(&g->r, "file ends after %lld of %lld %s (truncated?)", got, n, what);
        return SIPD_EINPUT;
    }
    if (*g->r.lp == '$') {
        char tok[40];
        rd_token(&g->r, tok, sizeof tok);
        rd_err(&g->r, "found '%s' after %lld of %lld %s (wrong count?)", tok, got, n, what);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

static int gm_alloc_nodes(gmsh *g, long long n, int text)
{
    g->b.x = sipd_malloc((size_t)(n ? n : 1) * 3 * sizeof(double));
    g->tags = sipd_malloc((size_t)(n ? n : 1) * sizeof *g->tags);
    if (text)
        g->nline = sipd_malloc((size_t)(n ? n : 1) * sizeof *g->nline);
    if (!g->b.x || !g->tags || (text && !g->nline))
        return SIPD_EFAIL;
    g->b.nv = (int)n;
    return SIPD_OK;
}

static int gm_count_ok(gmsh *g, long long n, size_t minbytes, const char *what)
{
    if (n < 0 || n > MESH_MAX_COUNT || (unsigned long long)n > gm_left(g) / minbytes + 1) {
        rd_err(&g->r, "%s: count %lld is impossible for a file with %zu bytes left (wrong count or truncated)",
               what, n, gm_left(g));
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

/* --- v2.2 --- */

static int gm22_nodes(gmsh *g, int binary)
{
    long long n;
    int rc;
    if (!rd_line(&g->r)) {
        rd_err(&g->r, "$Nodes: file ends before the node count");
        return SIPD_EINPUT;
    }
    if ((rc = rd_ll(&g->r, &n, "node count")))
        return rc;
    if ((rc = gm_count_ok(g, n, binary ? 28 : 2, "$Nodes")) || (rc = gm_alloc_nodes(g, n, !binary)))
        return rc;
    for (long long i = 0; i < n; i++) {
        if (binary) {
            int tag;
            char what[64];
            snprintf(what, sizeof what, "$Nodes (node %lld of %lld)", i + 1, n);
            if ((rc = gm_bytes(g, &tag, 4, what)) || (rc = gm_bytes(g, g->b.x + 3 * i, 24, what)))
                return rc;
            g->tags[i] = tag;
            if (tag <= 0 || !coord_ok(g->b.x[3 * i]) || !coord_ok(g->b.x[3 * i + 1]) ||
                !coord_ok(g->b.x[3 * i + 2])) {
                sipd_error_at(g->r.file, 0, "$Nodes: node %lld (tag %d): %s", i + 1, tag,
                              tag <= 0 ? "node tags must be positive"
                                       : "coordinate is not finite or out of range (|coordinate| must be at most 1e30)");
                return SIPD_EINPUT;
            }
        } else {
            long long tag;
            if ((rc = gm_record(g, i, n, "nodes")) || (rc = rd_ll(&g->r, &tag, "node tag")))
                return rc;
            if (tag <= 0) {
                rd_err(&g->r, "node tag %lld: tags must be positive", tag);
                return SIPD_EINPUT;
            }
            g->tags[i] = tag;
            g->nline[i] = g->r.line;
            for (int k = 0; k < 3; k++)
                if ((rc = rd_coord(&g->r, &g->b.x[3 * i + k], "coordinate")))
                    return rc;
            if (!rd_at_eol(&g->r)) {
                rd_err(&g->r, "extra values after the node coordinates");
                return SIPD_EINPUT;
            }
        }
    }
    if ((rc = gm_expect_end(g, "$EndNodes", "the nodes")))
        return rc;
    return gm_build_map(g);
}

static int gm22_elements(gmsh *g, int binary)
{
    long long n;
    int rc;
    if (!rd_line(&g->r)) {
        rd_err(&g->r, "$Elements: file ends before the element count");
        return SIPD_EINPUT;
    }
    if ((rc = rd_ll(&g->r, &n, "element count")) || (rc = gm_count_ok(g, n, binary ? 8 : 2, "$Elements")))
        return rc;
    if (binary) {
        long long done = 0;
        while (done < n) {
            int hdr[3], nn;
            if ((rc = gm_bytes(g, hdr, 12, "$Elements (block header)")))
                return rc;
            nn = gm_type_nodes(hdr[0]);
            if (nn == 0) {
                sipd_error_at(g->r.file, 0, "$Elements: unknown element type %d in binary block after %lld elements",
                              hdr[0], done);
                return SIPD_EINPUT;
            }
            if (hdr[1] <= 0 || hdr[1] > n - done || hdr[2] < 0 || hdr[2] > 1000) {
                sipd_error_at(g->r.file, 0, "$Elements: bad block header {type %d, count %d, ntags %d} after "
                              "%lld of %lld elements (wrong count?)", hdr[0], hdr[1], hdr[2], done, n);
                return SIPD_EINPUT;
            }
            {
                size_t per = (size_t)(1 + hdr[2] + nn) * 4;
                if ((size_t)hdr[1] > gm_left(g) / per) {
                    sipd_error_at(g->r.file, 0, "$Elements: block of %d elements of type %d runs past the end "
                                  "of the file (truncated?)", hdr[1], hdr[0]);
                    return SIPD_EINPUT;
                }
            }
            for (int e = 0; e < hdr[1]; e++) {
                int rec[1 + 1000 + 125];
                long long nodes[125];
                int w = 1 + hdr[2] + nn;
                if ((rc = gm_bytes(g, rec, (size_t)w * 4, "$Elements")))
                    return rc;
                for (int k = 0; k < nn; k++)
                    nodes[k] = rec[1 + hdr[2] + k];
                if ((rc = gm_element(g, hdr[0], rec[0], nodes, nn)))
                    return rc;
            }
            done += hdr[1];
        }
    } else {
        for (long long i = 0; i < n; i++) {
            long long tag, type, ntags, nodes[125], t;
            int nn;
            if ((rc = gm_record(g, i, n, "elements")) || (rc = rd_ll(&g->r, &tag, "element number")) ||
                (rc = rd_ll(&g->r, &type, "element type")) || (rc = rd_ll(&g->r, &ntags, "number of tags")))
                return rc;
            if ((rc = gm_check_type(g, type, tag)))
                return rc;
            if (ntags < 0 || ntags > 1000) {
                rd_err(&g->r, "element %lld: bad number of tags %lld", tag, ntags);
                return SIPD_EINPUT;
            }
            for (long long k = 0; k < ntags; k++)
                if ((rc = rd_ll(&g->r, &t, "element tag")))
                    return rc;
            nn = gm_type_nodes(type);
            if (nn == 0)
                continue; /* unknown type: ignored (text lines are self-delimiting) */
            for (int k = 0; k < nn; k++)
                if ((rc = rd_ll(&g->r, &nodes[k], "node tag")))
                    return rc;
            if (!rd_at_eol(&g->r)) {
                rd_err(&g->r, "element %lld: more node tags than gmsh type %lld has (%d)", tag, type, nn);
                return SIPD_EINPUT;
            }
            if ((rc = gm_element(g, type, tag, nodes, nn)))
                return rc;
        }
    }
    return gm_expect_end(g, "$EndElements", "the elements");
}

/* --- v4.1 --- */

/* Reads `count` size_t/int/long values: from the current text line(s) or binary. */
static int gm41_hdr(gmsh *g, int binary, long long out[4], const char *section)
{
    int rc;
    if (binary) {
        uint64_t v[4];
        if ((rc = gm_bytes(g, v, sizeof v, section)))
            return rc;
        for (int k = 0; k < 4; k++) {
            if (v[k] > (uint64_t)LLONG_MAX / 2) {
                sipd_error_at(g->r.file, 0, "%s: absurd header value %llu", section, (unsigned long long)v[k]);
                return SIPD_EINPUT;
            }
            out[k] = (long long)v[k];
        }
        return SIPD_OK;
    }
    if (!rd_line(&g->r)) {
        rd_err(&g->r, "%s: file ends before the section header", section);
        return SIPD_EINPUT;
    }
    for (int k = 0; k < 4; k++)
        if ((rc = rd_ll(&g->r, &out[k], "section header value")))
            return rc;
    return SIPD_OK;
}

/* Block header: int dim, int tag, int type/parametric, size_t n. */
static int gm41_block(gmsh *g, int binary, long long out[4], const char *section)
{
    int rc;
    if (binary) {
        int h[3];
        uint64_t n;
        if ((rc = gm_bytes(g, h, 12, section)) || (rc = gm_bytes(g, &n, 8, section)))
            return rc;
        if (n > (uint64_t)LLONG_MAX / 2) {
            sipd_error_at(g->r.file, 0, "%s: absurd block size %llu", section, (unsigned long long)n);
            return SIPD_EINPUT;
        }
        out[0] = h[0];
        out[1] = h[1];
        out[2] = h[2];
        out[3] = (long long)n;
        return SIPD_OK;
    }
    if (!rd_line(&g->r)) {
        rd_err(&g->r, "%s: file ends before a block header (truncated?)", section);
        return SIPD_EINPUT;
    }
    if (*g->r.lp == '$') {
        rd_err(&g->r, "%s: section ends before all blocks were read (wrong count?)", section);
        return SIPD_EINPUT;
    }
    for (int k = 0; k < 4; k++)
        if ((rc = rd_ll(&g->r, &out[k], "block header value")))
            return rc;
    if (!rd_at_eol(&g->r)) {
        rd_err(&g->r, "%s: extra values in the block header", section);
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

static int gm41_nodes(gmsh *g, int binary)
{
    long long h[4], done = 0;
    int rc;
    if ((rc = gm41_hdr(g, binary, h, "$Nodes")))
        return rc;
    if (h[0] < 0) {
        rd_err(&g->r, "$Nodes: negative number of entity blocks");
        return SIPD_EINPUT;
    }
    if ((rc = gm_count_ok(g, h[1], binary ? 32 : 2, "$Nodes")) || (rc = gm_alloc_nodes(g, h[1], !binary)))
        return rc;
    for (long long blk = 0; blk < h[0]; blk++) {
        long long bh[4];
        int npar;
        if ((rc = gm41_block(g, binary, bh, "$Nodes")))
            return rc;
        if (bh[0] < 0 || bh[0] > 3 || bh[2] < 0 || bh[2] > 1 || bh[3] < 0 || bh[3] > h[1] - done) {
            rd_err(&g->r, "$Nodes: bad block header (entity dim %lld, parametric %lld, %lld nodes; %lld of %lld "
                   "nodes read so far)", bh[0], bh[2], bh[3], done, h[1]);
            return SIPD_EINPUT;
        }
        npar = bh[2] ? (int)bh[0] : 0;
        if (binary) {
            size_t per = 8 + (size_t)(3 + npar) * 8;
            if ((size_t)bh[3] > gm_left(g) / per) {
                sipd_error_at(g->r.file, 0, "$Nodes: block of %lld nodes runs past the end of the file (truncated?)",
                              bh[3]);
                return SIPD_EINPUT;
            }
            for (long long i = 0; i < bh[3]; i++) {
                uint64_t t;
                if ((rc = gm_bytes(g, &t, 8, "$Nodes")))
                    return rc;
                if (t == 0 || t > (uint64_t)LLONG_MAX / 2) {
                    sipd_error_at(g->r.file, 0, "$Nodes: node %lld has invalid tag %llu", done + i + 1,
                                  (unsigned long long)t);
                    return SIPD_EINPUT;
                }
                g->tags[done + i] = (long long)t;
            }
            for (long long i = 0; i < bh[3]; i++) {
                double xyz[6];
                double *x = g->b.x + 3 * (done + i);
                if ((rc = gm_bytes(g, xyz, (size_t)(3 + npar) * 8, "$Nodes")))
                    return rc;
                memcpy(x, xyz, 24);
                if (!coord_ok(x[0]) || !coord_ok(x[1]) || !coord_ok(x[2])) {
                    sipd_error_at(g->r.file, 0, "$Nodes: node %lld (tag %lld): coordinate is not finite or out of "
                                  "range (|coordinate| must be at most 1e30)",
                                  done + i + 1, g->tags[done + i]);
                    return SIPD_EINPUT;
                }
            }
        } else {
            for (long long i = 0; i < bh[3]; i++) {
                long long t;
                if ((rc = gm_record(g, done + i, h[1], "node tags")) || (rc = rd_ll(&g->r, &t, "node tag")))
                    return rc;
                if (t <= 0) {
                    rd_err(&g->r, "node tag %lld: tags must be positive", t);
                    return SIPD_EINPUT;
                }
                if (!rd_at_eol(&g->r)) {
                    rd_err(&g->r, "expected one node tag per line (fewer tags than the block says?)");
                    return SIPD_EINPUT;
                }
                g->tags[done + i] = t;
                g->nline[done + i] = g->r.line;
            }
            for (long long i = 0; i < bh[3]; i++) {
                double *x = g->b.x + 3 * (done + i);
                if ((rc = gm_record(g, done + i, h[1], "node coordinates")))
                    return rc;
                for (int k = 0; k < 3; k++)
                    if ((rc = rd_coord(&g->r, &x[k], "coordinate")))
                        return rc;
                for (int k = 0; k < npar; k++) {
                    double u;
                    if ((rc = rd_double(&g->r, &u, "parametric coordinate")))
                        return rc;
                }
                if (!rd_at_eol(&g->r)) {
                    rd_err(&g->r, "extra values after the node coordinates (more tags than coordinates?)");
                    return SIPD_EINPUT;
                }
            }
        }
        done += bh[3];
    }
    if (done != h[1]) {
        rd_err(&g->r, "$Nodes: header announces %lld nodes but the blocks hold %lld (wrong count)", h[1], done);
        return SIPD_EINPUT;
    }
    if ((rc = gm_expect_end(g, "$EndNodes", "the nodes")))
        return rc;
    return gm_build_map(g);
}

static int gm41_elements(gmsh *g, int binary)
{
    long long h[4], done = 0;
    int rc;
    if ((rc = gm41_hdr(g, binary, h, "$Elements")))
        return rc;
    if (h[0] < 0) {
        rd_err(&g->r, "$Elements: negative number of entity blocks");
        return SIPD_EINPUT;
    }
    if ((rc = gm_count_ok(g, h[1], binary ? 16 : 2, "$Elements")))
        return rc;
    for (long long blk = 0; blk < h[0]; blk++) {
        long long bh[4];
        int nn;
        if ((rc = gm41_block(g, binary, bh, "$Elements")))
            return rc;
        if (bh[3] < 0 || bh[3] > h[1] - done) {
            rd_err(&g->r, "$Elements: block of %lld elements exceeds the announced total %lld (wrong count)",
                   bh[3], h[1]);
            return SIPD_EINPUT;
        }
        if (bh[3] > 0 && (rc = gm_check_type(g, bh[2], -1)))
            return rc;
        nn = gm_type_nodes(bh[2]);
        if (nn == 0 && binary) {
            sipd_error_at(g->r.file, 0, "$Elements: unknown element type %lld in a binary block", bh[2]);
            return SIPD_EINPUT;
        }
        if (binary) {
            size_t per = (size_t)(1 + nn) * 8;
            if ((size_t)bh[3] > gm_left(g) / per) {
                sipd_error_at(g->r.file, 0, "$Elements: block of %lld elements runs past the end of the file "
                              "(truncated?)", bh[3]);
                return SIPD_EINPUT;
            }
        }
        for (long long i = 0; i < bh[3]; i++) {
            long long tag, nodes[125];
            if (binary) {
                uint64_t rec[126];
                if ((rc = gm_bytes(g, rec, (size_t)(1 + nn) * 8, "$Elements")))
                    return rc;
                tag = rec[0] > (uint64_t)LLONG_MAX ? -1 : (long long)rec[0];
                for (int k = 0; k < nn; k++)
                    nodes[k] = rec[1 + k] > (uint64_t)LLONG_MAX ? -1 : (long long)rec[1 + k];
            } else {
                if ((rc = gm_record(g, done + i, h[1], "elements")) || (rc = rd_ll(&g->r, &tag, "element tag")))
                    return rc;
                if (nn == 0)
                    continue;
                for (int k = 0; k < nn; k++)
                    if ((rc = rd_ll(&g->r, &nodes[k], "node tag")))
                        return rc;
                if (!rd_at_eol(&g->r)) {
                    rd_err(&g->r, "element %lld: more node tags than gmsh type %lld has (%d)", tag, bh[2], nn);
                    return SIPD_EINPUT;
                }
            }
            if ((rc = gm_element(g, bh[2], tag, nodes, nn)))
                return rc;
        }
        done += bh[3];
    }
    if (done != h[1]) {
        rd_err(&g->r, "$Elements: header announces %lld elements but the blocks hold %lld (wrong count)", h[1], done);
        return SIPD_EINPUT;
    }
    return gm_expect_end(g, "$EndElements", "the elements");
}

/* Skips a section whose $Name line was just read: finds the line "$EndName". */
static int gm_skip_section(gmsh *g, const char *name)
{
    char endtag[80];
    int start = g->r.line;
    size_t el;
    snprintf(endtag, sizeof endtag, "$End%s", name);
    el = strlen(endtag);
    for (;;) {
        const char *q = g->r.p;
        const char *hit = NULL;
        /* search "\n$EndName" (or at current position) without assuming text in between */
        while (q < g->r.end) {
            const char *d = memchr(q, '$', (size_t)(g->r.end - q));
            if (!d)
                break;
            if ((d == g->r.buf || d[-1] == '\n') && (size_t)(g->r.end - d) >= el && memcmp(d, endtag, el) == 0 &&
                (d + el == g->r.end || d[el] == '\n' || d[el] == '\r' || d[el] == ' ')) {
                hit = d;
                break;
            }
            q = d + 1;
        }
        if (!hit) {
            sipd_error_at(g->r.file, g->r.binary ? 0 : start, "section $%s is not closed by %s (truncated?)", name,
                          endtag);
            return SIPD_EINPUT;
        }
        if (!g->r.binary)
            for (const char *c = g->r.p; c < hit; c++)
                if (*c == '\n')
                    g->r.line++;
        g->r.p = hit;
        rd_raw_line(&g->r);
        return SIPD_OK;
    }
}

int mesh_load_gmsh(const char *path, sipd_mesh *m)
{
    gmsh g;
    size_t len;
    char *buf;
    int rc = SIPD_OK, binary = 0, have_fmt = 0;
    memset(&g, 0, sizeof g);
    memset(m, 0, sizeof *m);
    buf = sipd_read_file(path, &len);
    if (!buf) {
        sipd_error_at(path, 0, "cannot read gmsh mesh file");
        return SIPD_EFAIL;
    }
    rd_init(&g.r, path, buf, len, 0);
    while (rd_line(&g.r)) {
        char name[64];
        size_t nl = (size_t)(g.r.le - g.r.lp);
        if (*g.r.lp != '$' || nl < 2 || nl > sizeof name) {
            char tok[40];
            rd_token(&g.r, tok, sizeof tok);
            if (!have_fmt)
                rd_err(&g.r, "not a gmsh .msh file: expected $MeshFormat, found '%s'", tok);
            else
                rd_err(&g.r, "expected a section header ($Name), found '%s'", tok);
            rc = SIPD_EINPUT;
            goto done;
        }
        memcpy(name, g.r.lp + 1, nl - 1);
        name[nl - 1] = '\0';
        if (!have_fmt && strcmp(name, "MeshFormat") != 0) {
            rd_err(&g.r, "not a gmsh .msh file: expected $MeshFormat first, found '$%s'", name);
            rc = SIPD_EINPUT;
            goto done;
        }
        if (strcmp(name, "MeshFormat") == 0) {
            double ver;
            int ftype, dsize;
            if (have_fmt) {
                rd_err(&g.r, "second $MeshFormat section");
                rc = SIPD_EINPUT;
                goto done;
            }
            have_fmt = 1;
            if (!rd_line(&g.r)) {
                rd_err(&g.r, "file ends inside $MeshFormat");
                rc = SIPD_EINPUT;
                goto done;
            }
            if ((rc = rd_double(&g.r, &ver, "format version")))
                goto done;
            if (ver == 2.2)
                g.v4 = 0;
            else if (ver == 4.1)
                g.v4 = 1;
            else {
                if (ver >= 4.0 && ver < 4.1)
                    rd_err(&g.r, "gmsh format version %g is not supported (only 2.2 and 4.1): re-save with "
                           "gmsh -format msh41 or msh22", ver);
                else
                    rd_err(&g.r, "gmsh format version %g is not supported (only 2.2 and 4.1)", ver);
                rc = SIPD_EINPUT;
                goto done;
            }
            if ((rc = rd_int(&g.r, &ftype, 0, 1, "file type (0 ASCII, 1 binary)")) ||
                (rc = rd_int(&g.r, &dsize, 0, 64, "data size")))
                goto done;
            if (dsize != 8) {
                rd_err(&g.r, "data size %d is not supported (expected 8)", dsize);
                rc = SIPD_EINPUT;
                goto done;
            }
            binary = ftype;
            if (binary) {
                int one;
                if (gm_left(&g) < 4) {
                    rd_err(&g.r, "file ends before the binary endianness marker");
                    rc = SIPD_EINPUT;
                    goto done;
                }
                memcpy(&one, g.r.p, 4);
                g.r.p += 4;
                if (one != 1) {
                    if (one == 0x01000000)
                        rd_err(&g.r, "binary mesh was written with the other byte order (big-endian): not supported");
                    else
                        rd_err(&g.r, "bad binary endianness marker (expected the int 1)");
                    rc = SIPD_EINPUT;
                    goto done;
                }
            }
            if (!rd_line(&g.r) || !rd_line_is(&g.r, "$EndMeshFormat")) {
                rd_err(&g.r, "expected $EndMeshFormat");
                rc = SIPD_EINPUT;
                goto done;
            }
            g.r.binary = binary;
        } else if (strcmp(name, "Nodes") == 0) {
            if (g.have_nodes) {
                rd_err(&g.r, "second $Nodes section is not supported");
                rc = SIPD_EINPUT;
                goto done;
            }
            g.have_nodes = 1;
            if ((rc = g.v4 ? gm41_nodes(&g, binary) : gm22_nodes(&g, binary)))
                goto done;
        } else if (strcmp(name, "Elements") == 0) {
            if (!g.have_nodes) {
                rd_err(&g.r, "$Elements before $Nodes");
                rc = SIPD_EINPUT;
                goto done;
            }
            if ((rc = g.v4 ? gm41_elements(&g, binary) : gm22_elements(&g, binary)))
                goto done;
        } else if (strncmp(name, "End", 3) == 0) {
            rd_err(&g.r, "unexpected '$%s' outside its section", name);
            rc = SIPD_EINPUT;
            goto done;
        } else if ((rc = gm_skip_section(&g, name))) {
            goto done;
        }
    }
    if (!have_fmt) {
        sipd_error_at(path, 0, "not a gmsh .msh file (empty, no $MeshFormat)");
        rc = SIPD_EINPUT;
        goto done;
    }
    if (!g.have_nodes) {
        sipd_error_at(path, 0, "no $Nodes section");
        rc = SIPD_EINPUT;
        goto done;
    }
    rc = finish(path, &g.b, m);
done:
    gm_free(&g);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* Wavefront OBJ                                                                          */
/*
 * Statements: `v x y z [w | r g b]` (w and colours ignored), `f a b c ...` (a polygon,
 * fan-triangulated from its first corner: (a b c), (a c d), ...), `l a b ...` (a polyline:
 * segments (a b), (b c), ...).  A corner is `i`, `i/t`, `i//n` or `i/t/n`; i is 1-based, or
 * negative counting back from the last vertex defined so far (-1 the latest); t and n are
 * checked to be integers and ignored.  `vt vn vp o g s usemtl mtllib p mg lod` are accepted
 * and ignored; free-form geometry (`curv surf cstype ...`), line continuations (`\`) and any
 * other statement are refused naming the line.  A corner must refer to a vertex defined above
 * it (as every exporter writes them).  Two passes: the first counts the vertices (the array is
 * allocated once), the second parses.
 */
static int obj_index(reader *r, int nv_sofar, int nv, int *out, const char *what)
{
    long long i;
    int rc;
    char tok[40];
    rd_token(r, tok, sizeof tok);
    if ((rc = rd_ll_slash(r, &i, what)))
        return rc;
    while (*r->lp == '/') {   /* /t, //n, /t/n: integers, ignored */
        long long t;
        r->lp++;
        if (*r->lp == '/')
            continue;
        if (r->lp >= r->le || is_blank(*r->lp))
            break;
        if ((rc = rd_ll_slash(r, &t, "texture/normal index")))
            return rc;
    }
    if (r->lp < r->le && !is_blank(*r->lp)) {
        rd_err(r, "bad %s '%s'", what, tok);
        return SIPD_EINPUT;
    }
    if (i > 0 && i <= nv_sofar)
        *out = (int)(i - 1);
    else if (i < 0 && -i <= nv_sofar)
        *out = (int)(nv_sofar + i);
    else {
        if (i > nv_sofar && i <= nv)
            rd_err(r, "%s %lld refers to a vertex defined further down (define vertices before use)", what, i);
        else
            rd_err(r, "%s %lld refers to no vertex (%d defined %s)", what, i, i < 0 ? nv_sofar : nv,
                   i < 0 ? "so far" : "in the file");
        return SIPD_EINPUT;
    }
    return SIPD_OK;
}

static int obj_is(const reader *r, const char *kw)
{
    size_t n = strlen(kw);
    return (size_t)(r->le - r->lp) >= n && memcmp(r->lp, kw, n) == 0 &&
           (r->lp + n == r->le || is_blank(r->lp[n]));
}

int mesh_load_obj(const char *path, sipd_mesh *m)
{
    static const char *ignored[] = {"vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib", "p", "mg", "lod", NULL};
    static const char *freeform[] = {"cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim",
                                     "hole", "scrv", "sp", "end", "con", "bevel", "c_interp", "d_interp",
                                     "shadow_obj", "trace_obj", "ctech", "stech", NULL};
    reader r;
    builder b;
    size_t len;
    char *buf = sipd_read_file(path, &len);
    int rc = SIPD_OK, nv = 0, pass, nf = 0, nlel = 0;
    memset(&b, 0, sizeof b);
    memset(m, 0, sizeof *m);
    if (!buf) {
        sipd_error_at(path, 0, "cannot read OBJ mesh file");
        return SIPD_EFAIL;
    }
    if (memchr(buf, '\0', len)) {
        sipd_error_at(path, 0, "not a text OBJ file (contains NUL bytes)");
        free(buf);
        return SIPD_EINPUT;
    }
    for (pass = 0; pass < 2 && rc == SIPD_OK; pass++) {
        rd_init(&r, path, buf, len, 1);
        if (pass == 1) {
            if (nv == 0) {
                sipd_error_at(path, 0, "no vertices ('v' lines) in the OBJ file");
                rc = SIPD_EINPUT;
                break;
            }
            b.x = malloc((size_t)nv * 3 * sizeof(double));
            if (!b.x) {
                sipd_error("out of memory (%d OBJ vertices)", nv);
                rc = SIPD_EFAIL;
                break;
            }
            b.nv = 0;
        }
        while (rc == SIPD_OK && rd_line(&r)) {
            char tok[40];
            int k;
            if (r.le[-1] == '\\') {
                rd_err(&r, "line continuation ('\\') is not supported: join the line");
                rc = SIPD_EINPUT;
                break;
            }
            rd_token(&r, tok, sizeof tok);
            if (obj_is(&r, "v")) {
                if (pass == 0) {
                    if (nv >= MESH_MAX_COUNT) {
                        rd_err(&r, "too many vertices");
                        rc = SIPD_EINPUT;
                    }
                    nv++;
                    continue;
                }
                r.lp += 1;
                for (k = 0; k < 3 && rc == SIPD_OK; k++)
                    rc = rd_coord(&r, &b.x[3 * (size_t)b.nv + k], k == 0 ? "x" : k == 1 ? "y" : "z");
                if (rc)
                    break;
                {   /* optional w, or r g b */
                    int extra = 0;
                    double t;
                    while (!rd_at_eol(&r) && extra < 3 && (rc = rd_double(&r, &t, "vertex w / colour")) == SIPD_OK)
                        extra++;
                    if (rc)
                        break;
                    if (!rd_at_eol(&r) || extra == 2) {
                        rd_err(&r, "a vertex has 3 coordinates, optionally w or r g b (found %d extra numbers)",
                               extra + (rd_at_eol(&r) ? 0 : 1));
                        rc = SIPD_EINPUT;
                        break;
                    }
                }
                b.nv++;
            } else if (obj_is(&r, "f") || obj_is(&r, "l")) {
                int face = *r.lp == 'f', first = -1, prev = -1, cnt = 0, v;
                if (pass == 0)
                    continue;
                r.lp += 1;
                while (!rd_at_eol(&r)) {
                    if ((rc = obj_index(&r, b.nv, nv, &v, face ? "face corner" : "line vertex")))
                        break;
                    if (face && cnt >= 2) {
                        int t3[3] = {first, prev, v};
                        if ((rc = bld_add_tri(&b, &r, t3, (long long)nf + 1)))
                            break;
                    } else if (!face && cnt >= 1) {
                        int l2[2] = {prev, v};
                        if ((rc = bld_add_line(&b, &r, l2, (long long)nlel + 1)))
                            break;
                    }
                    if (cnt == 0)
                        first = v;
                    prev = v;
                    cnt++;
                }
                if (rc)
                    break;
                if (cnt < (face ? 3 : 2)) {
                    rd_err(&r, "'%s' needs at least %d vertices (found %d)", face ? "f" : "l", face ? 3 : 2, cnt);
                    rc = SIPD_EINPUT;
                    break;
                }
                if (face)
                    nf++;
                else
                    nlel++;
            } else {
                int known = 0;
                for (k = 0; ignored[k]; k++)
                    known |= obj_is(&r, ignored[k]);
                if (known)
                    continue;
                for (k = 0; freeform[k]; k++)
                    if (obj_is(&r, freeform[k])) {
                        rd_err(&r, "free-form geometry ('%s') is not supported: export polygons or polylines", tok);
                        rc = SIPD_EINPUT;
                        break;
                    }
                if (!rc) {
                    rd_err(&r, "unknown OBJ statement '%s'", tok);
                    rc = SIPD_EINPUT;
                }
            }
        }
    }
    if (rc == SIPD_OK)
        rc = finish(path, &b, m);
    bld_free(&b);
    free(buf);
    return rc;
}

static int ends_ci(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    if (n < e)
        return 0;
    for (size_t i = 0; i < e; i++)
        if (tolower((unsigned char)path[n - e + i]) != ext[i])
            return 0;
    return 1;
}

int mesh_single_file(const char *path) { return ends_ci(path, ".msh") || ends_ci(path, ".obj"); }

int mesh_load(const char *path, sipd_mesh *m)
{
    if (ends_ci(path, ".msh"))
        return mesh_load_gmsh(path, m);
    if (ends_ci(path, ".obj"))
        return mesh_load_obj(path, m);
    return mesh_load_tetgen(path, m);
}
