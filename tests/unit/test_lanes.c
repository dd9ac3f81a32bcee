/* test_lanes.c — the CPU's lane loops against the same passes one item at a time, bit for bit.
 * Compiled twice: test_lanes (float64) and test_lanes32 (SIPD_REAL_FLOAT, the float32 CPU
 * backend's arithmetic), as src/backend_cpu.c and src/backend_cpu32.c compile them.
 *
 *   tets      kinds/tet.h kind_tet_scatter_chunk (the fused Jacobi pass's 8 tets at a time)
 *             against kind_tet_scatter tet by tet: 61 random tets (not a multiple of the lanes)
 *             on 40 shared vertices, stretched, compressed and some inverted, two materials
 *             (mixed within a chunk; one material, kind_tet_scatter_chunk's lanes filled once;
 *             a chunk of one then a mixed one), every split — the accumulators bit-identical (a reordered sum or a skipped
 *             eigen-fix of the clamp and abs splits fails it); the gradients alone (the step load's
 *             pass) likewise, and equal to the full pass's g with D left zero
 *   vertices  cpu_loops.h cpu_vertex_acc_block (8 vertices' 3x3 solves in one loop) against
 *             passes.h pass_vertex_acc vertex by vertex: 21 vertices (blocks of 8, 8 and 5),
 *             two of them fixed, random accumulators of which some blocks are not positive
 *             definite (s3_solve's fallback) — every output, g, dy, y0, g0 and the cleared
 *             accumulators bit-identical, on a first and a later iteration
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_loops.h"
#include "runner.h"
#include "rng.h"

static void case_tets(void)
{
    enum { NV = 40, NE = 61 };
    sipd_real X[3 * NV], y[3 * NV], rest[9 * NE], vol[NE];
    double a1[9 * NV], a2[9 * NV], full[9 * NV];
    int tv[4 * NE], tm[NE], e, i, k, split, go, nz = 0, inverted = 0;
    sipd_material mats[2];
    sipd_view v;
    sipd_group_view *G = &v.grp[0];
    memset(&v, 0, sizeof v);
    mats[0] = material_stable_neohookean(1e5, 0.45);
    mats[1] = material_stable_neohookean(3e6, 0.3);
    rng_seed(29);
    for (i = 0; i < 3 * NV; i++) X[i] = (sipd_real)rnd();
    for (i = 0; i < NV; i++) {   /* per vertex a scale in [0.4, 1.4] and a jitter: some tets invert */
        double f = rndu(0.4, 1.4);
        int q;
        for (q = 0; q < 3; q++) y[3 * i + q] = (sipd_real)(f * X[3 * i + q] + rndu(-0.15, 0.15));
    }
    for (e = 0; e < NE; e++) {
        vec3 p[4];
        int l, ok;
        do {   /* four distinct vertices, not flat */
            for (l = 0; l < 4; l++) tv[4 * e + l] = rnd_int(NV);
            ok = tv[4 * e] != tv[4 * e + 1] && tv[4 * e] != tv[4 * e + 2] && tv[4 * e] != tv[4 * e + 3] &&
                 tv[4 * e + 1] != tv[4 * e + 2] && tv[4 * e + 1] != tv[4 * e + 3] && tv[4 * e + 2] != tv[4 * e + 3];
            if (ok) {
                for (l = 0; l < 4; l++) p[l] = v3_load(X + 3 * tv[4 * e + l]);
                vol[e] = sipd_fabs(tet_rest(p[0], p[1], p[2], p[3], rest + 9 * e));
                ok = vol[e] > SIPD_R(1e-4);
            }
        } while (!ok);
        tm[e] = e % 3 == 0;
        for (l = 0; l < 4; l++) p[l] = v3_load(y + 3 * tv[4 * e + l]);
        inverted += m3_det(tet_F(rest + 9 * e, p[0], p[1], p[2], p[3])) < 0;
    }
    v.nv = NV;
    v.y = y;
    v.mats = mats;
    G->ne = NE;
    G->v = tv;
    G->mat = tm;
    G->rest = rest;
    G->vol = vol;
    CHECK(inverted > 0 && inverted < NE, "the fixture should invert some tets, not all (%d of %d)", inverted, NE);
    for (i = 0; i < 3; i++)   /* the materials mixed in every chunk; one material; the chunk 0 .. 29 of one, 30 .. 60 mixed */
        for (split = SIPD_SPLIT_EXPANDED; split <= SIPD_SPLIT_ABS; split++)
            for (go = 0; go < 2; go++) {   /* the full terms; the gradients alone (the step load's) */
                for (e = 0; e < NE; e++) tm[e] = i == 1 || (i == 2 && e < 30) ? 1 : e % 3 == 0;
                memset(a1, 0, sizeof a1);
                memset(a2, 0, sizeof a2);
                for (e = 0; e < NE; e++) kind_tet_scatter(&v, &mats[tm[e]], split, go, G, e, a1);
                if (i == 2) {
                    kind_tet_scatter_chunk(&v, split, go, G, 0, 30, a2);
                    kind_tet_scatter_chunk(&v, split, go, G, 30, NE, a2);
                } else
                    kind_tet_scatter_chunk(&v, split, go, G, 0, NE, a2);
                CHECK(memcmp(a1, a2, sizeof a1) == 0,
                      "materials %s, split %d%s: the lanes' sums differ from kind_tet_scatter's",
                      i == 0 ? "mixed" : i == 1 ? "one" : "one, then mixed", split, go ? ", gradients only" : "");
                if (!go) {
                    memcpy(full, a2, sizeof full);
                    continue;
                }
                for (k = 0; k < NV; k++) {   /* the gradients the full pass's, D untouched */
                    int q, same = 1, zero = 1;
                    for (q = 0; q < 3; q++) same &= a2[9 * k + q] == full[9 * k + q];
                    for (q = 3; q < 9; q++) zero &= a2[9 * k + q] == 0;
                    CHECK(same && zero, "split %d, vertex %d: the gradient-only pass's g differs from the full pass's "
                          "or it wrote D", split, k);
                    nz += a2[9 * k] != 0;
                }
            }
    CHECK(nz > 0, "the gradient-only pass summed nothing");
    printf("tets (%s): %d tets (%d inverted), 5 splits, materials mixed, one, one then mixed, full and gradients "
           "only: the lanes' sums against tet by tet, the gradients only against the full pass's g\n",
           SIPD_REAL_NAME, NE, inverted);
}

/* The state arrays of case_vertices' view, one set per run. */
typedef struct {
    sipd_real y[63], yp[63], yt[63], g[63], dy[63], y0[63], g0[63];
    double acc[9 * 21];
} vstate;

static void vstate_point(sipd_view *v, vstate *S)
{
    v->y = S->y;
    v->yp = S->yp;
    v->yt = S->yt;
    v->g = S->g;
    v->dy = S->dy;
    v->y0 = S->y0;
    v->g0 = S->g0;
}

static int same_out(const sipd_vertex_out *a, const sipd_vertex_out *b)
{
    return a->free == b->free && a->nonspd == b->nonspd && a->contact == b->contact && a->gn2 == b->gn2 &&
           a->dn2 == b->dn2 && a->gdy == b->gdy && a->gs == b->gs && a->sDs == b->sDs && a->dnum == b->dnum &&
           a->dden == b->dden && a->pen == b->pen && a->gs_prev == b->gs_prev &&
           memcmp(&a->g, &b->g, sizeof a->g) == 0;
}

static void case_vertices(void)
{
    enum { NV = 21 };
    sipd_real mass[NV];
    unsigned char fixed[NV];
    vstate s1, s2;
    sipd_view v;
    int a, k, first, notpd = 0;
    memset(&v, 0, sizeof v);
    memset(&s1, 0, sizeof s1);
    rng_seed(7);
    for (a = 0; a < NV; a++) {
        mass[a] = (sipd_real)rndu(0.5, 2.0);
        fixed[a] = a == 3 || a == 17;
    }
    for (k = 0; k < 3 * NV; k++) {
        s1.y[k] = (sipd_real)rnd();
        s1.yp[k] = (sipd_real)(s1.y[k] + rndu(-0.01, 0.01));
        s1.yt[k] = (sipd_real)(s1.y[k] + rndu(-0.02, 0.02));
        s1.g[k] = (sipd_real)rndu(-1, 1);
        s1.y0[k] = (sipd_real)(s1.y[k] + rndu(-0.01, 0.01));
        s1.g0[k] = (sipd_real)rndu(-1, 1);
    }
    for (a = 0; a < NV; a++) {   /* g, then D = B Bᵀ-like SPD blocks; every fourth indefinite */
        double *q = s1.acc + 9 * a, b0 = rndu(-1, 1), b1 = rndu(-1, 1), b2 = rndu(-1, 1);
        for (k = 0; k < 3; k++) q[k] = rndu(-100, 100);
        q[3] = 1e3 * (1 + b0 * b0);
        q[4] = 1e3 * (1 + b1 * b1);
        q[5] = 1e3 * (1 + b2 * b2);
        q[6] = 1e3 * b0 * b1;
        q[7] = 1e3 * b0 * b2;
        q[8] = 1e3 * b1 * b2;
        if (a % 4 == 1) {   /* a negative pivot below the mass term: s3_solve's fallback */
            q[4] = -1e4;
            notpd += !fixed[a];
        }
    }
    v.nv = NV;
    v.inv_h2 = SIPD_R(3600.0);
    v.gq[1] = SIPD_R(-9.81);
    v.mass = mass;
    v.fixed = fixed;
    for (first = 1; first >= 0; first--) {
        sipd_vertex_out o1[NV], o2[NV];
        s2 = s1;
        vstate_point(&v, &s1);
        for (a = 0; a < NV; a++) o1[a] = pass_vertex_acc(&v, SIPD_PRECOND_SPLIT, 1, a, first, s1.acc);
        vstate_point(&v, &s2);
        for (a = 0; a < NV; a += CPU_VERTEX_LANES)
            cpu_vertex_acc_block(&v, first, s2.acc, a, NV - a < CPU_VERTEX_LANES ? NV - a : CPU_VERTEX_LANES, o2 + a);
        for (a = 0; a < NV; a++)
            CHECK(same_out(&o1[a], &o2[a]), "first = %d, vertex %d: the block's outputs differ from pass_vertex_acc's",
                  first, a);
        CHECK(memcmp(&s1, &s2, sizeof s1) == 0, "first = %d: the arrays written differ (g, dy, y0, g0, acc)", first);
        for (k = 0; k < 9 * NV; k++) CHECK(s2.acc[k] == 0, "accumulator %d not cleared", k);
        /* the next round from a fresh accumulator set (the same one) */
        for (a = 0; a < NV; a++) {
            double *q = s1.acc + 9 * a;
            for (k = 0; k < 9; k++) q[k] = (k < 3 ? 10.0 : 1e3) * (a + 1) / (k + 1.0) * (k >= 3 && k < 6 ? 2.0 : 0.1);
            if (a % 4 == 1)
                q[4] = -1e4;
        }
    }
    CHECK(notpd > 0, "the fixture should have blocks that are not positive definite");
    printf("vertices (%s): %d vertices (2 fixed, %d blocks not positive definite), first and later iteration: "
           "blocks against vertex by vertex\n",
           SIPD_REAL_NAME, NV, notpd);
}

static const test_case cases[] = {
    {"tets", .run = case_tets},
    {"vertices", .run = case_vertices},
};
static const test_program program = {"test_lanes", TEST_CASES(cases), .setup = NULL};
TEST_MAIN(program)
