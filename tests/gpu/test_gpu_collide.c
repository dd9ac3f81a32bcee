/* test_gpu_collide.c — the GPU narrow phase (kernels/collide_cuda.cu, float32) against the CPU
 * narrow phase (src/collide.c, float64) on the same candidates (tests/gpu/gpu_collide.cmake, label
 * `gpu`).  Exits 77 (CTest: skipped / "Not Run") when no CUDA device is usable.
 *
 * Scenes: woodpiles of thin boxes (meshgen_box planks, each its own body, self-contact on), the
 * layers alternately along x and z, neighbours 0.5 d̂ apart, each plank tilted by a random angle
 * below 0.03 rad and jittered by 0.1 d̂; x0 = the pile, y = x0 moved down by 0.3 d̂ plus a random
 * ±0.15 d̂ per vertex (so there are crossings, i.e. negative gaps, too); d̂ = 0.01.  Once near the
 * origin and once moved by (2, 1, −1.5) (larger coordinates: larger float32 round-off).  For each:
 * collide_create / collide_broad / collide_narrow on the CPU, sipd_cuda_collide_narrow on the
 * same candidates, and:
 *   - both lists are walked along the candidate list (collide_candidate_arrays): every pair of
 *     either must be the next candidate's pair in order, so both are in candidate order (VF, then
 *     EE) and a pair in both has the same vertices and kind;
 *   - a candidate kept by one side only must be on the edge of a rule, judged in double with
 *     float32 margins (δ = FLT_EPSILON · the largest coordinate, K = 16): gap within
 *     max(1e-5 d̂, 1e-6 · model size, K δ) of d̂; VF: an unclamped barycentric coordinate of the
 *     projection within K δ / h of 0 (h: the face's smallest altitude); EE: s or t within their
 *     float32 error (below) of 0 or 1, or sin∠(e1, e2) within K (ε + δ/ℓ) of the 1e-3
 *     parallel threshold; either: the orientation n·Σβ x0 within K δ (1 + |z0|/|z|) of 0;
 *   - a pair in both: β within 1e-5 and n within 1e-5 (max-norm), plus the float32 error of
 *     ill-conditioned pairs: VF β + K δ / h; EE β + K (δ/(ℓ sinθ) + ε (1 + |r|/ℓ) / sin²θ) (ℓ the
 *     shorter edge, r = p0 − q0); n + K (δ + ℓmax · (that β error)) / |z| with z = Σ β y the
 *     closest-point vector (n is its direction: float32 positions make its error ~ ε·|x|/|z|,
 *     large for nearly touching pairs far from the origin).  How many pairs per kind are within
 *     the plain 1e-5 is printed;
 *   - both VF and EE pairs occur (at least 100 of each), and borderline mismatches are at most
 *     1% of the pairs + 5;
 *   - two GPU runs give identical bytes;
 *   - cap too small: SIPD_EFAIL, *npairs = the number of pairs found, out untouched (also with
 *     out = NULL, cap = 0); no candidates (before a broad phase): SIPD_OK, 0 pairs.
 * Printed: candidate and pair counts, pairs in both / borderline pairs (by reason), max |Δβ|,
 * |Δn| (per kind too) and the largest deviation / tolerance ratio.
 *
 * SIPD_TEST_GPU_SELFTEST=1 runs everything with a host float32 stand-in for the GPU
 * (tests/gpu/gpu_collide_emu.c: the kernel's per-candidate code in a host loop): it checks the test
 * logic and tolerances against real float32 results, not the CUDA code.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backend_cuda.h"
#include "collide.h"
#include "collide_cuda.h"
#include "meshgen.h"
#include "physics/distance.h"
#include "physics/mat3.h"
#include "util.h"
#include "check.h"
#include "rng.h"

#define FK 16.0           /* safety factor on the float32 error estimates          */
#define BASE_TOL 1e-5     /* β and n, for well-conditioned pairs                   */

int emu_collide_narrow(const sipd_collide *c, const double *x0, const double *y, sipd_contact_pair *out, int cap,
                       int *npairs);

typedef int (*narrow_fn)(const sipd_collide *, const double *, const double *, sipd_contact_pair *, int, int *);
static narrow_fn gpu_narrow = sipd_cuda_collide_narrow;

/* rnd, rndu: the default stream of rng.h (tests/common) */

/* rotation by angle a about axis k (Rodrigues) */
static mat3 rotation(vec3 k, double a)
{
    double c = cos(a), s = sin(a), l = sqrt(v3_norm2(k));
    mat3 R;
    int i, j;
    vec3 u = v3_scale(k, 1 / l);
    double K[9] = {0, -u.v[2], u.v[1], u.v[2], 0, -u.v[0], -u.v[1], u.v[0], 0};
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) R.m[3 * i + j] = (i == j ? c : 0) + s * K[3 * i + j] + (1 - c) * u.v[i] * u.v[j];
    return R;
}

/* ---------------------------------------------------------------- the scene */

typedef struct {
    sipd_model m;   /* only what collide.c reads: nv, nf, X, tris, body, fixed, bbox_diag */
    double *x0, *y;
} pile;

static void pile_free(pile *s)
{
    free(s->m.X);
    free(s->m.tris);
    free(s->m.body);
    free(s->m.fixed);
    free(s->x0);
    free(s->y);
    memset(s, 0, sizeof *s);
}

/* nl layers of nn planks of ncell cells, moved by shift; see the top */
static int make_pile(pile *s, int nl, int nn, int ncell, double dhat, vec3 shift)
{
    const double t = 0.04, pitch = t + 0.5 * dhat, len = nn * pitch;
    sipd_mesh me;
    sipd_model *m = &s->m;
    int l, j, i, b, k, nb = nl * nn;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    memset(s, 0, sizeof *s);
    if (meshgen_box(ncell, 1, 1, len, t, t, &me) != SIPD_OK)
        return SIPD_EFAIL;
    m->nv = nb * me.nv;
    m->nf = nb * me.nf;
    m->nbodies = nb;
    m->X = malloc((size_t)m->nv * 3 * sizeof(double));
    m->tris = malloc((size_t)m->nf * 3 * sizeof(int));
    m->body = malloc((size_t)m->nv * sizeof(int));
    m->fixed = calloc((size_t)m->nv, 1);
    s->x0 = malloc((size_t)m->nv * 3 * sizeof(double));
    s->y = malloc((size_t)m->nv * 3 * sizeof(double));
    if (!m->X || !m->tris || !m->body || !m->fixed || !s->x0 || !s->y) {
        mesh_free(&me);
        return SIPD_EFAIL;
    }
    for (l = 0, b = 0; l < nl; l++)
        for (j = 0; j < nn; j++, b++) {
            mat3 R = m3_mul(rotation(v3(rndu(-1, 1), rndu(-1, 1), rndu(-1, 1)), rndu(0, 0.03)),
                            rotation(v3(0, 1, 0), l % 2 ? 1.5707963267948966 : 0));
            /* planks along x side by side in z, or (odd layers) along z side by side in x */
            vec3 T = v3(0, (l + 0.5) * pitch, (j + 0.5) * pitch - len / 2);
            if (l % 2)
                T = v3((j + 0.5) * pitch - len / 2, (l + 0.5) * pitch, 0);
            T = v3_add(T, v3(rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat));
            T = v3_add(T, shift);
            for (i = 0; i < me.nv; i++) {
                vec3 p = v3(me.x[3 * i] - len / 2, me.x[3 * i + 1] - t / 2, me.x[3 * i + 2] - t / 2);
                v3_store(m->X + 3 * ((size_t)b * me.nv + i), v3_add(m3_mulv(R, p), T));
                m->body[b * me.nv + i] = b;
            }
            for (i = 0; i < 3 * me.nf; i++) m->tris[(size_t)b * 3 * me.nf + i] = me.tris[i] + b * me.nv;
        }
    mesh_free(&me);
    for (i = 0; i < m->nv; i++)
        for (k = 0; k < 3; k++) {
            double x = m->X[3 * i + k];
            s->x0[3 * i + k] = x;
            s->y[3 * i + k] = x + (k == 1 ? -0.3 * dhat : 0) + rndu(-0.15, 0.15) * dhat;
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
    m->bbox_diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return SIPD_OK;
}

/* ---------------------------------------------------------------- per-candidate diagnosis (double) */

static vec3 ldv(const double *x, int i) { return v3(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }

typedef struct {
    double tol_beta, tol_n;   /* for a pair in both lists                                   */
    int border;               /* bit 0: gap ≈ d̂, 1: face boundary, 2: edge end, 3: parallel
                                 threshold, 4: orientation                                  */
} diag;

/* orientation and gap margins given z = Σβy, z0 = Σβx0, the double n and gap */
static int border_gap_orient(double gap, double dhat, double tol_gap, vec3 n, vec3 z, vec3 z0, double delta)
{
    int b = 0;
    double lz = sqrt(v3_norm2(z)), lz0 = sqrt(v3_norm2(z0));
    if (fabs(gap - dhat) <= tol_gap)
        b |= 1;
    if (lz > 0 && fabs(v3_dot(n, z0)) <= FK * delta * (1 + lz0 / lz))
        b |= 16;
    return b;
}

static void diagnose(const sipd_collide_view *v, const double *x0, const double *y, size_t k, double delta,
                     double tol_gap, diag *d)
{
    const sipd_model *m = v->m;
    sipd_real beta[4], gap;
    vec3 n, z, z0;
    int j;
    memset(d, 0, sizeof *d);
    if (k < v->nvf) {
        int p = v->vf[2 * k], f = v->vf[2 * k + 1];
        const int *t = m->tris + 3 * f;
        vec3 P = ldv(y, p), A = ldv(y, t[0]), B = ldv(y, t[1]), C = ldv(y, t[2]);
        vec3 N = v3_cross(v3_sub(B, A), v3_sub(C, A));
        double N2 = v3_norm2(N), lmax, h, bary[3], tol_b;
        lmax = fmax(sqrt(v3_norm2(v3_sub(B, A))), fmax(sqrt(v3_norm2(v3_sub(C, B))), sqrt(v3_norm2(v3_sub(A, C)))));
        h = sqrt(N2) / lmax;   /* smallest altitude = 2 area / longest edge */
        bary[0] = v3_dot(N, v3_cross(v3_sub(B, P), v3_sub(C, P))) / N2;
        bary[1] = v3_dot(N, v3_cross(v3_sub(C, P), v3_sub(A, P))) / N2;
        bary[2] = v3_dot(N, v3_cross(v3_sub(A, P), v3_sub(B, P))) / N2;
        tol_b = FK * delta / h;
        for (j = 0; j < 3; j++)
            if (fabs(bary[j]) <= tol_b)
                d->border |= 2;
        dist_vf_pair(P, A, B, C, ldv(x0, p), ldv(x0, t[0]), ldv(x0, t[1]), ldv(x0, t[2]), v->tiny, beta, &n, &gap);
        z = v3_add(v3_add(v3_add(v3_scale(P, beta[0]), v3_scale(A, beta[1])), v3_scale(B, beta[2])), v3_scale(C, beta[3]));
        z0 = v3_add(v3_add(v3_add(v3_scale(ldv(x0, p), beta[0]), v3_scale(ldv(x0, t[0]), beta[1])),
                           v3_scale(ldv(x0, t[1]), beta[2])),
                    v3_scale(ldv(x0, t[2]), beta[3]));
        d->border |= border_gap_orient(gap, v->dhat, tol_gap, n, z, z0, delta);
        d->tol_beta = BASE_TOL + tol_b;
        d->tol_n = BASE_TOL + FK * delta / fmax(sqrt(v3_norm2(z)), 1e-300);
    } else {
        const int *e1 = v->edges + 2 * v->ee[2 * (k - v->nvf)], *e2 = v->edges + 2 * v->ee[2 * (k - v->nvf) + 1];
        vec3 P0 = ldv(y, e1[0]), P1 = ldv(y, e1[1]), Q0 = ldv(y, e2[0]), Q1 = ldv(y, e2[1]);
        vec3 E1 = v3_sub(P1, P0), E2 = v3_sub(Q1, Q0);
        double l1 = sqrt(v3_norm2(E1)), l2 = sqrt(v3_norm2(E2)), lmin = fmin(l1, l2), lmax = fmax(l1, l2);
        double sn = sqrt(v3_norm2(v3_cross(E1, E2))) / (l1 * l2), r = sqrt(v3_norm2(v3_sub(P0, Q0)));
        double tol_st, s, t;
        sipd_real ss, tt;
        dist_edge_edge(P0, P1, Q0, Q1, &ss, &tt);
        s = ss;
        t = tt;
        tol_st = FK * (delta / (lmin * fmax(sn, 1e-300)) + FLT_EPSILON * (1 + r / lmin) / fmax(sn * sn, 1e-300));
        if (fabs(sn - 1e-3) <= FK * (FLT_EPSILON + delta / lmin))
            d->border |= 8;
        if (sn > 1e-3 && (fabs(s) <= tol_st || fabs(1 - s) <= tol_st || fabs(t) <= tol_st || fabs(1 - t) <= tol_st))
            d->border |= 4;
        d->tol_beta = BASE_TOL + tol_st;
        d->tol_n = INFINITY;
        if (dist_ee_pair(P0, P1, Q0, Q1, ldv(x0, e1[0]), ldv(x0, e1[1]), ldv(x0, e2[0]), ldv(x0, e2[1]), v->tiny, beta,
                         &n, &gap)) {
            z = v3_add(v3_add(v3_add(v3_scale(P0, beta[0]), v3_scale(P1, beta[1])), v3_scale(Q0, beta[2])),
                       v3_scale(Q1, beta[3]));
            z0 = v3_add(v3_add(v3_add(v3_scale(ldv(x0, e1[0]), beta[0]), v3_scale(ldv(x0, e1[1]), beta[1])),
                               v3_scale(ldv(x0, e2[0]), beta[2])),
                        v3_scale(ldv(x0, e2[1]), beta[3]));
            d->border |= border_gap_orient(gap, v->dhat, tol_gap, n, z, z0, delta);
            d->tol_n = BASE_TOL + FK * (delta + lmax * tol_st) / fmax(sqrt(v3_norm2(z)), 1e-300);
        }
    }
}

/* ---------------------------------------------------------------- comparison */

/* 1 when pair p is the pair of candidate k */
static int is_pair_of(const sipd_collide_view *v, size_t k, const sipd_contact_pair *p)
{
    if (k < v->nvf) {
        const int *t = v->m->tris + 3 * v->vf[2 * k + 1];
        return p->kind == 0 && p->v[0] == v->vf[2 * k] && p->v[1] == t[0] && p->v[2] == t[1] && p->v[3] == t[2];
    } else {
        const int *e1 = v->edges + 2 * v->ee[2 * (k - v->nvf)], *e2 = v->edges + 2 * v->ee[2 * (k - v->nvf) + 1];
        return p->kind == 1 && p->v[0] == e1[0] && p->v[1] == e1[1] && p->v[2] == e2[0] && p->v[3] == e2[1];
    }
}

static int run_case(const char *name, vec3 shift)
{
    const double dhat = 0.01, margin = 0.25 * dhat;
    pile s;
    sipd_collide *c = NULL;
    sipd_collide_view v;
    const sipd_contact_pair *cpu;
    sipd_contact_pair *gpu = NULL, *gpu2 = NULL, *probe = NULL;
    int ncpu = 0, ngpu = 0, ngpu2 = 0, nprobe = -1, rc, f0 = failures, i, k3;
    size_t k, nc, ic = 0, ig = 0;
    long nvf_c, nee_c;
    double X = 0, delta, tol_gap, max_db = 0, max_dn = 0, max_ratio = 0, kmax_db[2] = {0, 0}, kmax_dn[2] = {0, 0};
    long within_base[2] = {0, 0}, kmatched[2] = {0, 0};
    long matched = 0, bad = 0, border_cnt[5] = {0, 0, 0, 0, 0}, nborder = 0, cpu_vf = 0, cpu_ee = 0;
    static const char *why[5] = {"gap~dhat", "face-boundary", "edge-end", "parallel-threshold", "orientation"};

    if (make_pile(&s, 4, 10, 24, dhat, shift) != SIPD_OK) {
        fprintf(stderr, "%s: could not build the pile\n", name);
        return 1;
    }
    for (i = 0; i < 3 * s.m.nv; i++) X = fmax(X, fmax(fabs(s.x0[i]), fabs(s.y[i])));
    delta = FLT_EPSILON * X;
    tol_gap = fmax(fmax(1e-5 * dhat, 1e-6 * s.m.bbox_diag), FK * delta);

    rc = collide_create(&c, &s.m, 1, dhat);
    CHECK(rc == SIPD_OK, "collide_create");
    if (rc != SIPD_OK)
        goto out;
    /* no candidates yet: 0 pairs, no device work */
    rc = gpu_narrow(c, s.x0, s.y, NULL, 0, &ngpu);
    CHECK(rc == SIPD_OK && ngpu == 0, "%s: before the broad phase: rc %d, %d pairs", name, rc, ngpu);

    CHECK(collide_broad(c, s.x0, s.y, margin) == SIPD_OK, "collide_broad");
    CHECK(collide_narrow(c, s.x0, s.y, &cpu, &ncpu) == SIPD_OK, "collide_narrow");
    collide_candidate_arrays(c, &v);
    collide_candidates(c, &nvf_c, &nee_c);
    CHECK((long)v.nvf == nvf_c && (long)v.nee == nee_c && v.m == &s.m && v.dhat == dhat,
          "view: %zu/%zu candidates, collide_candidates %ld/%ld", v.nvf, v.nee, nvf_c, nee_c);
    nc = v.nvf + v.nee;
    gpu = malloc((nc ? nc : 1) * sizeof *gpu);
    gpu2 = malloc((nc ? nc : 1) * sizeof *gpu2);
    if (!gpu || !gpu2) {
        fprintf(stderr, "out of memory\n");
        failures++;
        goto out;
    }
    rc = gpu_narrow(c, s.x0, s.y, gpu, (int)nc, &ngpu);
    CHECK(rc == SIPD_OK, "%s: GPU narrow phase failed (rc %d)", name, rc);
    if (rc != SIPD_OK)
        goto out;
    for (i = 0; i < ncpu; i++) {
        cpu_vf += cpu[i].kind == 0;
        cpu_ee += cpu[i].kind == 1;
    }

    /* walk the candidates: each list must hold the candidates' pairs in candidate order */
    for (k = 0; k < nc; k++) {
        int in_c = ic < (size_t)ncpu && is_pair_of(&v, k, cpu + ic);
        int in_g = ig < (size_t)ngpu && is_pair_of(&v, k, gpu + ig);
        diag d;
        if (!in_c && !in_g)
            continue;
        diagnose(&v, s.x0, s.y, k, delta, tol_gap, &d);
        if (in_c && in_g) {
            const sipd_contact_pair *a = cpu + ic, *b = gpu + ig;
            double db = 0, dn = 0;
            int j;
            for (j = 0; j < 4; j++) db = fmax(db, fabs(a->beta[j] - b->beta[j]));
            for (j = 0; j < 3; j++) dn = fmax(dn, fabs(a->n[j] - b->n[j]));
            if (!(db <= d.tol_beta && dn <= d.tol_n)) {
                if (bad++ < 10)
                    fprintf(stderr,
                            "  %s: candidate %zu (%s %d %d %d %d): |dbeta| %.3g (tol %.3g) |dn| %.3g (tol %.3g)\n",
                            name, k, a->kind ? "EE" : "VF", a->v[0], a->v[1], a->v[2], a->v[3], db, d.tol_beta, dn,
                            d.tol_n);
            }
            CHECK(a->kind == b->kind, "kind");
            max_db = fmax(max_db, db);
            max_dn = fmax(max_dn, dn);
            kmax_db[a->kind & 1] = fmax(kmax_db[a->kind & 1], db);
            kmax_dn[a->kind & 1] = fmax(kmax_dn[a->kind & 1], dn);
            within_base[a->kind & 1] += db <= BASE_TOL && dn <= BASE_TOL;
            kmatched[a->kind & 1]++;
            max_ratio = fmax(max_ratio, fmax(db / d.tol_beta, dn / d.tol_n));
            matched++;
            ic++;
            ig++;
        } else {
            if (d.border) {
                nborder++;
                for (k3 = 0; k3 < 5; k3++) border_cnt[k3] += (d.border >> k3) & 1;
            } else if (bad++ < 10) {
                fprintf(stderr, "  %s: candidate %zu (%s) kept by the %s only, not near a rule's boundary\n", name, k,
                        k < v.nvf ? "VF" : "EE", in_c ? "CPU" : "GPU");
            }
            ic += in_c;
            ig += in_g;
        }
    }
    CHECK(ic == (size_t)ncpu && ig == (size_t)ngpu,
          "%s: pairs out of candidate order: walked %zu of %d CPU and %zu of %d GPU pairs", name, ic, ncpu, ig, ngpu);
    CHECK(bad == 0, "%s: %ld pairs differ beyond the float32 tolerances", name, bad);
    CHECK(cpu_vf >= 100 && cpu_ee >= 100, "%s: too few pairs to be a test: %ld VF, %ld EE", name, cpu_vf, cpu_ee);
    CHECK(nborder <= ncpu / 100 + 5, "%s: %ld borderline mismatches of %d pairs", name, nborder, ncpu);

    printf("%s: %zu VF + %zu EE candidates; CPU %d pairs (%ld VF, %ld EE), GPU %d; in both %ld; "
           "kept by one side only, on a rule's edge: %ld",
           name, v.nvf, v.nee, ncpu, cpu_vf, cpu_ee, ngpu, matched, nborder);
    for (k3 = 0; k3 < 5; k3++)
        if (border_cnt[k3]) printf(" %s %ld", why[k3], border_cnt[k3]);
    printf("\n%s: max |dbeta| %.3g, max |dn| %.3g, max deviation/tolerance %.3g (coordinates up to %.3g, "
           "delta %.3g)\n", name, max_db, max_dn, max_ratio, X, delta);
    for (k3 = 0; k3 < 2; k3++)
        printf("%s: %s: %ld of %ld matched pairs within %.0e in both beta and n; max |dbeta| %.3g, max |dn| %.3g\n",
               name, k3 ? "EE" : "VF", within_base[k3], kmatched[k3], BASE_TOL, kmax_db[k3], kmax_dn[k3]);

    /* determinism: a second run gives the same bytes */
    rc = gpu_narrow(c, s.x0, s.y, gpu2, (int)nc, &ngpu2);
    CHECK(rc == SIPD_OK && ngpu2 == ngpu && memcmp(gpu, gpu2, (size_t)ngpu * sizeof *gpu) == 0,
          "%s: a second GPU run differs (rc %d, %d pairs)", name, rc, ngpu2);

    /* capacity too small: SIPD_EFAIL, *npairs = the count, out untouched */
    if (ngpu > 0) {
        probe = malloc((size_t)ngpu * sizeof *probe);
        if (probe) {
            memset(probe, 0xAB, (size_t)ngpu * sizeof *probe);
            memcpy(gpu2, probe, (size_t)ngpu * sizeof *probe);
            printf("%s: capacity %d for %d pairs (an error message is expected):\n", name, ngpu - 1, ngpu);
            fflush(stdout);
            rc = gpu_narrow(c, s.x0, s.y, gpu2, ngpu - 1, &nprobe);
            CHECK(rc == SIPD_EFAIL && nprobe == ngpu && memcmp(gpu2, probe, (size_t)ngpu * sizeof *probe) == 0,
                  "%s: cap %d: rc %d, *npairs %d (expected SIPD_EFAIL, %d), output %s", name, ngpu - 1, rc, nprobe,
                  ngpu, memcmp(gpu2, probe, (size_t)ngpu * sizeof *probe) ? "written" : "untouched");
            nprobe = -1;
            rc = gpu_narrow(c, s.x0, s.y, NULL, 0, &nprobe);
            CHECK(rc == SIPD_EFAIL && nprobe == ngpu, "%s: out NULL: rc %d, *npairs %d", name, rc, nprobe);
        }
    }
out:
    free(gpu);
    free(gpu2);
    free(probe);
    collide_destroy(c);
    pile_free(&s);
    return failures > f0;
}

/* ---------------------------------------------------------------- the broad phase */

int emu_broad(const sipd_collide *c, const double *x0, const double *y1, double margin, int **vf, size_t *nvf,
              int **ee, size_t *nee);

/* sipd_cuda_broad_create / _run / _candidates, run twice (the second run must give the same
 * candidates: determinism, and buffers reused between runs) */
static int cuda_broad(const sipd_collide *c, const double *x0, const double *y1, double margin, int **vf,
                      size_t *nvf, int **ee, size_t *nee)
{
    sipd_cuda_broad *g = NULL;
    long a, b;
    int run, rc = SIPD_EFAIL;
    int *v2 = NULL, *e2 = NULL;
    *vf = *ee = NULL;
    *nvf = *nee = 0;
    if (sipd_cuda_broad_create(&g, c) != SIPD_OK)
        return SIPD_EFAIL;
    for (run = 0; run < 2; run++) {
        int **pv = run ? &v2 : vf, **pe = run ? &e2 : ee;
        if (sipd_cuda_broad_run(g, x0, y1, margin) != SIPD_OK)
            goto done;
        sipd_cuda_broad_count(g, &a, &b);
        *pv = malloc(((size_t)a + 1) * 2 * sizeof(int));
        *pe = malloc(((size_t)b + 1) * 2 * sizeof(int));
        if (!*pv || !*pe || sipd_cuda_broad_candidates(g, *pv, *pe) != SIPD_OK)
            goto done;
        if (run == 0) {
            *nvf = (size_t)a;
            *nee = (size_t)b;
        }
    }
    CHECK(a == (long)*nvf && b == (long)*nee && memcmp(*vf, v2, 2 * *nvf * sizeof(int)) == 0 &&
              memcmp(*ee, e2, 2 * *nee * sizeof(int)) == 0,
          "a second GPU broad phase differs (%ld/%ld candidates, first %zu/%zu)", a, b, *nvf, *nee);
    rc = SIPD_OK;
done:
    free(v2);
    free(e2);
    sipd_cuda_broad_destroy(g);
    return rc;
}

typedef int (*broad_fn)(const sipd_collide *, const double *, const double *, double, int **, size_t *, int **,
                        size_t *);
static broad_fn gpu_broad = cuda_broad;
static int emulated = 0;

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* 1 when the n (a, b) pairs of p and q are the same set (sorted copies compared) */
static int same_set(const int *p, const int *q, size_t n)
{
    int *sp = malloc((n + 1) * 2 * sizeof(int)), *sq = malloc((n + 1) * 2 * sizeof(int)), eq;
    if (!sp || !sq) {
        free(sp);
        free(sq);
        return 0;
    }
    if (n == 0) {   /* p, q may be NULL then (a rods-only model has no VF candidates) */
        free(sp);
        free(sq);
        return 1;
    }
    memcpy(sp, p, n * 2 * sizeof(int));
    memcpy(sq, q, n * 2 * sizeof(int));
    qsort(sp, n, 2 * sizeof(int), cmp_pair);
    qsort(sq, n, 2 * sizeof(int), cmp_pair);
    eq = memcmp(sp, sq, n * 2 * sizeof(int)) == 0;
    free(sp);
    free(sq);
    return eq;
}

static int cmp_cpair(const void *a, const void *b)
{
    const sipd_contact_pair *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return memcmp(x->v, y->v, sizeof x->v);
}

/* The GPU broad phase against collide_broad on a pile: self-contact on or off, the first layer
 * fixed or not, the detection distance dhat_det (the pile's spacing uses 0.01: a larger dhat_det
 * makes pairs within one plank near in the rest shape, so the rest exclusions matter). */
static int broad_case(const char *name, vec3 shift, int self, int fix_layer, double dhat_det)
{
    const double dhat = 0.01, margin = 0.25 * dhat_det;
    pile s;
    sipd_collide *c = NULL;
    sipd_collide_view v;
    int *gvf = NULL, *gee = NULL, f0 = failures, i, rc;
    size_t gnvf = 0, gnee = 0, k, nxvf = 0, nxee = 0;
    uint64_t *xvf = NULL, *xee = NULL;
    long same_body = 0, fixed_only = 0, order_same;

    if (make_pile(&s, 4, 10, 24, dhat, shift) != SIPD_OK) {
        fprintf(stderr, "%s: could not build the pile\n", name);
        return 1;
    }
    if (fix_layer)   /* the first layer of 10 planks: bodies 0..9 */
        for (i = 0; i < s.m.nv; i++) s.m.fixed[i] = s.m.body[i] < 10;
    rc = collide_create(&c, &s.m, self, dhat_det);
    CHECK(rc == SIPD_OK, "collide_create");
    if (rc != SIPD_OK)
        goto out;
    CHECK(collide_broad(c, s.x0, s.y, margin) == SIPD_OK, "collide_broad");
    collide_candidate_arrays(c, &v);
    rc = gpu_broad(c, s.x0, s.y, margin, &gvf, &gnvf, &gee, &gnee);
    CHECK(rc == SIPD_OK, "%s: GPU broad phase failed", name);
    if (rc != SIPD_OK)
        goto out;
    CHECK(gnvf == v.nvf && gnee == v.nee, "%s: GPU %zu VF + %zu EE candidates, CPU %zu + %zu", name, gnvf, gnee,
          v.nvf, v.nee);
    if (gnvf == v.nvf && gnee == v.nee) {
        CHECK(same_set(v.vf, gvf, v.nvf), "%s: the VF candidates differ", name);
        CHECK(same_set(v.ee, gee, v.nee), "%s: the EE candidates differ", name);
    }
    order_same = gnvf == v.nvf && gnee == v.nee && (!v.nvf || !memcmp(v.vf, gvf, 2 * v.nvf * sizeof(int))) &&
                 (!v.nee || !memcmp(v.ee, gee, 2 * v.nee * sizeof(int)));
    /* the stand-in sums the grid reduction in collide.c's order, so even the order must agree */
    if (emulated)
        CHECK(order_same, "%s: the stand-in's candidates are not in collide_broad's order", name);
    /* what the case exercises */
    for (k = 0; k < v.nvf; k++) {
        int a = v.vf[2 * k], f = v.vf[2 * k + 1];
        same_body += s.m.body[a] == s.m.body[s.m.tris[3 * f]];
    }
    for (k = 0; k < v.nee; k++) {
        int a = v.edges[2 * v.ee[2 * k]], b = v.edges[2 * v.ee[2 * k + 1]];
        same_body += s.m.body[a] == s.m.body[b];
        fixed_only += s.m.body[a] < 10 && s.m.body[b] < 10;
    }
    if (self && collide_rest_excluded(&s.m, dhat_det, &xvf, &nxvf, &xee, &nxee) != SIPD_OK)
        CHECK(0, "collide_rest_excluded failed");
    CHECK(v.nvf >= 1000 && v.nee >= 1000, "%s: too few candidates to be a test (%zu VF, %zu EE)", name, v.nvf, v.nee);
    CHECK(self || same_body == 0, "%s: %ld candidates within one body with self = 0", name, same_body);
    CHECK(!self || same_body > 0, "%s: no candidate within one body with self = 1", name);
    CHECK(!fix_layer || fixed_only == 0, "%s: %ld EE candidates between fixed planks", name, fixed_only);
    CHECK(dhat_det <= dhat || (nxvf > 0 && nxee > 0), "%s: no rest exclusions (%zu VF, %zu EE) with d̂ %g", name,
          nxvf, nxee, dhat_det);
    printf("broad %s: %zu VF + %zu EE candidates on both sides (%s order), %ld within one body, rest exclusions "
           "%zu VF + %zu EE\n",
           name, v.nvf, v.nee, order_same ? "same" : "different", same_body, nxvf, nxee);
out:
    free(gvf);
    free(gee);
    free(xvf);
    free(xee);
    collide_destroy(c);
    pile_free(&s);
    return failures > f0;
}

/* ---------------------------------------------------------------- detection on the device */

int emu_broad_narrow(const sipd_collide *c, const int *vf, size_t nvf, const int *ee, size_t nee, unsigned char *was,
                     const float *x0, const float *y, sipd_contact_pair *out, int *npairs);

/* The device side of detection as the CUDA backend runs it (sipd_cuda_broad_run_device,
 * sipd_cuda_broad_outside, sipd_cuda_broad_narrow on float positions), or its host stand-in. */
typedef struct {
    const sipd_collide *c;
    sipd_cuda_broad *g;
    float *d_x0, *d_y;           /* device copies (GPU)                                */
    int *vf, *ee;                /* stand-in: candidates (emu_broad), hysteresis flags */
    size_t nvf, nee;
    unsigned char *was;
    sipd_contact_pair *out;
    size_t nv3;
} devdet;

static int dev_upload(devdet *d, const float *x0, const float *y)
{
    return cudaMemcpy(d->d_x0, x0, d->nv3 * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess ||
                   cudaMemcpy(d->d_y, y, d->nv3 * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess
               ? SIPD_EFAIL
               : SIPD_OK;
}

/* broad phase over x0 ∪ y (floats, as on the device) */
static int dev_broad(devdet *d, const float *fx0, const float *fy, const double *x0, const double *y, double margin)
{
    if (emulated) {   /* the stand-in's broad phase is double: the same positions, widened */
        free(d->vf);
        free(d->ee);
        free(d->was);
        free(d->out);
        if (emu_broad(d->c, x0, y, margin, &d->vf, &d->nvf, &d->ee, &d->nee) != SIPD_OK)
            return SIPD_EFAIL;
        d->was = calloc(d->nvf + d->nee + 1, 1);
        d->out = malloc((d->nvf + d->nee + 1) * sizeof *d->out);
        return d->was && d->out ? SIPD_OK : SIPD_EFAIL;
    }
    if (dev_upload(d, fx0, fy) != SIPD_OK)
        return SIPD_EFAIL;
    return sipd_cuda_broad_run_device(d->g, d->d_x0, d->d_y, margin);
}

static int dev_narrow(devdet *d, const float *fx0, const float *fy, const sipd_contact_pair **pairs, int *np)
{
    if (emulated) {
        *pairs = d->out;
        return emu_broad_narrow(d->c, d->vf, d->nvf, d->ee, d->nee, d->was, fx0, fy, d->out, np);
    }
    if (dev_upload(d, fx0, fy) != SIPD_OK)
        return SIPD_EFAIL;
    return sipd_cuda_broad_narrow(d->g, d->d_x0, d->d_y, pairs, np);
}

/* 1 when the sets of (kind, v) of a and b differ in at most `slack` pairs (symmetric difference);
 * *only_a, *only_b: the counts.  Both are sorted in place. */
static long sym_diff(sipd_contact_pair *a, int na, sipd_contact_pair *b, int nb, long *only_a, long *only_b)
{
    int i = 0, j = 0;
    *only_a = *only_b = 0;
    qsort(a, (size_t)na, sizeof *a, cmp_cpair);
    qsort(b, (size_t)nb, sizeof *b, cmp_cpair);
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : cmp_cpair(a + i, b + j);
        if (c < 0) {
            ++*only_a;
            i++;
        } else if (c > 0) {
            ++*only_b;
            j++;
        } else {
            i++;
            j++;
        }
    }
    return *only_a + *only_b;
}

static sipd_contact_pair *dup_pairs(const sipd_contact_pair *p, int n)
{
    sipd_contact_pair *q = malloc(((size_t)n + 1) * sizeof *q);
    if (q)
        memcpy(q, p, (size_t)n * sizeof *q);
    return q;
}

static float *to_f(const double *x, size_t n)
{
    float *f = malloc((n + 1) * sizeof *f);
    size_t i;
    if (f)
        for (i = 0; i < n; i++) f[i] = (float)x[i];
    return f;
}

/* Two narrow phases on the device after one broad phase: the first (strict rule) gives exactly
 * the pairs of sipd_cuda_collide_narrow on the CPU's candidates (same float32 code); the second,
 * at y2 = y moved by up to ±0.1 d̂ per coordinate, keeps every pair of the strict rule plus
 * pairs of the previous pass within the hysteresis band, and agrees with collide_narrow's second
 * pass (float64, with its hysteresis) up to float32 borderline pairs (≤ 1% + 5).  The outside
 * test agrees with collide_outside.  Pass 2 repeated from the same state gives the same bytes. */
static int detect_case(const char *name, vec3 shift)
{
    const double dhat = 0.01, margin = 0.25 * dhat;
    pile s;
    sipd_collide *c = NULL;
    devdet d;
    double *y2 = NULL;
    float *fx0 = NULL, *fy = NULL, *fy2 = NULL;
    const sipd_contact_pair *pp;
    sipd_contact_pair *p1 = NULL, *r1 = NULL, *p2 = NULL, *s2 = NULL, *c2 = NULL, *tmp = NULL;
    int n1 = 0, nr1 = 0, n2 = 0, ns2 = 0, nc2 = 0, f0 = failures, i, out = -1;
    long a, b, hyst = 0, strict_missing = 0;
    size_t nc;

    memset(&d, 0, sizeof d);
    if (make_pile(&s, 4, 10, 24, dhat, shift) != SIPD_OK) {
        fprintf(stderr, "%s: could not build the pile\n", name);
        return 1;
    }
    d.nv3 = 3 * (size_t)s.m.nv;
    y2 = malloc(d.nv3 * sizeof *y2);
    for (i = 0; i < (int)d.nv3; i++) y2[i] = s.y[i] + rndu(-0.1, 0.1) * dhat;
    fx0 = to_f(s.x0, d.nv3);
    fy = to_f(s.y, d.nv3);
    fy2 = to_f(y2, d.nv3);
    CHECK(collide_create(&c, &s.m, 1, dhat) == SIPD_OK, "collide_create");
    CHECK(collide_broad(c, s.x0, s.y, margin) == SIPD_OK, "collide_broad");
    d.c = c;
    if (!emulated) {
        CHECK(sipd_cuda_broad_create(&d.g, c) == SIPD_OK, "sipd_cuda_broad_create");
        CHECK(cudaMalloc((void **)&d.d_x0, d.nv3 * sizeof(float)) == cudaSuccess &&
                  cudaMalloc((void **)&d.d_y, d.nv3 * sizeof(float)) == cudaSuccess,
              "cudaMalloc");
        if (d.g && d.d_y) {
            CHECK(dev_upload(&d, fx0, fy) == SIPD_OK, "upload");
            CHECK(sipd_cuda_broad_outside(d.g, d.d_y, &out) == SIPD_OK && out == 1, "outside before a run: %d", out);
        }
    }
    if (failures > f0 || dev_broad(&d, fx0, fy, s.x0, s.y, margin) != SIPD_OK) {
        CHECK(0, "%s: device broad phase failed", name);
        goto done;
    }
    if (!emulated) {   /* outside: y2 is within the margin of x0 ∪ y; one vertex moved far is not */
        float keep = fy2[0];
        CHECK(dev_upload(&d, fx0, fy2) == SIPD_OK && sipd_cuda_broad_outside(d.g, d.d_y, &out) == SIPD_OK &&
                  out == collide_outside(c, y2) && out == 0,
              "%s: outside at y2: GPU %d, CPU %d", name, out, collide_outside(c, y2));
        fy2[0] += 1;
        y2[0] += 1;
        CHECK(dev_upload(&d, fx0, fy2) == SIPD_OK && sipd_cuda_broad_outside(d.g, d.d_y, &out) == SIPD_OK &&
                  out == collide_outside(c, y2) && out == 1,
              "%s: outside with a vertex moved: GPU %d, CPU %d", name, out, collide_outside(c, y2));
        fy2[0] = keep;
        y2[0] -= 1;
    }
    {
        long nvf, nee;
        collide_candidates(c, &nvf, &nee);
        nc = (size_t)(nvf + nee);
    }
    /* pass 1: the strict rule, as sipd_cuda_collide_narrow on the CPU's candidates */
    CHECK(dev_narrow(&d, fx0, fy, &pp, &n1) == SIPD_OK, "%s: device narrow phase 1", name);
    p1 = dup_pairs(pp, n1);
    r1 = malloc((nc + 1) * sizeof *r1);
    CHECK(gpu_narrow(c, s.x0, s.y, r1, (int)nc, &nr1) == SIPD_OK, "%s: reference narrow phase", name);
    CHECK(sym_diff(p1, n1, r1, nr1, &a, &b) == 0 && n1 == nr1 && memcmp(p1, r1, (size_t)n1 * sizeof *p1) == 0,
          "%s: pass 1: %d device pairs, %d reference pairs (%ld / %ld only on one side, or other values)", name, n1,
          nr1, a, b);
    /* pass 2 at y2: hysteresis */
    CHECK(dev_narrow(&d, fx0, fy2, &pp, &n2) == SIPD_OK, "%s: device narrow phase 2", name);
    p2 = dup_pairs(pp, n2);
    s2 = malloc((nc + 1) * sizeof *s2);
    CHECK(gpu_narrow(c, s.x0, y2, s2, (int)nc, &ns2) == SIPD_OK, "%s: strict narrow phase at y2", name);
    sym_diff(p2, n2, s2, ns2, &hyst, &strict_missing);
    CHECK(strict_missing == 0, "%s: pass 2 lost %ld pairs of the strict rule", name, strict_missing);
    CHECK(hyst > 0, "%s: no pair kept by the hysteresis: not a test of it", name);
    CHECK(collide_narrow(c, s.x0, s.y, &pp, &nc2) == SIPD_OK && collide_narrow(c, s.x0, y2, &pp, &nc2) == SIPD_OK,
          "collide_narrow");
    c2 = dup_pairs(pp, nc2);
    sym_diff(p2, n2, c2, nc2, &a, &b);
    CHECK(a + b <= nc2 / 100 + 5, "%s: pass 2: %d device pairs, %d collide_narrow pairs: %ld / %ld on one side only",
          name, n2, nc2, a, b);
    printf("device detection %s: pass 1 %d pairs (= the reference); pass 2 %d pairs, %ld of them kept by the "
           "hysteresis, collide_narrow %d (%ld / %ld on one side only)\n",
           name, n1, n2, hyst, nc2, a, b);
    /* pass 2 again from the state after pass 1: the same bytes */
    if (dev_broad(&d, fx0, fy, s.x0, s.y, margin) == SIPD_OK && dev_narrow(&d, fx0, fy, &pp, &n1) == SIPD_OK &&
        dev_narrow(&d, fx0, fy2, &pp, &i) == SIPD_OK) {
        tmp = dup_pairs(pp, i);
        qsort(tmp, (size_t)i, sizeof *tmp, cmp_cpair);
        CHECK(i == n2 && memcmp(tmp, p2, (size_t)i * sizeof *tmp) == 0, "%s: pass 2 repeated differs", name);
    } else {
        CHECK(0, "%s: repeated run failed", name);
    }
done:
    free(p1);
    free(r1);
    free(p2);
    free(s2);
    free(c2);
    free(tmp);
    free(y2);
    free(fx0);
    free(fy);
    free(fy2);
    free(d.vf);
    free(d.ee);
    free(d.was);
    free(d.out);
    if (d.d_x0) cudaFree(d.d_x0);
    if (d.d_y) cudaFree(d.d_y);
    sipd_cuda_broad_destroy(d.g);
    collide_destroy(c);
    pile_free(&s);
    return failures > f0;
}

/* ---------------------------------------------------------------- thin bodies (rods, cloth) */

/* A woodpile of rods (polylines of `seg` segments, each its own body, layers alternately along x
 * and z, neighbours `pitch` apart, radius r, so crossing and parallel rod pairs are in the band)
 * and a cloth sheet (crad rc) lying on the top layer, jittered like the plank piles; y = x0 moved
 * down by 0.3 d̂ ± 0.15 d̂.  Rod edges are m->cedges with m->cval; every vertex has a crad. */
static int make_thin_pile(pile *s, int nl, int nn, int seg, double dhat, double r, double rc, vec3 shift)
{
    const double pitch = 2 * r + 0.6 * dhat, len = nn * pitch;
    const int nrod = nl * nn, nvr = seg + 1, cn = 2 * nn;   /* cloth: cn x cn cells */
    sipd_model *m = &s->m;
    int l, j, i, k, b, ncv = (cn + 1) * (cn + 1);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    memset(s, 0, sizeof *s);
    m->nv = nrod * nvr + ncv;
    m->nf = 2 * cn * cn;
    m->nce = nrod * seg;
    m->nbodies = nrod + 1;
    m->X = malloc((size_t)m->nv * 3 * sizeof(double));
    m->tris = malloc((size_t)m->nf * 3 * sizeof(int));
    m->body = malloc((size_t)m->nv * sizeof(int));
    m->fixed = calloc((size_t)m->nv, 1);
    m->crad = malloc((size_t)m->nv * sizeof(double));
    m->cedges = malloc((size_t)m->nce * 2 * sizeof(int));
    m->cval = calloc((size_t)m->nv, sizeof(int));
    s->x0 = malloc((size_t)m->nv * 3 * sizeof(double));
    s->y = malloc((size_t)m->nv * 3 * sizeof(double));
    if (!m->X || !m->tris || !m->body || !m->fixed || !m->crad || !m->cedges || !m->cval || !s->x0 || !s->y)
        return SIPD_EFAIL;
    for (l = 0, b = 0; l < nl; l++)
        for (j = 0; j < nn; j++, b++)
            for (i = 0; i < nvr; i++) {
                int a = b * nvr + i;
                double u = -len / 2 + len * i / seg + rndu(-0.1, 0.1) * dhat, w = (j + 0.5) * pitch - len / 2;
                vec3 p = l % 2 ? v3(w, (l + 0.5) * pitch, u) : v3(u, (l + 0.5) * pitch, w);
                p = v3_add(p, v3(rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat));
                v3_store(m->X + 3 * a, v3_add(p, shift));
                m->body[a] = b;
                m->crad[a] = r;
                if (i < seg) {
                    int e = b * seg + i;
                    m->cedges[2 * e] = a;
                    m->cedges[2 * e + 1] = a + 1;
                    m->cval[a]++;
                    m->cval[a + 1]++;
                }
            }
    m->crad_max = r > rc ? r : rc;
    for (k = 0; k <= cn; k++)   /* the cloth: on the top layer */
        for (i = 0; i <= cn; i++) {
            int a = nrod * nvr + k * (cn + 1) + i;
            vec3 p = v3(-len / 2 + len * i / cn, nl * pitch + rc + 0.2 * dhat, -len / 2 + len * k / cn);
            p = v3_add(p, v3(rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat, rndu(-0.1, 0.1) * dhat));
            v3_store(m->X + 3 * a, v3_add(p, shift));
            m->body[a] = nrod;
            m->crad[a] = rc;
        }
    for (k = 0; k < cn; k++)
        for (i = 0; i < cn; i++) {
            int a = nrod * nvr + k * (cn + 1) + i, f = 2 * (k * cn + i), *t = m->tris + 3 * f;
            t[0] = a; t[1] = a + cn + 2; t[2] = a + 1;
            t[3] = a; t[4] = a + cn + 1; t[5] = a + cn + 2;
        }
    for (i = 0; i < m->nv; i++)
        for (k = 0; k < 3; k++) {
            double x = m->X[3 * i + k];
            s->x0[3 * i + k] = x;
            s->y[3 * i + k] = x + (k == 1 ? -0.3 * dhat : 0) + rndu(-0.15, 0.15) * dhat;
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
    m->bbox_diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return SIPD_OK;
}

static void thin_pile_free(pile *s)
{
    free(s->m.crad);
    free(s->m.cedges);
    free(s->m.cval);
    pile_free(s);
}

/* Rods and cloth with contact thickness (src/collide.h): the GPU broad phase finds the CPU's
 * candidates (the rod edges after the triangles'; a model of rods only builds its grid from the
 * edge boxes), and the device's first narrow phase (strict rule, thickness offsets, clamped rod
 * pairs) equals sipd_cuda_collide_narrow's on the CPU's candidates byte for byte and
 * collide_narrow's (float64) up to float32 borderline pairs (≤ 1% + 5).  rods_only: no cloth. */
static int thin_case(const char *name, int rods_only, vec3 shift)
{
    const double dhat = 0.01, margin = 0.25 * dhat;
    pile s;
    sipd_collide *c = NULL;
    sipd_collide_view v;
    devdet d;
    int *gvf = NULL, *gee = NULL, f0 = failures, n1 = 0, nr1 = 0, nc1 = 0, i, clamped = 0, rodrod = 0;
    size_t gnvf = 0, gnee = 0, nc;
    float *fx0 = NULL, *fy = NULL;
    const sipd_contact_pair *pp;
    sipd_contact_pair *p1 = NULL, *r1 = NULL, *c1 = NULL;
    long a, b;

    memset(&d, 0, sizeof d);
    if (make_thin_pile(&s, 4, 8, 16, dhat, 0.01, 0.004, shift) != SIPD_OK) {
        fprintf(stderr, "%s: could not build the pile\n", name);
        thin_pile_free(&s);
        return 1;
    }
    if (rods_only) {   /* drop the cloth: no triangles at all */
        s.m.nf = 0;
        for (i = 0; i < s.m.nv; i++)
            if (s.m.body[i] == s.m.nbodies - 1)
                s.m.fixed[i] = 1;   /* and its vertices are nobody's: fixed, no primitive */
    }
    d.nv3 = 3 * (size_t)s.m.nv;
    fx0 = to_f(s.x0, d.nv3);
    fy = to_f(s.y, d.nv3);
    CHECK(collide_create(&c, &s.m, 1, dhat) == SIPD_OK, "collide_create");
    CHECK(collide_broad(c, s.x0, s.y, margin) == SIPD_OK, "collide_broad");
    collide_candidate_arrays(c, &v);
    CHECK(v.ne_tri < v.nedges && (rods_only ? v.ne_tri == 0 : v.ne_tri > 0), "%s: edges %d, triangle edges %d", name,
          v.nedges, v.ne_tri);
    CHECK(gpu_broad(c, s.x0, s.y, margin, &gvf, &gnvf, &gee, &gnee) == SIPD_OK, "%s: GPU broad phase", name);
    CHECK(gnvf == v.nvf && gnee == v.nee, "%s: GPU %zu VF + %zu EE candidates, CPU %zu + %zu", name, gnvf, gnee,
          v.nvf, v.nee);
    if (gnvf == v.nvf && gnee == v.nee) {
        CHECK(same_set(v.vf, gvf, v.nvf), "%s: the VF candidates differ", name);
        CHECK(same_set(v.ee, gee, v.nee), "%s: the EE candidates differ", name);
    }
    CHECK(v.nee >= 100 && (rods_only || v.nvf >= 100), "%s: too few candidates (%zu VF, %zu EE)", name, v.nvf, v.nee);
    d.c = c;
    if (!emulated) {
        CHECK(sipd_cuda_broad_create(&d.g, c) == SIPD_OK, "sipd_cuda_broad_create");
        CHECK(cudaMalloc((void **)&d.d_x0, d.nv3 * sizeof(float)) == cudaSuccess &&
                  cudaMalloc((void **)&d.d_y, d.nv3 * sizeof(float)) == cudaSuccess,
              "cudaMalloc");
    }
    if (failures > f0 || dev_broad(&d, fx0, fy, s.x0, s.y, margin) != SIPD_OK) {
        CHECK(0, "%s: device broad phase failed", name);
        goto done;
    }
    nc = v.nvf + v.nee;
    CHECK(dev_narrow(&d, fx0, fy, &pp, &n1) == SIPD_OK, "%s: device narrow phase", name);
    p1 = dup_pairs(pp, n1);
    r1 = malloc((nc + 1) * sizeof *r1);
    CHECK(gpu_narrow(c, s.x0, s.y, r1, (int)nc, &nr1) == SIPD_OK, "%s: reference narrow phase", name);
    CHECK(n1 == nr1 && memcmp(p1, r1, (size_t)n1 * sizeof *p1) == 0, "%s: %d device pairs, %d reference pairs", name,
          n1, nr1);
    CHECK(collide_narrow(c, s.x0, s.y, &pp, &nc1) == SIPD_OK, "collide_narrow");
    for (i = 0; i < nc1; i++)
        if (pp[i].kind == 1 && s.m.cval[pp[i].v[0]] && s.m.cval[pp[i].v[2]]) {
            rodrod++;
            clamped += pp[i].beta[0] == 0 || pp[i].beta[1] == 0 || pp[i].beta[2] == 0 || pp[i].beta[3] == 0;
        }
    c1 = dup_pairs(pp, nc1);
    sym_diff(p1, n1, c1, nc1, &a, &b);
    CHECK(a + b <= nc1 / 100 + 5, "%s: %d device pairs, %d collide_narrow pairs: %ld / %ld on one side only", name, n1,
          nc1, a, b);
    CHECK(rodrod >= 50 && clamped >= 10, "%s: %d rod-rod pairs, %d clamped: not a test of them", name, rodrod, clamped);
    printf("thin %s: %zu VF + %zu EE candidates on both sides, device %d pairs (= the reference), collide_narrow %d "
           "(%ld / %ld on one side only), %d rod-rod pairs of which %d clamped\n",
           name, v.nvf, v.nee, n1, nc1, a, b, rodrod, clamped);
done:
    free(gvf);
    free(gee);
    free(p1);
    free(r1);
    free(c1);
    free(fx0);
    free(fy);
    free(d.vf);
    free(d.ee);
    free(d.was);
    free(d.out);
    if (d.d_x0) cudaFree(d.d_x0);
    if (d.d_y) cudaFree(d.d_y);
    sipd_cuda_broad_destroy(d.g);
    collide_destroy(c);
    thin_pile_free(&s);
    return failures > f0;
}

int main(void)
{
    const char *st = getenv("SIPD_TEST_GPU_SELFTEST");
    if (st && atoi(st)) {
        gpu_narrow = emu_collide_narrow;
        gpu_broad = emu_broad;
        emulated = 1;
        printf("SIPD_TEST_GPU_SELFTEST: a host float32 stand-in replaces the GPU (tests the test, not CUDA)\n");
    } else if (sipd_cuda_device_count() <= 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    } else {
        char desc[256];
        if (sipd_cuda_describe(desc, (int)sizeof desc) == 0)
            printf("device: %s\n", desc);
    }
    run_case("pile", v3(0, 0, 0));
    run_case("pile_offset", v3(2, 1, -1.5));
    broad_case("self", v3(0, 0, 0), 1, 0, 0.01);
    broad_case("fixed_layer_no_self", v3(2, 1, -1.5), 0, 1, 0.01);
    broad_case("self_rest_exclusions", v3(0, 0, 0), 1, 1, 0.03);
    detect_case("pile", v3(0, 0, 0));
    detect_case("pile_offset", v3(2, 1, -1.5));
    thin_case("rods_cloth", 0, v3(0, 0, 0));
    thin_case("rods_only", 1, v3(2, 1, -1.5));
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
