/* initpos.c — a body's initial positions from a .node, .msh or FILE.h5:FRAME (see initpos.h). */
#define _POSIX_C_SOURCE 200809L
#include "initpos.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}

static int parse_long(const char *s, size_t n, long *out)
{
    char buf[32], *end;
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtol(buf, &end, 10);
    return *end == '\0' && errno == 0 && (buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9'));
}

int initpos_split(const char *spec, size_t *file_len, long *frame, long *body)
{
    const char *h = NULL, *p = spec, *q;
    /* the last ".h5:" or ".hdf5:" ends FILE (a directory may contain a colon, the suffix may not) */
    while ((q = strstr(p, ".h5:")) != NULL) {
        h = q + 3;
        p = q + 1;
    }
    for (p = spec; (q = strstr(p, ".hdf5:")) != NULL; p = q + 1)
        if (!h || q + 5 > h)
            h = q + 5;
    if (!h) {
        size_t n = strlen(spec);
        if ((n >= 3 && strcmp(spec + n - 3, ".h5") == 0) || (n >= 5 && strcmp(spec + n - 5, ".hdf5") == 0))
            return -1;
        return 0;
    }
    *file_len = (size_t)(h - spec);
    *body = -1;
    q = strchr(h + 1, ':');
    if (!q)
        return parse_long(h + 1, strlen(h + 1), frame) ? 1 : -1;
    if (!parse_long(h + 1, (size_t)(q - h - 1), frame) || !parse_long(q + 1, strlen(q + 1), body) || *body < 0)
        return -1;
    return 1;
}

/* ---------------------------------------------------------------- TetGen .node */

/* Next non-blank, non-comment line (comment from '#'); NULL at EOF. */
static char *next_line(FILE *f, char **buf, size_t *cap, int *line)
{
    while (getline(buf, cap, f) >= 0) {
        char *s = *buf, *c = strchr(s, '#');
        (*line)++;
        if (c)
            *c = '\0';
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (*s)
            return s;
    }
    return NULL;
}

static int load_node(const char *path, const sipd_mesh *me, double *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL, *s, *end;
    size_t cap = 0;
    int line = 0, rc = SIPD_OK;
    long n, dim, i, base = 0;
    if (!f)
        return fail(err, errlen, SIPD_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    if (!(s = next_line(f, &buf, &cap, &line))) {
        rc = fail(err, errlen, SIPD_EINPUT, "%s: empty file (expected a TetGen .node header)", path);
        goto done;
    }
    n = strtol(s, &end, 10);
    dim = end != s ? strtol(end, &end, 10) : 0;
    if (end == s || n < 0 || dim != 3) {
        rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: expected a TetGen .node header '<n> 3 <nattr> <markers>'",
                  path, line);
        goto done;
    }
    if (n != me->nv) {
        rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: %ld vertices, the mesh has %d (the same vertices in the same "
                  "order are required)", path, line, n, me->nv);
        goto done;
    }
    for (i = 0; i < n; i++) {
        long idx;
        int k;
        if (!(s = next_line(f, &buf, &cap, &line))) {
            rc = fail(err, errlen, SIPD_EINPUT, "%s: ends after %ld of %ld vertices", path, i, n);
            goto done;
        }
        idx = strtol(s, &end, 10);
        if (end == s) {
            rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: expected '<index> x y z'", path, line);
            goto done;
        }
        if (i == 0 && (idx == 0 || idx == 1))
            base = idx;
        if (idx != base + i) {
            rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: vertex index %ld, expected %ld (vertices must be listed "
                      "in order, as in the mesh)", path, line, idx, base + i);
            goto done;
        }
        for (k = 0; k < 3; k++) {
            s = end;
            out[3 * i + k] = strtod(s, &end);
            if (end == s) {
                rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: expected '<index> x y z'", path, line);
                goto done;
            }
            if (!isfinite(out[3 * i + k])) {
                rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: vertex %ld: coordinate is not finite", path, line, idx);
                goto done;
            }
        }
    }
    if ((s = next_line(f, &buf, &cap, &line)) != NULL)
        rc = fail(err, errlen, SIPD_EINPUT, "%s:%d: more rows than the %ld vertices of the header", path, line, n);
done:
    free(buf);
    fclose(f);
    return rc;
}

/* ---------------------------------------------------------------- gmsh .msh */

/* Whether two elements of k distinct corners have the same corners (a set compare: the
 * loader's orientation swap does not count as a difference). */
static int same_elem(const int *a, const int *b, int k)
{
    int i, l;
    for (i = 0; i < k; i++) {
        for (l = 0; l < k && b[l] != a[i]; l++)
            ;
        if (l == k)
            return 0;
    }
    return 1;
}

static int same_tet(const int *a, const int *b) { return same_elem(a, b, 4); }

/* A .msh or .obj file through the mesh loader: the same vertex count and body elements (tets,
 * or for a surface/curve mesh its triangles/segments) as the mesh. */
static int load_msh(const char *path, const sipd_mesh *me, double *out, char *err, size_t errlen)
{
    static const char *what[4] = {"", "segments", "triangles", "tets"};
    sipd_mesh f;
    int rc = mesh_load(path, &f), i, ne, nef, k;
    const int *ea, *eb;
    if (rc != SIPD_OK)
        return fail(err, errlen, rc, "cannot read '%s' (see the message above)", path);
    ne = me->dim == 3 ? me->nt : me->dim == 2 ? me->nf : me->nl;
    nef = f.dim == 3 ? f.nt : f.dim == 2 ? f.nf : f.nl;
    k = me->dim + 1;
    if (f.nv != me->nv || f.dim != me->dim || nef != ne) {
        rc = fail(err, errlen, SIPD_EINPUT, "%s: %d vertices and %d %s, the mesh has %d and %d %s (identical "
                  "topology is required)", path, f.nv, nef, what[f.dim], me->nv, ne, what[me->dim]);
        goto done;
    }
    ea = f.dim == 3 ? f.tets : f.dim == 2 ? f.tris : f.lines;
    eb = me->dim == 3 ? me->tets : me->dim == 2 ? me->tris : me->lines;
    for (i = 0; i < ne; i++)
        if (!same_elem(ea + k * i, eb + k * i, k)) {
            rc = fail(err, errlen, SIPD_EINPUT, "%s: %s %d has other vertices than the mesh's %s %d (identical "
                      "topology is required)", path, f.dim == 3 ? "tet" : f.dim == 2 ? "triangle" : "segment",
                      i + 1, f.dim == 3 ? "tet" : f.dim == 2 ? "triangle" : "segment", i + 1);
            goto done;
        }
    for (i = 0; i < 3 * f.nv; i++)
        if (!isfinite(f.x[i])) {
            rc = fail(err, errlen, SIPD_EINPUT, "%s: vertex %d: coordinate is not finite", path, i / 3 + 1);
            goto done;
        }
    memcpy(out, f.x, sizeof(double) * 3 * (size_t)f.nv);
done:
    mesh_free(&f);
    return rc;
}

/* ---------------------------------------------------------------- sipd-run output FILE.h5:FRAME */

/* Read a whole 1-D or 2-D int dataset; *n = its number of rows. */
static int *read_ints(hid_t file, const char *name, int cols, hsize_t *n)
{
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT), sp = -1;
    hsize_t dims[2] = {0, 0};
    int *v = NULL, nd;
    if (d < 0)
        return NULL;
    sp = H5Dget_space(d);
    nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (nd == (cols ? 2 : 1) && H5Sget_simple_extent_dims(sp, dims, NULL) == nd &&
        (!cols || dims[1] == (hsize_t)cols)) {
        size_t cnt = (size_t)dims[0] * (cols ? (size_t)cols : 1);
        v = malloc(cnt ? cnt * sizeof(int) : 1);
        if (v && cnt && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
            free(v);
            v = NULL;
        }
        *n = dims[0];
    }
    H5Sclose(sp);
    H5Dclose(d);
    return v;
}

static int load_h5(const char *file, long frame, long body, const sipd_mesh *me, double *out, char *err,
                   size_t errlen)
{
    H5E_auto2_t efunc;
    void *edata;
    hid_t f = -1, d = -1, sp = -1, msp = -1;
    hsize_t dims[3], nvb = 0, ntt = 0, i;
    int *bodies = NULL, *tets = NULL, rc = SIPD_EINPUT;
    long first = -1, count = 0, nt = 0;
    float *buf = NULL;

    H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);   /* our messages, not HDF5's error stack */
    if ((f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        fail(err, errlen, rc, "cannot open '%s' as an HDF5 file", file);
        goto done;
    }
    if (!(bodies = read_ints(f, "/mesh/body", 0, &nvb))) {
        fail(err, errlen, rc, "%s: no readable /mesh/body (not a sipd-run output?)", file);
        goto done;
    }
    for (i = 0; i < nvb; i++)
        if (bodies[i] == body) {
            if (first < 0)
                first = (long)i;
            else if (bodies[i - 1] != body) {
                fail(err, errlen, rc, "%s: the vertices of body %ld are not contiguous in /mesh/body", file, body);
                goto done;
            }
            count++;
        }
    if (count != me->nv) {
        fail(err, errlen, rc, "%s: body %ld of that run has %ld vertices (by /mesh/body), the mesh has %d "
             "(the same vertices in the same order are required)", file, body, count, me->nv);
        goto done;
    }
    if (!(tets = read_ints(f, "/mesh/tets", 4, &ntt))) {
        fail(err, errlen, rc, "%s: no readable /mesh/tets (not a sipd-run output?)", file);
        goto done;
    }
    for (i = 0; i < ntt; i++) {
        int *t = tets + 4 * i, k;
        if (t[0] < first || t[0] >= first + count)
            continue;
        for (k = 0; k < 4; k++) t[k] -= (int)first;
        if (nt >= me->nt || !same_tet(t, me->tets + 4 * nt)) {
            fail(err, errlen, rc, "%s: body %ld of that run has other tets than the mesh (tet %ld; identical "
                 "topology is required)", file, body, nt + 1);
            goto done;
        }
        nt++;
    }
    if (nt != me->nt) {
        fail(err, errlen, rc, "%s: body %ld of that run has %ld tets, the mesh has %d", file, body, nt, me->nt);
        goto done;
    }
    if ((d = H5Dopen2(f, "/frames/positions", H5P_DEFAULT)) < 0 || (sp = H5Dget_space(d)) < 0 ||
        H5Sget_simple_extent_ndims(sp) != 3 || H5Sget_simple_extent_dims(sp, dims, NULL) != 3 ||
        dims[1] != nvb || dims[2] != 3) {
        fail(err, errlen, rc, "%s: no readable /frames/positions (frames x %llu x 3)", file,
             (unsigned long long)nvb);
        goto done;
    }
    if (frame < 0)
        frame += (long)dims[0];
    if (frame < 0 || (hsize_t)frame >= dims[0]) {
        fail(err, errlen, rc, "%s: frame out of range: the file has %llu frames (0..%lld; -1 = the last)", file,
             (unsigned long long)dims[0], (long long)dims[0] - 1);
        goto done;
    }
    {
        hsize_t start[3] = {(hsize_t)frame, (hsize_t)first, 0}, cnt[3] = {1, (hsize_t)count, 3};
        hsize_t mdim = (hsize_t)count * 3;
        if (!(buf = malloc((size_t)mdim * sizeof(float) + 1))) {
            rc = fail(err, errlen, SIPD_EFAIL, "out of memory");
            goto done;
        }
        if (H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
            (msp = H5Screate_simple(1, &mdim, NULL)) < 0 ||
            H5Dread(d, H5T_NATIVE_FLOAT, msp, sp, H5P_DEFAULT, buf) < 0) {
            fail(err, errlen, rc, "%s: cannot read frame %ld of /frames/positions", file, frame);
            goto done;
        }
        for (i = 0; i < mdim; i++) {
            if (!isfinite(buf[i])) {
                fail(err, errlen, rc, "%s: frame %ld: body %ld vertex %llu is not finite", file, frame, body,
                     (unsigned long long)(i / 3 + 1));
                goto done;
            }
            out[i] = buf[i];
        }
    }
    rc = SIPD_OK;
done:
    if (msp >= 0) H5Sclose(msp);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    free(buf);
    free(bodies);
    free(tets);
    return rc;
}

int initpos_load(const char *spec, const sipd_mesh *me, int body_index, double *out, int *world, char *err,
                 size_t errlen)
{
    size_t flen = 0;
    long frame = 0, body = -1;
    int kind = initpos_split(spec, &flen, &frame, &body), rc;
    size_t n = strlen(spec);
    *world = 0;
    err[0] = '\0';
    if (kind < 0)
        return fail(err, errlen, SIPD_EINPUT, "'%s': an HDF5 output needs a frame: FILE.h5:FRAME[:BODY]", spec);
    if (kind == 1) {
        char *file = malloc(flen + 1);
        if (!file)
            return fail(err, errlen, SIPD_EFAIL, "out of memory");
        memcpy(file, spec, flen);
        file[flen] = '\0';
        rc = load_h5(file, frame, body >= 0 ? body : body_index, me, out, err, errlen);
        free(file);
        *world = 1;
        return rc;
    }
    if (n >= 5 && strcmp(spec + n - 5, ".node") == 0)
        return load_node(spec, me, out, err, errlen);
    if (mesh_single_file(spec))
        return load_msh(spec, me, out, err, errlen);
    return fail(err, errlen, SIPD_EINPUT, "'%s': expected a TetGen .node, a gmsh .msh, an .obj or FILE.h5:FRAME",
                spec);
}
