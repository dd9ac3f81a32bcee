/* test_conformance.c — every element kind of SIPD_KINDS (src/kinds/kind.h) through the same
 * checks, on the elements of a scene that has every kind (tests/data/conformance/every_kind.cfg,
 * gmsh meshes and the real builders' rest data).  A new kind is tested by adding its row to the
 * list and a body of its kind to the scene; `coverage` fails until that body exists.
 *
 * The checks call the kinds' dispatch (kinds/kinds.h), as the passes do, on a view of the model's
 * arrays (float64), for up to NSAMPLE elements per kind.  An element's unknowns are its distinct
 * vertices (a mid-edge stencil may name a vertex twice at a free edge); a corner's gradient and
 * blocks are summed into its vertex.
 *   coverage FILE  every kind of the list has elements in FILE's model, and the list's metadata
 *                  agrees with the groups (corners, rest size)
 *   rest FILE      at the rest configuration the element gradient vanishes (every kind's rest is
 *                  its reference shape) and the element Hessian (HESSIAN) equals the central
 *                  difference of the gradient: at a minimum the PSD projection and the Gauss–Newton
 *                  term drop nothing, so the analytic Hessian is checked exactly
 *   gradient FILE  at random deformations (rotated, stretched, perturbed) the element pass's
 *                  gradient equals the central difference of the element energy
 *   corner FILE    the corner pass (Gauss–Seidel, VBD) agrees with the element pass: each corner's
 *                  gradient, the energy, and its blocks (BLOCK: the element pass's vertex block;
 *                  the kinds without a pairwise K: the element pass's block is c ≥ 1 times the
 *                  corner's, its majoriser)
 *   psd FILE       at the random deformations every stored block (SPLIT, BLOCK, DIAG) and the
 *                  NEWTON element Hessian is positive semi-definite, and for the kinds without a
 *                  pairwise K the SPLIT blocks majorise the element Hessian (block-diagonal − H ⪰ 0)
 *   rigid FILE     the energy is invariant under a rigid motion, and so is the gradient (rotated)
 *                  and the incidence weights and scales are positive and finite
 * The CUDA backend runs the same scene against the CPU in the GPU tests (gpu_kinds_every_kind,
 * tests/gpu/gpu.cmake; the emulation build in CI).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/kinds.h"
#include "check.h"
#include "model.h"
#include "scene.h"
#include "util.h"
#include "runner.h"
#include "fd.h"
#include "rng.h"

#define NSAMPLE 6
#define NDEFORM 3
#define MAXV SIPD_MAX_CORNERS
#define MAXN (3 * MAXV)

static struct {
    sipd_scene sc;
    sipd_model m;
} F;
static sipd_view V;
static double *Y;   /* the view's positions, nv*3 */

static const char *kind_name(int k)
{
#define NAME_(K, name, nc, rest, pc, ns) k == SIPD_KIND_##K ? #name:
    return SIPD_KINDS(NAME_) "?";
#undef NAME_
}

static int view_setup(void)
{
    const sipd_model *m = &F.m;
    int g;
    memset(&V, 0, sizeof V);
    Y = malloc(sizeof(double) * 3 * (size_t)m->nv);
    if (!Y)
        return 1;
    memcpy(Y, m->X, sizeof(double) * 3 * (size_t)m->nv);
    V.nv = m->nv;
    V.ngroups = m->ngroups;
    V.y = Y;
    V.mats = m->mats;
    for (g = 0; g < m->ngroups; g++) {
        const sipd_elem_group *G = &m->groups[g];
        sipd_group_view *W = &V.grp[g];
        size_t ne = (size_t)(G->ne > 0 ? G->ne : 1);
        view_group_init(W, G->kind, G->nc, G->ne);
        W->v = G->v;
        W->rest = G->rest;
        W->vol = G->vol;
        W->mat = G->mat;
        W->grad = calloc(ne * kind_grad_size(G->kind), sizeof(double));
        W->blk = calloc(ne * kind_block_size(G->kind, 1), sizeof(double));
        W->hess = calloc(ne * kind_hessian_size(G->kind), sizeof(double));
        if (!W->grad || !W->blk || !W->hess)
            return 1;
    }
    return 0;
}

static void view_free(void)
{
    int g;
    for (g = 0; g < V.ngroups; g++) {
        free(V.grp[g].grad);
        free(V.grp[g].blk);
        free(V.grp[g].hess);
    }
    free(Y);
}

/* element e of group g: its distinct vertices and each corner's index among them */
typedef struct {
    int g, e, kind, nc, nv, vert[MAXV], slot[MAXV];
} elem;

static elem elem_make(int g, int e)
{
    const sipd_group_view *G = &V.grp[g];
    elem E;
    int l, j;
    memset(&E, 0, sizeof E);
    E.g = g;
    E.e = e;
    E.kind = G->kind;
    E.nc = G->nc;
    for (l = 0; l < G->nc; l++) {
        int a = G->v[(size_t)G->nc * e + l];
        for (j = 0; j < E.nv && E.vert[j] != a; j++) {}
        if (j == E.nv)
            E.vert[E.nv++] = a;
        E.slot[l] = j;
    }
    return E;
}

static const sipd_material *elem_mat(const elem *E) { return &V.mats[V.grp[E->g].mat[E->e]]; }

static void elem_set(const elem *E, const double *x)
{
    int j;
    for (j = 0; j < E->nv; j++) memcpy(Y + 3 * (size_t)E->vert[j], x + 3 * j, 3 * sizeof(double));
}

static void elem_get(const elem *E, double *x)
{
    int j;
    for (j = 0; j < E->nv; j++) memcpy(x + 3 * j, Y + 3 * (size_t)E->vert[j], 3 * sizeof(double));
}

static double elem_energy(const double *x, const void *ctx)
{
    const elem *E = ctx;
    elem_set(E, x);
    return kinds_energy(&V, elem_mat(E), E->kind, &V.grp[E->g], E->e, NULL, 0, -1, v3(0, 0, 0));
}

/* the element pass with preconditioner P at x; the gradient summed per distinct vertex */
static void elem_pass(const elem *E, const double *x, int P, double *g)
{
    const sipd_group_view *G = &V.grp[E->g];
    int l, k;
    elem_set(E, x);
    kinds_element(&V, elem_mat(E), P, SIPD_SPLIT_EXPANDED, G, E->e);
    if (g) {
        memset(g, 0, sizeof(double) * 3 * E->nv);
        for (l = 0; l < E->nc; l++)
            for (k = 0; k < 3; k++) g[3 * E->slot[l] + k] += G->grad[(size_t)kind_grad_size(E->kind) * E->e + 3 * l + k];
    }
}

static void elem_gradient(const double *x, const void *ctx, double *g) { elem_pass(ctx, x, SIPD_PRECOND_SPLIT, g); }

/* the NEWTON element Hessian at x, summed per distinct vertex (n = 3 nv, row-major) */
static void elem_hessian(const elem *E, const double *x, double *H)
{
    const sipd_group_view *G = &V.grp[E->g];
    const int n3 = 3 * E->nc, n = 3 * E->nv;
    const double *He;
    int a, b, r, s;
    elem_pass(E, x, SIPD_PRECOND_HESSIAN, NULL);
    He = G->hess + (size_t)kind_hessian_size(E->kind) * E->e;
    memset(H, 0, sizeof(double) * n * n);
    for (a = 0; a < E->nc; a++)
        for (b = 0; b < E->nc; b++)
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) H[n * (3 * E->slot[a] + r) + 3 * E->slot[b] + s] += He[n3 * (3 * a + r) + 3 * b + s];
}

static double max_abs(int n, const double *a)
{
    double m = 0;
    int i;
    for (i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* the element's size: the largest distance of a vertex from the first */
static double elem_size(const elem *E, const double *x)
{
    double s = 0;
    int j;
    for (j = 1; j < E->nv; j++) s = fmax(s, sqrt(v3_norm2(v3_sub(v3_load(x + 3 * j), v3_load(x)))));
    return s;
}

/* 1 when the symmetric n×n A + tol I is positive definite (Cholesky) */
static int psd(int n, const double *A, double tol)
{
    double L[MAXN * MAXN];
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j <= i; j++) {
            double s = 0.5 * (A[n * i + j] + A[n * j + i]) + (i == j ? tol : 0);
            for (k = 0; k < j; k++) s -= L[n * i + k] * L[n * j + k];
            if (i == j) {
                if (!(s > 0))
                    return 0;
                L[n * i + i] = sqrt(s);
            } else {
                L[n * i + j] = s / L[n * j + j];
            }
        }
    return 1;
}

/* a random rotation (unit quaternion) */
static mat3 random_rotation(void)
{
    double q[4], n = 0;
    mat3 R;
    int i;
    for (i = 0; i < 4; i++) {
        q[i] = rndu(-1, 1);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    for (i = 0; i < 4; i++) q[i] /= n;
    R.m[0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]); R.m[1] = 2 * (q[1] * q[2] - q[0] * q[3]); R.m[2] = 2 * (q[1] * q[3] + q[0] * q[2]);
    R.m[3] = 2 * (q[1] * q[2] + q[0] * q[3]); R.m[4] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]); R.m[5] = 2 * (q[2] * q[3] - q[0] * q[1]);
    R.m[6] = 2 * (q[1] * q[3] - q[0] * q[2]); R.m[7] = 2 * (q[2] * q[3] + q[0] * q[1]); R.m[8] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
    return R;
}

/* deformation d of the element's rest positions X: 0 none; else a rotation about its first vertex,
 * a stretch of up to 15% along a random axis and a perturbation of 5% of its size per vertex */
static void deform(const elem *E, const double *X, int d, double *x)
{
    const double size = elem_size(E, X);
    mat3 R = random_rotation();
    vec3 o = v3_load(X), ax = v3(rndu(-1, 1), rndu(-1, 1), rndu(-1, 1));
    double st = rndu(-0.15, 0.15);
    int j, k;
    ax = v3_scale(ax, 1 / sqrt(v3_norm2(ax)));
    for (j = 0; j < E->nv; j++) {
        vec3 p = v3_sub(v3_load(X + 3 * j), o);
        if (d == 0) {
            v3_store(x + 3 * j, v3_load(X + 3 * j));
            continue;
        }
        p = v3_axpy(st * v3_dot(p, ax), ax, p);
        p = m3_mulv(R, p);
        for (k = 0; k < 3; k++) p.v[k] += 0.05 * size * rndu(-1, 1);
        v3_store(x + 3 * j, v3_add(o, p));
    }
}

/* calls f(E, X, x) for up to NSAMPLE elements of every kind at NDEFORM deformations (deformation 0
 * is the rest configuration when rest0, else skipped) */
typedef void (*elem_check)(const elem *E, const double *X, const double *x, int d);

static void for_each_sample(elem_check f, int with_rest)
{
    int g;
    rng_seed(20261204);
    for (g = 0; g < V.ngroups; g++) {
        const sipd_group_view *G = &V.grp[g];
        int i, d;
        for (i = 0; i < NSAMPLE && i < G->ne; i++) {
            elem E = elem_make(g, (int)((long)i * G->ne / NSAMPLE));
            double X[MAXN], x[MAXN];
            memcpy(Y, F.m.X, sizeof(double) * 3 * (size_t)F.m.nv);
            elem_get(&E, X);
            for (d = with_rest ? 0 : 1; d < (with_rest ? 1 : NDEFORM + 1); d++) {
                deform(&E, X, d, x);
                f(&E, X, x, d);
            }
            elem_set(&E, X);
        }
    }
}

/* ---- coverage --------------------------------------------------------------------------------- */

static void test_coverage(void)
{
#define COVER_(K, name, NC, REST, PC, NS)                                                          \
    {                                                                                             \
        int g = F.m.group_of[SIPD_KIND_##K];                                                      \
        CHECK(g >= 0 && F.m.groups[g].ne > 0, "kind %s has no element in the conformance scene: add a body", #name); \
        if (g >= 0) {                                                                             \
            CHECK(F.m.groups[g].nc == NC && kind_corners(SIPD_KIND_##K) == NC, "kind %s: corners", #name); \
            CHECK(kind_rest_size(SIPD_KIND_##K) == REST, "kind %s: rest size", #name);            \
            CHECK(kind_split_per_corner(SIPD_KIND_##K) == PC, "kind %s: per-corner", #name);      \
            CHECK(kind_mixed_stretch(SIPD_KIND_##K) == NS && (NS > 0) == kinds_mixed(SIPD_KIND_##K), \
                  "kind %s: mixed stretch %d, SIPD_MIXED_KINDS %d", #name, NS, kinds_mixed(SIPD_KIND_##K)); \
        }                                                                                         \
        printf("kind %-9s %6d elements\n", #name, g >= 0 ? F.m.groups[g].ne : 0);                 \
    }
    SIPD_KINDS(COVER_)
#undef COVER_
    CHECK(SIPD_KIND_COUNT == 6, "the list has %d kinds: update the conformance scene's comment", SIPD_KIND_COUNT);
}

/* ---- rest --------------------------------------------------------------------------------------- */

static double worst_rest_g[SIPD_KIND_COUNT], worst_rest_h[SIPD_KIND_COUNT];

static void check_rest(const elem *E, const double *X, const double *x, int d)
{
    const int n = 3 * E->nv;
    double g[MAXN], H[MAXN * MAXN], Hfd[MAXN * MAXN], size = elem_size(E, X);
    double hs, scale = kinds_scale(E->kind, elem_mat(E), V.grp[E->g].rest + (size_t)kind_rest_size(E->kind) * E->e,
                                   V.grp[E->g].vol[E->e]);
    (void)d;
    elem_gradient(x, E, g);
    /* the gradient's scale: the energy scale over a length */
    worst_rest_g[E->kind] = fmax(worst_rest_g[E->kind], max_abs(n, g) / (scale / size));
    elem_hessian(E, x, H);
    hs = 1e-6 * size;
    fd_jacobian(n, n, x, hs, elem_gradient, E, Hfd);
    worst_rest_h[E->kind] = fmax(worst_rest_h[E->kind], fd_rel_err(n * n, H, Hfd));
}

static void test_rest(void)
{
    int k;
    for_each_sample(check_rest, 1);
    for (k = 0; k < SIPD_KIND_COUNT; k++) {
        printf("kind %-9s rest: |g| %.2e of scale/size, Hessian vs central differences %.2e\n", kind_name(k),
               worst_rest_g[k], worst_rest_h[k]);
        CHECK(worst_rest_g[k] < 1e-9, "kind %s: gradient %.3e at rest", kind_name(k), worst_rest_g[k]);
        CHECK(worst_rest_h[k] < 1e-6, "kind %s: Hessian at rest vs FD %.3e", kind_name(k), worst_rest_h[k]);
    }
}

/* ---- gradient ------------------------------------------------------------------------------------ */

static double worst_grad[SIPD_KIND_COUNT];

static void check_gradient(const elem *E, const double *X, const double *x, int d)
{
    const int n = 3 * E->nv;
    double g[MAXN], gfd[MAXN];
    (void)d;
    elem_gradient(x, E, g);
    fd_gradient(n, x, 1e-6 * elem_size(E, X), elem_energy, E, gfd);
    worst_grad[E->kind] = fmax(worst_grad[E->kind], fd_rel_err(n, g, gfd));
}

static void test_gradient(void)
{
    int k;
    for_each_sample(check_gradient, 0);
    for (k = 0; k < SIPD_KIND_COUNT; k++) {
        printf("kind %-9s gradient vs central differences of the energy: %.2e\n", kind_name(k), worst_grad[k]);
        CHECK(worst_grad[k] < 1e-6, "kind %s: gradient vs FD %.3e", kind_name(k), worst_grad[k]);
    }
}

/* ---- corner --------------------------------------------------------------------------------------- */

static double worst_corner[SIPD_KIND_COUNT];

static double s3_rel(sym3 a, sym3 b)
{
    double d = 0, s = 0;
    int i;
    for (i = 0; i < 6; i++) {
        d = fmax(d, fabs(a.s[i] - b.s[i]));
        s = fmax(s, fabs(b.s[i]));
    }
    return d / fmax(s, 1e-300);
}

static void check_corner(const elem *E, const double *X, const double *x, int d)
{
    const sipd_group_view *G = &V.grp[E->g];
    const int pc = kind_split_per_corner(E->kind), gs = kind_grad_size(E->kind);
    double Eref, worst = 0, gscale = 0;
    vec3 ge[MAXV];
    sym3 Be[MAXV];
    int l;
    (void)X;
    (void)d;
    Eref = elem_energy(x, E);
    elem_pass(E, x, SIPD_PRECOND_BLOCK, NULL);
    for (l = 0; l < E->nc; l++) {
        ge[l] = v3_load(G->grad + (size_t)gs * E->e + 3 * l);
        s3_load(G->blk + (size_t)6 * E->nc * E->e + 6 * l, &Be[l]);
        gscale = fmax(gscale, sqrt(v3_norm2(ge[l])));
    }
    for (l = 0; l < E->nc; l++) {
        sym3 D = s3_zero();
        double en = 0, sc = 0;
        vec3 gc = kinds_corner(&V, elem_mat(E), E->kind, SIPD_PRECOND_BLOCK, SIPD_SPLIT_EXPANDED, G, E->e, l, 1, &D, &en,
                               &sc);
        worst = fmax(worst, sqrt(v3_norm2(v3_sub(gc, ge[l]))) / fmax(gscale, 1e-300));
        worst = fmax(worst, fabs(en - Eref) / fmax(fabs(Eref), sc * 1e-12));
        /* BLOCK: the element pass stores the corner's block; the kinds without a pairwise K store
           a multiple c ≥ 1 of it, the majoriser of kinds/common.h (nc for rod bending and hinges,
           the weighted S/s_l of physics/midedge.h), checked to majorise by `psd` */
        if (pc) {
            double tD = D.s[0] + D.s[1] + D.s[2], c = tD > 0 ? (Be[l].s[0] + Be[l].s[1] + Be[l].s[2]) / tD : 1;
            worst = fmax(worst, s3_rel(s3_axpy(c, D, s3_zero()), Be[l]));
            if (c < 1 - 1e-12)
                worst = fmax(worst, 1 - c);
        } else {
            worst = fmax(worst, s3_rel(D, Be[l]));
        }
    }
    worst_corner[E->kind] = fmax(worst_corner[E->kind], worst);
}

static void test_corner(void)
{
    int k;
    for_each_sample(check_corner, 0);
    for (k = 0; k < SIPD_KIND_COUNT; k++) {
        printf("kind %-9s corner pass vs element pass (gradient, energy, block): %.2e\n", kind_name(k), worst_corner[k]);
        CHECK(worst_corner[k] < 1e-12, "kind %s: corner pass vs element pass %.3e", kind_name(k), worst_corner[k]);
    }
}

/* ---- psd ------------------------------------------------------------------------------------------ */

static int bad_psd[SIPD_KIND_COUNT], bad_major[SIPD_KIND_COUNT];

static void check_psd(const elem *E, const double *X, const double *x, int d)
{
    const sipd_group_view *G = &V.grp[E->g];
    const int n = 3 * E->nv, pc = kind_split_per_corner(E->kind);
    static const int P[3] = {SIPD_PRECOND_SPLIT, SIPD_PRECOND_BLOCK, SIPD_PRECOND_DIAG};
    double H[MAXN * MAXN], hs;
    int p, l;
    (void)X;
    (void)d;
    elem_hessian(E, x, H);
    hs = max_abs(n * n, H);
    if (!psd(n, H, 1e-9 * hs))
        bad_psd[E->kind]++;
    for (p = 0; p < 3; p++) {
        int nb = P[p] == SIPD_PRECOND_SPLIT && !pc ? 1 : E->nc, stride = P[p] == SIPD_PRECOND_SPLIT && !pc ? 6 : 6 * E->nc;
        double M[MAXN * MAXN];
        elem_pass(E, x, P[p], NULL);
        memcpy(M, H, sizeof(double) * n * n);
        for (l = 0; l < nb; l++) {
            sym3 B;
            double b[9], bs;
            int r, s;
            s3_load(G->blk + (size_t)stride * E->e + 6 * l, &B);
            mat3 Bm = s3_to_m3(B);
            memcpy(b, Bm.m, sizeof b);
            bs = max_abs(9, b);
            if (!psd(3, b, 1e-9 * fmax(bs, hs)))
                bad_psd[E->kind]++;
            /* SPLIT, kinds without a pairwise K: blockdiag(stored blocks) − H ⪰ 0 */
            if (P[p] == SIPD_PRECOND_SPLIT && pc)
                for (r = 0; r < 3; r++)
                    for (s = 0; s < 3; s++) M[n * (3 * E->slot[l] + r) + 3 * E->slot[l] + s] -= b[3 * r + s];
        }
        if (P[p] == SIPD_PRECOND_SPLIT && pc) {
            int i;
            for (i = 0; i < n * n; i++) M[i] = -M[i];
            if (!psd(n, M, 1e-9 * hs))
                bad_major[E->kind]++;
        }
    }
}

static void test_psd(void)
{
    int k;
    for_each_sample(check_psd, 0);
    for (k = 0; k < SIPD_KIND_COUNT; k++) {
        printf("kind %-9s blocks and element Hessians not PSD: %d; majoriser failures: %d\n", kind_name(k), bad_psd[k],
               bad_major[k]);
        CHECK(bad_psd[k] == 0, "kind %s: %d blocks or Hessians not PSD", kind_name(k), bad_psd[k]);
        CHECK(bad_major[k] == 0, "kind %s: %d SPLIT block sets do not majorise H", kind_name(k), bad_major[k]);
    }
}

/* ---- rigid ----------------------------------------------------------------------------------------- */

static double worst_rigid[SIPD_KIND_COUNT];
static int bad_weight[SIPD_KIND_COUNT];

static void check_rigid(const elem *E, const double *X, const double *x, int d)
{
    const int n = 3 * E->nv;
    const sipd_group_view *G = &V.grp[E->g];
    const double *rest = G->rest + (size_t)kind_rest_size(E->kind) * E->e;
    double xr[MAXN], g[MAXN], gr[MAXN], E0, E1, worst;
    mat3 R = random_rotation();
    vec3 t = v3(rndu(-1, 1), rndu(-1, 1), rndu(-1, 1));
    int j, l;
    double sc = kinds_scale(E->kind, elem_mat(E), rest, G->vol[E->e]);
    (void)X;
    (void)d;
    for (j = 0; j < E->nv; j++) v3_store(xr + 3 * j, v3_add(m3_mulv(R, v3_load(x + 3 * j)), t));
    E0 = elem_energy(x, E);
    elem_gradient(x, E, g);
    E1 = elem_energy(xr, E);
    elem_gradient(xr, E, gr);
    worst = fabs(E1 - E0) / fmax(fabs(E0), 1e-12 * sc);
    for (j = 0; j < E->nv; j++) {
        vec3 a = m3_mulv(R, v3_load(g + 3 * j)), b = v3_load(gr + 3 * j);
        worst = fmax(worst, sqrt(v3_norm2(v3_sub(a, b))) / fmax(max_abs(n, g), 1e-300));
    }
    worst_rigid[E->kind] = fmax(worst_rigid[E->kind], worst);
    if (!(sc > 0 && isfinite(sc)))
        bad_weight[E->kind]++;
    for (l = 0; l < E->nc; l++) {
        double w = kinds_weight(E->kind, rest, G->vol[E->e], l);
        if (!(w > 0 && isfinite(w)))
            bad_weight[E->kind]++;
    }
}

static void test_rigid(void)
{
    int k;
    for_each_sample(check_rigid, 0);
    for (k = 0; k < SIPD_KIND_COUNT; k++) {
        printf("kind %-9s rigid motion: energy and rotated gradient %.2e; bad weights or scales %d\n", kind_name(k),
               worst_rigid[k], bad_weight[k]);
        CHECK(worst_rigid[k] < 1e-9, "kind %s: not invariant under a rigid motion: %.3e", kind_name(k), worst_rigid[k]);
        CHECK(bad_weight[k] == 0, "kind %s: %d weights or scales not positive and finite", kind_name(k), bad_weight[k]);
    }
}

/* ---- the program ------------------------------------------------------------------------------------ */

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)which;
    sipd_quiet = 1;
    if (argc < 3)
        return 2;
    if (scene_load(argv[2], &F.sc) != SIPD_OK)
        return 1;
    if (model_build(&F.sc, &F.m) != SIPD_OK) {
        scene_free(&F.sc);
        return 1;
    }
    return view_setup();
}

static void prog_teardown(void)
{
    view_free();
    model_free(&F.m);
    scene_free(&F.sc);
}

static int run_coverage(int argc, char **argv) { (void)argc, (void)argv; test_coverage(); return 0; }
static int run_rest(int argc, char **argv) { (void)argc, (void)argv; test_rest(); return 0; }
static int run_gradient(int argc, char **argv) { (void)argc, (void)argv; test_gradient(); return 0; }
static int run_corner(int argc, char **argv) { (void)argc, (void)argv; test_corner(); return 0; }
static int run_psd(int argc, char **argv) { (void)argc, (void)argv; test_psd(); return 0; }
static int run_rigid(int argc, char **argv) { (void)argc, (void)argv; test_rigid(); return 0; }

static const test_case cases[] = {
    {"coverage", .run_args = run_coverage, .args = "FILE"},
    {"rest", .run_args = run_rest, .args = "FILE"},
    {"gradient", .run_args = run_gradient, .args = "FILE"},
    {"corner", .run_args = run_corner, .args = "FILE"},
    {"psd", .run_args = run_psd, .args = "FILE"},
    {"rigid", .run_args = run_rigid, .args = "FILE"},
};
static const test_program program = {"test_conformance", TEST_CASES(cases), .setup = prog_setup,
                                     .teardown = prog_teardown};
TEST_MAIN(program)
