/* test_collide.c — verification of collision detection: src/physics/distance.h and src/collide.c
 * (docs/design.md §3.6), double precision.
 *
 * One executable, one sub-test per argument (CTest registers each as collide_<name>):
 *   pt_tri      dist_point_triangle on random triangles (aspect ratios up to 1e4): points built in
 *               every Voronoi region (face, each edge, each corner: closest point and feature known
 *               by construction) give that feature and those weights; random points: the closest
 *               point satisfies (p − c)·(corner − c) ≤ 0 for all corners (the projection
 *               inequality) and is no farther than the best of a dense barycentric sampling, which
 *               it matches within the sampling resolution; Σw = 1, w ≥ 0, flag consistent with w
 *   edge_edge   dist_edge_edge on lines built with known closest parameters s*, t* (inside and
 *               outside [0,1]) and on random segments vs a dense (s,t) sampling; the interior flag;
 *               (near-)parallel edges (|e1×e2| = 0.5e-3 |e1||e2|, exact, zero-length) flagged, 2e-3
 *               not; dist_segment_segment2 vs sampling (parallel and overlapping segments too)
 *   brute       broad + narrow phase on random clusters of rotated boxes (and a folded noodle for
 *               self-contact) with Dirichlet bodies, self = 0 and 1, y ≠ y1 within the margin: the
 *               candidate counts equal an O(n²) enumeration of all VF/EE pairs with overlapping
 *               inflated boxes minus the exclusions, the pairs equal those of that enumeration
 *               (same v, kind, β and n within 1e-12; VF only for interior projections), every
 *               pair of the enumeration WITHOUT the box test that is closer than d̂ is reported,
 *               VF pairs come before EE pairs
 *   threads     a pile of ~10k surface triangles: candidates and pairs identical, in order and
 *               field by field (exact ==), with 1, 2, 3 and 4 OpenMP threads (2–4 twice)
 *   exclusions  no pair shares a vertex; two bodies far apart → 0 candidates, 0 pairs; one body at
 *               rest with self = 1 and d̂ > 2 × its edge length → 0 candidates; self = 0 → no pair
 *               within a body; (near-)parallel edges never reported (and a 0.01 rad crossing is);
 *               all-fixed pairs excluded (one free body → pairs again)
 *   orientation a vertex that crossed a face between x0 and y gets gap < 0 (its distance, sign
 *               flipped), one that did not gets gap > 0; the same for crossing edges; a vertex
 *               exactly on the face at y gets the face normal, oriented by x0, and gap 0
 *   outside     collide_outside: 0 for y = x0, y = y1, y between them, y within the margin; 1 when
 *               one surface vertex moves 1.1 margins beyond; interior vertices do not count
 *   hysteresis  a vertex just beyond a face's edge is no new pair, but a pair of the previous
 *               narrow phase stays as a plane pair (unclamped weights, face normal, exact gap)
 *               until its weights fall below −DIST_KEEP_BAND; a new broad phase forgets
 *   rest        collide_rest_excluded (the GPU broad phase's exclusion list) on random clusters
 *               (self-contact, a folded noodle, Dirichlet bodies) equals an O(n²) enumeration of
 *               the pairs within one body that share no vertex and are closer than d̂ in the
 *               rest shape
 *   ccd         contact.ccd's time of impact (physics/ccd.h ccd_pair_toi): a point falling on a
 *               triangle and crossing segments (contact time known) are cut before it, keeping
 *               CCD_KEEP of the gap, and not far before; a common translation is not cut; random
 *               VF and EE pairs and steps: along the step up to τ the sampled distance never
 *               falls below CCD_KEEP of where it started, and a sampled path that touches is cut
 *               before it; the ball, box and plane scales and ccd_clear on known cases
 *   policy      what both backends share, written once (src/candidate.h, collide.h
 *               collide_pair_set, pairs.h): a candidate's vertices (VF, EE) and its pair equal to
 *               collide_narrow's (v, β, n exact); a filled pair's padding is zero; the detection
 *               schedule (detect_every 0 → 4, due on the every-th count, motion beyond
 *               SIPD_DETECT_MOVE(d̂)); the contact stiffness (contact.stiffness, else one value,
 *               else per vertex); the step load's "do nothing" state (src/step_load.h)
 *   all         every one of the above
 * Each prints the measured quantities it asserts on, and exits non-zero on failure.
 */
#include "candidate.h"
#include "collide.h"
#include "meshgen.h"
#include "pairs.h"
#include "step_load.h"
#include "physics/ccd.h"
#include "physics/contact.h"
#include "physics/distance.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "check.h"
#include "rng.h"
#include "runner.h"

/* ---------------------------------------------------------------- random numbers */
/* rng_seed, rng_u64, rnd, rndu, rnd_log, rnd_int: the default stream of rng.h (tests/common) */
static vec3 rnd_vec(double s) { return v3(rndu(-s, s), rndu(-s, s), rndu(-s, s)); }
static double v3_len(vec3 a) { return sqrt(v3_norm2(a)); }
static vec3 v3_unit(vec3 a) { return v3_scale(a, 1.0 / v3_len(a)); }
static vec3 rnd_unit(void)
{
    for (;;) {
        vec3 n = rnd_vec(1);
        if (v3_len(n) > 0.1 && v3_len(n) < 1) return v3_unit(n);
    }
}
/* rotation by angle about a unit axis (Rodrigues) */
static mat3 rot(vec3 k, double a)
{
    mat3 R;
    double c = cos(a), s = sin(a), C = 1 - c;
    R.m[0] = c + k.v[0] * k.v[0] * C;
    R.m[1] = k.v[0] * k.v[1] * C - k.v[2] * s;
    R.m[2] = k.v[0] * k.v[2] * C + k.v[1] * s;
    R.m[3] = k.v[1] * k.v[0] * C + k.v[2] * s;
    R.m[4] = c + k.v[1] * k.v[1] * C;
    R.m[5] = k.v[1] * k.v[2] * C - k.v[0] * s;
    R.m[6] = k.v[2] * k.v[0] * C - k.v[1] * s;
    R.m[7] = k.v[2] * k.v[1] * C + k.v[0] * s;
    R.m[8] = c + k.v[2] * k.v[2] * C;
    return R;
}
static mat3 rnd_rot(void) { return rot(rnd_unit(), rndu(0, 3.14159265358979)); }

/* ================================================================ point–triangle */

static vec3 bary(const double *w, vec3 a, vec3 b, vec3 c)
{
    return v3_add(v3_add(v3_scale(a, w[0]), v3_scale(b, w[1])), v3_scale(c, w[2]));
}

/* a random triangle of size ~s, aspect ratio up to 1e4 sometimes */
static void rnd_triangle(vec3 *P, double s)
{
    int kind = (int)(rng_u64() % 3);
    if (kind == 0) {
        P[0] = rnd_vec(s); P[1] = rnd_vec(s); P[2] = rnd_vec(s);
    } else {   /* thin: a long edge and a third corner close to its line */
        vec3 o = rnd_vec(s), d = rnd_unit(), q = rnd_unit();
        double L = rndu(0.5, 2) * s, h = L / rnd_log(10, 1e4);
        q = v3_unit(v3_axpy(-v3_dot(q, d), d, q));
        P[0] = o;
        P[1] = v3_axpy(L, d, o);
        /* kind 1: apex over the middle (needle); kind 2: apex beyond an end (sliver) */
        P[2] = v3_axpy(h, q, v3_axpy(kind == 1 ? rndu(0.1, 0.9) * L : rndu(1.05, 1.5) * L, d, o));
    }
    if (v3_len(v3_cross(v3_sub(P[1], P[0]), v3_sub(P[2], P[0]))) < 1e-8 * s * s)
        rnd_triangle(P, s);
}

static int feature_of_weights(const double *w)
{
    int nz = (w[0] > 0) + (w[1] > 0) + (w[2] > 0), i;
    if (nz == 3) return DIST_FACE;
    if (nz == 1) {
        for (i = 0; i < 3; i++) if (w[i] == 1) return DIST_CORNER + i;
        return -1;
    }
    for (i = 0; i < 3; i++) if (w[(i + 2) % 3] == 0) return DIST_EDGE + i;
    return -1;
}

static int test_pt_tri(void)
{
    int it, f0 = failures, nfeat[7] = {0};
    double max_werr = 0, max_derr = 0, max_ineq = 0, max_samp_gap = 0, max_samp_viol = 0, max_sum = 0;
    rng_seed(11);
    /* points in every Voronoi region, by construction */
    for (it = 0; it < 7 * 3000; it++) {
        vec3 P[3], nrm, c, p, m1, m2;
        double s = rnd_log(1e-3, 1e3), wexp[3] = {0, 0, 0}, w[3], h, t;
        int target = it % 7, feat, i, j, k;
        rnd_triangle(P, s);
        nrm = v3_unit(v3_cross(v3_sub(P[1], P[0]), v3_sub(P[2], P[0])));
        h = rndu(-1, 1) * s * (rnd() < 0.1 ? 0 : 1);
        if (target == DIST_FACE) {
            for (i = 0; i < 3; i++) wexp[i] = rndu(0.02, 1);
            t = wexp[0] + wexp[1] + wexp[2];
            for (i = 0; i < 3; i++) wexp[i] /= t;
            c = bary(wexp, P[0], P[1], P[2]);
            p = v3_axpy(h, nrm, c);
        } else if (target < DIST_CORNER) {
            i = target - DIST_EDGE; j = (i + 1) % 3; k = (i + 2) % 3;
            t = rndu(0.02, 0.98);
            wexp[i] = 1 - t; wexp[j] = t;
            c = bary(wexp, P[0], P[1], P[2]);
            m1 = v3_unit(v3_cross(v3_sub(P[j], P[i]), nrm));
            if (v3_dot(m1, v3_sub(P[k], P[i])) > 0) m1 = v3_scale(m1, -1);
            p = v3_axpy(h, nrm, v3_axpy(rndu(0.05, 2) * s, m1, c));
        } else {
            i = target - DIST_CORNER; j = (i + 1) % 3; k = (i + 2) % 3;
            wexp[i] = 1;
            c = P[i];
            m1 = v3_unit(v3_cross(v3_sub(P[j], P[i]), nrm));   /* outward normal of edge i–j */
            if (v3_dot(m1, v3_sub(P[k], P[i])) > 0) m1 = v3_scale(m1, -1);
            m2 = v3_unit(v3_cross(v3_sub(P[k], P[i]), nrm));   /* outward normal of edge i–k */
            if (v3_dot(m2, v3_sub(P[j], P[i])) > 0) m2 = v3_scale(m2, -1);
            p = v3_axpy(h, nrm, v3_axpy(rndu(0.05, 1) * s, m1, v3_axpy(rndu(0.05, 1) * s, m2, c)));
        }
        feat = dist_point_triangle(p, P[0], P[1], P[2], w);
        nfeat[feat]++;
        CHECK(feat == target, "constructed region %d, got %d (s %g)", target, feat, s);
        for (i = 0; i < 3; i++) max_werr = fmax(max_werr, fabs(w[i] - wexp[i]));
        max_derr = fmax(max_derr, v3_len(v3_sub(bary(w, P[0], P[1], P[2]), c)) / s);
    }
    printf("pt_tri constructed: features face %d, edges %d %d %d, corners %d %d %d; max |w - w*| %.2e, max |c - c*|/size %.2e\n",
           nfeat[0], nfeat[1], nfeat[2], nfeat[3], nfeat[4], nfeat[5], nfeat[6], max_werr, max_derr);
    CHECK(max_werr < 1e-10, "weights error %g", max_werr);
    CHECK(max_derr < 1e-11, "closest point error %g", max_derr);

    /* random points vs sampling and the projection inequality */
    for (it = 0; it < 400; it++) {
        vec3 P[3], p, c;
        double s = rnd_log(1e-2, 1e2), w[3], d, ds = INFINITY, lmax, res;
        int feat, i, j, N = 300;
        rnd_triangle(P, s);
        p = rnd_vec(2 * s);
        feat = dist_point_triangle(p, P[0], P[1], P[2], w);
        c = bary(w, P[0], P[1], P[2]);
        d = v3_len(v3_sub(p, c));
        max_sum = fmax(max_sum, fabs(w[0] + w[1] + w[2] - 1));
        CHECK(w[0] >= 0 && w[1] >= 0 && w[2] >= 0, "negative weight %g %g %g", w[0], w[1], w[2]);
        CHECK(feature_of_weights(w) == feat, "feature %d, weights %g %g %g", feat, w[0], w[1], w[2]);
        for (i = 0; i < 3; i++)
            max_ineq = fmax(max_ineq, v3_dot(v3_sub(p, c), v3_sub(P[i], c)) / (s * s));
        for (i = 0; i <= N; i++)
            for (j = 0; i + j <= N; j++) {
                double ws[3] = {(double)i / N, (double)j / N, (double)(N - i - j) / N};
                ds = fmin(ds, v3_len(v3_sub(p, bary(ws, P[0], P[1], P[2]))));
            }
        lmax = fmax(v3_len(v3_sub(P[1], P[0])), fmax(v3_len(v3_sub(P[2], P[1])), v3_len(v3_sub(P[0], P[2]))));
        res = lmax / N;
        max_samp_viol = fmax(max_samp_viol, (d - ds) / s);   /* exact must not be above sampled */
        max_samp_gap = fmax(max_samp_gap, (ds - d) / res);   /* sampled within the resolution  */
        CHECK(fabs(dist_point_triangle2(p, P[0], P[1], P[2]) - d * d) <= 1e-12 * (d * d + s * s), "dist2");
    }
    printf("pt_tri random: max (p-c).(corner-c)/size^2 %.2e (<= 0), max (d_exact - d_sampled)/size %.2e (<= 0), "
           "max (d_sampled - d_exact)/resolution %.3f (<= 1), max |sum w - 1| %.1e\n",
           max_ineq, max_samp_viol, max_samp_gap, max_sum);
    CHECK(max_ineq < 1e-9, "projection inequality %g", max_ineq);
    CHECK(max_samp_viol < 1e-12, "exact farther than sampled %g", max_samp_viol);
    CHECK(max_samp_gap <= 1.0, "sampled not within resolution %g", max_samp_gap);
    CHECK(max_sum < 1e-14, "weights sum %g", max_sum);
    {   /* degenerate triangle: falls back to the nearest edge, finite weights */
        double w[3];
        int feat = dist_point_triangle(v3(0.5, 1, 0), v3(0, 0, 0), v3(1, 0, 0), v3(2, 0, 0), w);
        printf("pt_tri degenerate (collinear corners): feature %d, w %g %g %g\n", feat, w[0], w[1], w[2]);
        CHECK(feat == DIST_EDGE + 0 && fabs(w[0] - 0.5) < 1e-15 && fabs(w[1] - 0.5) < 1e-15, "degenerate");
    }
    return failures > f0;
}

/* ================================================================ edge–edge */

static int test_edge_edge(void)
{
    int it, f0 = failures, ninside = 0, nout = 0;
    double max_st = 0, max_samp_viol = 0, max_samp_gap = 0, max_seg_gap = 0;
    rng_seed(22);
    /* known closest parameters */
    for (it = 0; it < 20000; it++) {
        double sc = rnd_log(1e-3, 1e3);
        vec3 e1 = v3_scale(rnd_vec(1), sc), e2 = v3_scale(rnd_vec(1), sc), cr = v3_cross(e1, e2), n, P, Q;
        double ss = rndu(-0.5, 1.5), tt = rndu(-0.5, 1.5), d = rndu(0, 2) * sc, s, t;
        int fl, want;
        if (v3_len(cr) < 0.05 * v3_len(e1) * v3_len(e2)) { it--; continue; }
        if (fabs(ss) < 1e-6 || fabs(ss - 1) < 1e-6 || fabs(tt) < 1e-6 || fabs(tt - 1) < 1e-6) { it--; continue; }
        n = v3_unit(cr);
        P = rnd_vec(sc);
        Q = v3_axpy(-d, n, P);
        fl = dist_edge_edge(v3_axpy(-ss, e1, P), v3_axpy(1 - ss, e1, P), v3_axpy(-tt, e2, Q), v3_axpy(1 - tt, e2, Q),
                            &s, &t);
        want = (ss > 0 && ss < 1 && tt > 0 && tt < 1) ? DIST_EE_INTERIOR : 0;
        ninside += want != 0;
        CHECK(fl == want, "flags %d want %d (s* %g t* %g)", fl, want, ss, tt);
        max_st = fmax(max_st, fmax(fabs(s - ss), fabs(t - tt)));
    }
    printf("edge_edge constructed: %d interior, %d not; max |s - s*|, |t - t*| %.2e\n", ninside, 20000 - ninside, max_st);
    CHECK(max_st < 1e-9, "parameter error %g", max_st);

    /* random segments vs sampling of (s, t) */
    for (it = 0; it < 300; it++) {
        vec3 p0 = rnd_vec(1), p1 = rnd_vec(1), q0 = rnd_vec(1), q1 = rnd_vec(1);
        double s, t, ds = INFINITY, res, dseg;
        int fl, i, j, N = 400;
        if (it % 10 == 0) { q0 = v3_axpy(0.3, v3_sub(p1, p0), p0); q1 = v3_axpy(rndu(0.5, 2), v3_sub(p1, p0), q0);
                            q0 = v3_add(q0, v3(0, 0, rndu(0, 0.2))); q1 = v3_add(q1, v3(0, 0, q0.v[2] - q1.v[2])); }
        fl = dist_edge_edge(p0, p1, q0, q1, &s, &t);
        for (i = 0; i <= N; i++)
            for (j = 0; j <= N; j++) {
                vec3 a = v3_axpy((double)i / N, v3_sub(p1, p0), p0), b = v3_axpy((double)j / N, v3_sub(q1, q0), q0);
                ds = fmin(ds, v3_len(v3_sub(a, b)));
            }
        res = (v3_len(v3_sub(p1, p0)) + v3_len(v3_sub(q1, q0))) / N;
        dseg = sqrt(dist_segment_segment2(p0, p1, q0, q1));
        max_seg_gap = fmax(max_seg_gap, fmax(dseg - ds, (ds - dseg) / res));
        if (fl == DIST_EE_INTERIOR) {
            double d = v3_len(v3_sub(v3_axpy(s, v3_sub(p1, p0), p0), v3_axpy(t, v3_sub(q1, q0), q0)));
            max_samp_viol = fmax(max_samp_viol, d - ds);
            max_samp_gap = fmax(max_samp_gap, (ds - d) / res);
            CHECK(fabs(dseg - d) < 1e-12, "segment distance %g vs interior %g", dseg, d);
            nout++;
        }
    }
    printf("edge_edge random: %d interior; max (d_exact - d_sampled) %.2e (<= 0), max (d_sampled - d_exact)/res %.3f "
           "(<= 1); segment distance vs sampling: max max(d - d_s, (d_s - d)/res) %.3f (<= 1)\n",
           nout, max_samp_viol, max_samp_gap, max_seg_gap);
    CHECK(max_samp_viol < 1e-12, "exact above sampled %g", max_samp_viol);
    CHECK(max_samp_gap <= 1.0 && max_seg_gap <= 1.0, "sampling %g %g", max_samp_gap, max_seg_gap);
    CHECK(nout > 20, "too few interior cases %d", nout);

    {   /* (near-)parallel */
        vec3 p0 = v3(0, 0, 0), p1 = v3(1, 0, 0);
        double s, t, sgn;
        int f1 = dist_edge_edge(p0, p1, v3(0.2, 0, 0.01), v3(1.2, 0.5e-3, 0.01), &s, &t);
        int f2 = dist_edge_edge(p0, p1, v3(0.2, 0, 0.01), v3(1.2, 2e-3, 0.01), &s, &t);
        int f3 = dist_edge_edge(p0, p1, v3(0.2, 0, 0.01), v3(-1.8, 0, 0.01), &s, &t);
        int f4 = dist_edge_edge(p0, p0, v3(0.2, -1, 0.01), v3(0.2, 1, 0.01), &s, &t);
        sipd_real beta[4], gap;
        vec3 n;
        int kept = dist_ee_pair(p0, p1, v3(0.2, 0, 0.01), v3(1.2, 0.5e-3, 0.01), p0, p1, v3(0.2, 0, 0.01),
                                v3(1.2, 0.5e-3, 0.01), 1e-12, beta, &n, &gap);
        printf("edge_edge parallel: |e1xe2|/|e1||e2| = 5e-4 flags %d, 2e-3 flags %d (s %.3f t %.3f), exact %d, "
               "zero-length %d; dist_ee_pair on 5e-4: %d\n", f1, f2, s, t, f3, f4, kept);
        CHECK(f1 == DIST_EE_PARALLEL && f3 == DIST_EE_PARALLEL && f4 == DIST_EE_PARALLEL && kept == 0, "parallel");
        dist_edge_edge(p0, p1, v3(0.2, 0, 0.01), v3(1.2, 2e-3, 0.01), &s, &t);
        CHECK(f2 != DIST_EE_PARALLEL, "2e-3 flagged parallel");
        /* parallel overlapping segments: distance = their offset */
        sgn = sqrt(dist_segment_segment2(p0, p1, v3(0.5, 0.3, 0), v3(1.5, 0.3, 0)));
        CHECK(fabs(sgn - 0.3) < 1e-15, "parallel segment distance %g", sgn);
        sgn = sqrt(dist_segment_segment2(p0, p1, v3(2, 0.3, 0), v3(3, 0.3, 0)));
        CHECK(fabs(sgn - sqrt(1 + 0.09)) < 1e-15, "parallel disjoint segment distance %g", sgn);
    }
    return failures > f0;
}

/* ================================================================ models by hand */

static void model_append(sipd_model *m, const double *x, int nv, const int *tris, int nf, int body, int fixed)
{
    int i, o = m->nv;
    m->X = realloc(m->X, (size_t)(m->nv + nv) * 3 * sizeof(double));
    m->body = realloc(m->body, (size_t)(m->nv + nv) * sizeof(int));
    m->fixed = realloc(m->fixed, (size_t)(m->nv + nv));
    m->tris = realloc(m->tris, (size_t)(m->nf + nf) * 3 * sizeof(int));
    if (!m->X || !m->body || !m->fixed || !m->tris) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(m->X + 3 * o, x, (size_t)nv * 3 * sizeof(double));
    for (i = 0; i < nv; i++) {
        m->body[o + i] = body;
        m->fixed[o + i] = (unsigned char)fixed;
    }
    for (i = 0; i < 3 * nf; i++) m->tris[3 * m->nf + i] = tris[i] + o;
    m->nv += nv;
    m->nf += nf;
    if (body + 1 > m->nbodies) m->nbodies = body + 1;
}

/* A box of nx*ny*nz cells, size l, centred, rotated by R and moved to T; returns its first vertex. */
static int add_box(sipd_model *m, int nx, int ny, int nz, double lx, double ly, double lz, mat3 R, vec3 T, int body,
                   int fixed)
{
    sipd_mesh me;
    int i, first = m->nv;
    if (meshgen_box(nx, ny, nz, lx, ly, lz, &me) != SIPD_OK) {
        fprintf(stderr, "meshgen_box failed\n");
        exit(2);
    }
    for (i = 0; i < me.nv; i++) {
        vec3 p = v3(me.x[3 * i] - lx / 2, me.x[3 * i + 1] - ly / 2, me.x[3 * i + 2] - lz / 2);
        v3_store(me.x + 3 * i, v3_add(m3_mulv(R, p), T));
    }
    model_append(m, me.x, me.nv, me.tris, me.nf, body, fixed);
    mesh_free(&me);
    return first;
}

static void model_finish(sipd_model *m)
{
    double lo[3], hi[3];
    int i, k;
    for (k = 0; k < 3; k++) { lo[k] = INFINITY; hi[k] = -INFINITY; }
    for (i = 0; i < m->nv; i++)
        for (k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->X[3 * i + k]);
            hi[k] = fmax(hi[k], m->X[3 * i + k]);
        }
    m->bbox_diag = m->nv ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                (hi[2] - lo[2]) * (hi[2] - lo[2]))
                         : 1;
}

static void model_clear(sipd_model *m)
{
    free(m->X);
    free(m->body);
    free(m->fixed);
    free(m->tris);
    memset(m, 0, sizeof *m);
}

static double *copy_x(const sipd_model *m)
{
    double *x = malloc((size_t)(m->nv ? m->nv : 1) * 3 * sizeof(double));
    memcpy(x, m->X, (size_t)m->nv * 3 * sizeof(double));
    return x;
}

/* A noodle of n cells, cross-section t × t, along x at rest, folded into a U at x0: two arms
 * (length a) joined by a half circle of centre-line radius R; the arms' inner faces end up
 * 2R − t apart.  Returns its first vertex; *x0 receives the folded positions (appended). */
static int add_folded_noodle(sipd_model *m, double **x0, int n, double L, double t, double R, vec3 T, int body)
{
    mat3 I = m3_identity();
    int first = add_box(m, n, 1, 1, L, t, t, I, v3(L / 2, 0, 0), body, 0), i;
    double a = (L - 3.14159265358979 * R) / 2;
    *x0 = realloc(*x0, (size_t)m->nv * 3 * sizeof(double));
    for (i = first; i < m->nv; i++) {
        double s = m->X[3 * i], off = m->X[3 * i + 1], z = m->X[3 * i + 2];
        vec3 p;
        if (s <= a) {
            p = v3(s, off, z);
        } else if (s <= a + 3.14159265358979 * R) {
            double th = (s - a) / R;
            p = v3(a + (R - off) * sin(th), R - (R - off) * cos(th), z);
        } else {
            p = v3(a - (s - a - 3.14159265358979 * R), 2 * R - off, z);
        }
        v3_store(*x0 + 3 * i, v3_add(p, T));
    }
    return first;
}

/* ---------------------------------------------------------------- reference (O(n²)) */

typedef struct {
    sipd_contact_pair *p;
    int n, cap;
} pairlist;

static void pl_push(pairlist *l, const sipd_contact_pair *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->p = realloc(l->p, (size_t)l->cap * sizeof *l->p);
    }
    l->p[l->n++] = *p;
}

static int cmp_int2(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0);
}

static vec3 X3(const double *x, int i) { return v3(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }

/* Orient u (or the fallback f when |u| ≤ tiny) by z0; the reference's own normal rule. */
static vec3 ref_normal(vec3 u, vec3 f, vec3 z0, double tiny)
{
    vec3 n = v3_len(u) > tiny ? v3_unit(u) : v3_unit(f);
    return v3_dot(n, z0) < 0 ? v3_scale(n, -1) : n;
}

/* All VF and EE pairs of m, by enumeration.  use_boxes: only pairs whose boxes (x0 ∪ y1,
 * inflated by margin + d̂/2) overlap (counted in *nvf, *nee); else every pair.  Kept: gap < d̂;
 * with keep_all_abs, |gap| < d̂ only. */
static void ref_pairs(const sipd_model *m, int self, double dhat, const double *x0, const double *y1, const double *y,
                      double margin, int use_boxes, int abs_only, pairlist *out, long *nvf, long *nee)
{
    int nv = m->nv, nf = m->nf, i, j, k, ne = 0;
    int *ed = malloc((size_t)nf * 6 * sizeof(int));
    double *lo = malloc((size_t)nv * 3 * sizeof(double)), *hi = malloc((size_t)nv * 3 * sizeof(double));
    double r = margin + dhat / 2, tiny = 1e-12 * m->bbox_diag;
    unsigned char *on = calloc((size_t)nv, 1);
    out->n = 0;
    *nvf = *nee = 0;
    for (i = 0; i < nf; i++)
        for (k = 0; k < 3; k++) {
            int a = m->tris[3 * i + k], b = m->tris[3 * i + (k + 1) % 3];
            on[a] = 1;
            ed[2 * (3 * i + k)] = a < b ? a : b;
            ed[2 * (3 * i + k) + 1] = a < b ? b : a;
        }
    qsort(ed, (size_t)nf * 3, 2 * sizeof(int), cmp_int2);
    for (i = 0; i < 3 * nf; i++)
        if (i == 0 || cmp_int2(ed + 2 * i, ed + 2 * (i - 1)) != 0) {
            ed[2 * ne] = ed[2 * i];
            ed[2 * ne + 1] = ed[2 * i + 1];
            ne++;
        }
    for (i = 0; i < nv; i++)
        for (k = 0; k < 3; k++) {
            lo[3 * i + k] = fmin(x0[3 * i + k], y1[3 * i + k]) - r;
            hi[3 * i + k] = fmax(x0[3 * i + k], y1[3 * i + k]) + r;
        }
    /* VF */
    for (i = 0; i < nv; i++) {
        if (!on[i]) continue;
        for (j = 0; j < nf; j++) {
            const int *t = m->tris + 3 * j;
            sipd_contact_pair p;
            double w[3];
            vec3 c, c0, n, ys[4], xs[4];
            if (i == t[0] || i == t[1] || i == t[2]) continue;
            if (m->fixed[i] && m->fixed[t[0]] && m->fixed[t[1]] && m->fixed[t[2]]) continue;
            if (m->body[i] == m->body[t[0]] &&
                (!self || dist_point_triangle2(X3(m->X, i), X3(m->X, t[0]), X3(m->X, t[1]), X3(m->X, t[2])) < dhat * dhat))
                continue;
            if (use_boxes) {
                /* box of the face = union of its corners' boxes: overlap per axis with the union */
                int ax, ok = 1;
                for (ax = 0; ax < 3; ax++) {
                    double flo = fmin(lo[3 * t[0] + ax], fmin(lo[3 * t[1] + ax], lo[3 * t[2] + ax]));
                    double fhi = fmax(hi[3 * t[0] + ax], fmax(hi[3 * t[1] + ax], hi[3 * t[2] + ax]));
                    ok &= lo[3 * i + ax] <= fhi && flo <= hi[3 * i + ax];
                }
                if (!ok) continue;
                (*nvf)++;
            }
            dist_point_triangle(X3(y, i), X3(y, t[0]), X3(y, t[1]), X3(y, t[2]), w);
            if (!(w[0] > 0 && w[1] > 0 && w[2] > 0))
                continue;   /* only vertices that project into the face's interior */
            p.beta[0] = 1; p.beta[1] = -w[0]; p.beta[2] = -w[1]; p.beta[3] = -w[2];
            ys[0] = X3(y, i); xs[0] = X3(x0, i);
            for (k = 0; k < 3; k++) { ys[k + 1] = X3(y, t[k]); xs[k + 1] = X3(x0, t[k]); }
            /* z = p − c and z0 as Σ β_k y_k (contact.h), the pair's own definition */
            c = contact_pair_combine(ys, p.beta, 4);
            c0 = contact_pair_combine(xs, p.beta, 4);
            n = ref_normal(c, v3_cross(v3_sub(ys[2], ys[1]), v3_sub(ys[3], ys[1])), c0, tiny);
            {
                double gap = v3_dot(n, c);
                if (!(abs_only ? fabs(gap) < dhat : gap < dhat)) continue;
                p.kind = 0;
                p.v[0] = i; p.v[1] = t[0]; p.v[2] = t[1]; p.v[3] = t[2];
                for (k = 0; k < 3; k++) p.n[k] = n.v[k];
                pl_push(out, &p);
            }
        }
    }
    /* EE */
    for (i = 0; i < ne; i++)
        for (j = i + 1; j < ne; j++) {
            int a0 = ed[2 * i], a1 = ed[2 * i + 1], b0 = ed[2 * j], b1 = ed[2 * j + 1], ax, ok = 1, fl;
            double s, t, gap;
            vec3 e1, e2, u, u0, n, ys[4], xs[4];
            sipd_contact_pair p;
            if (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1) continue;
            if (m->fixed[a0] && m->fixed[a1] && m->fixed[b0] && m->fixed[b1]) continue;
            if (m->body[a0] == m->body[b0] &&
                (!self || dist_segment_segment2(X3(m->X, a0), X3(m->X, a1), X3(m->X, b0), X3(m->X, b1)) < dhat * dhat))
                continue;
            if (use_boxes) {
                for (ax = 0; ax < 3; ax++) {
                    double l1 = fmin(lo[3 * a0 + ax], lo[3 * a1 + ax]), h1 = fmax(hi[3 * a0 + ax], hi[3 * a1 + ax]);
                    double l2 = fmin(lo[3 * b0 + ax], lo[3 * b1 + ax]), h2 = fmax(hi[3 * b0 + ax], hi[3 * b1 + ax]);
                    ok &= l1 <= h2 && l2 <= h1;
                }
                if (!ok) continue;
                (*nee)++;
            }
            fl = dist_edge_edge(X3(y, a0), X3(y, a1), X3(y, b0), X3(y, b1), &s, &t);
            if (fl != DIST_EE_INTERIOR) continue;
            e1 = v3_sub(X3(y, a1), X3(y, a0));
            e2 = v3_sub(X3(y, b1), X3(y, b0));
            p.beta[0] = 1 - s; p.beta[1] = s; p.beta[2] = -(1 - t); p.beta[3] = -t;
            ys[0] = X3(y, a0); ys[1] = X3(y, a1); ys[2] = X3(y, b0); ys[3] = X3(y, b1);
            xs[0] = X3(x0, a0); xs[1] = X3(x0, a1); xs[2] = X3(x0, b0); xs[3] = X3(x0, b1);
            u = contact_pair_combine(ys, p.beta, 4);    /* p(s) − q(t) */
            u0 = contact_pair_combine(xs, p.beta, 4);
            n = ref_normal(u, v3_cross(e1, e2), u0, tiny);
            gap = v3_dot(n, u);
            if (!(abs_only ? fabs(gap) < dhat : gap < dhat)) continue;
            p.kind = 1;
            p.v[0] = a0; p.v[1] = a1; p.v[2] = b0; p.v[3] = b1;
            for (k = 0; k < 3; k++) p.n[k] = n.v[k];
            pl_push(out, &p);
        }
    free(ed);
    free(lo);
    free(hi);
    free(on);
}

static int cmp_pair(const void *a, const void *b)
{
    const sipd_contact_pair *x = a, *y = b;
    int k;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    for (k = 0; k < 4; k++)
        if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
    return 0;
}

/* ---------------------------------------------------------------- random clusters */

typedef struct {
    sipd_model m;
    double *x0, *y1, *y;
    double dhat, margin;
    int self;
} cl_scene;

static void cl_free(cl_scene *s)
{
    model_clear(&s->m);
    free(s->x0);
    free(s->y1);
    free(s->y);
    memset(s, 0, sizeof *s);
}

/* nb boxes (random cells, sizes, rotations) clustered so that they touch and overlap, one
 * folded noodle, body `fixed_body` fully Dirichlet, some random pinned vertices; x0 = rest +
 * noise (folded noodle: folded), y1 = x0 + motion, y = y1 + a perturbation within the margin. */
static void make_cluster(cl_scene *s, uint64_t seed, int nb, int self, int fixed_body)
{
    int b, i, k;
    memset(s, 0, sizeof *s);
    rng_seed(seed);
    s->dhat = 0.05;
    s->margin = 0.3 * s->dhat;
    s->self = self;
    for (b = 0; b < nb; b++) {
        vec3 T = rnd_vec(0.35);
        add_box(&s->m, 1 + (int)(rng_u64() % 3), 1 + (int)(rng_u64() % 3), 1 + (int)(rng_u64() % 3), rndu(0.15, 0.5),
                rndu(0.15, 0.5), rndu(0.15, 0.5), rnd_rot(), T, b, b == fixed_body);
    }
    s->x0 = copy_x(&s->m);
    for (i = 0; i < s->m.nv; i++)
        for (k = 0; k < 3; k++) s->x0[3 * i + k] += s->m.fixed[i] ? 0 : rndu(-0.01, 0.01);
    add_folded_noodle(&s->m, &s->x0, 12, 1.2, 0.06, 0.04, v3(0.6, -0.2, 0.1), nb);   /* arms 0.02 apart */
    for (i = 0; i < s->m.nv; i++)
        if (rnd() < 0.05) s->m.fixed[i] = 1;
    model_finish(&s->m);
    s->y1 = malloc((size_t)s->m.nv * 3 * sizeof(double));
    s->y = malloc((size_t)s->m.nv * 3 * sizeof(double));
    for (i = 0; i < s->m.nv; i++)
        for (k = 0; k < 3; k++) {
            double mv = s->m.fixed[i] ? 0 : rndu(-0.5, 0.5) * s->dhat;
            s->y1[3 * i + k] = s->x0[3 * i + k] + mv;
            s->y[3 * i + k] = s->y1[3 * i + k] + (s->m.fixed[i] ? 0 : rndu(-0.9, 0.9) * s->margin);
        }
}

static int run_collide(const cl_scene *s, sipd_collide **c, const sipd_contact_pair **pairs, int *np)
{
    int rc = collide_create(c, &s->m, s->self, s->dhat);
    if (rc == SIPD_OK) rc = collide_broad(*c, s->x0, s->y1, s->margin);
    if (rc == SIPD_OK) rc = collide_narrow(*c, s->x0, s->y, pairs, np);
    CHECK(rc == SIPD_OK, "collide failed: %d", rc);
    return rc;
}

static int test_brute(void)
{
    int cfg, f0 = failures;
    for (cfg = 0; cfg < 8; cfg++) {
        cl_scene s;
        sipd_collide *c = NULL;
        const sipd_contact_pair *out;
        int np = 0, i, k, nself = 0, nneg = 0, nkind[2] = {0, 0}, order_ok = 1, missing = 0, nclose;
        long nvf, nee, rvf, ree, rvf0, ree0;
        pairlist ref = {0}, close = {0};
        sipd_contact_pair *got;
        double maxdb = 0, maxdn = 0;
        make_cluster(&s, 1000 + (uint64_t)cfg, 4 + cfg % 3, cfg % 2, cfg % 4 == 1 ? 0 : -1);
        if (run_collide(&s, &c, &out, &np) != SIPD_OK) { cl_free(&s); collide_destroy(c); continue; }
        collide_candidates(c, &nvf, &nee);
        CHECK(collide_outside(c, s.y) == 0, "y within the margin reported outside");
        ref_pairs(&s.m, s.self, s.dhat, s.x0, s.y1, s.y, s.margin, 1, 0, &ref, &rvf, &ree);
        got = malloc((size_t)(np ? np : 1) * sizeof *got);
        memcpy(got, out, (size_t)np * sizeof *got);
        for (i = 0; i < np; i++) {
            nkind[got[i].kind]++;
            if (i > 0 && (got[i].kind < got[i - 1].kind || (got[i].kind == 0 && got[i - 1].kind == 0 && got[i].v[0] < got[i - 1].v[0])))
                order_ok = 0;
            if (s.m.body[got[i].v[0]] == s.m.body[got[i].v[3]]) nself++;
            {
                vec3 z = v3(0, 0, 0);
                for (k = 0; k < 4; k++) z = v3_axpy(got[i].beta[k], X3(s.y, got[i].v[k]), z);
                if (v3_dot(v3(got[i].n[0], got[i].n[1], got[i].n[2]), z) < 0) nneg++;
            }
        }
        qsort(got, (size_t)np, sizeof *got, cmp_pair);
        qsort(ref.p, (size_t)ref.n, sizeof *ref.p, cmp_pair);
        CHECK(nvf == rvf && nee == ree, "cfg %d candidates VF %ld EE %ld, reference %ld %ld", cfg, nvf, nee, rvf, ree);
        CHECK(np == ref.n, "cfg %d pairs %d, reference %d", cfg, np, ref.n);
        for (i = 0; i < np && i < ref.n; i++) {
            const sipd_contact_pair *a = got + i, *b = ref.p + i;
            int same = a->kind == b->kind;
            for (k = 0; k < 4; k++) same &= a->v[k] == b->v[k];
            if (!same) {
                CHECK(0, "cfg %d pair %d: kind %d v %d %d %d %d vs reference kind %d v %d %d %d %d", cfg, i, a->kind,
                      a->v[0], a->v[1], a->v[2], a->v[3], b->kind, b->v[0], b->v[1], b->v[2], b->v[3]);
                break;
            }
            for (k = 0; k < 4; k++) maxdb = fmax(maxdb, fabs(a->beta[k] - b->beta[k]));
            for (k = 0; k < 3; k++) maxdn = fmax(maxdn, fabs(a->n[k] - b->n[k]));
        }
        /* completeness: every pair closer than d̂ (any boxes) is reported */
        rvf0 = rvf;
        ree0 = ree;
        ref_pairs(&s.m, s.self, s.dhat, s.x0, s.y1, s.y, s.margin, 0, 1, &close, &rvf, &ree);
        nclose = close.n;
        for (i = 0; i < close.n; i++)
            if (!bsearch(close.p + i, got, (size_t)np, sizeof *got, cmp_pair)) missing++;
        printf("brute cfg %d (self %d, %d bodies, %d faces): candidates VF %ld EE %ld (reference %ld %ld); pairs %d "
               "(VF %d, EE %d, within a body %d, negative gap %d; reference %d); max |dbeta| %.1e |dn| %.1e; "
               "|gap| < dhat pairs %d, missing %d; order VF-then-EE by vertex %s\n",
               cfg, s.self, s.m.nbodies, s.m.nf, nvf, nee, rvf0, ree0,
               np, nkind[0], nkind[1], nself, nneg, ref.n, maxdb, maxdn, nclose, missing, order_ok ? "yes" : "NO");
        CHECK(maxdb <= 1e-12 && maxdn <= 1e-12, "cfg %d values differ", cfg);
        CHECK(missing == 0, "cfg %d: %d pairs closer than dhat missing", cfg, missing);
        CHECK(order_ok, "cfg %d: output order", cfg);
        CHECK(nkind[0] > 0 && nkind[1] > 0 && nneg > 0, "cfg %d: configuration too easy", cfg);
        CHECK(!s.self || nself > 0, "cfg %d: no self-contact pair found with self = 1", cfg);
        CHECK(s.self || nself == 0, "cfg %d: self-contact pair with self = 0", cfg);
        free(got);
        free(ref.p);
        free(close.p);
        collide_destroy(c);
        cl_free(&s);
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- a noodle pile */

/* nl layers of nn noodles (n cells, cross-section t × t, length nn (t + gap)), alternating
 * along x and z, gap between neighbours and layers, small random tilt and jitter. */
static void make_pile(cl_scene *s, uint64_t seed, int nl, int nn, int n, double t, double gap, double dhat)
{
    int l, j, i, k, body = 0;
    double pitch = t + gap, L = nn * pitch;
    memset(s, 0, sizeof *s);
    rng_seed(seed);
    s->dhat = dhat;
    s->margin = 0.25 * dhat;
    s->self = 1;
    for (l = 0; l < nl; l++)
        for (j = 0; j < nn; j++) {
            mat3 R = rot(v3(0, 1, 0), l % 2 ? 1.5707963267949 : 0);
            vec3 T = v3(L / 2, (l + 0.5) * pitch, (j + 0.5) * pitch);
            R = m3_mul(rot(rnd_unit(), rndu(0, 0.02)), R);
            if (l % 2) T = v3((j + 0.5) * pitch, (l + 0.5) * pitch, L / 2);
            T = v3_add(T, rnd_vec(0.1 * gap));
            add_box(&s->m, n, 1, 1, L, t, t, R, T, body++, 0);
        }
    model_finish(&s->m);
    s->x0 = copy_x(&s->m);
    s->y1 = malloc((size_t)s->m.nv * 3 * sizeof(double));
    s->y = malloc((size_t)s->m.nv * 3 * sizeof(double));
    for (i = 0; i < s->m.nv; i++)
        for (k = 0; k < 3; k++) {
            s->y1[3 * i + k] = s->x0[3 * i + k] + (k == 1 ? -0.3 * dhat : 0) + rndu(-0.1, 0.1) * dhat;
            s->y[3 * i + k] = s->y1[3 * i + k] + rndu(-0.5, 0.5) * s->margin;
        }
}

static int test_threads(void)
{
    int f0 = failures;
#ifdef _OPENMP
    cl_scene s;
    int nt, np1 = 0, identical = 1, maxt = omp_get_max_threads();
    long vf1 = 0, ee1 = 0;
    sipd_contact_pair *ref = NULL;
    make_pile(&s, 77, 6, 10, 20, 0.04, 0.02, 0.03);
    for (nt = 1; nt <= 7; nt++) {   /* 1, 2, 3, 4 threads, then 2, 3, 4 again (races are rare) */
        sipd_collide *c = NULL;
        const sipd_contact_pair *out;
        int np;
        long vf, ee;
        omp_set_num_threads(nt <= 4 ? nt : nt - 3);
        if (run_collide(&s, &c, &out, &np) != SIPD_OK) break;
        collide_candidates(c, &vf, &ee);
        if (nt == 1) {
            np1 = np; vf1 = vf; ee1 = ee;
            ref = malloc((size_t)(np ? np : 1) * sizeof *ref);
            memcpy(ref, out, (size_t)np * sizeof *ref);
        } else {
            int same = np == np1 && vf == vf1 && ee == ee1, i, k;
            for (i = 0; same && i < np; i++) {   /* field by field, exact */
                same &= out[i].kind == ref[i].kind;
                for (k = 0; k < 4; k++) same &= out[i].v[k] == ref[i].v[k] && out[i].beta[k] == ref[i].beta[k];
                for (k = 0; k < 3; k++) same &= out[i].n[k] == ref[i].n[k];
            }
            identical &= same;
            CHECK(same, "%d threads: %d pairs, candidates %ld %ld; 1 thread: %d, %ld %ld", omp_get_max_threads(), np, vf,
                  ee, np1, vf1, ee1);
        }
        printf("threads %d: %d faces, candidates VF %ld EE %ld, pairs %d\n", omp_get_max_threads(), s.m.nf, vf, ee, np);
        collide_destroy(c);
    }
    omp_set_num_threads(maxt);
    printf("threads: output identical (order and values) for 1..4 threads: %s\n", identical ? "yes" : "NO");
    CHECK(np1 > 1000 && s.m.nf > 4 * 2048, "pile too small: %d pairs, %d faces", np1, s.m.nf);
    free(ref);
    cl_free(&s);
#else
    printf("threads: built without OpenMP, nothing to compare\n");
#endif
    return failures > f0;
}

/* ---------------------------------------------------------------- exclusions */

static int shares_vertex(const sipd_contact_pair *p)
{
    int a, b;
    for (a = 0; a < 4; a++)
        for (b = a + 1; b < 4; b++)
            if (p->v[a] == p->v[b]) return 1;
    return 0;
}

/* one run; returns pairs, candidates through *nc */
static int one_run(const sipd_model *m, int self, double dhat, const double *x0, const double *y1, const double *y,
                   double margin, long *nc, sipd_contact_pair **copy)
{
    sipd_collide *c = NULL;
    const sipd_contact_pair *out = NULL;
    int np = 0;
    long a = 0, b = 0;
    if (collide_create(&c, m, self, dhat) != SIPD_OK || collide_broad(c, x0, y1, margin) != SIPD_OK ||
        collide_narrow(c, x0, y, &out, &np) != SIPD_OK)
        CHECK(0, "collide failed");
    collide_candidates(c, &a, &b);
    if (nc) *nc = a + b;
    if (copy) {
        *copy = malloc((size_t)(np ? np : 1) * sizeof **copy);
        memcpy(*copy, out, (size_t)np * sizeof **copy);
    }
    collide_destroy(c);
    return np;
}

static int test_exclusions(void)
{
    int f0 = failures, np, i, nshare = 0, nself = 0;
    long nc;
    mat3 I = m3_identity();
    sipd_contact_pair *pp = NULL;
    {   /* a deformed folded noodle + a box through it, self = 1: no pair shares a vertex */
        sipd_model m = {0};
        double *x0 = NULL, *y;
        add_folded_noodle(&m, &x0, 20, 1.0, 0.05, 0.035, v3(0, 0, 0), 0);
        add_box(&m, 2, 2, 2, 0.2, 0.2, 0.2, rnd_rot(), v3(0.2, 0.03, 0.02), 1, 0);
        x0 = realloc(x0, (size_t)m.nv * 3 * sizeof(double));
        memcpy(x0 + 3 * (m.nv - 27), m.X + 3 * (m.nv - 27), 27 * 3 * sizeof(double));
        model_finish(&m);
        y = malloc((size_t)m.nv * 3 * sizeof(double));
        for (i = 0; i < 3 * m.nv; i++) y[i] = x0[i] + rndu(-0.005, 0.005);
        np = one_run(&m, 1, 0.05, x0, y, y, 0.01, &nc, &pp);
        for (i = 0; i < np; i++) {
            nshare += shares_vertex(pp + i);
            nself += m.body[pp[i].v[0]] == m.body[pp[i].v[3]];
        }
        printf("exclusions: folded noodle + box (self = 1, dhat 0.05 > edge 0.05): %d pairs (%d within a body), "
               "%d share a vertex\n", np, nself, nshare);
        CHECK(np > 0 && nself > 0 && nshare == 0, "shared-vertex pairs %d (pairs %d, self %d)", nshare, np, nself);
        free(pp);
        /* same with self = 0: no pair within a body */
        np = one_run(&m, 0, 0.05, x0, y, y, 0.01, &nc, &pp);
        for (i = 0, nself = 0; i < np; i++) nself += m.body[pp[i].v[0]] == m.body[pp[i].v[3]];
        printf("exclusions: the same with self = 0: %d pairs, %d within a body\n", np, nself);
        CHECK(np > 0 && nself == 0, "self = 0 gave %d pairs within a body", nself);
        free(pp);
        free(x0);
        free(y);
        model_clear(&m);
    }
    {   /* two bodies far apart */
        sipd_model m = {0};
        add_box(&m, 2, 2, 2, 1, 1, 1, I, v3(0, 0, 0), 0, 0);
        add_box(&m, 2, 2, 2, 1, 1, 1, rnd_rot(), v3(3, 0.2, 0.1), 1, 0);
        model_finish(&m);
        np = one_run(&m, 0, 0.1, m.X, m.X, m.X, 0.05, &nc, NULL);
        printf("exclusions: two bodies 1.5 apart, self = 0: %ld candidates, %d pairs\n", nc, np);
        CHECK(nc == 0 && np == 0, "far apart: %ld candidates, %d pairs", nc, np);
        model_clear(&m);
    }
    {   /* one body at rest, self = 1, dhat twice the edge length */
        sipd_model m = {0};
        add_box(&m, 4, 4, 4, 0.4, 0.4, 0.4, rnd_rot(), v3(0, 0, 0), 0, 0);
        model_finish(&m);
        for (i = 0; i < 3; i++) {   /* d̂ = 1.5, 2 (a multiple of the grid spacing) and 3.7 edges */
            double dh = i == 0 ? 0.15 : i == 1 ? 0.2 : 0.37;
            np = one_run(&m, 1, dh, m.X, m.X, m.X, 0.05, &nc, NULL);
            printf("exclusions: one body (0.4 wide, edge 0.1) at rest, self = 1, dhat = %.2f: %ld candidates (pairs "
                   "at least dhat apart at rest), %d pairs\n", dh, nc, np);
            CHECK(np == 0, "at rest: %ld candidates, %d pairs", nc, np);
        }
        model_clear(&m);
    }
    {   /* two triangles with nearly parallel close edges */
        double base[18] = {0, 0, 0, 1, 0, 0, 0.5, -1, 0}, ang;
        int tri[3] = {0, 1, 2}, j, npar = 0, found;
        for (j = 0; j < 3; j++) {
            sipd_model m = {0};
            vec3 a, b, dir;
            ang = j == 0 ? 0.5e-3 : j == 1 ? 0.9e-3 : 0.01;   /* rad: |e1xe2|/|e1||e2| = sin(ang) */
            dir = v3(cos(ang), sin(ang), 0);
            a = v3(0.3, -0.2 * sin(ang), 0.01);
            b = v3_add(a, dir);
            /* second triangle: edge a–b, apex above (so only that edge is near the first one) */
            base[9] = a.v[0]; base[10] = a.v[1]; base[11] = a.v[2];
            base[12] = b.v[0]; base[13] = b.v[1]; base[14] = b.v[2];
            base[15] = 0.8; base[16] = 0.2; base[17] = 1.0;
            model_append(&m, base, 3, tri, 1, 0, 0);
            model_append(&m, base + 9, 3, tri, 1, 1, 0);
            model_finish(&m);
            np = one_run(&m, 0, 0.05, m.X, m.X, m.X, 0.0, &nc, &pp);
            for (i = 0, found = 0; i < np; i++)
                if (pp[i].kind == 1 && pp[i].v[0] == 0 && pp[i].v[1] == 1 && pp[i].v[2] == 3 && pp[i].v[3] == 4) found = 1;
            printf("exclusions: edges crossing at %.1e rad, 0.01 apart: EE pair %s (%d pairs, %ld candidates)\n", ang,
                   found ? "reported" : "not reported", np, nc);
            if (j < 2) CHECK(!found, "near-parallel edge pair reported at %g rad", ang);
            else CHECK(found, "edge pair at 0.01 rad not reported");
            for (i = 0; i < np; i++)
                if (pp[i].kind == 1) {
                    vec3 e1 = v3_sub(X3(m.X, pp[i].v[1]), X3(m.X, pp[i].v[0])), e2 = v3_sub(X3(m.X, pp[i].v[3]), X3(m.X, pp[i].v[2]));
                    npar += v3_len(v3_cross(e1, e2)) < 1e-3 * v3_len(e1) * v3_len(e2);
                }
            free(pp);
            model_clear(&m);
        }
        CHECK(npar == 0, "%d near-parallel EE pairs", npar);
    }
    {   /* all-fixed pairs: two touching fixed boxes → nothing; one free → pairs */
        int f;
        for (f = 0; f < 2; f++) {
            sipd_model m = {0};
            add_box(&m, 2, 2, 2, 1, 1, 1, I, v3(0, 0, 0), 0, 1);
            add_box(&m, 2, 2, 2, 1, 1, 1, rot(v3(0, 0, 1), 0.3), v3(0.2, 1.0, 0.1), 1, f == 0);
            model_finish(&m);
            np = one_run(&m, 1, 0.1, m.X, m.X, m.X, 0.05, &nc, NULL);
            printf("exclusions: two overlapping boxes, %s: %ld candidates, %d pairs\n", f == 0 ? "both fixed" : "one free",
                   nc, np);
            if (f == 0) CHECK(nc == 0 && np == 0, "fixed-fixed pairs: %ld candidates, %d pairs", nc, np);
            else CHECK(np > 0, "no pairs with one free body");
            model_clear(&m);
        }
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- orientation */

static int find_pair(const sipd_contact_pair *p, int np, int kind, int v0)
{
    int i;
    for (i = 0; i < np; i++)
        if (p[i].kind == kind && p[i].v[0] == v0) return i;
    return -1;
}

static double pair_gap(const sipd_contact_pair *p, const double *y)
{
    vec3 z = v3(0, 0, 0);
    int k;
    for (k = 0; k < 4; k++) z = v3_axpy(p->beta[k], X3(y, p->v[k]), z);
    return v3_dot(v3(p->n[0], p->n[1], p->n[2]), z);
}

static int test_orientation(void)
{
    int f0 = failures, np, i, k, cross;
    sipd_contact_pair *pp = NULL;
    /* body 0: a big triangle in z = 0 (normal +z); body 1: a triangle whose vertex 3 hovers */
    double X[18] = {-1, -1, 0, 2, -1, 0, -1, 2, 0, 0.2, 0.3, 0.02, 0.2, 3, 3, 3, 0.3, 3};
    int tri[3] = {0, 1, 2};
    for (cross = 0; cross < 3; cross++) {
        sipd_model m = {0};
        double y[18], zy = cross == 0 ? 0.01 : cross == 1 ? -0.01 : 0.0, gap;
        model_append(&m, X, 3, tri, 1, 0, 0);
        model_append(&m, X + 9, 3, tri, 1, 1, 0);
        model_finish(&m);
        memcpy(y, X, sizeof y);
        y[11] = zy;
        np = one_run(&m, 0, 0.05, X, y, y, 0.0, NULL, &pp);
        i = find_pair(pp, np, 0, 3);
        CHECK(i >= 0, "VF pair of the hovering vertex not found");
        if (i >= 0) {
            gap = pair_gap(pp + i, y);
            printf("orientation VF: x0 z = +0.02, y z = %+.2f: gap %+.4f, n (%.3f %.3f %.3f), beta (%.3f %.3f %.3f %.3f)\n",
                   zy, gap, pp[i].n[0], pp[i].n[1], pp[i].n[2], pp[i].beta[0], pp[i].beta[1], pp[i].beta[2], pp[i].beta[3]);
            CHECK(fabs(gap - zy) < 1e-14, "gap %g, expected %g", gap, zy);
            CHECK(fabs(pp[i].n[2] - 1) < 1e-14, "normal (%g %g %g)", pp[i].n[0], pp[i].n[1], pp[i].n[2]);
        }
        free(pp);
        model_clear(&m);
    }
    for (cross = 0; cross < 2; cross++) {   /* the same from below: normal −z */
        sipd_model m = {0};
        double X2[18], y[18], gap;
        memcpy(X2, X, sizeof X2);
        X2[11] = -0.02;
        X2[14] = X2[17] = -3;
        model_append(&m, X2, 3, tri, 1, 0, 0);
        model_append(&m, X2 + 9, 3, tri, 1, 1, 0);
        model_finish(&m);
        memcpy(y, X2, sizeof y);
        y[11] = cross ? 0.015 : -0.015;
        np = one_run(&m, 0, 0.05, X2, y, y, 0.0, NULL, &pp);
        i = find_pair(pp, np, 0, 3);
        CHECK(i >= 0, "VF pair not found (from below)");
        if (i >= 0) {
            gap = pair_gap(pp + i, y);
            printf("orientation VF from below: x0 z = -0.02, y z = %+.3f: gap %+.4f, n_z %+.0f\n", y[11], gap, pp[i].n[2]);
            CHECK(fabs(gap - (cross ? -0.015 : 0.015)) < 1e-14 && pp[i].n[2] == -1, "gap %g n_z %g", gap, pp[i].n[2]);
        }
        free(pp);
        model_clear(&m);
    }
    for (cross = 0; cross < 2; cross++) {   /* crossing edges: edge 0–1 along x at z = 0, edge 3–4 along y */
        sipd_model m = {0};
        double XE[18] = {-1, 0, 0, 1, 0, 0, 0, -3, -3, 0, -1, 0.03, 0, 1, 0.03, 0, 0, 3};
        double y[18], gap;
        model_append(&m, XE, 3, tri, 1, 0, 0);
        model_append(&m, XE + 9, 3, tri, 1, 1, 0);
        model_finish(&m);
        memcpy(y, XE, sizeof y);
        y[11] = y[14] = cross ? -0.02 : 0.02;
        np = one_run(&m, 0, 0.05, XE, y, y, 0.0, NULL, &pp);
        for (i = 0, k = -1; i < np; i++)
            if (pp[i].kind == 1 && pp[i].v[0] == 0 && pp[i].v[1] == 1 && pp[i].v[2] == 3 && pp[i].v[3] == 4) k = i;
        CHECK(k >= 0, "EE pair of the crossing edges not found");
        if (k >= 0) {
            gap = pair_gap(pp + k, y);
            printf("orientation EE: x0 dz = +0.03, y dz = %+.2f: gap %+.4f, beta (%.3f %.3f %.3f %.3f), n_z %+.0f\n", y[11],
                   gap, pp[k].beta[0], pp[k].beta[1], pp[k].beta[2], pp[k].beta[3], pp[k].n[2]);
            CHECK(fabs(gap - y[11]) < 1e-14, "EE gap %g expected %g", gap, y[11]);
            CHECK(fabs(pp[k].beta[0] - 0.5) < 1e-14 && fabs(pp[k].beta[2] + 0.5) < 1e-14, "EE beta");
        }
        free(pp);
        model_clear(&m);
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- outside */

static int test_outside(void)
{
    int f0 = failures, i, k, interior = -1, surf = -1, r[6];
    sipd_model m = {0};
    sipd_collide *c = NULL;
    double *x0, *y1, *y, margin = 0.02;
    add_box(&m, 3, 3, 3, 1, 1, 1, rnd_rot(), v3(0, 0, 0), 0, 0);
    model_finish(&m);
    x0 = copy_x(&m);
    y1 = copy_x(&m);
    y = copy_x(&m);
    for (i = 0; i < 3 * m.nv; i++) y1[i] += 0.05 * (i % 3 == 1);
    {   /* an interior vertex: in no surface triangle */
        char *on = calloc((size_t)m.nv, 1);
        for (i = 0; i < 3 * m.nf; i++) on[m.tris[i]] = 1;
        for (i = 0; i < m.nv; i++) if (!on[i]) { interior = i; break; }
        for (i = 0; i < m.nv; i++) if (on[i]) { surf = i; break; }
        free(on);
    }
    CHECK(collide_create(&c, &m, 1, 0.05) == SIPD_OK && collide_broad(c, x0, y1, margin) == SIPD_OK, "collide");
    r[0] = collide_outside(c, x0);
    r[1] = collide_outside(c, y1);
    for (i = 0; i < 3 * m.nv; i++) y[i] = 0.5 * (x0[i] + y1[i]);
    r[2] = collide_outside(c, y);
    for (i = 0; i < 3 * m.nv; i++) y[i] = y1[i] + (i % 3 == 1 ? 0.9 * margin : (i % 3 == 0 ? -0.9 : 0.5) * margin);
    r[3] = collide_outside(c, y);
    for (i = 0; i < 3 * m.nv; i++) y[i] = y1[i];
    for (k = 0; k < 3; k++) y[3 * interior + k] += 10;
    r[4] = collide_outside(c, y);
    for (i = 0; i < 3 * m.nv; i++) y[i] = y1[i];
    y[3 * surf + 0] -= 1.1 * margin;
    r[5] = collide_outside(c, y);
    printf("outside: y = x0 %d, y = y1 %d, between %d, 0.9 margin beyond y1 %d, interior vertex moved 10: %d, "
           "surface vertex 1.1 margin beyond: %d\n", r[0], r[1], r[2], r[3], r[4], r[5]);
    CHECK(!r[0] && !r[1] && !r[2] && !r[3] && !r[4] && r[5], "collide_outside");
    collide_destroy(c);
    free(x0);
    free(y1);
    free(y);
    model_clear(&m);
    return failures > f0;
}

/* ---------------------------------------------------------------- hysteresis */

/* The hovering vertex of the orientation case over the big triangle's hypotenuse x + y = 1:
 * a pair kept at the previous narrow phase stays while its weights are ≥ −DIST_KEEP_BAND, as a
 * plane pair (unclamped weights, face normal); a new one needs the strict rule. */
static int test_hysteresis(void)
{
    int f0 = failures, np, i, step;
    double X[18] = {-1, -1, 0, 2, -1, 0, -1, 2, 0, 0.2, 0.3, 0.02, 0.2, 3, 3, 3, 0.3, 3};
    int tri[3] = {0, 1, 2};
    /* vertex 3 at x + y = 0.5 (inside), 1.02 (weight of corner 0: −0.0067), 1.2 (−0.067) */
    static const double sum[5] = {1.02, 0.5, 1.02, 1.2, 1.02};
    static const int expect[5] = {0, 1, 1, 0, 0};
    const sipd_contact_pair *pp;
    sipd_collide *c = NULL;
    sipd_model m = {0};
    double y[18];
    model_append(&m, X, 3, tri, 1, 0, 0);
    model_append(&m, X + 9, 3, tri, 1, 1, 0);
    model_finish(&m);
    memcpy(y, X, sizeof y);
    CHECK(collide_create(&c, &m, 0, 0.05) == SIPD_OK, "create");
    CHECK(collide_broad(c, X, X, 1.0) == SIPD_OK, "broad");   /* boxes wide enough for every y below */
    for (step = 0; step < 5; step++) {
        y[9] = 0.5 * sum[step] + 0.01;
        y[10] = 0.5 * sum[step] - 0.01;
        y[11] = 0.01;
        CHECK(!collide_outside(c, y), "y left the broad-phase boxes");
        CHECK(collide_narrow(c, X, y, &pp, &np) == SIPD_OK, "narrow");
        i = find_pair(pp, np, 0, 3);
        printf("hysteresis: step %d, x + y = %.2f: %s", step, sum[step], i >= 0 ? "pair" : "no pair");
        if (i >= 0)
            printf(" (beta %.4f %.4f %.4f %.4f, n_z %.3f, gap %.4f)", pp[i].beta[0], pp[i].beta[1], pp[i].beta[2],
                   pp[i].beta[3], pp[i].n[2], pair_gap(pp + i, y));
        printf("\n");
        CHECK((i >= 0) == expect[step], "step %d: pair %s, expected %s", step, i >= 0 ? "kept" : "absent",
              expect[step] ? "kept" : "absent");
        if (i >= 0 && step == 2) {   /* the plane pair beyond the edge: unclamped weights, face normal */
            CHECK(pp[i].beta[1] > 0 && fabs(pp[i].beta[1] - (sum[step] - 1) / 3) < 1e-12, "beta[1] %g", pp[i].beta[1]);
            CHECK(fabs(pp[i].n[2] - 1) < 1e-14 && fabs(pair_gap(pp + i, y) - 0.01) < 1e-14, "n_z %g gap %g",
                  pp[i].n[2], pair_gap(pp + i, y));
        }
    }
    collide_broad(c, X, X, 1.0);   /* a new broad phase forgets the history */
    y[9] = 0.5 * 1.02 + 0.01;
    y[10] = 0.5 * 1.02 - 0.01;
    collide_narrow(c, X, y, &pp, &np);
    CHECK(find_pair(pp, np, 0, 3) < 0, "history survived a broad phase");
    collide_destroy(c);
    model_clear(&m);
    return failures > f0;
}

/* ---------------------------------------------------------------- rest exclusions */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* collide_rest_excluded against an O(n²) enumeration of the pairs within one body that share no
 * vertex and are closer than d̂ (1 + 1e-9) in the rest shape. */
static int test_rest(void)
{
    int cfg, f0 = failures;
    for (cfg = 0; cfg < 4; cfg++) {
        cl_scene s;
        sipd_collide *c = NULL;
        sipd_collide_view v;
        uint64_t *xvf = NULL, *xee = NULL, *rvf, *ree;
        size_t nxvf = 0, nxee = 0, nrvf = 0, nree = 0;
        int i, j, f;
        double dhat, r2;
        make_cluster(&s, 2000 + (uint64_t)cfg, 3 + cfg % 2, 1, cfg % 2 ? 0 : -1);
        dhat = cfg < 2 ? s.dhat : 2 * s.dhat;   /* 0.05, 0.1: the noodle's cells are 0.1 long */
        r2 = dhat * (1 + 1e-9) * dhat * (1 + 1e-9);
        CHECK(collide_create(&c, &s.m, 1, dhat) == SIPD_OK, "collide_create");
        CHECK(collide_rest_excluded(&s.m, dhat, &xvf, &nxvf, &xee, &nxee) == SIPD_OK, "collide_rest_excluded");
        collide_candidate_arrays(c, &v);
        rvf = malloc(((size_t)v.nsv * s.m.nf + 1) * sizeof *rvf);
        ree = malloc(((size_t)v.nedges * v.nedges / 2 + 1) * sizeof *ree);
        for (i = 0; i < v.nsv; i++)
            for (f = 0; f < s.m.nf; f++) {
                int p = v.sv[i];
                const int *t = s.m.tris + 3 * f;
                if (p == t[0] || p == t[1] || p == t[2] || s.m.body[p] != s.m.body[t[0]])
                    continue;
                if (dist_point_triangle2(X3(s.m.X, p), X3(s.m.X, t[0]), X3(s.m.X, t[1]), X3(s.m.X, t[2])) < r2)
                    rvf[nrvf++] = (uint64_t)p << 32 | (uint32_t)f;
            }
        for (i = 0; i < v.nedges; i++)
            for (j = i + 1; j < v.nedges; j++) {
                const int *e = v.edges + 2 * i, *g = v.edges + 2 * j;
                if (e[0] == g[0] || e[0] == g[1] || e[1] == g[0] || e[1] == g[1] || s.m.body[e[0]] != s.m.body[g[0]])
                    continue;
                if (dist_segment_segment2(X3(s.m.X, e[0]), X3(s.m.X, e[1]), X3(s.m.X, g[0]), X3(s.m.X, g[1])) < r2)
                    ree[nree++] = (uint64_t)i << 32 | (uint32_t)j;
            }
        qsort(rvf, nrvf, sizeof *rvf, cmp_u64);
        qsort(ree, nree, sizeof *ree, cmp_u64);
        printf("rest cfg %d (dhat %.2f): rest exclusions VF %zu EE %zu (enumeration %zu %zu)\n", cfg, dhat, nxvf,
               nxee, nrvf, nree);
        CHECK(nxvf == nrvf && nxee == nree && !memcmp(xvf, rvf, nrvf * sizeof *rvf) &&
                  !memcmp(xee, ree, nree * sizeof *ree),
              "cfg %d: rest exclusions differ from the enumeration", cfg);
        CHECK(nrvf > 0 && nree > 0, "cfg %d: no rest exclusion to test", cfg);
        free(rvf);
        free(ree);
        free(xvf);
        free(xee);
        collide_destroy(c);
        cl_free(&s);
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- policy shared by the backends */

static int test_policy(void)
{
    int f0 = failures, np, i = -1, v[4], j, since = 0, due[3];
    static const int tris[6] = {0, 1, 2, 3, 4, 5}, edges[4] = {7, 8, 2, 9};
    double X[18] = {-1, -1, 0, 2, -1, 0, -1, 2, 0, 0.2, 0.3, 0.02, 0.2, 3, 3, 3, 0.3, 3}, y[18], beta[4];
    int tri[3] = {0, 1, 2};
    const sipd_contact_pair *pp;
    sipd_contact_pair q;
    sipd_collide *c = NULL;
    sipd_collide_view cv;
    sipd_model m = {0};
    double kv[2] = {1, 2}, k;
    const double *kvp = NULL;
    vec3 n;
    candidate_verts(1, 6, 1, tris, edges, v);
    CHECK(v[0] == 6 && v[1] == 3 && v[2] == 4 && v[3] == 5, "VF vertices %d %d %d %d", v[0], v[1], v[2], v[3]);
    candidate_verts(0, 0, 1, tris, edges, v);
    CHECK(v[0] == 7 && v[1] == 8 && v[2] == 2 && v[3] == 9, "EE vertices %d %d %d %d", v[0], v[1], v[2], v[3]);
    /* vertex 3 just above triangle 0: candidate_test gives collide_narrow's pair, field by field */
    model_append(&m, X, 3, tri, 1, 0, 0);
    model_append(&m, X + 9, 3, tri, 1, 1, 0);
    model_finish(&m);
    memcpy(y, X, sizeof y);
    CHECK(collide_create(&c, &m, 0, 0.05) == SIPD_OK && collide_broad(c, X, X, 1.0) == SIPD_OK, "create, broad");
    CHECK(collide_narrow(c, X, y, &pp, &np) == SIPD_OK && (i = find_pair(pp, np, 0, 3)) >= 0, "narrow: no pair");
    collide_candidate_arrays(c, &cv);
    CHECK(candidate_test(1, 3, 0, m.tris, cv.edges, cv.ne_tri, X, y, m.crad, cv.tiny, cv.dhat, 0, v, beta, &n) == 1,
          "not kept");
    if (i >= 0)
        for (j = 0; j < 4; j++)
            CHECK(v[j] == pp[i].v[j] && beta[j] == pp[i].beta[j] && (j == 3 || n.v[j] == pp[i].n[j]),
                  "corner %d: v %d beta %g n %g, collide_narrow's %d %g %g", j, v[j], beta[j], j < 3 ? n.v[j] : 0,
                  pp[i].v[j], pp[i].beta[j], j < 3 ? pp[i].n[j] : 0);
    memset(&q, 0xab, sizeof q);
    collide_pair_set(&q, v, beta, n.v, 0);
    for (j = (int)(offsetof(sipd_contact_pair, kind) + sizeof q.kind); j < (int)sizeof q; j++)
        CHECK(((unsigned char *)&q)[j] == 0, "pair padding byte %d not zero", j);
    CHECK(q.kind == 0 && q.v[0] == 3 && q.beta[0] == beta[0], "pair fields");
    collide_destroy(c);
    model_clear(&m);
    /* the detection schedule */
    for (j = 0; j < 3; j++) due[j] = pair_detect_count(&since, pair_detect_every(3));
    printf("policy: detect_every 0 -> %d; due at counts 1..3: %d %d %d\n", pair_detect_every(0), due[0], due[1],
           due[2]);
    CHECK(pair_detect_every(0) == 4 && pair_detect_every(7) == 7, "detect_every");
    CHECK(!due[0] && !due[1] && due[2] && since == 3, "due by count: %d %d %d (since %d)", due[0], due[1], due[2],
          since);
    k = SIPD_DETECT_MOVE(0.1);
    CHECK(pair_detect_moved(k * k * 1.001, 0.1) && !pair_detect_moved(k * k * 0.999, 0.1), "due by motion");
    /* the contact stiffness */
    memset(&m, 0, sizeof m);
    m.contact_k_auto = 7;
    m.contact_kv = kv;
    k = pair_contact_k(&m, 5, &kvp);
    CHECK(k == 5 && !kvp, "contact.stiffness: k %g, kv %p", k, (const void *)kvp);
    m.contact_k_one = 3;
    k = pair_contact_k(&m, 0, &kvp);
    CHECK(k == 3 && !kvp, "one automatic value: k %g, kv %p", k, (const void *)kvp);
    m.contact_k_one = 0;
    k = pair_contact_k(&m, 0, &kvp);
    CHECK(k == 7 && kvp == kv, "per vertex: k %g, kv %p", k, (const void *)kvp);
    {   /* the step load's "do nothing" state: free vertices at x, a Dirichlet one stays at y */
        static const unsigned char fixed[2] = {0, 1};
        double xs[6] = {1, 2, 3, 4, 5, 6}, ys[6] = {-1, -2, -3, -4, -5, -6};
        size_t c3;
        for (c3 = 0; c3 < 6; c3++) step_load_state(fixed, xs, ys, c3);
        CHECK(ys[0] == 1 && ys[1] == 2 && ys[2] == 3 && ys[3] == -4 && ys[4] == -5 && ys[5] == -6,
              "do-nothing state %g %g %g %g %g %g", ys[0], ys[1], ys[2], ys[3], ys[4], ys[5]);
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- ccd (contact.ccd) */

/* The distance between the primitives of a VF / EE candidate at p + s d (physics/ccd.h). */
static double ccd_at(int is_vf, const vec3 *p, const vec3 *d, double s)
{
    vec3 q[4];
    int k;
    for (k = 0; k < 4; k++) q[k] = v3_axpy(s, d[k], p[k]);
    return ccd_distance(is_vf, q);
}

static int test_ccd(void)
{
    int f0 = failures, trial, is_vf;
    double t;
    rng_seed(27);
    {   /* a point falling on a triangle: gap 0.1 − 0.3 τ, contact at τ = 1/3; the filter stops
           before the gap falls below CCD_KEEP of 0.1 (τ ≤ 0.3) and not far before it */
        vec3 p[4] = {v3(0.3, 0.3, 0.1), v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)};
        vec3 d[4] = {v3(0, 0, -0.3), v3(0, 0, 0), v3(0, 0, 0), v3(0, 0, 0)}, e[4];
        int k;
        t = ccd_pair_toi(1, p, d, 0, 1);
        CHECK(t <= 0.3 + 1e-12 && t >= 0.25, "point on triangle: time of impact %g (contact at 1/3, 10%% kept: 0.3)", t);
        /* the same with a common translation of all four: nothing moves relative to the other */
        for (k = 0; k < 4; k++) e[k] = v3_add(d[k], v3(5, -7, 3));
        CHECK(ccd_pair_toi(1, p, e, 0, 1) < 0.31, "a common translation hides the approach: %g", ccd_pair_toi(1, p, e, 0, 1));
        for (k = 0; k < 4; k++) e[k] = v3(5, -7, 3);
        CHECK(ccd_pair_toi(1, p, e, 0, 1) == 1, "a pure translation of the pair is cut");
        /* moving parallel to the face: never closer */
        d[0] = v3(0.2, 0.1, 0);
        CHECK(ccd_pair_toi(1, p, d, 0, 1) == 1, "a point sliding parallel to the face is cut at %g",
              ccd_pair_toi(1, p, d, 0, 1));
        /* a thickness kept clear: xi = 0.05 leaves a gap of 0.05, so 0.1 − 0.3 τ ≥ 0.05 + 0.1·0.05 */
        d[0] = v3(0, 0, -0.3);
        t = ccd_pair_toi(1, p, d, 0.05, 1);
        CHECK(t <= (0.05 - 0.005) / 0.3 + 1e-12 && t >= 0.12, "with 0.05 kept clear: %g (at most 0.15)", t);
    }
    {   /* two segments crossing: p at z = 0.1 falling 0.2, q still; contact at τ = 1/2 */
        vec3 p[4] = {v3(-1, 0, 0.1), v3(1, 0, 0.1), v3(0, -1, 0), v3(0, 1, 0)};
        vec3 d[4] = {v3(0, 0, -0.2), v3(0, 0, -0.2), v3(0, 0, 0), v3(0, 0, 0)};
        t = ccd_pair_toi(0, p, d, 0, 1);
        CHECK(t <= 0.45 + 1e-12 && t >= 0.4, "edges crossing: time of impact %g (contact at 1/2, 10%% kept: 0.45)", t);
    }
    /* random pairs and steps: the distance along the step up to the returned τ never reaches 0
       (a fine sampling), ends at ≥ CCD_KEEP of where it started; and a step whose sampled path
       crosses (distance 0 within a sample) is cut before that */
    for (trial = 0; trial < 4000; trial++) {
        vec3 p[4], d[4];
        double d0, dmin = HUGE_VAL, s;
        int k, i, cross = -1;
        is_vf = trial & 1;
        for (k = 0; k < 4; k++) {
            p[k] = rnd_vec(1);
            d[k] = rnd_vec(trial % 3 ? 2.0 : 0.05);
        }
        if (!is_vf) {   /* segments, not too short */
            if (v3_len(v3_sub(p[1], p[0])) < 0.2 || v3_len(v3_sub(p[3], p[2])) < 0.2)
                continue;
        } else if (v3_len(v3_cross(v3_sub(p[2], p[1]), v3_sub(p[3], p[1]))) < 0.05)
            continue;
        d0 = ccd_at(is_vf, p, d, 0);
        if (d0 < 1e-3)
            continue;
        t = ccd_pair_toi(is_vf, p, d, 0, 1);
        for (i = 0; i <= 2000; i++) {
            s = i / 2000.0;
            double di = ccd_at(is_vf, p, d, s);
            if (s <= t && di < dmin)
                dmin = di;
            if (cross < 0 && di < 1e-6 * d0)
                cross = i;
        }
        CHECK(dmin > 0.99 * CCD_KEEP * d0 || t == 0, "trial %d (%s): the distance fell to %g of %g before tau %g",
              trial, is_vf ? "VF" : "EE", dmin, d0, t);
        CHECK(ccd_at(is_vf, p, d, t) >= CCD_KEEP * d0 * (1 - 1e-9) || t == 1,
              "trial %d: the gap at tau %g is %g of %g", trial, t, ccd_at(is_vf, p, d, t), d0);
        if (cross >= 0)
            CHECK(t < cross / 2000.0, "trial %d: the path touches at %g, the filter allows %g", trial, cross / 2000.0, t);
        if (failures > f0 + 5)
            break;
    }
    {   /* the per-vertex pieces: the ball, the box, the plane */
        CHECK(fabs(ccd_ball_scale(v3(0.5, 0, 0), v3(1, 0, 0), v3(0, 0, 0), 1) - 0.5) < 1e-15, "ball: %g",
              ccd_ball_scale(v3(0.5, 0, 0), v3(1, 0, 0), v3(0, 0, 0), 1));
        CHECK(ccd_ball_scale(v3(2, 0, 0), v3(-1, 0, 0), v3(0, 0, 0), 1) == 0, "ball: outside it, no step");
        CHECK(ccd_ball_scale(v3(0.1, 0, 0), v3(0.2, 0, 0), v3(0, 0, 0), 1) == 1, "ball: a short step is cut");
        CHECK(fabs(ccd_box_scale(v3(0, 0, 0), v3(2, -1, 0), v3(-1, -0.25, -1), v3(1, 1, 1)) - 0.25) < 1e-15,
              "box: %g", ccd_box_scale(v3(0, 0, 0), v3(2, -1, 0), v3(-1, -0.25, -1), v3(1, 1, 1)));
        CHECK(fabs(ccd_plane_scale(v3(0, 0.1, 0), v3(0, -0.5, 0), v3(0, 1, 0), 0) - CCD_GROUND * 0.2) < 1e-15,
              "plane: %g", ccd_plane_scale(v3(0, 0.1, 0), v3(0, -0.5, 0), v3(0, 1, 0), 0));
        CHECK(ccd_plane_scale(v3(0, 0.1, 0), v3(0, 0.5, 0), v3(0, 1, 0), 0) == 1, "plane: moving away is cut");
        CHECK(fabs(ccd_clear(0.0025, 0.005) - 0.002) < 1e-15 && ccd_clear(0.0004, 0.005) == 0.0002 &&
              ccd_clear(0, 0.005) == 0, "ccd_clear");
    }
    return failures > f0;
}

/* ---------------------------------------------------------------- main */

static const test_case cases[] = {
    {"pt_tri", .run_rc = test_pt_tri},
    {"edge_edge", .run_rc = test_edge_edge},
    {"brute", .run_rc = test_brute},
    {"threads", .run_rc = test_threads},
    {"exclusions", .run_rc = test_exclusions},
    {"orientation", .run_rc = test_orientation},
    {"outside", .run_rc = test_outside},
    {"hysteresis", .run_rc = test_hysteresis},
    {"rest", .run_rc = test_rest},
    {"policy", .run_rc = test_policy},
    {"ccd", .run_rc = test_ccd},
};
static const test_program program = {"test_collide", TEST_CASES(cases), .all = 1};
TEST_MAIN(program)
