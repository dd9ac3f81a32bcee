/* h5out.c — HDF5 output and XDMF sidecar (layout: see h5out.h).
 *
 * Crash safety, and why there is no SWMR here.
 * A run may die at any moment (SIGKILL at a SLURM time limit, a node failure), and the frames
 * it completed must stay readable without repair tools.  Two ways to get there:
 *
 *  - SWMR needs the latest file format (superblock v3).  That superblock carries a "file is
 *    open for writing" status flag; a killed writer never clears it, and every later H5Fopen
 *    (read-only included) refuses the file until someone runs `h5clear -s`.
 *  - Plain writing with the file format bounded to HDF5 1.8 (H5F_LIBVER_V18 for both bounds:
 *    superblock v2, v2 object headers, v1 B-tree chunk indexes).  Superblocks before v3 keep
 *    no open-for-write flag, so a killed file opens as is.  H5Fflush(H5F_SCOPE_GLOBAL) after
 *    every frame writes all dirty metadata and cached chunks, leaving a consistent file on
 *    disk at each frame boundary.  The 1.8 format (rather than the 1.0 default) is needed for
 *    dense attribute storage: the scene text and resolved parameters can exceed the 64 KiB
 *    limit of attributes stored in an object header.  The upper bound is 1.10 for one kind of
 *    object only: the XDMF sidecar's per-frame views /xdmf/frames/N are virtual datasets (1.10);
 *    the superblock stays v2 (the low bound decides it), so a killed file still opens as is.
 *    The file is readable by HDF5 >= 1.8; the frame views by >= 1.10.
 *
 * We use the second (checked by tests/unit/test_h5out_kill.c: SIGKILL a writer mid-loop, then
 * H5Fopen read-only must succeed and hold every reported frame, without h5clear).  What it
 * does not give: a reader following the file while it is written is not guaranteed a
 * consistent view (copy the file, or wait for the run to finish).
 *
 * Write batches.  Every change to the file is made in a batch that ends with H5Fflush: a frame
 * (with the log rows queued before it), a chunk of the log, the root attributes, a resume's
 * truncation.  Nothing is written between batches, so a SIGKILL between two batches leaves the
 * file exactly as the last flush left it: consistent.  A SIGKILL inside a batch can leave it
 * torn — HDF5 rewrites its superblock, object headers and chunk indexes in place, one pwrite at
 * a time, and stopping between two of them left files whose resume failed to open (“message
 * type not found”) or failed at the next flush (“addr overflow”): tests/unit/test_h5out_torn.c kills
 * a writer before each of the ~100 writes of three frames and found 8 such points; it is how
 * cli_checkpoint_seconds once saw its resumed run exit 1.  So a batch is bracketed by a marker
 * file PATH.writing (created before the first write, removed after the flush), and a resume
 * that finds the marker does not touch the torn file in place: it rebuilds the output
 * (rebuild_output: a fresh file with the root attributes, /mesh and the checkpoint's rows of
 * every series, read from the killed file, which opened read-only at every one of those kill
 * points), then continues that.  A torn file thus costs a copy of the output at the resume;
 * an intact one (the usual case: kills land between batches) is continued in place.
 *
 * The log is streamed.  Solve rows and their per-iteration history rows are queued in column
 * buffers and written (and flushed) as one batch when LOG_ROWS history rows or LOG_SOLVES solve
 * rows are queued, when LOG_SECONDS have passed since the last write, and with every frame: the
 * memory the log takes is bounded (about 2 MB) whatever the length of a frame, and a run stopped
 * by a signal has at most a second of rows left to write.  Rows written inside a frame are past
 * the last whole frame until the frame is written: /frames/convergence_rows and
 * /frames/history_rows record, per frame, how many rows of each log belonged to the frames up to
 * it, so a reader of a killed or stopped run knows where the whole frames' rows end; a resume
 * truncates every series to its checkpoint's counts.  (Writing rows as they came, without a
 * flush, was unsafe: the HDF5 chunk cache could evict a rewritten partial chunk between flushes,
 * and a kill at that moment tore a chunk that held rows from before the last flush.)
 * The 1-D series are stored uncompressed, so a partial chunk keeps its size and place when it
 * is rewritten.
 *
 * Chunks: /frames/positions is chunked one frame per chunk (1 x nv x 3 float32) so a frame is
 * one compressed write and a reader decompresses only the frames it wants; past 4 MiB a frame
 * is split along the vertex dimension.  Shuffle before deflate groups the float32 bytes by
 * significance, which is what makes coordinates compress at all.
 *
 * The XDMF sidecar lists every frame with the current dataset shape ("frames nv 3"), so it is
 * rewritten whole after each frame (temp file + rename: a reader never sees a torn file).  Its
 * size grows linearly with frames, so rewriting costs O(frames) per frame; ~700 bytes a frame.
 * It refers to the .h5 by basename, so the pair can be moved together.
 */
#define _POSIX_C_SOURCE 200809L
#include "h5out.h"
#include "util.h"

#include <hdf5.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { CONV_FRAME, CONV_SUBSTEP, CONV_ITER, CONV_RESIDUAL, CONV_ENERGY, CONV_LS, CONV_CONTACTS,
       CONV_WALL, CONV_HOFF, CONV_PEN, CONV_STATUS, CONV_RDISP, CONV_FREF, CONV_MOMENTUM, CONV_MINGAP, CONV_N };
static const char *const conv_names[CONV_N] = {
    "frame", "substep", "iterations", "residual", "energy", "line_search_steps", "contacts",
    "wall_time", "history_offset", "max_penetration", "status", "residual_displacement",
    "force_reference", "momentum_error", "min_gap"};
/* the float64 columns of /convergence (the others are int32, history_offset int64) */
#define CONV_IS_DOUBLE(k)                                                                            \
    ((k) == CONV_RESIDUAL || (k) == CONV_ENERGY || (k) == CONV_WALL || (k) == CONV_PEN ||           \
     (k) == CONV_RDISP || (k) == CONV_FREF || (k) == CONV_MOMENTUM || (k) == CONV_MINGAP)
enum { HIST_RESIDUAL, HIST_ENERGY, HIST_ALPHA, HIST_FORCE, HIST_TIME, HIST_RDISP, HIST_N };
static const char *const hist_names[HIST_N] = {"residual", "energy", "alpha", "force", "wall_time",
                                               "residual_displacement"};

#define CONV_CHUNK 1024
#define HIST_CHUNK 4096
#define FRAME_CHUNK_MAX (4u << 20) /* bytes */
#define LOG_ROWS 32768    /* history rows queued before they are written (1.7 MB) ...          */
#define LOG_SOLVES 4096   /* ... or solve rows (0.5 MB) ...                                    */
#define LOG_SECONDS 1.0   /* ... or seconds since the last write                               */
#define CHUNK_CACHE (2 * HIST_CHUNK * 8)   /* bytes of chunk cache per dataset (v18_fapl)     */
#define MDC_MAX (256u << 10)                /* bytes of metadata cache at most (v18_fapl)      */

struct sipd_h5out {
    char *path, *xdmf_path, *xdmf_tmp, *h5ref; /* h5ref: basename, XML-escaped */
    char *mark_path;         /* PATH.writing: exists while a write batch is in progress */
    hid_t file, pos, time;
    hid_t frows, fhrows;     /* /frames/convergence_rows, /frames/history_rows */
    hid_t conv[CONV_N], hist[HIST_N], hiter;   /* hiter: /convergence/history/iteration */
    int nv, nt, ntri, ned;   /* elements per kind in /mesh (the XDMF's grids) */
    /* output fields (h5out_add_fields): their datasets and a float32 conversion buffer */
    int nfields;
    struct h5field *fields;
    float *fbuf2;
    size_t fbuf2_n;
    int appending;           /* opened by h5out_open_append (add_fields reopens, not creates) */
    hsize_t nframes, nsolves, nhist;
    float *fbuf;   /* nv*3 conversion buffer */
    double *times; /* frame times for the XDMF */
    size_t times_cap;
    int compression;
    int history_every;       /* output.history: 1 all, 0 none, N every N-th iteration */
    int marked;              /* the marker file exists (a batch is open)            */
    /* the log queue: solve rows and history rows not yet in the file, as columns (the
       integer columns of /convergence are queued as doubles: exact) */
    double *qc[CONV_N], *qh[HIST_N];
    int32_t *qit;
    int qsolves, qrows;
    double t_write;          /* wall clock of the last log write */
};

/* One output field: a dataset /frames/fields/<name> (frames x nv x ncomp) per vertex, or one per
 * element kind present, /frames/fields/<name>/<kind> (frames x n_kind x ncomp), kind as in /mesh. */
struct h5field {
    char *name;
    int ncomp, per_element;
    hid_t d[3];   /* per vertex: d[0]; per element: tets, triangles, edges (-1: kind absent) */
};
static const char *const kind_name[3] = {"tets", "triangles", "edges"};

/* ---- error reporting ---------------------------------------------------------------------- */

struct h5err {
    char msg[512];
};

static herr_t h5err_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    struct h5err *r = data;
    if (n == 0 && e->desc) {
        char *p;
        snprintf(r->msg, sizeof r->msg, "%s", e->desc);
        if ((p = strstr(r->msg, ", buf = ")) != NULL) /* the rest is driver internals */
            *p = '\0';
        for (p = r->msg; *p; p++) /* the sec2 driver's message embeds ctime()'s newline */
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return 0;
}

/* Report "path: what (innermost HDF5 message)" and clear the HDF5 error stack. */
static void h5fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void h5fail(const char *path, const char *fmt, ...)
{
    char what[256];
    struct h5err r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r.msg[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5err_walk, &r);
    H5Eclear2(H5E_DEFAULT);
    if (r.msg[0])
        sipd_error_at(path, 0, "%s (HDF5: %s)", what, r.msg);
    else
        sipd_error_at(path, 0, "%s", what);
}

/* ---- small helpers ------------------------------------------------------------------------ */

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = sipd_malloc(n);
    if (r)
        memcpy(r, s, n);
    return r;
}

static int mkdir_p(const char *dir)
{
    char *d = dupstr(dir);
    struct stat st;
    size_t i, n;
    if (!d)
        return SIPD_EFAIL;
    n = strlen(d);
    for (i = 1; i <= n; i++) {
        if (d[i] != '/' && d[i] != '\0')
            continue;
        char c = d[i];
        d[i] = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            sipd_error_at(d, 0, "cannot create output directory: %s", strerror(errno));
            free(d);
            return SIPD_EFAIL;
        }
        d[i] = c;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        sipd_error_at(dir, 0, "cannot create output directory: %s",
                      stat(dir, &st) != 0 ? strerror(errno) : "exists and is not a directory");
        free(d);
        return SIPD_EFAIL;
    }
    free(d);
    return SIPD_OK;
}

/* XML-escaped copy of s. */
static char *xml_escape(const char *s)
{
    size_t n = 0;
    const char *p;
    char *r, *q;
    for (p = s; *p; p++)
        n += (*p == '&') ? 5 : (*p == '<' || *p == '>') ? 4 : (*p == '"' || *p == '\'') ? 6 : 1;
    r = sipd_malloc(n + 1);
    if (!r)
        return NULL;
    for (p = s, q = r; *p; p++) {
        const char *e = NULL;
        switch (*p) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        case '\'': e = "&apos;"; break;
        default: *q++ = *p; continue;
        }
        size_t l = strlen(e);
        memcpy(q, e, l);
        q += l;
    }
    *q = '\0';
    return r;
}

/* path with a trailing .h5/.hdf5/.hdf replaced by ext (appended when there is none). */
static char *replace_ext(const char *path, const char *ext)
{
    static const char *const known[] = {".h5", ".hdf5", ".hdf"};
    size_t n = strlen(path), k, base = n;
    char *r;
    for (k = 0; k < sizeof known / sizeof known[0]; k++) {
        size_t l = strlen(known[k]);
        if (n > l && strcmp(path + n - l, known[k]) == 0 && path[n - l - 1] != '/') {
            base = n - l;
            break;
        }
    }
    r = sipd_malloc(base + strlen(ext) + 1);
    if (!r)
        return NULL;
    memcpy(r, path, base);
    strcpy(r + base, ext);
    return r;
}

/* A scalar root attribute (stored as file_type, given as mem_type at value), replacing any. */
static int set_attr(hid_t obj, const char *path, const char *name, hid_t file_type, hid_t mem_type,
                    const void *value)
{
    hid_t space = -1, attr = -1;
    int rc = SIPD_EFAIL;
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0 || (ex > 0 && H5Adelete(obj, name) < 0))
        goto done;
    if ((space = H5Screate(H5S_SCALAR)) < 0)
        goto done;
    if ((attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto done;
    if (H5Awrite(attr, mem_type, value) < 0)
        goto done;
    rc = SIPD_OK;
done:
    if (rc != SIPD_OK)
        h5fail(path, "cannot write root attribute '%s'", name);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* A fixed-length, NUL-terminated string attribute. */
static int set_str_attr(hid_t obj, const char *path, const char *name, const char *value)
{
    size_t len = strlen(value);
    hid_t type = H5Tcopy(H5T_C_S1);
    int rc;
    if (type < 0 || H5Tset_size(type, len ? len : 1) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0) {
        h5fail(path, "cannot write root attribute '%s'", name);
        rc = SIPD_EFAIL;
    } else {
        rc = set_attr(obj, path, name, type, type, len ? value : "");
    }
    if (type >= 0)
        H5Tclose(type);
    return rc;
}

/* Fixed-size 2-D (or 1-D when cols == 0) dataset written in one go. */
static int write_fixed(hid_t loc, const char *path, const char *name, hid_t ftype, hid_t mtype,
                       hsize_t rows, hsize_t cols, const void *data)
{
    hsize_t dims[2] = {rows, cols};
    hid_t space = -1, d = -1;
    int rc = SIPD_EFAIL;
    if ((space = H5Screate_simple(cols ? 2 : 1, dims, NULL)) < 0)
        goto done;
    if ((d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto done;
    if (rows > 0 && data &&
        H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        goto done;
    rc = SIPD_OK;
done:
    if (rc != SIPD_OK)
        h5fail(path, "cannot write /mesh/%s", name);
    if (d >= 0)
        H5Dclose(d);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* Dataset creation property list: chunked, shuffle + deflate when level > 0. */
static hid_t make_dcpl(int rank, const hsize_t *chunk, int level)
{
    hid_t p = H5Pcreate(H5P_DATASET_CREATE);
    if (p < 0)
        return -1;
    if (H5Pset_chunk(p, rank, chunk) < 0 ||
        (level > 0 && (H5Pset_shuffle(p) < 0 || H5Pset_deflate(p, (unsigned)level) < 0))) {
        H5Pclose(p);
        return -1;
    }
    return p;
}

/* Empty extendible 1-D dataset; an integer one created with `fill_m1` reads -1 where nothing
 * was written (rows a resumed file held before the series existed). */
static hid_t create_series_fill(hid_t loc, const char *path, const char *what, const char *name,
                                hid_t ftype, hsize_t chunk, int level, int fill_m1)
{
    hsize_t dims = 0, maxd = H5S_UNLIMITED;
    hid_t space = -1, dcpl = -1, d = -1;
    const int m1 = -1;
    if ((space = H5Screate_simple(1, &dims, &maxd)) >= 0 &&
        (dcpl = make_dcpl(1, &chunk, level)) >= 0 &&
        (!fill_m1 || H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &m1) >= 0))
        d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        h5fail(path, "cannot create %s/%s", what, name);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return d;
}

static hid_t create_series(hid_t loc, const char *path, const char *what, const char *name,
                           hid_t ftype, hsize_t chunk, int level)
{
    return create_series_fill(loc, path, what, name, ftype, chunk, level, 0);
}

/* Append n elements of mtype from buf to the 1-D dataset d, which holds old elements. */
static int append_1d(hid_t d, hsize_t old, hsize_t n, hid_t mtype, const void *buf)
{
    hsize_t size = old + n;
    hid_t fs = -1, ms = -1;
    int rc = SIPD_EFAIL;
    if (n == 0)
        return SIPD_OK;
    if (H5Dset_extent(d, &size) < 0)
        return SIPD_EFAIL;
    if ((fs = H5Dget_space(d)) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &old, NULL, &n, NULL) < 0 ||
        (ms = H5Screate_simple(1, &n, NULL)) < 0 ||
        H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        goto done;
    rc = SIPD_OK;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (rc != SIPD_OK)
        H5Dset_extent(d, &old); /* best effort: keep the series aligned */
    return rc;
}

/* ---- XDMF --------------------------------------------------------------------------------- */

struct sbuf {
    char *s;
    size_t n, cap;
    int oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + (size_t)k + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

/* The end of frame i's grid of kind k (0 tets, 1 triangles, 2 edges): the body attribute, every
 * per-vertex field, the per-element fields of kind k (each through its frame view, h5out_add_fields),
 * and the closing tag. */
static void xdmf_attributes(const sipd_h5out *o, struct sbuf *b, hsize_t i, int k)
{
    const int ne[3] = {o->nt, o->ntri, o->ned};
    int f;
    sb_printf(b,
              "        <Attribute Name=\"body\" AttributeType=\"Scalar\" Center=\"Node\">\n"
              "          <DataItem Format=\"HDF\" NumberType=\"Int\" Precision=\"4\" "
              "Dimensions=\"%d\">%s:/mesh/body</DataItem>\n"
              "        </Attribute>\n",
              o->nv, o->h5ref);
    for (f = 0; f < o->nfields; f++) {
        const struct h5field *F = &o->fields[f];
        const char *type = F->ncomp == 1 ? "Scalar" : F->ncomp == 3 ? "Vector" : "Tensor";
        const int nc = F->ncomp == 6 ? 9 : F->ncomp;   /* the view's columns (sym_cols) */
        if (!F->per_element)
            sb_printf(b,
                      "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n"
                      "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"4\" "
                      "Dimensions=\"%d %d\">%s:/xdmf/fields/%s/%llu</DataItem>\n"
                      "        </Attribute>\n",
                      F->name, type, o->nv, nc, o->h5ref, F->name, (unsigned long long)i);
        else if (F->d[k] >= 0)
            sb_printf(b,
                      "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Cell\">\n"
                      "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"4\" "
                      "Dimensions=\"%d %d\">%s:/xdmf/fields/%s/%s/%llu</DataItem>\n"
                      "        </Attribute>\n",
                      F->name, type, ne[k], nc, o->h5ref, F->name, kind_name[k], (unsigned long long)i);
    }
    sb_printf(b, "      </Grid>\n");
}

static int write_xdmf(sipd_h5out *o)
{
    struct sbuf b = {NULL, 0, 0, 0};
    const char *h = o->h5ref;
    FILE *f;
    hsize_t i;
    int ok;

    sb_printf(&b, "<?xml version=\"1.0\" ?>\n"
                  "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
                  "  <Domain>\n"
                  "    <Grid Name=\"frames\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (i = 0; i < o->nframes && (o->ntri > 0 || o->ned > 0); i++) {
        /* other kinds: one Uniform grid per kind present (a Spatial collection of them when
           there are several), each over the same frame geometry */
        static const char *const topo[3] = {"Tetrahedron", "Triangle", "Polyline\" NodesPerElement=\"2"};
        static const char *const path[3] = {"tets", "triangles", "edges"};
        static const int npe[3] = {4, 3, 2};
        const int ne[3] = {o->nt, o->ntri, o->ned};
        int kinds = (o->nt > 0) + (o->ntri > 0) + (o->ned > 0), k;
        if (kinds > 1)
            sb_printf(&b, "      <Grid Name=\"frame_%llu\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
                          "        <Time Value=\"%.17g\"/>\n", (unsigned long long)i, o->times[i]);
        for (k = 0; k < 3; k++) {
            if (ne[k] <= 0)
                continue;
            if (kinds > 1)
                sb_printf(&b, "      <Grid Name=\"frame_%llu_%s\" GridType=\"Uniform\">\n", (unsigned long long)i,
                          path[k]);
            else
                sb_printf(&b, "      <Grid Name=\"frame_%llu\" GridType=\"Uniform\">\n"
                              "        <Time Value=\"%.17g\"/>\n", (unsigned long long)i, o->times[i]);
            sb_printf(&b,
                      "        <Topology TopologyType=\"%s\" NumberOfElements=\"%d\">\n"
                      "          <DataItem Format=\"HDF\" NumberType=\"Int\" Precision=\"4\" "
                      "Dimensions=\"%d %d\">%s:/mesh/%s</DataItem>\n"
                      "        </Topology>\n"
                      "        <Geometry GeometryType=\"XYZ\">\n"
                      "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"4\" "
                      "Dimensions=\"%d 3\">%s:/xdmf/frames/%llu</DataItem>\n"
                      "        </Geometry>\n",
                      topo[k], ne[k], ne[k], npe[k], h, path[k], o->nv, h, (unsigned long long)i);
            xdmf_attributes(o, &b, i, k);
        }
        if (kinds > 1)
            sb_printf(&b, "      </Grid>\n");
    }
    for (i = 0; i < o->nframes && o->ntri <= 0 && o->ned <= 0; i++) {   /* tets only (unchanged) */
        sb_printf(&b,
                  "      <Grid Name=\"frame_%llu\" GridType=\"Uniform\">\n"
                  "        <Time Value=\"%.17g\"/>\n"
                  "        <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\">\n"
                  "          <DataItem Format=\"HDF\" NumberType=\"Int\" Precision=\"4\" "
                  "Dimensions=\"%d 4\">%s:/mesh/tets</DataItem>\n"
                  "        </Topology>\n"
                  "        <Geometry GeometryType=\"XYZ\">\n"
                  "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"4\" "
                  "Dimensions=\"%d 3\">%s:/xdmf/frames/%llu</DataItem>\n"
                  "        </Geometry>\n",
                  (unsigned long long)i, o->times[i], o->nt, o->nt, h, o->nv, h, (unsigned long long)i);
        xdmf_attributes(o, &b, i, 0);
    }
    sb_printf(&b, "    </Grid>\n  </Domain>\n</Xdmf>\n");
    if (b.oom) {
        free(b.s);
        sipd_error_at(o->xdmf_path, 0, "out of memory while building the XDMF file");
        return SIPD_EFAIL;
    }
    f = fopen(o->xdmf_tmp, "wb");
    if (!f) {
        sipd_error_at(o->xdmf_tmp, 0, "cannot write XDMF file: %s", strerror(errno));
        free(b.s);
        return SIPD_EFAIL;
    }
    ok = fwrite(b.s, 1, b.n, f) == b.n;
    if (fclose(f) != 0)
        ok = 0;
    free(b.s);
    if (!ok) {
        sipd_error_at(o->xdmf_tmp, 0, "cannot write XDMF file: %s", strerror(errno));
        remove(o->xdmf_tmp);
        return SIPD_EFAIL;
    }
    if (rename(o->xdmf_tmp, o->xdmf_path) != 0) {
        sipd_error_at(o->xdmf_path, 0, "cannot replace XDMF file: %s", strerror(errno));
        remove(o->xdmf_tmp);
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* ---- public API --------------------------------------------------------------------------- */

/* The marker PATH.writing brackets every write batch (see the design note above): created
 * before its first change to the file, removed once H5Fflush has returned. */
static void mark_begin(sipd_h5out *o)
{
    int fd;
    if (o->marked || !o->mark_path)
        return;
    fd = open(o->mark_path, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
    o->marked = 1;
}

static void close_fields(sipd_h5out *o)
{
    int f, k;
    for (f = 0; f < o->nfields; f++) {
        for (k = 0; k < 3; k++)
            if (o->fields[f].d[k] >= 0)
                H5Dclose(o->fields[f].d[k]);
        free(o->fields[f].name);
    }
    free(o->fields);
    o->fields = NULL;
    o->nfields = 0;
}

static void mark_end(sipd_h5out *o)
{
    if (!o->marked)
        return;
    unlink(o->mark_path);
    o->marked = 0;
}

static void close_ids(sipd_h5out *o)
{
    hid_t *ids[4] = {&o->pos, &o->time, &o->frows, &o->fhrows};
    int k;
    close_fields(o);
    free(o->fbuf2);
    o->fbuf2 = NULL;   /* (close_ids runs again in free_handle) */
    o->fbuf2_n = 0;
    for (k = 0; k < CONV_N; k++)
        if (o->conv[k] >= 0)
            H5Dclose(o->conv[k]);
    for (k = 0; k < HIST_N; k++)
        if (o->hist[k] >= 0)
            H5Dclose(o->hist[k]);
    if (o->hiter >= 0)
        H5Dclose(o->hiter);
    for (k = 0; k < 4; k++)
        if (*ids[k] >= 0)
            H5Dclose(*ids[k]);
    for (k = 0; k < CONV_N; k++)
        o->conv[k] = -1;
    for (k = 0; k < HIST_N; k++)
        o->hist[k] = -1;
    o->hiter = -1;
    for (k = 0; k < 4; k++)
        *ids[k] = -1;
}

static void free_handle(sipd_h5out *o)
{
    int k;
    close_ids(o);
    if (o->file >= 0)
        H5Fclose(o->file);
    free(o->path);
    free(o->mark_path);
    free(o->xdmf_path);
    free(o->xdmf_tmp);
    free(o->h5ref);
    free(o->fbuf);
    free(o->times);
    for (k = 0; k < CONV_N; k++)
        free(o->qc[k]);
    for (k = 0; k < HIST_N; k++)
        free(o->qh[k]);
    free(o->qit);
    free(o);
}

static int create_layout(sipd_h5out *o, const sipd_h5_meta *meta, const sipd_h5_mesh *m)
{
    const char *p = o->path;
    hid_t g = -1;
    int k, lvl = o->compression;

    if (meta) {
        const char *names[7] = {"version", "scene", "resolved_parameters", "command_line",
                                "device", "precision", "units"};
        const char *vals[7] = {meta->version, meta->scene_text, meta->resolved_parameters,
                               meta->command_line, meta->device, meta->precision, meta->units};
        for (k = 0; k < 7; k++)
            if (vals[k] && set_str_attr(o->file, p, names[k], vals[k]) != SIPD_OK)
                return SIPD_EFAIL;
    }

    /* /mesh */
    if ((g = H5Gcreate2(o->file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        h5fail(p, "cannot create group /mesh");
        return SIPD_EFAIL;
    }
    if (write_fixed(g, p, "rest_positions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)m->nv,
                    3, m->rest) != SIPD_OK ||
        write_fixed(g, p, "tets", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m->nt, 4, m->tets) !=
            SIPD_OK ||
        write_fixed(g, p, "surface_triangles", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m->nf, 3,
                    m->tris) != SIPD_OK ||
        write_fixed(g, p, "body", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m->nv, 0, m->body) !=
            SIPD_OK ||
        (m->ntri > 0 && write_fixed(g, p, "triangles", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m->ntri, 3,
                                    m->triangles) != SIPD_OK) ||
        (m->ned > 0 && write_fixed(g, p, "edges", H5T_STD_I32LE, H5T_NATIVE_INT, (hsize_t)m->ned, 2, m->edges) !=
                           SIPD_OK)) {
        H5Gclose(g);
        return SIPD_EFAIL;
    }
    H5Gclose(g);

    /* /frames */
    if ((g = H5Gcreate2(o->file, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        h5fail(p, "cannot create group /frames");
        return SIPD_EFAIL;
    }
    {
        hsize_t dims[3] = {0, (hsize_t)m->nv, 3}, maxd[3] = {H5S_UNLIMITED, (hsize_t)m->nv, 3};
        hsize_t chunk[3] = {1, (hsize_t)m->nv, 3};
        hsize_t maxv = FRAME_CHUNK_MAX / (3 * sizeof(float));
        hid_t space = -1, dcpl = -1;
        if (chunk[1] > maxv)
            chunk[1] = maxv;
        if ((space = H5Screate_simple(3, dims, maxd)) >= 0 &&
            (dcpl = make_dcpl(3, chunk, lvl)) >= 0)
            o->pos = H5Dcreate2(g, "positions", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl,
                                H5P_DEFAULT);
        if (o->pos < 0)
            h5fail(p, "cannot create /frames/positions");
        if (dcpl >= 0)
            H5Pclose(dcpl);
        if (space >= 0)
            H5Sclose(space);
    }
    if (o->pos >= 0)
        o->time = create_series(g, p, "/frames", "time", H5T_IEEE_F64LE, CONV_CHUNK, 0);
    /* per frame: the rows of each log written by then (the whole frames' rows end there) */
    if (o->time >= 0)
        o->frows = create_series_fill(g, p, "/frames", "convergence_rows", H5T_STD_I64LE, CONV_CHUNK, 0, 1);
    if (o->frows >= 0)
        o->fhrows = create_series_fill(g, p, "/frames", "history_rows", H5T_STD_I64LE, CONV_CHUNK, 0, 1);
    H5Gclose(g);
    if (o->pos < 0 || o->time < 0 || o->frows < 0 || o->fhrows < 0)
        return SIPD_EFAIL;

    /* /convergence and /convergence/history */
    if ((g = H5Gcreate2(o->file, "convergence", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        h5fail(p, "cannot create group /convergence");
        return SIPD_EFAIL;
    }
    for (k = 0; k < CONV_N; k++) {
        hid_t t = CONV_IS_DOUBLE(k) ? H5T_IEEE_F64LE : k == CONV_HOFF ? H5T_STD_I64LE : H5T_STD_I32LE;
        /* uncompressed: a partly filled chunk is then rewritten in place at each flush, never
           moved, so the file's chunk index stays valid (see struct sipd_h5out) */
        if ((o->conv[k] = create_series(g, p, "/convergence", conv_names[k], t, CONV_CHUNK,
                                        0)) < 0) {
            H5Gclose(g);
            return SIPD_EFAIL;
        }
    }
    H5Gclose(g);
    if ((g = H5Gcreate2(o->file, "convergence/history", H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT)) < 0) {
        h5fail(p, "cannot create group /convergence/history");
        return SIPD_EFAIL;
    }
    for (k = 0; k < HIST_N; k++) {
        if ((o->hist[k] = create_series(g, p, "/convergence/history", hist_names[k],
                                        H5T_IEEE_F64LE, HIST_CHUNK, 0)) < 0) {
            H5Gclose(g);
            return SIPD_EFAIL;
        }
    }
    /* the iteration (0-based, within its solve) of each row: output.history may thin them */
    o->hiter = create_series_fill(g, p, "/convergence/history", "iteration", H5T_STD_I32LE, HIST_CHUNK, 0, 1);
    H5Gclose(g);
    return o->hiter >= 0 ? SIPD_OK : SIPD_EFAIL;
}

/* A handle with every id closed (-1), the path strings, the frame buffer and the log queue. */
static sipd_h5out *new_handle(const char *path, int nv, int nt, int xdmf)
{
    sipd_h5out *o = sipd_calloc(1, sizeof *o);
    const char *slash = strrchr(path, '/');
    int k;
    if (!o)
        return NULL;
    o->file = o->pos = o->time = o->frows = o->fhrows = o->hiter = -1;
    for (k = 0; k < CONV_N; k++)
        o->conv[k] = -1;
    for (k = 0; k < HIST_N; k++)
        o->hist[k] = -1;
    o->nv = nv;
    o->nt = nt;
    o->history_every = 1;
    o->t_write = sipd_now();
    if (!(o->path = dupstr(path)) || !(o->fbuf = sipd_malloc((size_t)nv * 3 * sizeof(float))) ||
        !(o->mark_path = h5out_marker_path(path)) || !(o->h5ref = xml_escape(slash ? slash + 1 : path)) ||
        (xdmf && (!(o->xdmf_path = replace_ext(path, ".xdmf")) ||
                  !(o->xdmf_tmp = replace_ext(path, ".xdmf.tmp")))) ||
        !(o->qit = sipd_malloc(LOG_ROWS * sizeof(int32_t)))) {
        free_handle(o);
        return NULL;
    }
    for (k = 0; k < CONV_N; k++)
        if (!(o->qc[k] = sipd_malloc(LOG_SOLVES * sizeof(double)))) {
            free_handle(o);
            return NULL;
        }
    for (k = 0; k < HIST_N; k++)
        if (!(o->qh[k] = sipd_malloc(LOG_ROWS * sizeof(double)))) {
            free_handle(o);
            return NULL;
        }
    return o;
}

/* File access from the HDF5 1.8 format (superblock v2, see the design note above) up to 1.10
 * objects, which only the XDMF's frame views (virtual datasets) use; -1 on failure. */
static hid_t v18_fapl(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5AC_cache_config_t mdc;
    mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V110) < 0 ||
        /* bounded caches (memory must not grow with the run, issue 31): every series is only
           appended to, so a chunk cache of two history chunks per dataset is all it uses (a
           frame's chunk is larger and is written past it), and the metadata cache is held at
           MDC_MAX bytes instead of growing adaptively to 32 MB.  MDC_MAX is small because the
           cache counts an entry's size on disk, not in memory: the chunk indexes' B-tree nodes
           (~1.5 KB on disk, ~17 KB in memory) then grew the heap by 1.5 MB per 100 MB of log
           with a 4 MB cap (heaptrack; a sipd-run log grows ~3 MB/s on a small model), and
           not at all with 256 KB: appending touches only the rightmost path of each index */
        H5Pset_cache(fapl, 0, 521, CHUNK_CACHE, 0.75) < 0 || H5Pget_mdc_config(fapl, &mdc) < 0 ||
        (mdc.max_size = MDC_MAX, mdc.min_size = MDC_MAX / 4, mdc.initial_size = MDC_MAX / 2,
         H5Pset_mdc_config(fapl, &mdc) < 0)) {
        h5fail(path, "cannot set up HDF5 file access");
        if (fapl >= 0)
            H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* The end of create/open: flush, write the XDMF, hand the handle out. */
static int finish_open(sipd_h5out *o, sipd_h5out **out)
{
    if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) {
        h5fail(o->path, "cannot flush output file");
        return SIPD_EFAIL;
    }
    mark_end(o);
    o->t_write = sipd_now();
    if (o->xdmf_path && write_xdmf(o) != SIPD_OK)
        return SIPD_EFAIL;
    *out = o;
    return SIPD_OK;
}

int h5out_create(sipd_h5out **out, const char *path, const sipd_h5_meta *meta,
                 const sipd_h5_mesh *mesh, int compression, int xdmf)
{
    sipd_h5out *o;
    hid_t fapl;
    char *dir;
    int k;

    *out = NULL;
    /* HDF5 1.10 frees a file whose H5Fclose failed (disk full) but keeps its id, and its exit
     * handler then crashes on that id (HDFGroup/hdf5#2257, fixed in 1.14).  Not registering
     * the handler avoids the crash; it only takes effect when this is the process's first
     * HDF5 call (as in sipd-run) and is a harmless no-op otherwise.  h5out always closes its
     * own files, and every frame is flushed, so nothing relies on the handler. */
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!path || !path[0] || !mesh || mesh->nv <= 0 || mesh->nt < 0 || mesh->nf < 0 ||
        !mesh->rest || (mesh->nt > 0 && !mesh->tets) || (mesh->nf > 0 && !mesh->tris) ||
        !mesh->body) {
        sipd_error_at(path, 0, "cannot create output file: empty or incomplete mesh");
        return SIPD_EFAIL;
    }
    if (compression < 0 || compression > 9) {
        sipd_error_at(path, 0, "compression level %d out of range 0..9", compression);
        return SIPD_EFAIL;
    }
    if (compression > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) {
        sipd_error_at(path, 0, "this HDF5 library has no deflate filter: writing uncompressed");
        compression = 0;
    }

    if (!(o = new_handle(path, mesh->nv, mesh->nt, xdmf)))
        return SIPD_EFAIL;
    o->ntri = mesh->ntri > 0 && mesh->triangles ? mesh->ntri : 0;
    o->ned = mesh->ned > 0 && mesh->edges ? mesh->ned : 0;
    o->compression = compression;

    if (!(dir = sipd_dirname(path)))
        goto fail;
    k = mkdir_p(dir);
    free(dir);
    if (k != SIPD_OK)
        goto fail;

    if ((fapl = v18_fapl(path)) < 0)
        goto fail;
    mark_begin(o);   /* (a marker a killed earlier run left is replaced with it) */
    o->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (o->file < 0) /* report before H5Pclose, which clears the error stack */
        h5fail(path, "cannot create output file");
    H5Pclose(fapl);
    if (o->file < 0)
        goto fail;
    if (create_layout(o, meta, mesh) == SIPD_OK && finish_open(o, out) == SIPD_OK)
        return SIPD_OK;
fail:
    mark_end(o);   /* a fresh file that could not be created: nothing to resume */
    free_handle(o);
    H5Eclear2(H5E_DEFAULT);
    return SIPD_EFAIL;
}

/* Shrink a dataset's first dimension to `keep` rows (it must have at least that many). */
static int shrink_to(hid_t d, const char *path, const char *name, hsize_t keep)
{
    hsize_t dims[3] = {0, 0, 0};
    hid_t sp = H5Dget_space(d);
    int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
    if (sp >= 0)
        H5Sclose(sp);
    if (rank < 1) {
        h5fail(path, "cannot read the shape of %s", name);
        return SIPD_EFAIL;
    }
    if (dims[0] < keep) {
        sipd_error_at(path, 0, "%s has %llu rows, the checkpoint expects at least %llu: the output file "
                      "does not belong to this checkpoint", name, (unsigned long long)dims[0],
                      (unsigned long long)keep);
        return SIPD_EINPUT;
    }
    dims[0] = keep;
    if (H5Dset_extent(d, dims) < 0) {
        h5fail(path, "cannot truncate %s", name);
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

static int frame_view(sipd_h5out *o, hsize_t n);
static int make_view(sipd_h5out *o, const char *name, const char *src, hsize_t n, hsize_t rows, hsize_t ncomp);

/* ---- resuming a torn file: rebuild it from the rows the checkpoint counts ------------------- */

/* Copy rows [0, keep) of dataset `name` (along its first dimension) from src to dst, creating it
 * in dst with src's type and creation properties (chunks, filters, fill value).  A dataset src
 * lacks is skipped (a file from before it existed: h5out_open_append adds it). */
static int copy_prefix(hid_t src, hid_t dst, const char *path, const char *name, hsize_t keep)
{
    hid_t ds, dd = -1, ft = -1, mt = -1, dcpl = -1, sp = -1, fs = -1, ms = -1;
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {0, 0, 0}, start[3] = {0, 0, 0}, count[3], r, blk;
    size_t rowbytes;
    char *buf = NULL;
    int rank, k, rc = SIPD_EFAIL;
    if (H5Lexists(src, name, H5P_DEFAULT) <= 0)
        return SIPD_OK;
    if ((ds = H5Dopen2(src, name, H5P_DEFAULT)) < 0 || (ft = H5Dget_type(ds)) < 0 ||
        (mt = H5Tget_native_type(ft, H5T_DIR_ASCEND)) < 0 || (dcpl = H5Dget_create_plist(ds)) < 0 ||
        (sp = H5Dget_space(ds)) < 0 || (rank = H5Sget_simple_extent_dims(sp, dims, maxd)) < 1 || rank > 3) {
        h5fail(path, "cannot read %s of the interrupted run", name);
        goto done;
    }
    if (dims[0] < keep) {
        sipd_error_at(path, 0, "%s has %llu rows, the checkpoint expects at least %llu: the output file does not "
                      "belong to this checkpoint", name, (unsigned long long)dims[0], (unsigned long long)keep);
        rc = SIPD_EINPUT;
        goto done;
    }
    H5Sclose(sp);
    dims[0] = keep;
    if ((sp = H5Screate_simple(rank, dims, maxd)) < 0 ||
        (dd = H5Dcreate2(dst, name, ft, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0) {
        h5fail(path, "cannot create %s in the rebuilt output", name);
        goto done;
    }
    rowbytes = H5Tget_size(mt);
    for (k = 1; k < rank; k++)
        rowbytes *= (size_t)dims[k];
    blk = rowbytes >= (4u << 20) ? 1 : (4u << 20) / (rowbytes ? rowbytes : 1);
    if (!(buf = sipd_malloc((size_t)(blk < keep ? blk : keep ? keep : 1) * rowbytes + 1)))
        goto done;
    for (r = 0; r < keep; r += blk) {
        for (k = 0; k < rank; k++) {
            start[k] = k ? 0 : r;
            count[k] = k ? dims[k] : (keep - r < blk ? keep - r : blk);
        }
        if ((fs = H5Dget_space(ds)) < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            (ms = H5Screate_simple(rank, count, NULL)) < 0 || H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0) {
            h5fail(path, "cannot read rows %llu.. of %s of the interrupted run", (unsigned long long)r, name);
            goto done;
        }
        H5Sclose(fs);
        if ((fs = H5Dget_space(dd)) < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dwrite(dd, mt, ms, fs, H5P_DEFAULT, buf) < 0) {
            h5fail(path, "cannot write %s of the rebuilt output", name);
            goto done;
        }
        H5Sclose(fs);
        H5Sclose(ms);
        fs = ms = -1;
    }
    rc = SIPD_OK;
done:
    free(buf);
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (sp >= 0)
        H5Sclose(sp);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (mt >= 0)
        H5Tclose(mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (dd >= 0)
        H5Dclose(dd);
    if (ds >= 0)
        H5Dclose(ds);
    return rc;
}

/* H5Aiterate2 callback: copy root attribute `name` to the file *(hid_t *)dst. */
static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *info, void *dst)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = -1, sp = -1, na = -1;
    herr_t r = -1;
    char *buf = NULL;
    (void)info;
    if (a >= 0 && (t = H5Aget_type(a)) >= 0 && (sp = H5Aget_space(a)) >= 0 && !H5Tis_variable_str(t) &&
        (buf = sipd_malloc(H5Tget_size(t) * (size_t)H5Sget_simple_extent_npoints(sp) + 1)) &&
        H5Aread(a, t, buf) >= 0 && (na = H5Acreate2(*(hid_t *)dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
        H5Awrite(na, t, buf) >= 0)
        r = 0;
    free(buf);
    if (na >= 0)
        H5Aclose(na);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return r;
}

/* Copy the first keep frames of every output field (/frames/fields/<name> and
 * /frames/fields/<name>/<kind>, h5out_add_fields) from src to dst; none: nothing to do. */
static int copy_fields_prefix(hid_t src, hid_t dst, const char *path, hsize_t keep)
{
    static const char *const root = "/frames/fields";
    char name[512], sub[800];
    H5G_info_t gi, si;
    hid_t g, sg;
    hsize_t i, j;
    int rc = SIPD_OK;
    if (H5Lexists(src, root, H5P_DEFAULT) <= 0)
        return SIPD_OK;
    if ((g = H5Gcreate2(dst, root, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        h5fail(path, "cannot create %s in the rebuilt output", root);
        return SIPD_EFAIL;
    }
    H5Gclose(g);
    if (H5Gget_info_by_name(src, root, &gi, H5P_DEFAULT) < 0)
        return SIPD_EFAIL;
    for (i = 0; i < gi.nlinks && rc == SIPD_OK; i++) {
        char leaf[256];
        hid_t obj;
        H5I_type_t type;
        if (H5Lget_name_by_idx(src, root, H5_INDEX_NAME, H5_ITER_INC, i, leaf, sizeof leaf, H5P_DEFAULT) < 0)
            return SIPD_EFAIL;
        snprintf(name, sizeof name, "%s/%s", root, leaf);
        if ((obj = H5Oopen(src, name, H5P_DEFAULT)) < 0)
            return SIPD_EFAIL;
        type = H5Iget_type(obj);
        H5Oclose(obj);
        if (type == H5I_DATASET) {   /* a per-vertex field */
            rc = copy_prefix(src, dst, path, name, keep);
            continue;
        }
        if ((sg = H5Gcreate2(dst, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
            H5Gget_info_by_name(src, name, &si, H5P_DEFAULT) < 0)
            return SIPD_EFAIL;
        H5Gclose(sg);
        for (j = 0; j < si.nlinks && rc == SIPD_OK; j++) {   /* a per-element field: one per kind */
            if (H5Lget_name_by_idx(src, name, H5_INDEX_NAME, H5_ITER_INC, j, leaf, sizeof leaf, H5P_DEFAULT) < 0)
                return SIPD_EFAIL;
            snprintf(sub, sizeof sub, "%s/%s", name, leaf);
            rc = copy_prefix(src, dst, path, sub, keep);
        }
    }
    return rc;
}

/* The output a run killed inside a write batch left (PATH.writing exists: the file may be torn,
 * see the design note at the top): a new file with its root attributes, /mesh and the first
 * keep rows of every series (output fields included), read from the killed file, replaces it
 * (temp + rename); then the marker goes.  The frame views /xdmf/frames/N are added back by h5out_open_append. */
static int rebuild_output(const char *path, const char *mark, hsize_t kf, hsize_t ks, hsize_t kh)
{
    static const char *const groups[3] = {"/frames", "/convergence", "/convergence/history"};
    static const char *const fseries[4] = {"/frames/positions", "/frames/time", "/frames/convergence_rows",
                                           "/frames/history_rows"};
    size_t n = strlen(path) + 16;
    char *tmp = sipd_malloc(n), name[128];
    hid_t fapl = -1, src = -1, dst = -1, g;
    int k, rc = SIPD_EFAIL;
    if (!tmp)
        return SIPD_EFAIL;
    snprintf(tmp, n, "%s.rebuild", path);
    sipd_info("%s: the previous run was killed while writing the output (%s exists), which may have left it "
              "torn: rebuilding it from the checkpoint's %llu frames, %llu solve rows and %llu history rows",
              path, mark, (unsigned long long)kf, (unsigned long long)ks, (unsigned long long)kh);
    if ((fapl = v18_fapl(path)) < 0)
        goto done;
    if ((src = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) {
        h5fail(path, "the output file, torn by a kill inside a write, does not open: it cannot be continued (remove "
                     "it and its .ckpt to start again)");
        goto done;
    }
    if ((dst = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0) {
        h5fail(tmp, "cannot create the rebuilt output file");
        goto done;
    }
    if (H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, copy_attr, &dst) < 0 ||
        H5Ocopy(src, "/mesh", dst, "/mesh", H5P_DEFAULT, H5P_DEFAULT) < 0) {
        h5fail(path, "cannot copy the root attributes and /mesh of the interrupted run");
        goto done;
    }
    for (k = 0; k < 3; k++) {
        if ((g = H5Gcreate2(dst, groups[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
            h5fail(tmp, "cannot create %s", groups[k]);
            goto done;
        }
        H5Gclose(g);
    }
    for (k = 0; k < 4; k++)
        if ((rc = copy_prefix(src, dst, path, fseries[k], kf)) != SIPD_OK)
            goto done;
    if ((rc = copy_fields_prefix(src, dst, path, kf)) != SIPD_OK)
        goto done;
    for (k = 0; k < CONV_N; k++) {
        snprintf(name, sizeof name, "/convergence/%s", conv_names[k]);
        if ((rc = copy_prefix(src, dst, path, name, ks)) != SIPD_OK)
            goto done;
    }
    for (k = 0; k <= HIST_N; k++) {
        snprintf(name, sizeof name, "/convergence/history/%s", k < HIST_N ? hist_names[k] : "iteration");
        if ((rc = copy_prefix(src, dst, path, name, kh)) != SIPD_OK)
            goto done;
    }
    rc = SIPD_EFAIL;
    if (H5Fclose(dst) < 0) {
        dst = -1;
        h5fail(tmp, "cannot close the rebuilt output file");
        goto done;
    }
    dst = -1;
    H5Fclose(src);
    src = -1;
    if (rename(tmp, path) != 0) {
        sipd_error_at(path, 0, "cannot replace the output file by its rebuilt copy: %s", strerror(errno));
        goto done;
    }
    unlink(mark);
    rc = SIPD_OK;
done:
    if (dst >= 0)
        H5Fclose(dst);
    if (src >= 0)
        H5Fclose(src);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (rc != SIPD_OK)
        unlink(tmp);
    free(tmp);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* Open series `name` of group `grp` in a file to resume, or add it when the file predates it:
 * an integer series created with fill -1 over `rows` rows (unknown for the rows before). */
static hid_t open_or_add(sipd_h5out *o, const char *grp, const char *name, hid_t ftype, hsize_t chunk, hsize_t rows)
{
    char full[128];
    hid_t g, d;
    snprintf(full, sizeof full, "%s/%s", grp, name);
    if (H5Lexists(o->file, full, H5P_DEFAULT) > 0)
        return H5Dopen2(o->file, full, H5P_DEFAULT);
    if ((g = H5Gopen2(o->file, grp, H5P_DEFAULT)) < 0)
        return -1;
    d = create_series_fill(g, o->path, grp, name, ftype, chunk, 0, 1);
    H5Gclose(g);
    if (d >= 0 && H5Dset_extent(d, &rows) < 0) {
        H5Dclose(d);
        return -1;
    }
    return d;
}

int h5out_open_append(sipd_h5out **out, const char *path, int nv, int nt, int xdmf, long keep_frames,
                      long keep_solves, long keep_hist)
{
    sipd_h5out *o;
    hid_t fapl;
    hsize_t dims[3];
    char name[128];
    int k, rc = SIPD_EFAIL;

    *out = NULL;
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!(o = new_handle(path, nv, nt, xdmf)))
        return SIPD_EFAIL;
    if (access(o->mark_path, F_OK) == 0 &&   /* killed inside a write: never continue it in place */
        (rc = rebuild_output(path, o->mark_path, (hsize_t)keep_frames, (hsize_t)keep_solves, (hsize_t)keep_hist)) !=
            SIPD_OK)
        goto fail;
    rc = SIPD_EFAIL;
    if ((fapl = v18_fapl(path)) < 0)
        goto fail;
    o->file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (o->file < 0)
        h5fail(path, "cannot open the output file to resume it");
    H5Pclose(fapl);
    if (o->file < 0)
        goto fail;
    if ((o->pos = H5Dopen2(o->file, "/frames/positions", H5P_DEFAULT)) < 0 ||
        (o->time = H5Dopen2(o->file, "/frames/time", H5P_DEFAULT)) < 0) {
        h5fail(path, "not a sipd-run output file (no /frames)");
        rc = SIPD_EINPUT;
        goto fail;
    }
    for (k = 0; k < 2; k++) {   /* the other kinds' element counts, for the XDMF grids */
        const char *dn = k ? "/mesh/edges" : "/mesh/triangles";
        if (H5Lexists(o->file, "/mesh", H5P_DEFAULT) > 0 && H5Lexists(o->file, dn, H5P_DEFAULT) > 0) {
            hid_t d = H5Dopen2(o->file, dn, H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
            hsize_t ed[2] = {0, 0};
            if (sp >= 0 && H5Sget_simple_extent_dims(sp, ed, NULL) == 2)
                *(k ? &o->ned : &o->ntri) = (int)ed[0];
            if (sp >= 0)
                H5Sclose(sp);
            if (d >= 0)
                H5Dclose(d);
        }
    }
    for (k = 0; k < CONV_N; k++) {
        snprintf(name, sizeof name, "/convergence/%s", conv_names[k]);
        if ((o->conv[k] = H5Dopen2(o->file, name, H5P_DEFAULT)) < 0) {
            h5fail(path, "missing %s", name);
            rc = SIPD_EINPUT;
            goto fail;
        }
    }
    for (k = 0; k < HIST_N; k++) {
        snprintf(name, sizeof name, "/convergence/history/%s", hist_names[k]);
        if ((o->hist[k] = H5Dopen2(o->file, name, H5P_DEFAULT)) < 0) {
            h5fail(path, "missing %s", name);
            rc = SIPD_EINPUT;
            goto fail;
        }
    }
    {   /* the mesh must be the checkpoint's */
        hid_t sp = H5Dget_space(o->pos);
        int ok = sp >= 0 && H5Sget_simple_extent_dims(sp, dims, NULL) == 3 && dims[1] == (hsize_t)nv;
        if (sp >= 0)
            H5Sclose(sp);
        if (!ok) {
            sipd_error_at(path, 0, "/frames/positions does not have %d vertices: not this scene's output", nv);
            rc = SIPD_EINPUT;
            goto fail;
        }
    }
    o->appending = 1;
    mark_begin(o);   /* the file changes from here on */
    if ((o->frows = open_or_add(o, "/frames", "convergence_rows", H5T_STD_I64LE, CONV_CHUNK, (hsize_t)keep_frames)) < 0 ||
        (o->fhrows = open_or_add(o, "/frames", "history_rows", H5T_STD_I64LE, CONV_CHUNK, (hsize_t)keep_frames)) < 0 ||
        (o->hiter = open_or_add(o, "/convergence/history", "iteration", H5T_STD_I32LE, HIST_CHUNK, (hsize_t)keep_hist)) <
            0) {
        h5fail(path, "cannot open or add /frames/convergence_rows, /frames/history_rows, /convergence/history/iteration");
        goto fail;
    }
    if ((rc = shrink_to(o->pos, path, "/frames/positions", (hsize_t)keep_frames)) != SIPD_OK ||
        (rc = shrink_to(o->time, path, "/frames/time", (hsize_t)keep_frames)) != SIPD_OK ||
        (rc = shrink_to(o->frows, path, "/frames/convergence_rows", (hsize_t)keep_frames)) != SIPD_OK ||
        (rc = shrink_to(o->fhrows, path, "/frames/history_rows", (hsize_t)keep_frames)) != SIPD_OK ||
        (rc = shrink_to(o->hiter, path, "/convergence/history/iteration", (hsize_t)keep_hist)) != SIPD_OK)
        goto fail;
    for (k = 0; k < CONV_N; k++)
        if ((rc = shrink_to(o->conv[k], path, conv_names[k], (hsize_t)keep_solves)) != SIPD_OK)
            goto fail;
    for (k = 0; k < HIST_N; k++)
        if ((rc = shrink_to(o->hist[k], path, hist_names[k], (hsize_t)keep_hist)) != SIPD_OK)
            goto fail;
    rc = SIPD_EFAIL;
    o->nframes = (hsize_t)keep_frames;
    o->nsolves = (hsize_t)keep_solves;
    o->nhist = (hsize_t)keep_hist;
    if (xdmf) {   /* the kept frames' times, for the XDMF */
        o->times_cap = keep_frames > 64 ? (size_t)keep_frames : 64;
        if (!(o->times = sipd_malloc(o->times_cap * sizeof(double))))
            goto fail;
        if (keep_frames > 0 && H5Dread(o->time, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, o->times) < 0) {
            h5fail(path, "cannot read /frames/time");
            goto fail;
        }
        for (k = 0; k < keep_frames; k++)   /* a file from before the frame views gets them */
            if (frame_view(o, (hsize_t)k) != SIPD_OK)
                goto fail;
    }
    if (finish_open(o, out) == SIPD_OK)
        return SIPD_OK;
fail:
    free_handle(o);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

void h5out_counts(const sipd_h5out *o, long *frames, long *solves, long *hist)
{
    *frames = (long)o->nframes;
    *solves = (long)o->nsolves;
    *hist = (long)o->nhist;
}

/* /xdmf/frames/N: a virtual dataset (nv × 3, float32) that maps onto frame N of
 * /frames/positions — no copy of the data, one small object per frame.  The XDMF sidecar
 * points every frame's geometry at it as a plain HDF item, the form that ParaView's Xdmf3
 * readers and meshio read (docs/output.md; they do not read the HyperSlab form).
 * An existing one (a resumed run writing the frame again) already maps the same slot. */
static int frame_view(sipd_h5out *o, hsize_t n)
{
    char name[48];
    snprintf(name, sizeof name, "/xdmf/frames/%llu", (unsigned long long)n);
    return make_view(o, name, "/frames/positions", n, (hsize_t)o->nv, 3);
}

/* A virtual dataset `name` (rows x ncomp, float32) mapping slot n of the frames x rows x ncomp
 * dataset `src`; its groups are created as needed; an existing one is kept.  With cols, the view
 * has nview columns instead, column j being the source's column cols[j] (a symmetric tensor's 6
 * stored components shown as the full 3x3: see field_views). */
static int make_view_cols(sipd_h5out *o, const char *name, const char *src, hsize_t n, hsize_t rows, hsize_t ncomp,
                          const int *cols, int nview)
{
    hsize_t vdims[2] = {rows, cols ? (hsize_t)nview : ncomp}, sdims[3] = {n + 1, rows, ncomp};
    hsize_t start[3] = {n, 0, 0}, count[3] = {1, rows, ncomp};
    hid_t vs = -1, ss = -1, dcpl = -1, lcpl = -1, d = -1;
    int rc = SIPD_EFAIL, ok = 1, j;
    htri_t ex = H5Lexists(o->file, "/xdmf", H5P_DEFAULT);
    if (ex > 0) {   /* H5Lexists fails on a path whose groups are missing: walk it */
        const char *p = name + 1;
        char part[512];
        while (ex > 0 && (p = strchr(p, '/')) != NULL) {
            snprintf(part, sizeof part, "%.*s", (int)(p - name), name);
            ex = H5Lexists(o->file, part, H5P_DEFAULT);
            p++;
        }
        if (ex > 0 && H5Lexists(o->file, name, H5P_DEFAULT) > 0)
            return SIPD_OK;
    }
    H5Eclear2(H5E_DEFAULT);
    if ((vs = H5Screate_simple(2, vdims, NULL)) >= 0 && (ss = H5Screate_simple(3, sdims, NULL)) >= 0 &&
        (dcpl = H5Pcreate(H5P_DATASET_CREATE)) >= 0) {
        if (!cols) {
            ok = H5Sselect_hyperslab(ss, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                 H5Pset_virtual(dcpl, vs, ".", src, ss) >= 0;
        } else {
            for (j = 0; j < nview && ok; j++) {   /* one mapping per view column */
                hsize_t vst[2] = {0, (hsize_t)j}, vcnt[2] = {rows, 1};
                hsize_t sst[3] = {n, 0, (hsize_t)cols[j]}, scnt[3] = {1, rows, 1};
                ok = H5Sselect_hyperslab(vs, H5S_SELECT_SET, vst, NULL, vcnt, NULL) >= 0 &&
                     H5Sselect_hyperslab(ss, H5S_SELECT_SET, sst, NULL, scnt, NULL) >= 0 &&
                     H5Pset_virtual(dcpl, vs, ".", src, ss) >= 0;
            }
            if (ok)
                ok = H5Sselect_all(vs) >= 0;
        }
    } else
        ok = 0;
    if (ok && (lcpl = H5Pcreate(H5P_LINK_CREATE)) >= 0 && H5Pset_create_intermediate_group(lcpl, 1) >= 0 &&
        (d = H5Dcreate2(o->file, name, H5T_IEEE_F32LE, vs, lcpl, dcpl, H5P_DEFAULT)) >= 0)
        rc = SIPD_OK;
    else
        h5fail(o->path, "cannot create the frame view %s", name);
    if (d >= 0)
        H5Dclose(d);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ss >= 0)
        H5Sclose(ss);
    if (vs >= 0)
        H5Sclose(vs);
    return rc;
}

/* Write the queued log rows (no flush; the caller's batch flushes).  On failure every series is
 * rolled back to its previous length (best effort) and the queue is kept. */
static int write_queue(sipd_h5out *o)
{
    hsize_t ns = (hsize_t)o->qsolves, nh = (hsize_t)o->qrows;
    int k, ok = 1;
    if (ns == 0 && nh == 0)
        return SIPD_OK;
    mark_begin(o);
    for (k = 0; k < CONV_N && ok; k++)
        if (append_1d(o->conv[k], o->nsolves, ns, H5T_NATIVE_DOUBLE, o->qc[k]) != SIPD_OK) {
            h5fail(o->path, "cannot append %llu rows to /convergence/%s", (unsigned long long)ns, conv_names[k]);
            ok = 0;
        }
    for (k = 0; k < HIST_N && ok; k++)
        if (append_1d(o->hist[k], o->nhist, nh, H5T_NATIVE_DOUBLE, o->qh[k]) != SIPD_OK) {
            h5fail(o->path, "cannot append %llu values to /convergence/history/%s", (unsigned long long)nh,
                   hist_names[k]);
            ok = 0;
        }
    if (ok && append_1d(o->hiter, o->nhist, nh, H5T_NATIVE_INT32, o->qit) != SIPD_OK) {
        h5fail(o->path, "cannot append %llu values to /convergence/history/iteration", (unsigned long long)nh);
        ok = 0;
    }
    if (!ok) {
        hsize_t s = o->nsolves, h = o->nhist;
        for (k = 0; k < CONV_N; k++)
            H5Dset_extent(o->conv[k], &s);
        for (k = 0; k < HIST_N; k++)
            H5Dset_extent(o->hist[k], &h);
        H5Dset_extent(o->hiter, &h);
        H5Eclear2(H5E_DEFAULT);
        return SIPD_EFAIL;
    }
    o->nsolves += ns;
    o->nhist += nh;
    o->qsolves = o->qrows = 0;
    return SIPD_OK;
}

/* The end of a write batch: flush, then the marker goes. */
static int end_batch(sipd_h5out *o, const char *what)
{
    if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) {
        h5fail(o->path, "cannot flush %s", what);
        return SIPD_EFAIL;
    }
    mark_end(o);
    o->t_write = sipd_now();
    return SIPD_OK;
}

static int make_view(sipd_h5out *o, const char *name, const char *src, hsize_t n, hsize_t rows, hsize_t ncomp)
{
    return make_view_cols(o, name, src, n, rows, ncomp, NULL, 0);
}

/* A 6-component field (a symmetric tensor, stored xx, yy, zz, xy, yz, xz) is shown to the XDMF
 * readers as the full row-major 3x3 (AttributeType "Tensor"): "Tensor6" is read in XDMF's order
 * (xx, xy, xz, yy, yz, zz) by ParaView's legacy XDMFReader but passed through in VTK's order by
 * its Xdmf3 readers, so no one order of 6 reads right in all three; 9 components do. */
static const int sym_cols[9] = {0, 3, 5, 3, 1, 4, 5, 4, 2};

/* Frame n's views of every field (the XDMF's attributes). */
static int field_views(sipd_h5out *o, hsize_t n)
{
    const int ne[3] = {o->nt, o->ntri, o->ned};
    char name[512], src[512];
    int f, k;
    for (f = 0; f < o->nfields; f++) {
        const struct h5field *F = &o->fields[f];
        for (k = 0; k < (F->per_element ? 3 : 1); k++) {
            if (F->d[k] < 0)
                continue;
            if (F->per_element) {
                snprintf(name, sizeof name, "/xdmf/fields/%s/%s/%llu", F->name, kind_name[k], (unsigned long long)n);
                snprintf(src, sizeof src, "/frames/fields/%s/%s", F->name, kind_name[k]);
            } else {
                snprintf(name, sizeof name, "/xdmf/fields/%s/%llu", F->name, (unsigned long long)n);
                snprintf(src, sizeof src, "/frames/fields/%s", F->name);
            }
            if (make_view_cols(o, name, src, n, (hsize_t)(F->per_element ? ne[k] : o->nv), (hsize_t)F->ncomp,
                               F->ncomp == 6 ? sym_cols : NULL, 9) != SIPD_OK)
                return SIPD_EFAIL;
        }
    }
    return SIPD_OK;
}

/* An empty frames x rows x ncomp float32 dataset, one frame per chunk (split along the rows past
 * FRAME_CHUNK_MAX), shuffle + deflate at level lvl (0: none): the layout of /frames/positions.
 * Missing groups on its path are created. */
static hid_t create_frame_series(hid_t loc, const char *path, const char *name, hsize_t rows, hsize_t ncomp,
                                 int lvl)
{
    hsize_t dims[3] = {0, rows, ncomp}, maxd[3] = {H5S_UNLIMITED, rows, ncomp}, chunk[3] = {1, rows, ncomp};
    hsize_t maxv = FRAME_CHUNK_MAX / (ncomp * sizeof(float));
    hid_t space = -1, dcpl = -1, lcpl = -1, d = -1;
    if (chunk[1] > maxv)
        chunk[1] = maxv;
    if ((space = H5Screate_simple(3, dims, maxd)) >= 0 && (dcpl = make_dcpl(3, chunk, lvl)) >= 0 &&
        (lcpl = H5Pcreate(H5P_LINK_CREATE)) >= 0 && H5Pset_create_intermediate_group(lcpl, 1) >= 0)
        d = H5Dcreate2(loc, name, H5T_IEEE_F32LE, space, lcpl, dcpl, H5P_DEFAULT);
    if (d < 0)
        h5fail(path, "cannot create %s", name);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return d;
}

/* --resume: field dataset dn of the file, rows x ncomp per frame, cut to the kept frames. */
static int reopen_field(sipd_h5out *o, const char *dn, hsize_t rows, int ncomp, hid_t *d)
{
    hsize_t dims[3] = {0, 0, 0};
    hid_t sp = -1;
    int ok = 0;
    if (H5Lexists(o->file, "/frames/fields", H5P_DEFAULT) > 0 && (*d = H5Dopen2(o->file, dn, H5P_DEFAULT)) >= 0 &&
        (sp = H5Dget_space(*d)) >= 0)
        ok = H5Sget_simple_extent_dims(sp, dims, NULL) == 3 && dims[1] == rows && dims[2] == (hsize_t)ncomp;
    if (sp >= 0)
        H5Sclose(sp);
    H5Eclear2(H5E_DEFAULT);
    if (!ok) {
        sipd_error_at(o->path, 0, "%s: missing or of another shape: the output file was not written with these "
                      "output.fields", dn);
        return SIPD_EINPUT;
    }
    return shrink_to(*d, o->path, dn, o->nframes);
}

int h5out_add_fields(sipd_h5out *o, int n, const sipd_h5_field *spec)
{
    const int ne[3] = {o->nt, o->ntri, o->ned};
    char dn[512];
    hsize_t rows_max = (hsize_t)o->nv, k;
    int f, j, rc;
    if (o->nfields > 0 || n <= 0 || (!o->appending && o->nframes > 0)) {
        sipd_error_at(o->path, 0, "add_fields: %s",
                      n <= 0 ? "no fields" : "fields are added once, before the first frame");
        return SIPD_EFAIL;
    }
    if (!(o->fields = sipd_calloc((size_t)n, sizeof *o->fields)))
        return SIPD_EFAIL;
    mark_begin(o);   /* the file changes from here on (end_batch below) */
    for (f = 0; f < n; f++) {
        struct h5field *F = &o->fields[f];
        F->d[0] = F->d[1] = F->d[2] = -1;
        o->nfields = f + 1;
        /* names go into HDF5 paths and XML unescaped: keep them plain */
        if (!spec[f].name || !spec[f].name[0] || strpbrk(spec[f].name, "/<>&\"' ") ||
            (spec[f].ncomp != 1 && spec[f].ncomp != 3 && spec[f].ncomp != 6)) {
            sipd_error_at(o->path, 0, "add_fields: bad field %d", f);
            return SIPD_EFAIL;
        }
        if (!(F->name = dupstr(spec[f].name)))
            return SIPD_EFAIL;
        F->ncomp = spec[f].ncomp;
        F->per_element = spec[f].per_element != 0;
        for (j = 0; j < (F->per_element ? 3 : 1); j++) {
            hsize_t rows = F->per_element ? (hsize_t)ne[j] : (hsize_t)o->nv;
            if (rows == 0)
                continue;
            if (rows > rows_max)
                rows_max = rows;
            if (F->per_element)
                snprintf(dn, sizeof dn, "/frames/fields/%s/%s", F->name, kind_name[j]);
            else
                snprintf(dn, sizeof dn, "/frames/fields/%s", F->name);
            if (o->appending) {
                if ((rc = reopen_field(o, dn, rows, F->ncomp, &F->d[j])) != SIPD_OK)
                    return rc;
            } else if ((F->d[j] = create_frame_series(o->file, o->path, dn, rows, (hsize_t)F->ncomp,
                                                      o->compression)) < 0) {
                return SIPD_EFAIL;
            }
        }
    }
    o->fbuf2_n = (size_t)rows_max * 6;
    if (!(o->fbuf2 = sipd_malloc(o->fbuf2_n * sizeof(float))))
        return SIPD_EFAIL;
    if (o->xdmf_path) {
        for (k = 0; k < o->nframes; k++)   /* the kept frames of a resumed run */
            if (field_views(o, k) != SIPD_OK)
                return SIPD_EFAIL;
        if (write_xdmf(o) != SIPD_OK)
            return SIPD_EFAIL;
    }
    return end_batch(o, "after adding the fields");
}

/* Write rows x ncomp floats as frame n of the frame-major dataset d (extended to n + 1 frames). */
static int write_frame_row(hid_t d, hsize_t n, hsize_t rows, hsize_t ncomp, const float *buf)
{
    hsize_t dims[3] = {n + 1, rows, ncomp}, start[3] = {n, 0, 0}, count[3] = {1, rows, ncomp};
    hid_t fs = -1, ms = -1;
    int rc = SIPD_EFAIL;
    if (H5Dset_extent(d, dims) >= 0 && (fs = H5Dget_space(d)) >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
        (ms = H5Screate_simple(3, count, NULL)) >= 0 && H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf) >= 0)
        rc = SIPD_OK;
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc;
}

/* Frame n of every field from vals (h5out.h); on failure the caller shrinks them back. */
static int write_fields(sipd_h5out *o, hsize_t n, const double *const *vals)
{
    const int ne[3] = {o->nt, o->ntri, o->ned};
    int f, j;
    for (f = 0; f < o->nfields; f++) {
        const struct h5field *F = &o->fields[f];
        size_t off = 0, i;
        if (!vals || !vals[f]) {
            sipd_error_at(o->path, 0, "frame %llu: no values for the field %s", (unsigned long long)n, F->name);
            return SIPD_EFAIL;
        }
        for (j = 0; j < (F->per_element ? 3 : 1); j++) {
            size_t rows = F->per_element ? (size_t)ne[j] : (size_t)o->nv, cnt = rows * (size_t)F->ncomp;
            if (rows == 0)
                continue;
            for (i = 0; i < cnt; i++)
                o->fbuf2[i] = (float)vals[f][off + i];
            off += cnt;
            if (write_frame_row(F->d[j], n, (hsize_t)rows, (hsize_t)F->ncomp, o->fbuf2) != SIPD_OK) {
                h5fail(o->path, "cannot write frame %llu of the field %s%s%s", (unsigned long long)n, F->name,
                       F->per_element ? "/" : "", F->per_element ? kind_name[j] : "");
                return SIPD_EFAIL;
            }
        }
    }
    return SIPD_OK;
}

/* Shrink every field back to n frames (a frame that could not be written). */
static void shrink_fields(sipd_h5out *o, hsize_t n)
{
    int f, j;
    for (f = 0; f < o->nfields; f++)
        for (j = 0; j < 3; j++)
            if (o->fields[f].d[j] >= 0) {
                hsize_t dims[3] = {n, 0, 0};
                hid_t sp = H5Dget_space(o->fields[f].d[j]);
                if (sp >= 0 && H5Sget_simple_extent_dims(sp, dims, NULL) == 3) {
                    dims[0] = n;
                    H5Dset_extent(o->fields[f].d[j], dims);
                }
                if (sp >= 0)
                    H5Sclose(sp);
            }
}

int h5out_append_frame(sipd_h5out *o, double time, const double *x)
{
    return h5out_append_frame_fields(o, time, x, NULL);
}

int h5out_append_frame_fields(sipd_h5out *o, double time, const double *x, const double *const *vals)
{
    hsize_t n = o->nframes, dims[3] = {n + 1, (hsize_t)o->nv, 3};
    hsize_t start[3] = {n, 0, 0}, count[3] = {1, (hsize_t)o->nv, 3};
    size_t i, nx = (size_t)o->nv * 3;
    hid_t fs = -1, ms = -1;
    int64_t rows[2];
    int rc = SIPD_EFAIL;

    if (o->xdmf_path && n >= o->times_cap) {
        size_t nc = o->times_cap ? 2 * o->times_cap : 64;
        double *nt = realloc(o->times, nc * sizeof *nt);
        if (!nt) {
            sipd_error_at(o->path, 0, "out of memory appending frame %llu",
                          (unsigned long long)n);
            return SIPD_EFAIL;
        }
        o->times = nt;
        o->times_cap = nc;
    }
    for (i = 0; i < nx; i++)
        o->fbuf[i] = (float)x[i];

    mark_begin(o);
    if (write_queue(o) != SIPD_OK)   /* the frame's remaining log rows, in the same batch */
        return SIPD_EFAIL;
    if (H5Dset_extent(o->pos, dims) < 0) {
        h5fail(o->path, "cannot extend /frames/positions to %llu frames",
               (unsigned long long)(n + 1));
        return SIPD_EFAIL;
    }
    if ((fs = H5Dget_space(o->pos)) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        (ms = H5Screate_simple(3, count, NULL)) < 0 ||
        H5Dwrite(o->pos, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, o->fbuf) < 0) {
        h5fail(o->path, "cannot write frame %llu to /frames/positions", (unsigned long long)n);
        goto done;
    }
    if (o->nfields > 0 && write_fields(o, n, vals) != SIPD_OK)
        goto done;
    rows[0] = (int64_t)o->nsolves;
    rows[1] = (int64_t)o->nhist;
    if (append_1d(o->time, n, 1, H5T_NATIVE_DOUBLE, &time) != SIPD_OK ||
        append_1d(o->frows, n, 1, H5T_NATIVE_INT64, &rows[0]) != SIPD_OK ||
        append_1d(o->fhrows, n, 1, H5T_NATIVE_INT64, &rows[1]) != SIPD_OK) {
        h5fail(o->path, "cannot append frame %llu to /frames/time, convergence_rows, history_rows",
               (unsigned long long)n);
        goto done;
    }
    if (o->xdmf_path && (frame_view(o, n) != SIPD_OK || field_views(o, n) != SIPD_OK))
        goto done;
    if (end_batch(o, "after a frame") != SIPD_OK) {
        /* the frame is in the datasets; count it so the XDMF and file stay consistent */
        o->nframes = n + 1;
        if (o->times)
            o->times[n] = time;
        goto done;
    }
    o->nframes = n + 1;
    if (o->times)
        o->times[n] = time;
    rc = SIPD_OK;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (o->nframes == n) { /* frame not written: shrink back so /frames stays aligned */
        dims[0] = n;
        H5Dset_extent(o->pos, dims);
        shrink_fields(o, n);
        H5Dset_extent(o->time, &n);
        H5Dset_extent(o->frows, &n);
        H5Dset_extent(o->fhrows, &n);
    }
    H5Eclear2(H5E_DEFAULT);
    if (rc == SIPD_OK && o->xdmf_path)
        rc = write_xdmf(o);
    return rc;
}

void h5out_set_history(sipd_h5out *o, int every)
{
    o->history_every = every < 0 ? 1 : every;
}

/* Write the queue as a batch of its own. */
static int write_log(sipd_h5out *o)
{
    if (o->qsolves == 0 && o->qrows == 0) {
        o->t_write = sipd_now();
        return SIPD_OK;
    }
    if (write_queue(o) != SIPD_OK)
        return SIPD_EFAIL;
    return end_batch(o, "the convergence log");
}

/* Queue one solve row and its kept history rows (output.history); the queue is written when it
 * is full, LOG_SECONDS after the last write, and with every frame (see the design note). */
int h5out_append_solve(sipd_h5out *o, const sipd_h5_solve *rec, int n, const sipd_h5_history *h)
{
    const double *src[HIST_N];
    int64_t hoff;
    int i, k, every = o->history_every;
    if (n < 0 || (n > 0 && !h->residual)) {
        sipd_error_at(o->path, 0, "append_solve: bad history (n = %d)", n);
        return SIPD_EFAIL;
    }
    src[HIST_RESIDUAL] = h->residual;
    src[HIST_ENERGY] = h->energy;
    src[HIST_ALPHA] = h->alpha;
    src[HIST_FORCE] = h->force;
    src[HIST_TIME] = h->wall_time;
    src[HIST_RDISP] = h->residual_displacement;
    hoff = (int64_t)(o->nhist + (hsize_t)o->qrows);
    for (i = 0; i < n && every > 0; i++) {
        if (every > 1 && i % every != 0 && i != n - 1)   /* "every N": 0, N, 2N, ... and the last */
            continue;
        if (o->qrows == LOG_ROWS && write_log(o) != SIPD_OK)
            return SIPD_EFAIL;
        for (k = 0; k < HIST_N; k++)
            o->qh[k][o->qrows] = src[k] ? src[k][i] : NAN;
        o->qit[o->qrows++] = i;
    }
    if (o->qsolves == LOG_SOLVES && write_log(o) != SIPD_OK)
        return SIPD_EFAIL;
    k = o->qsolves++;
    o->qc[CONV_FRAME][k] = rec->frame;
    o->qc[CONV_SUBSTEP][k] = rec->substep;
    o->qc[CONV_ITER][k] = rec->iterations;
    o->qc[CONV_RESIDUAL][k] = rec->residual;
    o->qc[CONV_ENERGY][k] = rec->energy;
    o->qc[CONV_LS][k] = rec->line_search_steps;
    o->qc[CONV_CONTACTS][k] = rec->contacts;
    o->qc[CONV_WALL][k] = rec->wall_time;
    o->qc[CONV_HOFF][k] = (double)hoff;
    o->qc[CONV_PEN][k] = rec->max_penetration;
    o->qc[CONV_STATUS][k] = rec->status;
    o->qc[CONV_RDISP][k] = rec->residual_displacement;
    o->qc[CONV_FREF][k] = rec->force_reference;
    o->qc[CONV_MOMENTUM][k] = rec->momentum_error;
    o->qc[CONV_MINGAP][k] = rec->min_gap;
    if (o->qsolves == LOG_SOLVES || o->qrows == LOG_ROWS || sipd_now() - o->t_write >= LOG_SECONDS)
        return write_log(o);
    return SIPD_OK;
}

void h5out_queued(const sipd_h5out *o, long *solves, long *hist)
{
    *solves = o->qsolves;
    *hist = o->qrows;
}

int h5out_flush(sipd_h5out *o)
{
    int rc = write_queue(o);
    mark_begin(o);
    if (end_batch(o, "the output file") != SIPD_OK)
        rc = SIPD_EFAIL;
    return rc;
}

int h5out_set_attr(sipd_h5out *o, const char *name, const char *value)
{
    if (!name || !value) {
        sipd_error_at(o->path, 0, "set_attr: missing name or value");
        return SIPD_EFAIL;
    }
    mark_begin(o);   /* ended by the next flush (or the close) */
    return set_str_attr(o->file, o->path, name, value);
}

int h5out_set_attr_double(sipd_h5out *o, const char *name, double value)
{
    return set_attr(o->file, o->path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

int h5out_set_attr_int(sipd_h5out *o, const char *name, long long value)
{
    return set_attr(o->file, o->path, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
}

int h5out_close(sipd_h5out *o)
{
    int rc = SIPD_OK;
    if (!o)
        return SIPD_OK;
    if (o->file >= 0 && write_queue(o) != SIPD_OK)
        rc = SIPD_EFAIL;
    if (o->file >= 0) {
        mark_begin(o);
        if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) {
            h5fail(o->path, "cannot flush output file on close");
            rc = SIPD_EFAIL;
        }
    }
    close_ids(o);
    if (o->file >= 0 && H5Fclose(o->file) < 0) {
        h5fail(o->path, "cannot close output file");
        rc = SIPD_EFAIL;
    }
    o->file = -1;
    if (rc == SIPD_OK)
        mark_end(o);
    H5Eclear2(H5E_DEFAULT);
    free_handle(o);
    return rc;
}

/* ---------------------------------------------------------------- before writing: what is there */

char *h5out_xdmf_path(const char *path)
{
    return replace_ext(path, ".xdmf");
}

char *h5out_marker_path(const char *path)
{
    size_t n = strlen(path) + 9;
    char *r = sipd_malloc(n);
    if (r)
        snprintf(r, n, "%s.writing", path);
    return r;
}

/* 1 when `path` is an HDF5 file with sipd-run's root `version` attribute, else 0. */
static int is_sipd_output(const char *path)
{
    char buf[16] = "";
    int ours = 0;
    hid_t f, a = -1, t = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0)
        return 0;
    if ((f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        return 0;
    if (H5Aexists(f, "version") > 0 && (a = H5Aopen(f, "version", H5P_DEFAULT)) >= 0 &&
        (t = H5Aget_type(a)) >= 0 && H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t) &&
        H5Tget_size(t) >= 8) {
        hid_t mt = H5Tcopy(t);
        size_t n = H5Tget_size(t);
        char *v = mt >= 0 ? sipd_malloc(n + 1) : NULL;
        if (v && H5Aread(a, mt, v) >= 0) {
            v[n] = '\0';
            snprintf(buf, sizeof buf, "%s", v);
            ours = strncmp(buf, "sipd-run", 8) == 0;
        }
        free(v);
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return ours;
}

int h5out_check_target(const char *path, int xdmf, int overwrite)
{
    struct stat st;
    char *xp;
    int rc = SIPD_OK;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            sipd_error_at(path, 0, "output: is a directory");
            return SIPD_EINPUT;
        }
        if (!S_ISREG(st.st_mode)) {
            sipd_error_at(path, 0, "output: exists and is not a regular file");
            return SIPD_EINPUT;
        }
        if (!overwrite && !is_sipd_output(path)) {
            sipd_error_at(path, 0, "output: the file exists and is not a sipd-run output (%s); refusing to "
                          "overwrite it (choose another output file, or remove it, or pass --overwrite)",
                          H5Fis_hdf5(path) > 0 ? "an HDF5 file without sipd-run's root attributes" : "not HDF5");
            return SIPD_EINPUT;
        }
    }
    if (!xdmf)
        return SIPD_OK;
    if (!(xp = h5out_xdmf_path(path)))
        return SIPD_EFAIL;
    if (stat(xp, &st) == 0) {
        char head[6] = "";
        FILE *f = S_ISREG(st.st_mode) ? fopen(xp, "rb") : NULL;
        if (f) {
            if (fread(head, 1, 5, f) != 5)
                head[0] = '\0';
            fclose(f);
        }
        if (S_ISDIR(st.st_mode) || (!overwrite && strncmp(head, "<?xml", 5) != 0)) {
            sipd_error_at(xp, 0, "output: the XDMF sidecar path %s; refusing to overwrite it (set "
                          "output.xdmf = false, choose another output file%s)",
                          S_ISDIR(st.st_mode) ? "is a directory" : "holds a file that is not XML",
                          S_ISDIR(st.st_mode) ? "" : ", or pass --overwrite");
            rc = SIPD_EINPUT;
        }
    }
    free(xp);
    return rc;
}
