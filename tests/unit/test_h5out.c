/* test_h5out — write a tiny run with h5out, read it back with the plain HDF5 API and check
 * every contract path of docs/design.md §5 (shape, type, values, filters, chunking), the root
 * attributes, and the XDMF sidecar.  Usage: test_h5out <scratch-dir>
 */
#define _POSIX_C_SOURCE 200809L
#include "h5out.h"
#include "util.h"

#include <hdf5.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { NV = 5, NT = 2, NF = 4, NFRAMES = 3, NSOLVES = 4 };

static const double rest[NV * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
static const int tets[NT * 4] = {0, 1, 2, 3, 1, 2, 3, 4};
static const int tris[NF * 3] = {0, 2, 1, 0, 1, 3, 1, 4, 3, 2, 3, 4};
static const int body[NV] = {0, 0, 0, 1, 1};
static const double times[NFRAMES] = {0.0, 0.1, 0.2 + 1e-9};

/* frame k vertex coordinate: not exactly representable in float32, so conversion shows */
static double xval(int k, int j) { return rest[j] + 0.1 * k + 1e-7 * j + 1.0 / 3.0; }

/* ---- read-back helpers ---------------------------------------------------------------------- */

/* Open dataset and check rank, dims (maxdims[0] unlimited when unlim), and type. */
static hid_t open_ds(hid_t f, const char *name, int rank, const hsize_t *dims, int unlim,
                     H5T_class_t cls, size_t size)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s, t;
    hsize_t got[8], maxd[8];
    int r, i;
    CHECK(d >= 0, "%s missing", name);
    if (d < 0)
        return -1;
    s = H5Dget_space(d);
    r = H5Sget_simple_extent_ndims(s);
    CHECK(r == rank, "%s rank %d, expected %d", name, r, rank);
    if (r == rank) {
        H5Sget_simple_extent_dims(s, got, maxd);
        for (i = 0; i < rank; i++)
            CHECK(got[i] == dims[i], "%s dim %d = %llu, expected %llu", name, i,
                  (unsigned long long)got[i], (unsigned long long)dims[i]);
        if (unlim)
            CHECK(maxd[0] == H5S_UNLIMITED, "%s is not extendible in dim 0", name);
    }
    H5Sclose(s);
    t = H5Dget_type(d);
    CHECK(H5Tget_class(t) == cls, "%s has the wrong type class", name);
    CHECK(H5Tget_size(t) == size, "%s element size %zu, expected %zu", name, H5Tget_size(t),
          size);
    H5Tclose(t);
    return d;
}

static void check_ints(hid_t f, const char *name, int rank, const hsize_t *dims, const int *want,
                       size_t n)
{
    hid_t d = open_ds(f, name, rank, dims, 0, H5T_INTEGER, 4);
    int *buf = calloc(n + 1, sizeof *buf);
    size_t i;
    if (d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        for (i = 0; i < n; i++)
            CHECK(buf[i] == want[i], "%s[%zu] = %d, expected %d", name, i, buf[i], want[i]);
    } else if (d >= 0) {
        CHECK(0, "cannot read %s", name);
    }
    free(buf);
    if (d >= 0)
        H5Dclose(d);
}

static char *read_str_attr(hid_t f, const char *name)
{
    hid_t a, t, mt;
    size_t sz;
    char *buf;
    if (H5Aexists(f, name) <= 0)
        return NULL;
    a = H5Aopen(f, name, H5P_DEFAULT);
    t = H5Aget_type(a);
    if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) > 0) {
        H5Tclose(t);
        H5Aclose(a);
        return NULL;
    }
    sz = H5Tget_size(t);
    buf = calloc(sz + 2, 1);
    mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz + 1);
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    CHECK(H5Tget_cset(t) == H5T_CSET_ASCII, "attribute %s is not ASCII", name);
    H5Tset_cset(mt, H5Tget_cset(t));
    if (H5Aread(a, mt, buf) < 0)
        buf[0] = '\0';
    H5Tclose(mt);
    H5Tclose(t);
    H5Aclose(a);
    return buf;
}

static void check_attr(hid_t f, const char *name, const char *want)
{
    char *v = read_str_attr(f, name);
    if (!want) {
        CHECK(v == NULL, "attribute %s should be absent", name);
    } else {
        CHECK(v != NULL, "attribute %s missing", name);
        if (v)
            CHECK(strcmp(v, want) == 0, "attribute %s = '%.60s', expected '%.60s'", name, v,
                  want);
    }
    free(v);
}

/* Check the filter pipeline and chunk of /frames/positions. */
static void check_pos_layout(hid_t f, int compressed, const hsize_t *want_chunk)
{
    hid_t d = H5Dopen2(f, "/frames/positions", H5P_DEFAULT), p;
    hsize_t chunk[3] = {0, 0, 0};
    int nfilt, i, have_shuffle = -1, have_deflate = -1;
    if (d < 0) {
        CHECK(0, "/frames/positions missing");
        return;
    }
    p = H5Dget_create_plist(d);
    CHECK(H5Pget_layout(p) == H5D_CHUNKED, "/frames/positions is not chunked");
    CHECK(H5Pget_chunk(p, 3, chunk) == 3, "chunk rank");
    for (i = 0; i < 3; i++)
        CHECK(chunk[i] == want_chunk[i], "chunk dim %d = %llu, expected %llu", i,
              (unsigned long long)chunk[i], (unsigned long long)want_chunk[i]);
    nfilt = H5Pget_nfilters(p);
    for (i = 0; i < nfilt; i++) {
        unsigned flags, cd[8];
        size_t ncd = 8;
        char nm[64];
        H5Z_filter_t id = H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, sizeof nm, nm, NULL);
        if (id == H5Z_FILTER_SHUFFLE)
            have_shuffle = i;
        if (id == H5Z_FILTER_DEFLATE)
            have_deflate = i;
    }
    if (compressed) {
        CHECK(have_shuffle >= 0, "no shuffle filter on /frames/positions");
        CHECK(have_deflate >= 0, "no deflate filter on /frames/positions");
        CHECK(have_shuffle < have_deflate, "shuffle must run before deflate");
    } else {
        CHECK(nfilt == 0, "compression 0 but %d filters", nfilt);
    }
    H5Pclose(p);
    H5Dclose(d);
}

static char *slurp(const char *path)
{
    return sipd_read_file(path, NULL);
}

static int count_substr(const char *s, const char *sub)
{
    int n = 0;
    size_t l = strlen(sub);
    for (const char *p = strstr(s, sub); p; p = strstr(p + l, sub))
        n++;
    return n;
}

/* ---- the test ------------------------------------------------------------------------------- */

static void check_xdmf(const char *xpath, const char *h5base)
{
    char *x = slurp(xpath), want[256];
    const char *p;
    int k;
    CHECK(x != NULL, "cannot read %s", xpath);
    if (!x)
        return;
    CHECK(strstr(x, "<Xdmf") != NULL, "no <Xdmf> element");
    {
        size_t n = strlen(x);
        while (n > 0 && (x[n - 1] == '\n' || x[n - 1] == ' '))
            n--;
        CHECK(n >= 7 && strncmp(x + n - 7, "</Xdmf>", 7) == 0, "XDMF does not end with </Xdmf>");
    }
    CHECK(count_substr(x, "CollectionType=\"Temporal\"") == 1, "no temporal collection");
    CHECK(count_substr(x, "GridType=\"Uniform\"") == NFRAMES, "expected %d uniform grids",
          NFRAMES);
    CHECK(count_substr(x, ":/xdmf/frames/") == NFRAMES, "expected %d frame views", NFRAMES);
    CHECK(count_substr(x, "HyperSlab") == 0, "a HyperSlab item (ParaView's Xdmf3 readers and meshio do not read it)");
    snprintf(want, sizeof want, "TopologyType=\"Tetrahedron\" NumberOfElements=\"%d\"", NT);
    CHECK(count_substr(x, want) == NFRAMES, "topology: expected '%s'", want);
    snprintf(want, sizeof want, "Dimensions=\"%d 4\">%s:/mesh/tets", NT, h5base);
    CHECK(count_substr(x, want) == NFRAMES, "topology data: expected '%s'", want);
    for (k = 0; k < NFRAMES; k++) {
        snprintf(want, sizeof want, "Dimensions=\"%d 3\">%s:/xdmf/frames/%d<", NV, h5base, k);
        CHECK(strstr(x, want) != NULL, "no geometry '%s' for frame %d", want, k);
    }
    CHECK(strstr(x, "GeometryType=\"XYZ\"") != NULL, "no XYZ geometry");
    for (p = x, k = 0; (p = strstr(p, "<Time Value=\"")) != NULL; k++) {
        double t;
        p += strlen("<Time Value=\"");
        t = strtod(p, NULL);
        if (k < NFRAMES)
            CHECK(t == times[k], "Time %d = %.17g, expected %.17g", k, t, times[k]);
    }
    CHECK(k == NFRAMES, "%d Time elements, expected %d", k, NFRAMES);
    free(x);

    /* well-formedness, when xmllint is installed (127: not found -> not required) */
    {
        char cmd[1200];
        int rc;
        snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>&1", xpath);
        rc = system(cmd);
        if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) != 127)
            CHECK(WEXITSTATUS(rc) == 0, "xmllint rejects %s", xpath);
    }
}

static void write_and_check(const char *dir)
{
    char path[1024], xpath[1024], *scene;
    sipd_h5out *o = NULL;
    sipd_h5_mesh mesh = {NV, NT, NF, rest, tets, tris, body, 0, 0, NULL, NULL};
    sipd_h5_meta meta = {"0.1.0-test", NULL, "dt = 0.01;\n", "sipd-run scene.cfg", "cpu",
                         NULL, "SI (m, kg, s)"};
    static const int niter[NSOLVES] = {3, 0, 2, 5};
    double x[NV * 3], hres[16], hen[16], hal[16], hfo[16], hwt[16];
    int k, j, s, nh = 0;
    hid_t f;

    /* scene text bigger than the 64 KiB compact-attribute limit */
    scene = malloc(200001);
    for (j = 0; j < 200000; j++)
        scene[j] = (j % 64 == 63) ? '\n' : (char)('a' + j % 26);
    scene[200000] = '\0';
    meta.scene_text = scene;

    snprintf(path, sizeof path, "%s/new/sub dir/run.h5", dir);
    snprintf(xpath, sizeof xpath, "%s/new/sub dir/run.xdmf", dir);
    CHECK(h5out_create(&o, path, &meta, &mesh, 4, 1) == SIPD_OK, "create %s", path);
    if (!o) {
        free(scene);
        return;
    }
    for (k = 0; k < NFRAMES; k++) {
        for (j = 0; j < NV * 3; j++)
            x[j] = xval(k, j);
        for (s = 0; s < NSOLVES && k == 1; s++) {
            sipd_h5_solve r = {k, s, niter[s], 1e-3 / (s + 1), -2.5 * s, s + 1, 10 * s,
                               0.001 * s, 0.25 * s, s % 4, 0.5 * s, 2.0 * s, 0.125 * s, 0.0};
            for (j = 0; j < niter[s]; j++) {
                hres[j] = 100 * s + j;
                hen[j] = -(100 * s + j);
                hal[j] = 0.5 * j;
                hfo[j] = 7.0 * j + s;
                hwt[j] = 0.25 * j + s;
            }
            {
                sipd_h5_history hh;
                hh.residual = hres;
                hh.energy = s == 2 ? NULL : hen;
                hh.alpha = s == 3 ? NULL : hal;
                hh.force = s == 1 ? NULL : hfo;
                hh.wall_time = s == 0 ? NULL : hwt;
                hh.residual_displacement = s == 1 ? NULL : hwt;
                CHECK(h5out_append_solve(o, &r, niter[s], &hh) == SIPD_OK, "append_solve %d", s);
            }
        }
        CHECK(h5out_append_frame(o, times[k], x) == SIPD_OK, "append_frame %d", k);
    }
    CHECK(h5out_set_attr(o, "exit_reason", "first") == SIPD_OK, "set_attr");
    CHECK(h5out_set_attr(o, "exit_reason", "finished normally") == SIPD_OK, "set_attr again");
    CHECK(h5out_set_attr(o, "scene", scene + 1000) == SIPD_OK, "overwrite big attribute");
    CHECK(h5out_close(o) == SIPD_OK, "close");
    CHECK(h5out_close(NULL) == SIPD_OK, "close(NULL)");

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "cannot reopen %s", path);
    if (f < 0) {
        free(scene);
        return;
    }
    /* root attributes */
    check_attr(f, "version", "0.1.0-test");
    check_attr(f, "scene", scene + 1000);
    check_attr(f, "resolved_parameters", "dt = 0.01;\n");
    check_attr(f, "command_line", "sipd-run scene.cfg");
    check_attr(f, "device", "cpu");
    check_attr(f, "precision", NULL);
    check_attr(f, "units", "SI (m, kg, s)");
    check_attr(f, "exit_reason", "finished normally");

    /* /mesh */
    {
        hsize_t d2[2] = {NV, 3};
        hid_t d = open_ds(f, "/mesh/rest_positions", 2, d2, 0, H5T_FLOAT, 8);
        double buf[NV * 3];
        if (d >= 0) {
            CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                  "read rest");
            CHECK(memcmp(buf, rest, sizeof buf) == 0, "rest_positions differ");
            H5Dclose(d);
        }
        hsize_t dt[2] = {NT, 4}, df[2] = {NF, 3}, db[1] = {NV};
        check_ints(f, "/mesh/tets", 2, dt, tets, NT * 4);
        check_ints(f, "/mesh/surface_triangles", 2, df, tris, NF * 3);
        check_ints(f, "/mesh/body", 1, db, body, NV);
    }

    /* /frames */
    {
        hsize_t d3[3] = {NFRAMES, NV, 3}, d1[1] = {NFRAMES}, chunk[3] = {1, NV, 3};
        hid_t d = open_ds(f, "/frames/positions", 3, d3, 1, H5T_FLOAT, 4);
        float buf[NFRAMES * NV * 3];
        double tb[NFRAMES];
        if (d >= 0) {
            CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                  "read positions");
            for (k = 0; k < NFRAMES; k++)
                for (j = 0; j < NV * 3; j++)
                    CHECK(buf[k * NV * 3 + j] == (float)xval(k, j),
                          "positions[%d][%d] = %.9g, expected %.9g", k, j,
                          (double)buf[k * NV * 3 + j], (double)(float)xval(k, j));
            H5Dclose(d);
        }
        check_pos_layout(f, 1, chunk);
        /* the XDMF's frame views: virtual datasets onto frame k of /frames/positions */
        for (k = 0; k < NFRAMES; k++) {
            char name[64];
            hsize_t d2[2] = {NV, 3};
            float fv[NV * 3];
            hid_t dv, pl;
            snprintf(name, sizeof name, "/xdmf/frames/%d", k);
            dv = open_ds(f, name, 2, d2, 0, H5T_FLOAT, 4);
            if (dv < 0)
                continue;
            pl = H5Dget_create_plist(dv);
            CHECK(pl >= 0 && H5Pget_layout(pl) == H5D_VIRTUAL, "%s is not a virtual dataset", name);
            if (pl >= 0)
                H5Pclose(pl);
            CHECK(H5Dread(dv, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fv) >= 0, "read %s", name);
            for (j = 0; j < NV * 3; j++)
                CHECK(fv[j] == (float)xval(k, j), "%s[%d] = %.9g, expected %.9g", name, j, (double)fv[j],
                      (double)(float)xval(k, j));
            H5Dclose(dv);
        }
        d = open_ds(f, "/frames/time", 1, d1, 1, H5T_FLOAT, 8);
        if (d >= 0) {
            CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, tb) >= 0,
                  "read time");
            for (k = 0; k < NFRAMES; k++)
                CHECK(tb[k] == times[k], "time[%d] = %.17g", k, tb[k]);
            H5Dclose(d);
        }
    }

    /* /convergence */
    {
        static const char *ints[] = {"frame", "substep", "iterations", "line_search_steps",
                                     "contacts", "status"};
        static const char *dbls[] = {"residual", "energy", "wall_time", "max_penetration",
                                     "residual_displacement", "force_reference", "momentum_error"};
        hsize_t d1[1] = {NSOLVES};
        int i;
        for (i = 0; i < 6; i++) {
            char name[128];
            int buf[NSOLVES], want[NSOLVES];
            hid_t d;
            snprintf(name, sizeof name, "/convergence/%s", ints[i]);
            d = open_ds(f, name, 1, d1, 1, H5T_INTEGER, 4);
            if (d < 0)
                continue;
            CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read");
            for (s = 0; s < NSOLVES; s++) {
                want[s] = i == 0 ? 1 : i == 1 ? s : i == 2 ? niter[s] : i == 3 ? s + 1 : i == 4 ? 10 * s : s % 4;
                CHECK(buf[s] == want[s], "%s[%d] = %d, expected %d", name, s, buf[s], want[s]);
            }
            H5Dclose(d);
        }
        for (i = 0; i < 7; i++) {
            static const double scale[] = {0, 0, 0, 0, 0.5, 2.0, 0.125};
            char name[128];
            double buf[NSOLVES], want;
            hid_t d;
            snprintf(name, sizeof name, "/convergence/%s", dbls[i]);
            d = open_ds(f, name, 1, d1, 1, H5T_FLOAT, 8);
            if (d < 0)
                continue;
            CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                  "read");
            for (s = 0; s < NSOLVES; s++) {
                want = i == 0 ? 1e-3 / (s + 1) : i == 1 ? -2.5 * s : i == 2 ? 0.001 * s : i == 3 ? 0.25 * s
                                                                                       : scale[i] * s;
                CHECK(buf[s] == want, "%s[%d] = %g, expected %g", name, s, buf[s], want);
            }
            H5Dclose(d);
        }
        {
            int64_t off[NSOLVES];
            hid_t d = open_ds(f, "/convergence/history_offset", 1, d1, 1, H5T_INTEGER, 8);
            if (d >= 0) {
                CHECK(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, off) >= 0,
                      "read");
                for (s = 0, nh = 0; s < NSOLVES; nh += niter[s], s++)
                    CHECK(off[s] == nh, "history_offset[%d] = %lld, expected %d", s,
                          (long long)off[s], nh);
                H5Dclose(d);
            }
        }
        /* history: nh rows; solve s row j: residual 100s+j, energy -(100s+j) or NaN (s==2),
         * alpha 0.5j or NaN (s==3) */
        {
            static const char *hn[] = {"residual", "energy", "alpha", "force", "wall_time"};
            hsize_t dh[1] = {(hsize_t)nh};
            for (i = 0; i < 5; i++) {
                char name[128];
                double buf[16];
                hid_t d;
                int row = 0;
                snprintf(name, sizeof name, "/convergence/history/%s", hn[i]);
                d = open_ds(f, name, 1, dh, 1, H5T_FLOAT, 8);
                if (d < 0)
                    continue;
                CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                      "read");
                for (s = 0; s < NSOLVES; s++)
                    for (j = 0; j < niter[s]; j++, row++) {
                        double v = buf[row];
                        if (i == 0)
                            CHECK(v == 100 * s + j, "%s[%d] = %g", name, row, v);
                        else if (i == 1 && s == 2)
                            CHECK(isnan(v), "%s[%d] = %g, expected NaN", name, row, v);
                        else if (i == 1)
                            CHECK(v == -(100 * s + j), "%s[%d] = %g", name, row, v);
                        else if (i == 2 && s == 3)
                            CHECK(isnan(v), "%s[%d] = %g, expected NaN", name, row, v);
                        else if (i == 2)
                            CHECK(v == 0.5 * j, "%s[%d] = %g", name, row, v);
                        else if (i == 3 && s == 1)
                            CHECK(isnan(v), "%s[%d] = %g, expected NaN", name, row, v);
                        else if (i == 3)
                            CHECK(v == 7.0 * j + s, "%s[%d] = %g", name, row, v);
                        else if (s == 0)
                            CHECK(isnan(v), "%s[%d] = %g, expected NaN", name, row, v);
                        else
                            CHECK(v == 0.25 * j + s, "%s[%d] = %g", name, row, v);
                    }
                H5Dclose(d);
            }
        }
    }
    CHECK(H5Fclose(f) >= 0, "close after reading");
    check_xdmf(xpath, "run.h5");
    CHECK(access(path, F_OK) == 0, "h5 file vanished");
    {
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp", xpath);
        CHECK(access(tmp, F_OK) != 0, "temporary %s left behind", tmp);
    }
    free(scene);
}

/* compression 0, no XDMF, frames larger than one 4 MiB chunk */
static void uncompressed_big(const char *dir)
{
    enum { BIGNV = 400000 };
    char path[1024], xpath[1024];
    sipd_h5out *o = NULL;
    double *rb = calloc((size_t)BIGNV * 3, sizeof *rb);
    int *bb = calloc(BIGNV, sizeof *bb);
    sipd_h5_mesh mesh = {BIGNV, NT, 0, rb, tets, NULL, bb, 0, 0, NULL, NULL};
    hid_t f;
    size_t i;

    for (i = 0; i < (size_t)BIGNV * 3; i++)
        rb[i] = 0.5 * (double)i;
    snprintf(path, sizeof path, "%s/big.hdf5", dir);
    snprintf(xpath, sizeof xpath, "%s/big.xdmf", dir);
    remove(xpath);
    CHECK(h5out_create(&o, path, NULL, &mesh, 0, 0) == SIPD_OK, "create %s", path);
    if (o) {
        CHECK(h5out_append_frame(o, 1.5, rb) == SIPD_OK, "append big frame");
        CHECK(h5out_close(o) == SIPD_OK, "close big");
    }
    CHECK(access(xpath, F_OK) != 0, "xdmf written although disabled");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "reopen %s", path);
    if (f >= 0) {
        /* 4 MiB / 12 bytes per vertex */
        hsize_t chunk[3] = {1, (4u << 20) / 12, 3}, d3[3] = {1, BIGNV, 3}, d0[2] = {0, 3};
        float *buf = malloc((size_t)BIGNV * 3 * sizeof *buf);
        hid_t d;
        check_pos_layout(f, 0, chunk);
        check_attr(f, "version", NULL);
        d = open_ds(f, "/frames/positions", 3, d3, 1, H5T_FLOAT, 4);
        if (d >= 0) {
            CHECK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read");
            for (i = 0; i < (size_t)BIGNV * 3; i++)
                if (buf[i] != (float)rb[i]) {
                    CHECK(0, "big positions[%zu] = %g", i, (double)buf[i]);
                    break;
                }
            H5Dclose(d);
        }
        d = open_ds(f, "/mesh/surface_triangles", 2, d0, 0, H5T_INTEGER, 4);
        if (d >= 0)
            H5Dclose(d);
        H5Fclose(f);
        free(buf);
    }
    free(rb);
    free(bb);
}

static void failures_reported(const char *dir)
{
    char file[1024], path[1200];
    sipd_h5out *o = (sipd_h5out *)&file; /* must be reset to NULL on failure */
    sipd_h5_mesh mesh = {NV, NT, NF, rest, tets, tris, body, 0, 0, NULL, NULL};
    FILE *fp;

    /* parent "directory" is a regular file */
    snprintf(file, sizeof file, "%s/plainfile", dir);
    fp = fopen(file, "w");
    if (fp)
        fclose(fp);
    snprintf(path, sizeof path, "%s/sub/out.h5", file);
    fprintf(stderr, "(an error message about %s is expected)\n", path);
    CHECK(h5out_create(&o, path, NULL, &mesh, 1, 1) == SIPD_EFAIL, "create under a file");
    CHECK(o == NULL, "handle not reset on failure");

    /* the output path is a directory */
    snprintf(path, sizeof path, "%s/isadir.h5", dir);
    mkdir(path, 0777);
    o = (sipd_h5out *)&file;
    fprintf(stderr, "(an error message about %s is expected)\n", path);
    CHECK(h5out_create(&o, path, NULL, &mesh, 1, 1) == SIPD_EFAIL, "create on a directory");
    CHECK(o == NULL, "handle not reset on failure");

    /* bad mesh */
    snprintf(path, sizeof path, "%s/nomesh.h5", dir);
    mesh.nv = 0;
    fprintf(stderr, "(an error message about an empty mesh is expected)\n");
    CHECK(h5out_create(&o, path, NULL, &mesh, 1, 1) == SIPD_EFAIL, "create with empty mesh");
}

/* Child process (fresh exec, so h5out_create is its first HDF5 call): a file-size limit
 * stands in for a full disk.  Appending must fail with SIPD_EFAIL and a message, and the
 * process must then close and exit normally (HDF5 1.10 used to crash at exit here). */
static int diskfull_child(const char *dir)
{
    enum { BNV = 2000 };
    static double x[BNV * 3];
    static int b[BNV];
    sipd_h5_mesh mesh = {BNV, NT, 0, x, tets, NULL, b, 0, 0, NULL, NULL};
    struct rlimit rl = {400000, 400000};
    char path[1024];
    sipd_h5out *o = NULL;
    int k, ok = 0, failed = 0;
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 77;
    snprintf(path, sizeof path, "%s/full/run.h5", dir);
    for (k = 0; k < BNV * 3; k++)
        x[k] = 0.001 * k;
    if (h5out_create(&o, path, NULL, &mesh, 0, 1) != SIPD_OK)
        return 2;
    for (k = 0; k < 100 && !failed; k++) {
        double h[2] = {1, 2};
        sipd_h5_solve r = {k, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        sipd_h5_history hh = {h, h, h, h, h, h};
        if (h5out_append_solve(o, &r, 2, &hh) != SIPD_OK ||
            h5out_append_frame(o, k, x) != SIPD_OK)
            failed = 1;
        else
            ok++;
    }
    h5out_close(o); /* may fail too: the disk is still full */
    printf("diskfull: %d frames written before the failure\n", ok);
    return failed ? 0 : 3;
}

static void disk_full(const char *self, const char *dir)
{
    int status = 0;
    pid_t pid;
    fprintf(stderr, "(HDF5 'File too large' errors are expected)\n");
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        execl(self, self, "diskfull", dir, (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0, "fork");
    if (pid <= 0)
        return;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        return; /* no setrlimit: nothing to check */
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "disk-full child: status 0x%x (3: no error reported, signal: crash)", status);
}

int main(int argc, char **argv)
{
    char dir[512], self[1024];
    ssize_t n;
    if (argc == 3 && strcmp(argv[1], "diskfull") == 0)
        return diskfull_child(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch-dir\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    write_and_check(dir);
    uncompressed_big(dir);
    failures_reported(dir);
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv[0]);
    disk_full(self, dir);
    if (failures) {
        fprintf(stderr, "test_h5out: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_h5out: all checks passed\n");
    return 0;
}
