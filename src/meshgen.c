#include "meshgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int vid(int i, int j, int k, int nx, int ny) { return i + (nx + 1) * (j + (ny + 1) * k); }

/* Outward boundary faces of a box mesh: the faces of tets lying on the box boundary. */
static int on_plane(const double *x, int a, int b, int c, int axis, double v)
{
    return x[3 * a + axis] == v && x[3 * b + axis] == v && x[3 * c + axis] == v;
}

int meshgen_box(int nx, int ny, int nz, double lx, double ly, double lz, sipd_mesh *m)
{
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int fl[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    int i, j, k, p, e = 0, f = 0, cap;
    double L[3];
    memset(m, 0, sizeof *m);
    if (nx < 1 || ny < 1 || nz < 1)
        return SIPD_EINPUT;
    L[0] = lx; L[1] = ly; L[2] = lz;
    m->dim = 3;
    m->nv = (nx + 1) * (ny + 1) * (nz + 1);
    m->nt = 6 * nx * ny * nz;
    cap = 4 * (nx * ny + ny * nz + nx * nz);
    m->x = sipd_malloc((size_t)m->nv * 3 * sizeof(double));
    m->tets = sipd_malloc((size_t)m->nt * 4 * sizeof(int));
    m->tris = sipd_malloc((size_t)cap * 3 * sizeof(int));
    if (!m->x || !m->tets || !m->tris) {
        mesh_free(m);
        return SIPD_EFAIL;
    }
    for (k = 0; k <= nz; k++)
        for (j = 0; j <= ny; j++)
            for (i = 0; i <= nx; i++) {
                int v = vid(i, j, k, nx, ny);
                m->x[3 * v] = lx * i / nx;
                m->x[3 * v + 1] = ly * j / ny;
                m->x[3 * v + 2] = lz * k / nz;
            }
    for (k = 0; k < nz; k++)
        for (j = 0; j < ny; j++)
            for (i = 0; i < nx; i++)
                for (p = 0; p < 6; p++) {
                    int c[3] = {i, j, k}, q, t[4], a;
                    double d[3][3], det;
                    t[0] = vid(c[0], c[1], c[2], nx, ny);
                    for (q = 0; q < 3; q++) {
                        c[perm[p][q]]++;
                        t[q + 1] = vid(c[0], c[1], c[2], nx, ny);
                    }
                    for (q = 0; q < 3; q++)
                        for (a = 0; a < 3; a++) d[q][a] = m->x[3 * t[q + 1] + a] - m->x[3 * t[0] + a];
                    det = d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) -
                          d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                          d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
                    if (det < 0) {
                        int tmp = t[2];
                        t[2] = t[3];
                        t[3] = tmp;
                    }
                    memcpy(m->tets + 4 * e, t, sizeof t);
                    /* faces on the box boundary, outward for a positive tet */
                    for (q = 0; q < 4; q++) {
                        int A = t[fl[q][0]], B = t[fl[q][1]], C = t[fl[q][2]], ax;
                        for (ax = 0; ax < 3; ax++)
                            if (on_plane(m->x, A, B, C, ax, 0.0) || on_plane(m->x, A, B, C, ax, L[ax])) {
                                if (f < cap) {
                                    m->tris[3 * f] = A;
                                    m->tris[3 * f + 1] = B;
                                    m->tris[3 * f + 2] = C;
                                }
                                f++;
                                break;
                            }
                    }
                    e++;
                }
    m->nf = f < cap ? f : cap;
    return SIPD_OK;
}

int meshgen_rod(int segments, double length, sipd_mesh *m)
{
    int i;
    memset(m, 0, sizeof *m);
    if (segments < 1 || !(length > 0))
        return SIPD_EINPUT;
    m->dim = 1;
    m->nv = segments + 1;
    m->nl = segments;
    m->x = sipd_calloc((size_t)m->nv * 3, sizeof(double));
    m->lines = sipd_malloc((size_t)segments * 2 * sizeof(int));
    if (!m->x || !m->lines) {
        mesh_free(m);
        return SIPD_EFAIL;
    }
    for (i = 0; i <= segments; i++) m->x[3 * i] = length * i / segments;
    for (i = 0; i < segments; i++) {
        m->lines[2 * i] = i;
        m->lines[2 * i + 1] = i + 1;
    }
    return SIPD_OK;
}

int meshgen_cloth(int nx, int nz, double lx, double lz, sipd_mesh *m)
{
    int i, k, f = 0;
    memset(m, 0, sizeof *m);
    if (nx < 1 || nz < 1 || !(lx > 0) || !(lz > 0))
        return SIPD_EINPUT;
    m->dim = 2;
    m->nv = (nx + 1) * (nz + 1);
    m->nf = 2 * nx * nz;
    m->x = sipd_calloc((size_t)m->nv * 3, sizeof(double));
    m->tris = sipd_malloc((size_t)m->nf * 3 * sizeof(int));
    if (!m->x || !m->tris) {
        mesh_free(m);
        return SIPD_EFAIL;
    }
    for (k = 0; k <= nz; k++)
        for (i = 0; i <= nx; i++) {
            m->x[3 * (i + (nx + 1) * k)] = lx * i / nx;
            m->x[3 * (i + (nx + 1) * k) + 2] = lz * k / nz;
        }
    for (k = 0; k < nz; k++)
        for (i = 0; i < nx; i++) {
            int a = i + (nx + 1) * k, b = a + 1, c = a + nx + 2, d = a + nx + 1;
            /* (a, c, b) and (a, d, c): (c − a) × (b − a) points along +y for x right, z forward;
               in every other row the other diagonal (b, d): (b, a, d) and (b, d, c) */
            int t0[6] = {a, c, b, a, d, c}, t1[6] = {b, a, d, b, d, c};
            memcpy(m->tris + 3 * f, k % 2 ? t1 : t0, sizeof t0);
            f += 2;
        }
    return SIPD_OK;
}

int mesh_write_tetgen(const char *base, const sipd_mesh *m)
{
    size_t n = strlen(base) + 8;
    char *path = sipd_malloc(n);
    FILE *f;
    int i;
    if (!path)
        return SIPD_EFAIL;
    snprintf(path, n, "%s.node", base);
    if (!(f = fopen(path, "w")))
        goto fail;
    fprintf(f, "# written by sipd-run meshgen\n%d 3 0 0\n", m->nv);
    for (i = 0; i < m->nv; i++) fprintf(f, "%d %.17g %.17g %.17g\n", i + 1, m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
    if (fclose(f))
        goto fail;
    snprintf(path, n, "%s.ele", base);
    if (!(f = fopen(path, "w")))
        goto fail;
    fprintf(f, "%d 4 0\n", m->nt);
    for (i = 0; i < m->nt; i++)
        fprintf(f, "%d %d %d %d %d\n", i + 1, m->tets[4 * i] + 1, m->tets[4 * i + 1] + 1, m->tets[4 * i + 2] + 1,
                m->tets[4 * i + 3] + 1);
    if (fclose(f))
        goto fail;
    snprintf(path, n, "%s.face", base);
    if (!(f = fopen(path, "w")))
        goto fail;
    fprintf(f, "%d 0\n", m->nf);
    for (i = 0; i < m->nf; i++)
        fprintf(f, "%d %d %d %d\n", i + 1, m->tris[3 * i] + 1, m->tris[3 * i + 1] + 1, m->tris[3 * i + 2] + 1);
    if (fclose(f))
        goto fail;
    free(path);
    return SIPD_OK;
fail:
    sipd_error("cannot write %s", path);
    free(path);
    return SIPD_EFAIL;
}
