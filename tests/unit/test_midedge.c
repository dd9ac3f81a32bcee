/* test_midedge.c — mid-edge (Morley-type) shell bending (physics/midedge.h, src/midedge_rest.c,
 * bodies[].bending = "midedge") against independent references.
 *
 *   fd          random rest data and 12-corner configurations: the gradient against central
 *               differences of the energy, the curvature Jacobian against differences of b, the
 *               Gauss–Newton Hessian PSD with its diagonal blocks equal to the corner blocks, the
 *               Jacobi-type blocks majorising it (Cholesky of blockdiag(D) − H), rigid motions
 *               leaving the energy unchanged, a degenerate triangle giving zeros, not NaN
 *   patch MESH  on an unstructured gmsh mesh (as a shell body with bending = "midedge"): a
 *               quadratic deflection w = ½ pᵀ H p of amplitude 1e-6 gives every triangle without a
 *               free edge b = H in its rest frame (exactness for quadratics); the bending force of
 *               that constant-curvature state vanishes at every vertex away from the boundary
 *               (Morley's patch test; the dihedral hinge of the same mesh fails it, printed for
 *               contrast); the rest state and a rigid motion of it have zero energy
 *   strip DIR   the clamped strip (ν = 0) against plate theory q L⁴ / (8 D): the generated
 *               cloth at 30 x 5, 60 x 10, 120 x 20 (within 5% at 60 x 10, the error shrinking)
 *               and the unstructured gmsh strips of tools/meshes/ho_strip.geo at lc = 0.04, 0.02,
 *               0.01 (within 5% at each, the error shrinking, within 2.5% at 0.01)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "physics/bend.h"
#include "physics/midedge.h"
#include "fixture.h"
#include "runner.h"
#include "fd.h"
#include "rng.h"

static void random_rest(test_rng *rng, double *R)
{
    double L[9];
    int i, j, k;
    for (i = 0; i < 36; i++) R[i] = 2 * rng_uniform(rng) - 1;
    for (i = 0; i < 9; i++) L[i] = 2 * rng_uniform(rng) - 1;
    for (i = 0; i < 3; i++)   /* W' = L Lᵀ (PSD), sym3 layout */
        for (j = i; j < 3; j++) {
            double acc = 0;
            for (k = 0; k < 3; k++) acc += L[3 * i + k] * L[3 * j + k];
            R[36 + (i == j ? i : i + j + 2)] = acc;
        }
    for (i = 42; i < 45; i++) R[i] = 0.3 * (2 * rng_uniform(rng) - 1);
    R[45] = 1;
}

static double energy_at(const double *R, double A, const double *x)
{
    vec3 y[MIDEDGE_NC];
    int j;
    for (j = 0; j < MIDEDGE_NC; j++) y[j] = v3_load(x + 3 * j);
    return midedge_energy(R, A, y);
}

/* in-place Cholesky of the n x n SPD matrix A (row-major); 0 when a pivot is <= 0 */
static int cholesky(double *A, int n)
{
    int i, j, k;
    for (j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0))
            return 0;
        A[j * n + j] = sqrt(d);
        for (i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (k = 0; k < j; k++) s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / A[j * n + j];
        }
    }
    return 1;
}

/* energy_at as a function of x alone (fd.h) */
typedef struct {
    const double *R;
    double A;
} element_at;
static double energy_of(const double *x, const void *c)
{
    const element_at *e = c;
    return energy_at(e->R, e->A, x);
}

static void test_fd(void)
{
    enum { N3 = 3 * MIDEDGE_NC };
    test_rng rng = rng_make(7);
    double wg = 0, wj = 0, wc = 0, wblk = 0, wrig = 0, psd_fail = 0, maj_fail = 0, maj_tight = 0;
    int t, i, j, c;
    for (t = 0; t < 300; t++) {
        double R[MIDEDGE_REST], x[N3], A = 0.5 + rng_uniform(&rng), h = 1e-6, gmax = 1e-300;
        static double H[N3 * N3], M[N3 * N3];
        vec3 y[MIDEDGE_NC], gr[MIDEDGE_NC];
        sym3 B[MIDEDGE_NC], Bm[MIDEDGE_NC];
        midedge_state st;
        random_rest(&rng, R);
        for (i = 0; i < N3; i++) x[i] = 2 * rng_uniform(&rng) - 1;
        for (j = 0; j < MIDEDGE_NC; j++) y[j] = v3_load(x + 3 * j);
        midedge_element(R, A, y, gr, B, 0);
        midedge_element(R, A, y, gr, Bm, 1);
        for (j = 0; j < MIDEDGE_NC; j++)
            for (c = 0; c < 3; c++) gmax = fabs(gr[j].v[c]) > gmax ? fabs(gr[j].v[c]) : gmax;
        {   /* gradient vs central differences of the energy */
            element_at e = {R, A};
            double gfd[N3], gan[N3], d;
            fd_gradient(N3, x, h, energy_of, &e, gfd);
            for (i = 0; i < N3; i++) gan[i] = gr[i / 3].v[i % 3];
            d = fd_rel_err(N3, gfd, gan);
            wg = d > wg ? d : wg;
        }
        midedge_eval(R, y, &st);
        for (j = 0; j < MIDEDGE_NC; j++) {   /* ∂b/∂y_j vs differences of b = r + b̄ */
            vec3 J[3], g1;
            sym3 Bl;
            double e1;
            midedge_jac(R, y, &st, j, J);
            for (i = 0; i < 3; i++) {
                vec3 yp[MIDEDGE_NC], ym[MIDEDGE_NC];
                midedge_state sp, sm;
                memcpy(yp, y, sizeof y);
                memcpy(ym, y, sizeof y);
                yp[j].v[i] += h;
                ym[j].v[i] -= h;
                midedge_eval(R, yp, &sp);
                midedge_eval(R, ym, &sm);
                for (c = 0; c < 3; c++) {
                    double d = fabs((sp.r[c] - sm.r[c]) / (2 * h) - J[c].v[i]) / (1 + fabs(J[c].v[i]));
                    wj = d > wj ? d : wj;
                }
            }
            g1 = midedge_corner(R, A, y, j, &Bl, &e1);   /* the corner pass = the element pass */
            for (i = 0; i < 3; i++) {
                double d = fabs(g1.v[i] - gr[j].v[i]) / gmax;
                wc = d > wc ? d : wc;
            }
            for (i = 0; i < 6; i++) {
                double d = fabs(Bl.s[i] - B[j].s[i]) / (1e-300 + fabs(B[j].s[0]) + fabs(B[j].s[1]) + fabs(B[j].s[2]));
                wc = d > wc ? d : wc;
            }
        }
        midedge_element_hessian(R, A, y, H);
        {
            double hm = 1e-300, shift;
            for (i = 0; i < N3 * N3; i++) hm = fabs(H[i]) > hm ? fabs(H[i]) : hm;
            for (j = 0; j < MIDEDGE_NC; j++) {   /* diagonal blocks = the Gauss–Newton corner blocks */
                mat3 Bj = s3_to_m3(B[j]);
                for (i = 0; i < 9; i++) {
                    double d = fabs(Bj.m[i] - H[N3 * (3 * j + i / 3) + 3 * j + i % 3]) / hm;
                    wblk = d > wblk ? d : wblk;
                }
            }
            shift = 1e-9 * hm;   /* PSD: H + εI is positive definite */
            memcpy(M, H, sizeof(double) * N3 * N3);
            for (i = 0; i < N3; i++) M[i * N3 + i] += shift;
            psd_fail += !cholesky(M, N3);
            /* majorising: blockdiag(D) − H + εI positive definite ... */
            for (i = 0; i < N3 * N3; i++) M[i] = -H[i];
            for (j = 0; j < MIDEDGE_NC; j++) {
                mat3 Dj = s3_to_m3(Bm[j]);
                for (i = 0; i < 9; i++) M[N3 * (3 * j + i / 3) + 3 * j + i % 3] += Dj.m[i];
            }
            for (i = 0; i < N3; i++) M[i * N3 + i] += shift;
            maj_fail += !cholesky(M, N3);
            /* ... and not by accident: half of D does not majorise everywhere */
            for (i = 0; i < N3 * N3; i++) M[i] = -H[i];
            for (j = 0; j < MIDEDGE_NC; j++) {
                mat3 Dj = s3_to_m3(Bm[j]);
                for (i = 0; i < 9; i++) M[N3 * (3 * j + i / 3) + 3 * j + i % 3] += 0.5 * Dj.m[i];
            }
            maj_tight += !cholesky(M, N3);
        }
        {   /* a rigid motion: the energy is unchanged */
            double ang = 2 * rng_uniform(&rng), ca = cos(ang), sa = sin(ang), x2[N3], e0 = energy_at(R, A, x), e1;
            for (j = 0; j < MIDEDGE_NC; j++) {
                double px = x[3 * j], py = x[3 * j + 1], pz = x[3 * j + 2];
                x2[3 * j] = ca * px - sa * pz + 3.0;
                x2[3 * j + 1] = py - 2.0;
                x2[3 * j + 2] = sa * px + ca * pz + 0.5;
            }
            e1 = energy_at(R, A, x2);
            wrig = fabs(e1 - e0) / (1e-300 + fabs(e0)) > wrig ? fabs(e1 - e0) / (1e-300 + fabs(e0)) : wrig;
        }
    }
    printf("midedge fd: gradient %.3e, curvature Jacobian %.3e, corner pass vs element pass %.3e, Hessian blocks %.3e, "
           "not PSD %g of 300, not majorised %g of 300, 0.5 D majorising %g of 300, rigid motion %.3e\n",
           wg, wj, wc, wblk, psd_fail, maj_fail, 300 - maj_tight, wrig);
    CHECK(wg < 1e-6, "mid-edge gradient vs finite differences: %.3e", wg);
    CHECK(wj < 1e-6, "mid-edge curvature Jacobian vs finite differences: %.3e", wj);
    CHECK(wc < 1e-12, "corner pass differs from the element pass: %.3e", wc);
    CHECK(wblk < 1e-13, "Hessian diagonal blocks differ from the corner blocks: %.3e", wblk);
    CHECK(psd_fail == 0, "Gauss-Newton Hessian not PSD in %g cases", psd_fail);
    CHECK(maj_fail == 0, "the Jacobi-type blocks do not majorise the Hessian in %g cases", maj_fail);
    CHECK(maj_tight > 0, "half the Jacobi-type blocks still majorise in every case: the check cannot fail");
    CHECK(wrig < 1e-10, "rigid motion changes the energy by %.3e", wrig);
    {   /* a degenerate triangle (corners 0, 1, 2 collinear): zeros, not NaN */
        double R[MIDEDGE_REST], E;
        vec3 y[MIDEDGE_NC], gr[MIDEDGE_NC];
        sym3 B[MIDEDGE_NC];
        int bad = 0;
        random_rest(&rng, R);
        for (j = 0; j < MIDEDGE_NC; j++) y[j] = v3(rng_uniform(&rng), rng_uniform(&rng), rng_uniform(&rng));
        y[1] = v3(1, 1, 1);
        y[2] = v3(2, 2, 2);
        y[0] = v3(0, 0, 0);
        midedge_element(R, 1, y, gr, B, 1);
        E = midedge_energy(R, 1, y);
        for (j = 0; j < MIDEDGE_NC; j++) bad += !(v3_norm2(gr[j]) == 0) || !(B[j].s[0] == 0);
        CHECK(bad == 0 && E == 0, "degenerate triangle: energy %g, %d corners nonzero", E, bad);
    }
}

/* ---- on a mesh ----------------------------------------------------------------------------- */

static const char *const shell_scene =
    "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
    "solver = { method = \"newton\"; iterations = 50; tolerance = 1.0e-5; };\n"
    "gravity = [0.0, %.17e, 0.0];\n"
    "materials = ( { name = \"m\"; youngs = 1.0e8; poisson = %.3f; density = 1000.0; } );\n"
    "bodies = ( { mesh = \"%s\"; material = \"m\"; thickness = 0.01; bending = \"%s\";\n"
    "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [%.17e, 1.0, 1.0]; }; } );\n";

/* Total bending gradient over the group of kind `kind` at positions x (3 nv): into g (3 nv).
 * The per-entry scale (the largest |element contribution|) into *scale. */
static void bending_gradient(const sipd_model *m, int kind, const double *x, double *g, double *scale)
{
    const sipd_elem_group *G = &m->groups[m->group_of[kind]];
    int e, l, k;
    memset(g, 0, sizeof(double) * 3 * m->nv);
    *scale = 1e-300;
    for (e = 0; e < G->ne; e++) {
        const int *v = G->v + (size_t)G->nc * e;
        vec3 y[MIDEDGE_NC], gr[MIDEDGE_NC];
        for (l = 0; l < G->nc; l++) y[l] = v3_load(x + 3 * v[l]);
        if (kind == SIPD_KIND_MIDEDGE)
            midedge_element(G->rest + MIDEDGE_REST * (size_t)e, G->vol[e], y, gr, NULL, 0);
        else
            hinge_element(G->rest[2 * e], G->rest[2 * e + 1], y[0], y[1], y[2], y[3], gr, NULL);
        for (l = 0; l < G->nc; l++)
            for (k = 0; k < 3; k++) {
                g[3 * v[l] + k] += gr[l].v[k];
                *scale = fabs(gr[l].v[k]) > *scale ? fabs(gr[l].v[k]) : *scale;
            }
    }
}

/* The gmsh strip of tools/meshes/ho_strip.geo lies in the x-z plane; its normal is y. */
static void test_patch(const char *mesh)
{
    char text[2048];
    fixture f, fh;
    const double eps = 1e-6, Hxx = 1.3, Hxz = -0.4, Hzz = 0.7;   /* w = ½ (Hxx x² + 2 Hxz xz + Hzz z²) */
    double *x, *g, *gh, scale, scaleh, wex = 0, wpatch = 0, whinge = 0, e0 = 0, erig = 0, eref = 0;
    int *near_bnd, e, l, a, nfull = 0, ndeep = 0;
    snprintf(text, sizeof text, shell_scene, 0.0, 0.3, mesh, "midedge", -0.5);   /* pins nothing */
    if (fixture_load(&f, text)) {
        CHECK(0, "patch: loading %s failed", mesh);
        return;
    }
    snprintf(text, sizeof text, shell_scene, 0.0, 0.3, mesh, "dihedral", -0.5);
    if (fixture_load_ops(&fh, text, "hinge", &sipd_backend_cpu)) {
        CHECK(0, "patch: loading %s (dihedral) failed", mesh);
        fixture_free(&f);
        return;
    }
    CHECK(f.m.group_of[SIPD_KIND_MIDEDGE] >= 0 && f.m.group_of[SIPD_KIND_HINGE] < 0, "bending = midedge builds mid-edge elements only");
    {
        const sipd_elem_group *G = &f.m.groups[f.m.group_of[SIPD_KIND_MIDEDGE]];
        const int nv = f.m.nv;
        x = malloc(sizeof(double) * 3 * nv);
        g = malloc(sizeof(double) * 3 * nv);
        gh = malloc(sizeof(double) * 3 * nv);
        near_bnd = calloc((size_t)nv, sizeof(int));
        for (a = 0; a < nv; a++) {
            const double *X = f.m.X + 3 * a;
            x[3 * a] = X[0];
            x[3 * a + 1] = X[1] + eps * 0.5 * (Hxx * X[0] * X[0] + 2 * Hxz * X[0] * X[2] + Hzz * X[2] * X[2]);
            x[3 * a + 2] = X[2];
        }
        for (e = 0; e < G->ne; e++) {
            const double *R = G->rest + MIDEDGE_REST * (size_t)e;
            const int *v = G->v + (size_t)G->nc * e;
            /* free edges reduce W' below W = D[[1, 0, ν], [0, 2(1 − ν), 0], [ν, 0, 1]] */
            const double D = R[45];
            const int full = fabs(R[36] - D) < 1e-9 * D && fabs(R[37] - 2 * D * 0.7) < 1e-9 * D && fabs(R[38] - D) < 1e-9 * D &&
                             fabs(R[39]) < 1e-9 * D && fabs(R[40] - 0.3 * D) < 1e-9 * D && fabs(R[41]) < 1e-9 * D;
            vec3 y[MIDEDGE_NC], X0 = v3_load(f.m.X + 3 * v[0]), e1, e2, n, ng = v3(0, 1, 0);
            midedge_state st;
            double Ht[3], sgn;
            if (!full) {   /* its stencil's vertices feel the free edge: not "away from the boundary" */
                for (l = 0; l < G->nc; l++) near_bnd[v[l]] = 1;
                continue;
            }
            nfull++;
            for (l = 0; l < G->nc; l++) y[l] = v3_load(x + 3 * v[l]);
            midedge_eval(R, y, &st);
            e1 = v3_sub(v3_load(f.m.X + 3 * v[1]), X0);
            e1 = v3_scale(e1, 1 / sqrt(v3_norm2(e1)));
            n = v3_cross(v3_sub(v3_load(f.m.X + 3 * v[1]), X0), v3_sub(v3_load(f.m.X + 3 * v[2]), X0));
            n = v3_scale(n, 1 / sqrt(v3_norm2(n)));
            e2 = v3_cross(n, e1);
            sgn = v3_dot(n, ng) > 0 ? 1 : -1;
            /* H in the triangle's rest frame (e1, e2), both in the x-z plane */
            Ht[0] = Hxx * e1.v[0] * e1.v[0] + 2 * Hxz * e1.v[0] * e1.v[2] + Hzz * e1.v[2] * e1.v[2];
            Ht[1] = Hxx * e1.v[0] * e2.v[0] + Hxz * (e1.v[0] * e2.v[2] + e1.v[2] * e2.v[0]) + Hzz * e1.v[2] * e2.v[2];
            Ht[2] = Hxx * e2.v[0] * e2.v[0] + 2 * Hxz * e2.v[0] * e2.v[2] + Hzz * e2.v[2] * e2.v[2];
            for (l = 0; l < 3; l++) {
                double d = fabs(sgn * (st.r[l] + R[42 + l]) / eps - Ht[l]) / 1.3;
                wex = d > wex ? d : wex;
            }
        }
        bending_gradient(&f.m, SIPD_KIND_MIDEDGE, x, g, &scale);
        bending_gradient(&fh.m, SIPD_KIND_HINGE, x, gh, &scaleh);
        for (a = 0; a < nv; a++) {
            if (near_bnd[a])
                continue;
            ndeep++;
            wpatch = fabs(g[3 * a + 1]) / scale > wpatch ? fabs(g[3 * a + 1]) / scale : wpatch;
            whinge = fabs(gh[3 * a + 1]) / scaleh > whinge ? fabs(gh[3 * a + 1]) / scaleh : whinge;
        }
        /* rest and rigid motion: no energy */
        for (e = 0; e < G->ne; e++) {
            const int *v = G->v + (size_t)G->nc * e;
            vec3 y[MIDEDGE_NC], yr[MIDEDGE_NC], yq[MIDEDGE_NC];
            for (l = 0; l < G->nc; l++) {
                vec3 X = v3_load(f.m.X + 3 * v[l]);
                y[l] = X;
                yr[l] = v3(0.6 * X.v[0] - 0.8 * X.v[1] + 5, 0.8 * X.v[0] + 0.6 * X.v[1] - 1, X.v[2] + 2);
                yq[l] = v3_load(x + 3 * v[l]);
            }
            e0 += midedge_energy(G->rest + MIDEDGE_REST * (size_t)e, G->vol[e], y);
            erig += midedge_energy(G->rest + MIDEDGE_REST * (size_t)e, G->vol[e], yr);
            eref += midedge_energy(G->rest + MIDEDGE_REST * (size_t)e, G->vol[e], yq);
        }
        printf("midedge patch (%s): %d elements, %d without a free edge: |b/eps - H| %.3e of |H|; %d vertices away from "
               "the boundary: constant-curvature force %.3e of the largest element force (dihedral hinge: %.3e); rest "
               "energy %.3e, rigid motion %.3e of the bent state's %.3e\n",
               mesh, G->ne, nfull, wex, ndeep, wpatch, whinge, e0, erig, eref);
        CHECK(nfull > G->ne / 2 && ndeep > nv / 4, "too few interior elements (%d) or vertices (%d) to test", nfull, ndeep);
        CHECK(wex < 1e-4, "mid-edge curvature not exact for a quadratic deflection: %.3e", wex);
        CHECK(wpatch < 1e-4, "mid-edge bending fails the patch test: %.3e", wpatch);
        CHECK(whinge > 1e-2, "the dihedral hinge passes the patch test on this mesh (%.3e): the check does not "
              "discriminate", whinge);
        CHECK(e0 < 1e-20 * eref / (eps * eps) && erig < 1e-20 * eref / (eps * eps),
              "rest %.3e or rigid-motion %.3e energy is not zero", e0, erig);
        free(x);
        free(g);
        free(gh);
        free(near_bnd);
    }
    fixture_free(&fh);
    fixture_free(&f);
}

/* Quasi-static Newton on a clamped strip (ν = 0, L = 1 beyond the clamp): the mean tip deflection
 * over q L⁴ / (8 D).  Tolerance 1e-5: the load is small (deflection 1.5% of L, so that geometric
 * nonlinearity stays below 1e-3), and at 120 x 20 the stiff membrane's round-off (E = 1e8) floors
 * the relative residual at 4e-6 (Newton reports "stalled" at 1e-6, its steps at 1e-15 m).  mesh NULL: the generated nx x nz cloth, clamped on two columns straddling
 * x = 0 (as tests/unit/test_kinds.c); else a gmsh strip clamped on its band x <= 0. */
static double strip_ratio(const char *mesh, int nx, int nz)
{
    const double L = 1.0, W = 1.0 / 6, E = 1e8, t = 0.01, rho = 1000, g = 0.0981, a = L / (nx - 0.5);
    const double D = E * t * t * t / 12, ref = rho * t * g * pow(L, 4) / (8 * D);
    char text[2048];
    fixture f;
    sipd_solve_result res;
    double *x, tip = 0;
    int k, n = 0;
    if (mesh)
        snprintf(text, sizeof text, shell_scene, -g, 0.0, mesh, "midedge", 1e-9);
    else
        snprintf(text, sizeof text,
                 "time = { dt = 1.0; frames = 1; quasistatic = true; };\n"
                 "solver = { method = \"newton\"; iterations = 50; tolerance = 1.0e-5; };\n"
                 "gravity = [0.0, %.17e, 0.0];\n"
                 "materials = ( { name = \"m\"; youngs = %.17e; poisson = 0.0; density = %.17e; } );\n"
                 "bodies = ( { generate = { shape = \"cloth\"; size = [%.17e, %.17e]; cells = [%d, %d]; };\n"
                 "  thickness = %.17e; translate = [%.17e, 0.0, 0.0]; material = \"m\"; bending = \"midedge\";\n"
                 "  pin = { box_min = [-1.0, -1.0, -1.0]; box_max = [%.17e, 1.0, 1.0]; }; } );\n",
                 -g, E, rho, L + a / 2, W, nx, nz, t, -a / 2, a / 2 + 1e-9);
    if (fixture_load(&f, text)) {
        CHECK(0, "strip setup failed (%s)", mesh ? mesh : "generated");
        return NAN;
    }
    CHECK(sim_step(&f.s, 1.0, &res) == SIPD_OK, "strip step failed");
    CHECK(res.converged, "strip: Newton did not converge (residual %.3e)", res.residual);
    x = malloc(sizeof(double) * 3 * f.m.nv);
    f.s.ops->download(f.s.b, x, NULL);
    for (k = 0; k < f.m.nv; k++)
        if (f.m.X[3 * k] > L - 1e-9) {
            tip += -(x[3 * k + 1] - f.m.X[3 * k + 1]);
            n++;
        }
    tip /= n > 0 ? n : 1;
    printf("midedge strip %s (%d vertices): mean tip deflection %.6e m over %d tip vertices, plate theory %.6e m, "
           "ratio %.5f\n", mesh ? mesh : "generated", f.m.nv, tip, n, ref, tip / ref);
    free(x);
    fixture_free(&f);
    return tip / ref;
}

static void test_strip(const char *dir)
{
    char p[3][600];
    const char *names[3] = {"strip_lc04.msh", "ho_strip.msh", "strip_lc01.msh"};
    double r[3], u[3];
    int i;
    u[0] = strip_ratio(NULL, 30, 5);
    u[1] = strip_ratio(NULL, 60, 10);
    u[2] = strip_ratio(NULL, 120, 20);
    CHECK(fabs(u[1] - 1) < 0.05, "60 x 10 strip: ratio %.5f (plate theory 1)", u[1]);
    CHECK(fabs(u[2] - 1) < fabs(u[1] - 1) && fabs(u[1] - 1) < fabs(u[0] - 1),
          "generated strip: no convergence under refinement: %.5f %.5f %.5f", u[0], u[1], u[2]);
    for (i = 0; i < 3; i++) {
        snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
        r[i] = strip_ratio(p[i], 0, 0);
        CHECK(fabs(r[i] - 1) < 0.05, "gmsh strip %s: ratio %.5f (plate theory 1, 5%%)", names[i], r[i]);
    }
    CHECK(fabs(r[2] - 1) < fabs(r[1] - 1) && fabs(r[1] - 1) < fabs(r[0] - 1),
          "gmsh strips: no convergence under refinement: %.5f %.5f %.5f", r[0], r[1], r[2]);
    CHECK(fabs(r[2] - 1) < 0.025, "finest gmsh strip: ratio %.5f, not within 2.5%%", r[2]);
}

static int case_patch(int argc, char **argv)
{
    (void)argc;
    test_patch(argv[2]);
    return 0;
}

static int case_strip(int argc, char **argv)
{
    (void)argc;
    test_strip(argv[2]);
    return 0;
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)argc, (void)argv;
    sipd_quiet = 1;
    return scratch_open("midedge", which);
}

static const test_case cases[] = {
    {"fd", .run = test_fd},
    {"patch", .run_args = case_patch, .args = "MESH"},
    {"strip", .run_args = case_strip, .args = "MESHDIR"},
};
static const test_program program = {"test_midedge", TEST_CASES(cases), .setup = prog_setup, .teardown = scratch_close};
TEST_MAIN(program)
