/* collide_narrow.h — the float32 narrow phase of one candidate and the compaction of the
 * results, shared by kernels/collide_cuda.cu (the kernel and its host side) and the host
 * stand-in of tests/gpu/test_gpu_collide.c (tests/gpu/gpu_collide_emu.c, SIPD_TEST_GPU_SELFTEST=1).
 *
 * narrow_rec is src/collide.c's narrow_one in float32: the same candidate, src/candidate.h (its
 * vertices and the rule, dist_candidate of src/physics/distance.h: VF only when the closest
 * point is inside the face, EE only with interior closest points of non-parallel edges, then
 * only when gap < d̂), with the hysteresis
 * of later narrow phases when given the per-candidate flags (sipd_cuda_broad_narrow), without
 * it otherwise (sipd_cuda_collide_narrow).  It writes one record per candidate; narrow_compact
 * (host) or the scan and scatter of collide_cuda.cu (device, narrow_pair_of) turn the kept
 * records, in candidate order, into sipd_contact_pairs exactly as narrow_one fills them (zeroed
 * first), so the output order is that of collide_narrow: VF pairs in candidate order, then EE
 * pairs.
 *
 * Only for translation units compiled with -DSIPD_REAL_FLOAT (sipd_real = float).
 */
#ifndef SIPD_KERNELS_COLLIDE_NARROW_H
#define SIPD_KERNELS_COLLIDE_NARROW_H

#ifndef SIPD_REAL_FLOAT
#error "kernels/collide_narrow.h is the float32 narrow phase: compile with -DSIPD_REAL_FLOAT"
#endif

#include <limits.h>
#include <string.h>

#include "candidate.h"
#include "collide.h"
#include "physics/distance.h"
#ifdef __cplusplus
extern "C" {
#endif
#include "util.h"
#ifdef __cplusplus
}
#endif

/* What one candidate gives: keep = 1 when it is a pair; then its β and n (float32). */
typedef struct {
    float beta[4];
    float n[3];
    int keep;
} narrow_rec;

/* The inputs of narrow_rec: the arrays of sipd_collide_view, positions as float xyz triples.
 * On the device every pointer is a device pointer. */
typedef struct {
    const int *vf, *ee, *tris, *edges;
    const float *x0, *y;
    long long nvf, nee;
    float tiny, dhat;
    unsigned char *was;   /* per candidate: a pair at the previous narrow phase (hysteresis,
                             updated), or NULL: no history */
    long long ne_tri;     /* edges from here on are rod segments (sipd_collide_view)          */
    const float *rad;     /* per model vertex: the contact half-thickness (model.h crad), or
                             NULL when the model has none (solids) */
} narrow_in;

/* The primitives (a, b) of candidate k (VF for k < nvf, then EE; candidate.h). */
SIPD_HD void narrow_ab(const narrow_in *in, long long k, int *a, int *b)
{
    const int *ab = k < in->nvf ? in->vf + 2 * (size_t)k : in->ee + 2 * (size_t)(k - in->nvf);
    *a = ab[0];
    *b = ab[1];
}

/* The model vertices of candidate k (VF: vertex, face corners; EE: p0, p1, q0, q1). */
SIPD_HD void narrow_verts(const narrow_in *in, long long k, int *v)
{
    int a, b;
    narrow_ab(in, k, &a, &b);
    candidate_verts(k < in->nvf, a, b, in->tris, in->edges, v);
}

/* Candidate k (VF for k < nvf, then EE): *r = the record (keep 0 or 1).  The rule is
 * dist_candidate's, with the hysteresis of collide_narrow when in->was is set (was[k] is read
 * and updated: one thread per candidate), without history (the strict rule of the first narrow
 * phase after a broad phase) when it is NULL. */
SIPD_HD void narrow_rec_of(const narrow_in *in, long long k, narrow_rec *r)
{
    sipd_real beta[4] = {0, 0, 0, 0};
    vec3 n = v3(0, 0, 0);
    int keep, j, a, b, v[4];
    narrow_ab(in, k, &a, &b);
    keep = candidate_test(k < in->nvf, a, b, in->tris, in->edges, (int)in->ne_tri, in->x0, in->y, in->rad, in->tiny,
                          in->dhat, in->was ? in->was[k] : 0, v, beta, &n);
    if (in->was)
        in->was[k] = (unsigned char)keep;
    r->keep = keep;
    for (j = 0; j < 4; j++) r->beta[j] = keep ? beta[j] : 0.0f;
    for (j = 0; j < 3; j++) r->n[j] = keep ? n.v[j] : 0.0f;
}

/* A kept candidate as the device hands it to the host: 48 bytes. */
typedef struct {
    int v[4];
    float beta[4];
    float n[3];
    int kind;   /* 0 VF, 1 EE */
} narrow_pair;

/* the record r of candidate k as a narrow_pair */
SIPD_HD void narrow_pair_of(const narrow_in *in, long long k, const narrow_rec *r, narrow_pair *p)
{
    int j;
    narrow_verts(in, k, p->v);
    for (j = 0; j < 4; j++) p->beta[j] = r->beta[j];
    for (j = 0; j < 3; j++) p->n[j] = r->n[j];
    p->kind = k < in->nvf ? 0 : 1;
}

/* a narrow_pair as collide.c fills a sipd_contact_pair (collide.h collide_pair_set) */
static inline void narrow_pair_out(const narrow_pair *q, sipd_contact_pair *p)
{
    collide_pair_set(p, q->v, q->beta, q->n, q->kind);
}

/* Host: the kept records of the nvf + nee candidates of v, in candidate order, into out
 * (capacity cap).  *npairs = the number of pairs found, also when they do not fit: then out is
 * not written and SIPD_EFAIL returned (with a message naming the count and the capacity). */
static inline int narrow_compact(const sipd_collide_view *v, const narrow_rec *rec, sipd_contact_pair *out, int cap,
                                 int *npairs)
{
    size_t k, nc = v->nvf + v->nee, cnt = 0;
    narrow_in in;
    for (k = 0; k < nc; k++) cnt += rec[k].keep != 0;
    if (cnt > (size_t)INT_MAX) {
        sipd_error("cuda collide: narrow phase: %zu contact pairs", cnt);
        *npairs = 0;
        return SIPD_EFAIL;
    }
    *npairs = (int)cnt;
    if (cnt > (size_t)(cap > 0 ? cap : 0) || (cnt > 0 && !out)) {
        sipd_error("cuda collide: narrow phase: %zu contact pairs do not fit in the output (capacity %d)", cnt,
                   out ? cap : 0);
        return SIPD_EFAIL;
    }
    memset(&in, 0, sizeof in);
    in.vf = v->vf;
    in.ee = v->ee;
    in.tris = v->m->tris;
    in.edges = v->edges;
    in.nvf = (long long)v->nvf;
    in.nee = (long long)v->nee;
    cnt = 0;
    for (k = 0; k < nc; k++)
        if (rec[k].keep) {
            narrow_pair q;
            narrow_pair_of(&in, (long long)k, rec + k, &q);
            narrow_pair_out(&q, out + cnt++);
        }
    return SIPD_OK;
}

#endif
