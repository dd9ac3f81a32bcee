/* test_mesh.c — tests of the mesh loader (src/mesh.c).
 *
 * Usage: test_mesh <case> <data-dir>   (data-dir = tests/data/meshes)
 * Cases: gmsh_variants, tetgen, volume, surface, sparse, tetgen_hand, malformed, perf.
 * Each case returns 0 on success, 1 on failure (with a message), 77 to skip.
 */
#define _POSIX_C_SOURCE 200809L
#include "initpos.h"
#include "mesh.h"
#include "util.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runner.h"

static const char *data_dir = ".";
static char tmp_dir[256];

static char *data_path(const char *name)
{
    static char buf[8][1024];
    static int k = 0;
    char *b = buf[k++ % 8];
    snprintf(b, 1024, "%s/%s", data_dir, name);
    return b;
}

static int load_ok(const char *path, sipd_mesh *m)
{
    int rc = mesh_load(path, m);
    CHECK(rc == SIPD_OK, "loading %s returned %d", path, rc);
    return rc == SIPD_OK;
}

/* 6 * signed volume of tet t. */
static double tet_det(const sipd_mesh *m, int t)
{
    const int *v = m->tets + 4 * t;
    const double *p0 = m->x + 3 * v[0], *p1 = m->x + 3 * v[1], *p2 = m->x + 3 * v[2], *p3 = m->x + 3 * v[3];
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = p1[k] - p0[k];
        b[k] = p2[k] - p0[k];
        c[k] = p3[k] - p0[k];
    }
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* Sum of tet volumes; counts non-positive ones. */
static double total_volume(const sipd_mesh *m, int *nonpos)
{
    double s = 0.0;
    *nonpos = 0;
    for (int t = 0; t < m->nt; t++) {
        double d = tet_det(m, t);
        if (!(d > 0))
            (*nonpos)++;
        s += d / 6.0;
    }
    return s;
}

static void check_volume_tol(const char *what, const sipd_mesh *m, double expect, double tol)
{
    int nonpos;
    double v = total_volume(m, &nonpos);
    CHECK(nonpos == 0, "%s: %d tets with non-positive volume", what, nonpos);
    CHECK(fabs(v - expect) <= tol * expect, "%s: volume %.17g, expected %.17g", what, v, expect);
}

static void check_volume(const char *what, const sipd_mesh *m, double expect)
{
    check_volume_tol(what, m, expect, 1e-12);
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Surface checks: each triangle is a face of exactly one tet and its normal points away
 * from that tet's 4th vertex; every directed edge appears once and its reverse once
 * (closed, consistently oriented); total area matches. */
static void check_surface(const char *what, const sipd_mesh *m, double area_expect, int brute_force)
{
    double area = 0.0;
    int64_t *edges;
    int bad_out = 0, bad_adj = 0, bad_edge = 0;
    CHECK(m->nf > 0 && m->tris != NULL, "%s: no surface triangles", what);
    if (m->nf <= 0 || !m->tris)
        return;
    for (int f = 0; f < m->nf; f++) {
        const int *tr = m->tris + 3 * f;
        const double *a = m->x + 3 * tr[0], *b = m->x + 3 * tr[1], *c = m->x + 3 * tr[2];
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = b[k] - a[k];
            e2[k] = c[k] - a[k];
        }
        cross(e1, e2, n);
        area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (brute_force) {
            int nadj = 0;
            for (int t = 0; t < m->nt; t++) {
                const int *v = m->tets + 4 * t;
                int hit = 0, other = -1;
                for (int k = 0; k < 4; k++) {
                    if (v[k] == tr[0] || v[k] == tr[1] || v[k] == tr[2])
                        hit++;
                    else
                        other = v[k];
                }
                if (hit == 3 && other >= 0) {
                    /* outward: (centroid_tri - p_other) . n > 0 */
                    const double *o = m->x + 3 * other;
                    double d = 0.0;
                    for (int k = 0; k < 3; k++)
                        d += ((a[k] + b[k] + c[k]) / 3.0 - o[k]) * n[k];
                    if (!(d > 0))
                        bad_out++;
                    nadj++;
                }
            }
            if (nadj != 1)
                bad_adj++;
        }
    }
    CHECK(bad_out == 0, "%s: %d surface triangles point inward", what, bad_out);
    CHECK(bad_adj == 0, "%s: %d surface triangles are not the face of exactly one tet", what, bad_adj);
    CHECK(fabs(area - area_expect) <= 1e-12 * area_expect, "%s: area %.17g expected %.17g", what, area,
          area_expect);
    /* closedness: directed edges i->j; each must appear exactly once and j->i exactly once */
    edges = malloc(3 * (size_t)m->nf * sizeof *edges);
    for (int f = 0; f < m->nf; f++)
        for (int k = 0; k < 3; k++) {
            int64_t i = m->tris[3 * f + k], j = m->tris[3 * f + (k + 1) % 3];
            edges[3 * f + k] = i * (int64_t)m->nv + j;
        }
    qsort(edges, 3 * (size_t)m->nf, sizeof *edges, cmp_i64);
    for (size_t e = 0; e < 3 * (size_t)m->nf; e++) {
        int64_t i = edges[e] / m->nv, j = edges[e] % m->nv, rev = j * (int64_t)m->nv + i;
        if (e + 1 < 3 * (size_t)m->nf && edges[e + 1] == edges[e])
            bad_edge++;
        if (!bsearch(&rev, edges, 3 * (size_t)m->nf, sizeof *edges, cmp_i64))
            bad_edge++;
    }
    free(edges);
    CHECK(bad_edge == 0, "%s: surface not closed / inconsistently oriented (%d bad edges)", what, bad_edge);
}

static int same_mesh(const char *wa, const sipd_mesh *a, const char *wb, const sipd_mesh *b)
{
    int ok = a->nv == b->nv && a->nt == b->nt && a->nf == b->nf;
    CHECK(ok, "%s vs %s: sizes nv %d/%d nt %d/%d nf %d/%d", wa, wb, a->nv, b->nv, a->nt, b->nt, a->nf, b->nf);
    if (!ok)
        return 0;
    CHECK(memcmp(a->x, b->x, 3 * (size_t)a->nv * sizeof(double)) == 0, "%s vs %s: positions differ", wa, wb);
    CHECK(memcmp(a->tets, b->tets, 4 * (size_t)a->nt * sizeof(int)) == 0, "%s vs %s: tets differ", wa, wb);
    CHECK(memcmp(a->tris, b->tris, 3 * (size_t)a->nf * sizeof(int)) == 0, "%s vs %s: tris differ", wa, wb);
    return 1;
}

/* Counts elements of a gmsh type in a v2.2 ASCII file (independent reference). */
static int count_v22_type(const char *path, int type)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int in = 0, n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        int tag, ty;
        if (strncmp(line, "$Elements", 9) == 0) {
            in = 1;
            if (!fgets(line, sizeof line, f))
                break;
            continue;
        }
        if (strncmp(line, "$EndElements", 12) == 0)
            in = 0;
        if (in && sscanf(line, "%d %d", &tag, &ty) == 2 && ty == type)
            n++;
    }
    fclose(f);
    return n;
}

/* ---------------------------------------------------------------------------------- */

static const char *BOX_GMSH[4] = {"box_v22_ascii.msh", "box_v22_bin.msh", "box_v41_ascii.msh",
                                  "box_v41_bin.msh"};
static const double BOX_VOL = 1.0 * 0.2 * 0.2, BOX_AREA = 2 * (1.0 * 0.2 + 1.0 * 0.2 + 0.2 * 0.2);

static void test_gmsh_variants(void)
{
    sipd_mesh m[4];
    int ok = 1, ntet;
    for (int i = 0; i < 4; i++)
        ok &= load_ok(data_path(BOX_GMSH[i]), &m[i]);
    if (ok) {
        for (int i = 1; i < 4; i++)
            same_mesh(BOX_GMSH[0], &m[0], BOX_GMSH[i], &m[i]);
        ntet = count_v22_type(data_path(BOX_GMSH[0]), 4);
        CHECK(ntet > 50 && m[0].nt == ntet, "nt %d, the file has %d tets", m[0].nt, ntet);
        /* gmsh's own boundary triangles (type 2, Physical Surface) must match in number */
        CHECK(m[0].nf == count_v22_type(data_path(BOX_GMSH[0]), 2), "nf %d vs %d file triangles", m[0].nf,
              count_v22_type(data_path(BOX_GMSH[0]), 2));
    }
    for (int i = 0; i < 4; i++)
        mesh_free(&m[i]);
}

static void test_tetgen(void)
{
    sipd_mesh a, b;
    int ok = load_ok(data_path("box.1"), &a);
    ok &= load_ok(data_path("box0.1"), &b);
    if (ok) {
        same_mesh("box.1", &a, "box0.1", &b);
        /* header counts of box.1.node / .ele / .face (boundary faces written by tetgen) */
        CHECK(a.nv == 156 && a.nt == 354 && a.nf == 296, "nv %d nt %d nf %d", a.nv, a.nt, a.nf);
        /* node 1 of box.1.node is (0,0,0), node 2 is (1,0,0) */
        CHECK(a.x[0] == 0 && a.x[3] == 1 && a.x[4] == 0, "node positions");
    }
    mesh_free(&a);
    mesh_free(&b);
}

static void test_volume(void)
{
    const char *names[6] = {"box.1", "box0.1", BOX_GMSH[0], BOX_GMSH[1], BOX_GMSH[2], BOX_GMSH[3]};
    for (int i = 0; i < 6; i++) {
        sipd_mesh m;
        if (load_ok(data_path(names[i]), &m))
            check_volume(names[i], &m, BOX_VOL);
        mesh_free(&m);
    }
}

static void test_surface(void)
{
    const char *names[6] = {"box.1", "box0.1", BOX_GMSH[0], BOX_GMSH[1], BOX_GMSH[2], BOX_GMSH[3]};
    for (int i = 0; i < 6; i++) {
        sipd_mesh m;
        if (load_ok(data_path(names[i]), &m))
            check_surface(names[i], &m, BOX_AREA, 1);
        mesh_free(&m);
    }
    /* hand meshes: two tets, six boundary faces, area = 4 * 0.5 + 2 * sqrt(3)/2 */
    {
        const char *h[3] = {"sparse_v22.msh", "sparse_v41.msh", "hand"};
        for (int i = 0; i < 3; i++) {
            sipd_mesh m;
            if (load_ok(data_path(h[i]), &m)) {
                CHECK(m.nf == 6, "%s: nf %d", h[i], m.nf);
                check_surface(h[i], &m, 2.0 + sqrt(3.0), 1);
            }
            mesh_free(&m);
        }
    }
}

/* Expected normalised form of the hand meshes (see tests/data/meshes/README.md). */
static void check_hand(const char *name)
{
    static const double X[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1};
    static const int T[8] = {0, 2, 3, 1, 0, 1, 4, 2};
    sipd_mesh m;
    if (!load_ok(data_path(name), &m))
        return;
    CHECK(m.nv == 5 && m.nt == 2, "%s: nv %d nt %d", name, m.nv, m.nt);
    if (m.nv == 5 && m.nt == 2) {
        CHECK(memcmp(m.x, X, sizeof X) == 0, "%s: positions not in file order", name);
        CHECK(memcmp(m.tets, T, sizeof T) == 0, "%s: tets (%d %d %d %d) (%d %d %d %d), expected (0 2 3 1) (0 1 4 2)",
              name, m.tets[0], m.tets[1], m.tets[2], m.tets[3], m.tets[4], m.tets[5], m.tets[6], m.tets[7]);
        CHECK(tet_det(&m, 0) > 0 && tet_det(&m, 1) > 0, "%s: orientation not corrected", name);
        check_volume(name, &m, 1.0 / 3.0);
    }
    mesh_free(&m);
}

static void test_sparse(void)
{
    sipd_mesh a, b;
    check_hand("sparse_v22.msh");
    check_hand("sparse_v41.msh");
    if (load_ok(data_path("sparse_v22.msh"), &a) & load_ok(data_path("sparse_v41.msh"), &b))
        same_mesh("sparse_v22.msh", &a, "sparse_v41.msh", &b);
    mesh_free(&a);
    mesh_free(&b);
}

static void test_tetgen_hand(void)
{
    sipd_mesh a, b;
    check_hand("hand");
    if (load_ok(data_path("hand"), &a) & load_ok(data_path("sparse_v22.msh"), &b))
        same_mesh("hand", &a, "sparse_v22.msh", &b);
    mesh_free(&a);
    mesh_free(&b);
}

/* ---------------------------------------------------------------------------------- */
/* Malformed inputs                                                                    */

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static char *read_all(const char *path, size_t *n)
{
    char *b = sipd_read_file(path, n);
    if (!b) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return b;
}

static char captured[8192];

/* Runs mesh_load with stderr captured into `captured`. */
static int load_captured(const char *path, sipd_mesh *m)
{
    char cap[300];
    int saved, fd, rc;
    FILE *f;
    size_t n;
    snprintf(cap, sizeof cap, "%s/stderr.txt", tmp_dir);
    fflush(stderr);
    saved = dup(2);
    fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    rc = mesh_load(path, m);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    f = fopen(cap, "r");
    n = f ? fread(captured, 1, sizeof captured - 1, f) : 0;
    captured[n] = '\0';
    if (f)
        fclose(f);
    return rc;
}

/* Loads `path` (already written) and expects SIPD_EINPUT, a message naming the file, the
 * line (line > 0: "path:line:") and every word in `needles` ('|'-separated). */
static void expect_bad(const char *path, const char *file_named, int line, const char *needles)
{
    sipd_mesh m;
    char want[1200];
    int rc;
    memset(&m, 0x5a, sizeof m); /* garbage in: the loader must reset it */
    rc = load_captured(path, &m);
    CHECK(rc == SIPD_EINPUT, "%s: rc %d, expected SIPD_EINPUT; stderr: %s", path, rc, captured);
    CHECK(m.x == NULL && m.tets == NULL && m.tris == NULL, "%s: mesh not cleared on error", path);
    if (line > 0)
        snprintf(want, sizeof want, "%s:%d: ", file_named, line);
    else
        snprintf(want, sizeof want, "%s", file_named);
    CHECK(strstr(captured, want) != NULL, "%s: message does not contain '%s': %s", path, want, captured);
    if (needles) {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", needles);
        for (char *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save))
            CHECK(strstr(captured, w) != NULL, "%s: message lacks '%s': %s", path, w, captured);
    }
    if (rc == SIPD_OK)
        mesh_free(&m);
}

static const char *tmp_path(const char *name)
{
    static char buf[8][512];
    static int k = 0;
    char *b = buf[k++ % 8];
    snprintf(b, 512, "%s/%s", tmp_dir, name);
    return b;
}

/* Writes a text gmsh file and expects a failure at `line`. */
static void bad_text(const char *name, const char *text, int line, const char *needles)
{
    const char *p = tmp_path(name);
    write_file(p, text, strlen(text));
    expect_bad(p, p, line, needles);
}

#define HDR22 "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define NODES22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
/* lines: 1-3 header, 4 $Nodes, 5 count, 6-9 nodes, 10 $EndNodes, 11 $Elements, 12 count, 13.. */

static void test_malformed_gmsh_text(void)
{
    sipd_mesh m;
    /* the base case loads (so the variants below fail for the reason they test) */
    {
        const char *p = tmp_path("good.msh");
        const char *t = HDR22 NODES22 "$Elements\n1\n1 4 2 0 1 1 2 3 4\n$EndElements\n";
        write_file(p, t, strlen(t));
        CHECK(load_captured(p, &m) == SIPD_OK, "base case: %s", captured);
        mesh_free(&m);
    }
    bad_text("garbage.msh", "hello world\nthis is not a mesh\n", 1, "$MeshFormat");
    bad_text("empty.msh", "", 0, NULL);
    bad_text("v40.msh", "$MeshFormat\n4 0 8\n$EndMeshFormat\n", 2, "version 4");
    bad_text("v40b.msh", "$MeshFormat\n4.0 0 8\n$EndMeshFormat\n", 2, "version 4");
    bad_text("v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", 2, "version 3");
    bad_text("dsize.msh", "$MeshFormat\n2.2 0 4\n$EndMeshFormat\n", 2, "data size");
    bad_text("trunc_nodes.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n", 7, "2 of 4");
    bad_text("trunc_line.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0", 7, "coordinate");
    bad_text("trunc_elems.msh", HDR22 NODES22 "$Elements\n1\n", 12, "0 of 1");
    bad_text("trunc_end.msh", HDR22 NODES22 "$Elements\n1\n1 4 2 0 1 1 2 3 4\n", 13, "$EndElements");
    bad_text("count_big.msh", HDR22 "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n", 10, "4 of 5");
    bad_text("count_small.msh", HDR22 "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n", 9, "$EndNodes");
    bad_text("count_huge.msh", HDR22 "$Nodes\n1000000000000000000\n1 0 0 0\n$EndNodes\n", 5, "1000000000000000000");
    bad_text("elem_count_big.msh", HDR22 NODES22 "$Elements\n2\n1 4 2 0 1 1 2 3 4\n$EndElements\n", 14, "1 of 2");
    bad_text("nonnum.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 abc 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n", 7, "abc");
    bad_text("nonnum_tag.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2x 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n", 7, "2x");
    bad_text("nan.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 nan 0\n4 0 0 1\n$EndNodes\n", 8, "finite");
    bad_text("inf.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 -inf\n$EndNodes\n", 9, "finite");
    bad_text("huge.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1e999 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n", 7, "finite");
    bad_text("unknown_tag.msh", HDR22 NODES22 "$Elements\n1\n1 4 2 0 1 1 2 3 9\n$EndElements\n", 13, "tag 9");
    bad_text("dup_tag.msh", HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n3 0 0 1\n$EndNodes\n", 9, "duplicate|3");
    bad_text("degenerate.msh",
             HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 1e-14\n$EndNodes\n"
                   "$Elements\n2\n7 15 2 0 1 1\n8 4 2 0 1 1 2 3 4\n$EndElements\n",
             14, "element 8|degenerate");
    bad_text("repeated_node.msh", HDR22 NODES22 "$Elements\n1\n5 4 2 0 1 1 2 3 3\n$EndElements\n", 13,
             "element 5|degenerate");
    bad_text("tet10.msh",
             HDR22 NODES22 "$Elements\n1\n1 11 2 0 1 1 2 3 4 1 2 3 4 1 2\n$EndElements\n", 13, "element 1|order");
    bad_text("tri6.msh", HDR22 NODES22 "$Elements\n2\n1 9 2 0 1 1 2 3 4 1 2\n2 4 2 0 1 1 2 3 4\n$EndElements\n",
             13, "order");
    bad_text("no_tets.msh", HDR22 NODES22 "$Elements\n1\n1 15 2 0 1 1\n$EndElements\n", 0,
             "no tetrahedra, triangles or line segments");
    /* a degenerate triangle or segment is refused where it is the body, ignored in a tet mesh */
    bad_text("degenerate_tri.msh",
             HDR22 NODES22 "$Elements\n2\n1 2 2 0 1 1 2 3\n2 2 2 0 1 1 2 2\n$EndElements\n", 14,
             "element 2|degenerate triangle");
    bad_text("degenerate_line.msh",
             HDR22 NODES22 "$Elements\n2\n1 1 2 0 1 1 2\n2 1 2 0 1 3 3\n$EndElements\n", 14,
             "element 2|degenerate line");
    bad_text("line3.msh", HDR22 NODES22 "$Elements\n1\n1 8 2 0 1 1 2 3\n$EndElements\n", 13, "order|lines");
    {
        const char *t = HDR22 NODES22 "$Elements\n3\n1 2 2 0 1 1 2 2\n2 1 2 0 1 4 4\n3 4 2 0 1 1 2 3 4\n$EndElements\n";
        sipd_mesh m;
        int rc;
        write_file(tmp_path("tet_with_bad_tri.msh"), t, strlen(t));
        rc = load_captured(tmp_path("tet_with_bad_tri.msh"), &m);
        CHECK(rc == SIPD_OK && m.dim == 3 && m.nt == 1 && m.nf == 4,
              "a tet mesh with a degenerate boundary triangle and segment: rc %d dim %d nt %d nf %d: %s", rc, m.dim,
              m.nt, m.nf, captured);
        if (rc == SIPD_OK)
            mesh_free(&m);
    }
    bad_text("no_nodes.msh", HDR22, 0, "$Nodes");
    bad_text("elements_first.msh", HDR22 "$Elements\n1\n1 4 2 0 1 1 2 3 4\n$EndElements\n" NODES22, 4,
             "before $Nodes");
    bad_text("unclosed.msh", HDR22 "$Comments\nnever closed\n", 4, "$EndComments");
    bad_text("few_nodes_in_elem.msh", HDR22 NODES22 "$Elements\n1\n1 4 2 0 1 1 2 3\n$EndElements\n", 13,
             "node tag");
    bad_text("extra_nodes_in_elem.msh", HDR22 NODES22 "$Elements\n1\n1 4 2 0 1 1 2 3 4 4\n$EndElements\n", 13,
             "more node tags");
    bad_text("neg_tags.msh", HDR22 NODES22 "$Elements\n1\n1 4 -2 0 1 1 2 3 4\n$EndElements\n", 13,
             "number of tags");
    bad_text("nonmanifold.msh",
             HDR22 "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0 0 -1\n6 0.1 0.1 0.5\n$EndNodes\n"
                   "$Elements\n3\n1 4 2 0 1 1 2 3 4\n2 4 2 0 1 1 2 3 5\n3 4 2 0 1 1 2 3 6\n$EndElements\n",
             0, "non-manifold");
    bad_text("stray.msh", HDR22 "junk\n" NODES22, 4, "section header");
    /* v4.1 ASCII */
#define HDR41 "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    bad_text("v41_count.msh",
             HDR41 "$Nodes\n1 5 1 5\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n", 14, "5");
    bad_text("v41_trunc.msh", HDR41 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n", 12, "2 of 4");
    bad_text("v41_tags_short.msh", HDR41 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n",
             10, "tag");
    bad_text("v41_unknown.msh",
             HDR41 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
                   "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 77\n$EndElements\n",
             19, "tag 77");
    bad_text("v41_tet10.msh",
             HDR41 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n"
                   "$Elements\n1 1 1 1\n3 1 11 1\n1 1 2 3 4 1 2 3 4 1 2\n$EndElements\n",
             18, "order");
    bad_text("v41_degenerate.msh",
             HDR41 "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n2 0 0\n0 0 1\n$EndNodes\n"
                   "$Elements\n1 1 1 1\n3 1 4 1\n31 1 2 3 4\n$EndElements\n",
             19, "element 31|degenerate");
    bad_text("v41_huge.msh", HDR41 "$Nodes\n1 1000000000000000000 1 4\n3 1 0 4\n$EndNodes\n", 5, "count");
}

/* Binary variants derived from the real gmsh files. */
static size_t find_bytes(const char *buf, size_t n, const char *s)
{
    size_t l = strlen(s);
    for (size_t i = 0; i + l <= n; i++)
        if (memcmp(buf + i, s, l) == 0)
            return i;
    return (size_t)-1;
}

static void bad_bin(const char *name, const char *data, size_t n, const char *needles)
{
    const char *p = tmp_path(name);
    write_file(p, data, n);
    expect_bad(p, p, 0, needles);
}

static void test_malformed_gmsh_binary(void)
{
    for (int v = 0; v < 2; v++) {
        const char *src = data_path(v == 0 ? "box_v22_bin.msh" : "box_v41_bin.msh");
        size_t n, at;
        char *b = read_all(src, &n), name[64];
        char *c = malloc(n);
        /* truncations at several places: inside nodes, inside elements, before $EndElements */
        size_t cuts[5] = {n / 5, n / 2, 3 * n / 4, n - 20, n - 5};
        for (int k = 0; k < 5; k++) {
            snprintf(name, sizeof name, "trunc%d_%d.msh", v, k);
            bad_bin(name, b, cuts[k], NULL);
        }
        /* endianness marker swapped */
        at = find_bytes(b, n, v == 0 ? "2.2 1 8\n" : "4.1 1 8\n") + 8;
        memcpy(c, b, n);
        c[at] = 0;
        c[at + 3] = 1;
        snprintf(name, sizeof name, "endian%d.msh", v);
        bad_bin(name, c, n, "big-endian");
        /* NaN coordinate in the first node */
        memcpy(c, b, n);
        at = find_bytes(b, n, "$Nodes\n") + 7;
        {
            double nanv = NAN;
            if (v == 0) {
                at = (size_t)(strchr(b + at, '\n') - b) + 1; /* ASCII count line */
                memcpy(c + at + 4, &nanv, 8);
            } else {
                /* header 4 size_t, block header 3 int + size_t, tags (n1 size_t) then coords */
                uint64_t n1;
                memcpy(&n1, b + at + 32 + 12, 8);
                memcpy(c + at + 32 + 20 + 8 * n1, &nanv, 8);
            }
        }
        snprintf(name, sizeof name, "nan%d.msh", v);
        bad_bin(name, c, n, "finite|$Nodes");
        /* absurd node count */
        memcpy(c, b, n);
        at = find_bytes(b, n, "$Nodes\n") + 7;
        if (v == 1) {
            uint64_t huge = 1000000000000000000ULL;
            memcpy(c + at + 8, &huge, 8);
            snprintf(name, sizeof name, "huge%d.msh", v);
            bad_bin(name, c, n, "count");
        }
        free(b);
        free(c);
    }
    /* v2.2 binary: unknown node tag and a degenerate tet in an element block */
    {
        size_t n, at;
        char *b = read_all(data_path("box_v22_bin.msh"), &n);
        at = find_bytes(b, n, "$Elements\n") + 10;
        at = (size_t)(strchr(b + at, '\n') - b) + 1;
        /* walk blocks to the first tet block */
        for (;;) {
            int hdr[3], nn;
            memcpy(hdr, b + at, 12);
            nn = hdr[0] == 15 ? 1 : hdr[0] == 1 ? 2 : hdr[0] == 2 ? 3 : 4;
            if (hdr[0] == 4)
                break;
            at += 12 + (size_t)hdr[1] * (1 + hdr[2] + nn) * 4;
        }
        {
            int hdr[3], rec[16], elem;
            char *c = malloc(n);
            memcpy(hdr, b + at, 12);
            memcpy(rec, b + at + 12, (size_t)(1 + hdr[2] + 4) * 4);
            elem = rec[0];
            memcpy(c, b, n);
            rec[1 + hdr[2] + 3] = 999999; /* unknown tag */
            memcpy(c + at + 12, rec, (size_t)(1 + hdr[2] + 4) * 4);
            bad_bin("bin_unknown_tag.msh", c, n, "999999|$Elements");
            rec[1 + hdr[2] + 3] = rec[1 + hdr[2] + 2]; /* repeated node -> zero volume */
            memcpy(c + at + 12, rec, (size_t)(1 + hdr[2] + 4) * 4);
            {
                char want[64];
                snprintf(want, sizeof want, "element %d|degenerate", elem);
                bad_bin("bin_degenerate.msh", c, n, want);
            }
            /* second-order block type */
            memcpy(c, b, n);
            hdr[0] = 11;
            memcpy(c + at, hdr, 4);
            bad_bin("bin_tet10.msh", c, n, "order");
            free(c);
        }
        free(b);
    }
}

static void write_tg(const char *base, const char *node, const char *ele, const char *face)
{
    char p[600];
    snprintf(p, sizeof p, "%s.node", base);
    if (node)
        write_file(p, node, strlen(node));
    else
        unlink(p);
    snprintf(p, sizeof p, "%s.ele", base);
    if (ele)
        write_file(p, ele, strlen(ele));
    else
        unlink(p);
    snprintf(p, sizeof p, "%s.face", base);
    if (face)
        write_file(p, face, strlen(face));
    else
        unlink(p);
}

static void bad_tg(const char *name, const char *node, const char *ele, const char *face, const char *which,
                   int line, const char *needles)
{
    char base[512], named[600];
    snprintf(base, sizeof base, "%s", tmp_path(name));
    write_tg(base, node, ele, face);
    snprintf(named, sizeof named, "%s.%s", base, which);
    expect_bad(base, named, line, needles);
}

#define TGN "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n"
#define TGE "1 4 0\n1 1 2 3 4\n"

static void test_malformed_tetgen(void)
{
    sipd_mesh m;
    {
        char base[512];
        snprintf(base, sizeof base, "%s", tmp_path("tg_good"));
        write_tg(base, TGN, TGE, "1 0\n1 1 2 3\n");
        CHECK(load_captured(base, &m) == SIPD_OK, "tetgen base case: %s", captured);
        mesh_free(&m);
        /* missing .ele is an I/O failure naming the file */
        write_tg(base, TGN, NULL, NULL);
        CHECK(load_captured(base, &m) == SIPD_EFAIL && strstr(captured, "tg_good.ele"), "missing .ele: %s",
              captured);
    }
    bad_tg("tg_garbage", "hello\n", TGE, NULL, "node", 1, "hello");
    bad_tg("tg_dim2", "4 2 0 0\n1 0 0\n", TGE, NULL, "node", 1, "dimension");
    bad_tg("tg_trunc", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n", TGE, NULL, "node", 4, "3 of the 4");
    bad_tg("tg_trunc_line", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0\n", TGE, NULL, "node", 5, "z coordinate");
    bad_tg("tg_extra", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n", TGE, NULL, "node", 6, "wrong count");
    bad_tg("tg_huge", "1000000000000000000 3 0 0\n1 0 0 0\n", TGE, NULL, "node", 1, "cannot hold");
    bad_tg("tg_nan", "4 3 0 0\n1 0 0 0\n# c\n\n2 1 NaN 0\n3 0 1 0\n4 0 0 1\n", TGE, NULL, "node", 5, "finite");
    bad_tg("tg_base2", "4 3 0 0\n2 0 0 0\n3 1 0 0\n4 0 1 0\n5 0 0 1\n", TGE, NULL, "node", 2, "0 or 1");
    bad_tg("tg_gap", "4 3 0 0\n1 0 0 0\n2 1 0 0\n4 0 1 0\n5 0 0 1\n", TGE, NULL, "node", 4, "consecutive");
    bad_tg("tg_oob", TGN, "1 4 0\n1 1 2 3 5\n", NULL, "ele", 2, "5");
    bad_tg("tg_oob0", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", "1 4 0\n0 0 1 2 4\n", NULL, "ele", 2,
           "out of range");
    bad_tg("tg_oob_neg", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", "1 4 0\n0 0 1 2 -1\n", NULL, "ele", 2,
           "out of range");
    bad_tg("tg_o2", TGN, "1 10 0\n1 1 2 3 4 1 2 3 4 1 2\n", NULL, "ele", 1, "second-order");
    bad_tg("tg_ele_trunc", TGN, "2 4 0\n1 1 2 3 4\n", NULL, "ele", 2, "1 of the 2");
    bad_tg("tg_ele_short", TGN, "1 4 0\n# x\n1 1 2 3\n", NULL, "ele", 3, "node index");
    bad_tg("tg_ele_nonnum", TGN, "1 4 0\n1 1 2 3 four\n", NULL, "ele", 2, "four");
    bad_tg("tg_ele_attr", TGN, "1 4 1\n1 1 2 3 4\n", NULL, "ele", 2, "region attribute");
    bad_tg("tg_degenerate", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n", "1 4 0\n\n17 1 2 3 4\n", NULL,
           "ele", 3, "element 17|degenerate");
    bad_tg("tg_empty_ele", TGN, "0 4 0\n", NULL, "ele", 0, "no tetrahedra");
    bad_tg("tg_face_oob", TGN, TGE, "1 1\n1 1 2 9 1\n", "face", 2, "9");
    bad_tg("tg_face_trunc", TGN, TGE, "2 1\n1 1 2 3 1\n", "face", 2, "1 of the 2");
}

/* ---- surface and curve meshes (gmsh types 2 and 1, OBJ) ---- */

static const char *CLOTH_GMSH[4] = {"cloth_v22_ascii.msh", "cloth_v22_bin.msh", "cloth_v41_ascii.msh",
                                    "cloth_v41_bin.msh"};
static const char *ROD_GMSH[4] = {"rod_v22_ascii.msh", "rod_v22_bin.msh", "rod_v41_ascii.msh", "rod_v41_bin.msh"};

static double tri_area(const sipd_mesh *m, int f)
{
    const int *t = m->tris + 3 * f;
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = m->x[3 * t[1] + k] - m->x[3 * t[0] + k];
        b[k] = m->x[3 * t[2] + k] - m->x[3 * t[0] + k];
    }
    cross(a, b, c);
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

static double seg_length(const sipd_mesh *m, int l)
{
    double s = 0;
    for (int k = 0; k < 3; k++) {
        double d = m->x[3 * m->lines[2 * l + 1] + k] - m->x[3 * m->lines[2 * l] + k];
        s += d * d;
    }
    return sqrt(s);
}

/* Every vertex is used by a body element (gmsh saves no stray nodes for these meshes). */
static int all_used(const sipd_mesh *m)
{
    char *u = calloc((size_t)m->nv, 1);
    int ok = 1;
    for (int i = 0; i < 3 * m->nf; i++) u[m->tris[i]] = 1;
    for (int i = 0; i < 2 * m->nl; i++) u[m->lines[i]] = 1;
    for (int i = 0; i < m->nv; i++) ok &= u[i];
    free(u);
    return ok;
}

/* The same cloth and rod written by gmsh 4.8.4 in four formats (tests/data/meshes/README.md):
 * the triangles (a rectangle 0.4 x 0.2: area 0.08, all in y = 0) and segments (0.2 + 0.1 m) are
 * the body; the boundary lines and corner points gmsh also saved are ignored; all four formats
 * give the same mesh bit for bit. */
static void test_kinds_gmsh(void)
{
    sipd_mesh c[4], r[4];
    for (int i = 0; i < 4; i++) {
        double area = 0, len = 0, ymax = 0;
        memset(&c[i], 0, sizeof c[i]);
        memset(&r[i], 0, sizeof r[i]);
        if (load_ok(data_path(CLOTH_GMSH[i]), &c[i])) {
            CHECK(c[i].dim == 2 && c[i].nt == 0 && c[i].nl == 0 && c[i].nf > 40, "%s: dim %d nt %d nl %d nf %d",
                  CLOTH_GMSH[i], c[i].dim, c[i].nt, c[i].nl, c[i].nf);
            for (int f = 0; f < c[i].nf; f++) area += tri_area(&c[i], f);
            for (int v = 0; v < c[i].nv; v++) ymax = fmax(ymax, fabs(c[i].x[3 * v + 1]));
            CHECK(fabs(area - 0.08) < 1e-12, "%s: area %.15g, expected 0.08", CLOTH_GMSH[i], area);
            CHECK(ymax == 0 && all_used(&c[i]), "%s: off-plane (%g) or unused vertices", CLOTH_GMSH[i], ymax);
        }
        if (load_ok(data_path(ROD_GMSH[i]), &r[i])) {
            CHECK(r[i].dim == 1 && r[i].nt == 0 && r[i].nf == 0 && r[i].nl == 11, "%s: dim %d nt %d nf %d nl %d",
                  ROD_GMSH[i], r[i].dim, r[i].nt, r[i].nf, r[i].nl);
            for (int l = 0; l < r[i].nl; l++) len += seg_length(&r[i], l);
            CHECK(fabs(len - 0.3) < 1e-12 && all_used(&r[i]), "%s: length %.15g, expected 0.3", ROD_GMSH[i], len);
        }
    }
    for (int i = 1; i < 4; i++) {
        CHECK(c[i].nv == c[0].nv && c[i].nf == c[0].nf && c[0].x && c[i].x &&
                  memcmp(c[i].x, c[0].x, sizeof(double) * 3 * (size_t)c[0].nv) == 0 &&
                  memcmp(c[i].tris, c[0].tris, sizeof(int) * 3 * (size_t)c[0].nf) == 0,
              "%s differs from %s", CLOTH_GMSH[i], CLOTH_GMSH[0]);
        CHECK(r[i].nv == r[0].nv && r[i].nl == r[0].nl && r[0].x && r[i].x &&
                  memcmp(r[i].x, r[0].x, sizeof(double) * 3 * (size_t)r[0].nv) == 0 &&
                  memcmp(r[i].lines, r[0].lines, sizeof(int) * 2 * (size_t)r[0].nl) == 0,
              "%s differs from %s", ROD_GMSH[i], ROD_GMSH[0]);
    }
    for (int i = 0; i < 4; i++) {
        mesh_free(&c[i]);
        mesh_free(&r[i]);
    }
}

/* OBJ: polygons fan-triangulated from the first corner, i/t/n corner forms and negative
 * indices, polylines split into segments, the ignored statements; faces and lines together
 * make a surface mesh (the lines only validated). */
static void test_kinds_obj(void)
{
    const char *cloth =
        "# a 2 x 1 quad strip and a pentagon\n"
        "mtllib none.mtl\no cloth\ng g1\ns off\nusemtl red\n"
        "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0 1.0\nv 1 1 0 0.5 0.5 0.5\nv 2 1 0\n"
        "vt 0 0\nvt 1 0\nvn 0 0 1\n"
        "f 1/1/1 2/2/1 5/2/1 4/1/1\n"   /* quad -> (0 1 4) (0 4 3) */
        "f -5//1 -4//1 -1//1 -2//1\n"   /* 2 3 6 5 -> (1 2 5) (1 5 4) */
        "v 3 0.5 0\n"
        "f 3 7 6  # trailing comment\n" /* (2 6 5) */
        "l 1 4\n";
    const char *rod = "v 0 0 0\nv 0.1 0 0\nv 0.2 0 0\nv 0.3 0.05 0\nl 1 2 3\nl 3/1 4/2\np 1\n";
    const int tris[5][3] = {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}, {2, 6, 5}};
    const int segs[3][2] = {{0, 1}, {1, 2}, {2, 3}};
    sipd_mesh m;
    write_file(tmp_path("cloth.obj"), cloth, strlen(cloth));
    write_file(tmp_path("rod.OBJ"), rod, strlen(rod));
    if (load_ok(tmp_path("cloth.obj"), &m)) {
        CHECK(m.dim == 2 && m.nv == 7 && m.nf == 5 && m.nt == 0, "cloth.obj: dim %d nv %d nf %d", m.dim, m.nv, m.nf);
        if (m.nf == 5)
            CHECK(memcmp(m.tris, tris, sizeof tris) == 0, "cloth.obj: fan triangulation differs");
        CHECK(m.x[3 * 3 + 1] == 1 && m.x[3 * 6] == 3 && m.x[3 * 6 + 1] == 0.5, "cloth.obj: coordinates");
        mesh_free(&m);
    }
    if (load_ok(data_path("cloth_quads.obj"), &m)) {   /* the fixture (also a fuzz seed) */
        double area = 0;
        for (int f = 0; f < m.nf; f++) area += tri_area(&m, f);
        CHECK(m.dim == 2 && m.nv == 12 && m.nf == 12 && fabs(area - 0.06) < 1e-15 && all_used(&m),
              "cloth_quads.obj: dim %d nv %d nf %d area %.17g", m.dim, m.nv, m.nf, area);
        mesh_free(&m);
    }
    if (load_ok(data_path("rod.obj"), &m)) {
        double len = 0;
        for (int l = 0; l < m.nl; l++) len += seg_length(&m, l);
        CHECK(m.dim == 1 && m.nv == 6 && m.nl == 5 && fabs(len - 0.25) < 1e-15, "rod.obj: dim %d nv %d nl %d len %g",
              m.dim, m.nv, m.nl, len);
        mesh_free(&m);
    }
    if (load_ok(tmp_path("rod.OBJ"), &m)) {
        CHECK(m.dim == 1 && m.nv == 4 && m.nl == 3, "rod.OBJ: dim %d nv %d nl %d", m.dim, m.nv, m.nl);
        if (m.nl == 3)
            CHECK(memcmp(m.lines, segs, sizeof segs) == 0, "rod.OBJ: segments differ");
        mesh_free(&m);
    }
}

static void bad_obj(const char *name, const char *text, int line, const char *needles)
{
    const char *p = tmp_path(name);
    write_file(p, text, strlen(text));
    expect_bad(p, p, line, needles);
}

static void test_malformed_obj(void)
{
#define V3 "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
    bad_obj("o_empty.obj", "", 0, "no vertices");
    bad_obj("o_novert.obj", "# nothing\nf 1 2 3\n", 0, "no vertices");
    bad_obj("o_noelem.obj", V3, 0, "no tetrahedra, triangles or line segments");
    bad_obj("o_zero.obj", V3 "f 0 1 2\n", 4, "face corner 0|no vertex");
    bad_obj("o_range.obj", V3 "f 1 2 4\n", 4, "face corner 4");
    bad_obj("o_neg.obj", V3 "f -1 -2 -4\n", 4, "face corner -4|so far");
    bad_obj("o_forward.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 3, "further down");
    bad_obj("o_few.obj", V3 "f 1 2\n", 4, "at least 3");
    bad_obj("o_fewl.obj", V3 "l 1\n", 4, "at least 2");
    bad_obj("o_text.obj", V3 "f 1 two 3\n", 4, "two");
    bad_obj("o_slash.obj", V3 "f 1/x 2 3\n", 4, "texture/normal");
    bad_obj("o_nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", 2, "finite");
    bad_obj("o_huge.obj", "v 0 0 0\nv 1e31 0 0\nv 0 1 0\nf 1 2 3\n", 2, "out of range");
    bad_obj("o_short.obj", "v 0 0\n", 1, "z");
    bad_obj("o_extra.obj", "v 0 0 0 1 1\n", 1, "3 coordinates");
    bad_obj("o_many.obj", "v 0 0 0 1 1 1 1\n", 1, "3 coordinates");
    bad_obj("o_curv.obj", V3 "cstype bspline\n", 4, "free-form");
    bad_obj("o_unknown.obj", V3 "vx 1 2 3\n", 4, "unknown OBJ statement 'vx'");
    bad_obj("o_cont.obj", V3 "f 1 2 \\\n3\n", 4, "continuation");
    bad_obj("o_degen.obj", V3 "f 1 2 3\nf 1 2 2\n", 5, "element 2|degenerate triangle");
    bad_obj("o_degenl.obj", V3 "l 1 2 2\n", 4, "degenerate line");
    bad_obj("o_bigidx.obj", V3 "f 1 2 99999999999\n", 4, "out of range");
    {
        static const char nul[] = "v 0 0 0\nv 1 0\0 0\nv 0 1 0\nf 1 2 3\n";
        const char *p = tmp_path("o_nul.obj");
        write_file(p, nul, sizeof nul - 1);
        expect_bad(p, p, 0, "NUL");
    }
#undef V3
}

/* initial_positions from an .obj for a surface mesh (initpos.h): the positions of a moved copy
 * are taken; a copy with another triangle, or a curve mesh, is refused. */
static void test_kinds_initpos(void)
{
    const char *moved = "v 0 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0.5\nf 1 2 3\nf 1 3 4\n";
    const char *other = "v 0 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0.5\nf 1 2 3\nf 1 2 4\n";
    const char *base = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n";
    const char *curve = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nl 1 2 3 4\n";
    sipd_mesh me;
    double out[12];
    char err[512];
    int world = -1, rc;
    write_file(tmp_path("ip_base.obj"), base, strlen(base));
    write_file(tmp_path("ip_moved.obj"), moved, strlen(moved));
    write_file(tmp_path("ip_other.obj"), other, strlen(other));
    write_file(tmp_path("ip_curve.obj"), curve, strlen(curve));
    if (!load_ok(tmp_path("ip_base.obj"), &me))
        return;
    rc = initpos_load(tmp_path("ip_moved.obj"), &me, 0, out, &world, err, sizeof err);
    CHECK(rc == SIPD_OK && world == 0 && out[1] == 1 && out[3 * 2 + 1] == 2 && out[3 * 3 + 2] == 0.5,
          "initial positions from a moved .obj: rc %d world %d (%s)", rc, world, err);
    rc = initpos_load(tmp_path("ip_other.obj"), &me, 0, out, &world, err, sizeof err);
    CHECK(rc == SIPD_EINPUT && strstr(err, "triangle 2 has other vertices"), "other topology: rc %d: %s", rc, err);
    rc = initpos_load(tmp_path("ip_curve.obj"), &me, 0, out, &world, err, sizeof err);
    CHECK(rc == SIPD_EINPUT && strstr(err, "3 segments, the mesh has 4 and 2 triangles"), "curve for a surface: rc %d: %s",
          rc, err);
    mesh_free(&me);
}

static void test_kinds(void)
{
    test_kinds_initpos();
    test_kinds_gmsh();
    test_kinds_obj();
    test_malformed_obj();
}

static void test_malformed(void)
{
    test_malformed_gmsh_text();
    test_malformed_gmsh_binary();
    test_malformed_tetgen();
}

/* ---------------------------------------------------------------------------------- */
/* Performance: ~1M tets, ASCII                                                         */

static void test_perf(void)
{
    const int N = 55; /* N^3 cubes * 6 = 998250 tets */
    const char *p = tmp_path("big.msh");
    int np = N + 1;
    FILE *f = fopen(p, "w");
    sipd_mesh m;
    double t0, dt;
    long long e = 0;
    /* Kuhn subdivision: six tets per cube along the paths 0 -> 7 (bit x=1, y=2, z=4);
     * half of them come out negatively oriented, which the loader must correct. */
    static const int perm[6][3] = {{1, 2, 4}, {1, 4, 2}, {2, 1, 4}, {2, 4, 1}, {4, 1, 2}, {4, 2, 1}};
    if (!f) {
        CHECK(0, "cannot write %s", p);
        return;
    }
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", np * np * np);
    for (int k = 0; k < np; k++)
        for (int j = 0; j < np; j++)
            for (int i = 0; i < np; i++)
                fprintf(f, "%d %.17g %.17g %.17g\n", 1 + i + np * (j + np * k), (double)i / N, (double)j / N,
                        (double)k / N);
    fprintf(f, "$EndNodes\n$Elements\n%d\n", 6 * N * N * N);
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                for (int t = 0; t < 6; t++) {
                    int c = 0, v[4];
                    for (int s = 0; s < 4; s++) {
                        if (s > 0)
                            c |= perm[t][s - 1];
                        v[s] = 1 + (i + (c & 1)) + np * ((j + ((c >> 1) & 1)) + np * (k + ((c >> 2) & 1)));
                    }
                    fprintf(f, "%lld 4 2 1 1 %d %d %d %d\n", ++e, v[0], v[1], v[2], v[3]);
                }
    fprintf(f, "$EndElements\n");
    fclose(f);
    t0 = sipd_now();
    if (load_ok(p, &m)) {
        dt = sipd_now() - t0;
        printf("perf: %d nodes, %d tets, %d surface triangles loaded in %.2f s\n", m.nv, m.nt, m.nf, dt);
        CHECK(m.nt == 6 * N * N * N, "nt %d", m.nt);
        CHECK(m.nf == 12 * N * N, "nf %d, expected %d", m.nf, 12 * N * N);
        /* 10^6 rounded summands: looser than the 1e-12 used for the small fixtures */
        check_volume_tol("big.msh", &m, 1.0, 1e-9);
        check_surface("big.msh", &m, 6.0, 0);
#ifndef SIPD_TEST_SANITIZED
        CHECK(dt < 5.0, "loading 1M tets took %.2f s", dt);
#endif
    }
    mesh_free(&m);
    unlink(p);
}

/* ---------------------------------------------------------------------------------- */

static void rm_tmp(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_dir);
}

static int prog_setup(const char *which, int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    (void)which, (void)argc;
    data_dir = argv[2];
    snprintf(tmp_dir, sizeof tmp_dir, "%s/sipd-mesh-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

static const test_case cases[] = {
    {"gmsh_variants", .run = test_gmsh_variants, .args = "DATA_DIR"},
    {"tetgen", .run = test_tetgen, .args = "DATA_DIR"},
    {"volume", .run = test_volume, .args = "DATA_DIR"},
    {"surface", .run = test_surface, .args = "DATA_DIR"},
    {"sparse", .run = test_sparse, .args = "DATA_DIR"},
    {"tetgen_hand", .run = test_tetgen_hand, .args = "DATA_DIR"},
    {"malformed", .run = test_malformed, .args = "DATA_DIR"},
    {"kinds", .run = test_kinds, .args = "DATA_DIR"},
    {"perf", .run = test_perf, .args = "DATA_DIR"},
};
static const test_program program = {"test_mesh", TEST_CASES(cases), .setup = prog_setup, .teardown = rm_tmp};
TEST_MAIN(program)
