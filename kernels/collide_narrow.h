/* collide_narrow.h — the float32 narrow phase of one candidate and the compaction of the
 * results, shared by kernels/collide_cuda.cu (the kernel and its host side) and the host
 * stand-in of tests/test_gpu_collide.c (tests/gpu_collide_emu.c, SIPD_TEST_GPU_SELFTEST=1).
 *
 * narrow_rec is src/collide.c's narrow_one in float32: the same rule, dist_candidate of
 * src/physics/distance.h (VF only when the closest point is inside the face, EE only with
 * interior closest points of non-parallel edges, then only when gap < d̂), without the
 * hysteresis of later narrow phases.  It
 * writes one record per candidate; narrow_compact turns the kept records, in candidate order,
 * into sipd_contact_pairs exactly as narrow_one fills them (zeroed first), so the output
 * order is that of collide_narrow: VF pairs in candidate order, then EE pairs.
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
} narrow_in;

SIPD_HD vec3 narrow_ld(const float *x, int i) { return v3_load(x + 3 * (size_t)i); }

/* Candidate k (VF for k < nvf, then EE): *r = the record (keep 0 or 1).  The rule is
 * dist_candidate's without history (was = 0): the strict rule of the first narrow phase after a
 * broad phase; the CPU narrow phase's hysteresis on later passes is not reproduced here. */
SIPD_HD void narrow_rec_of(const narrow_in *in, long long k, narrow_rec *r)
{
    sipd_real beta[4] = {0, 0, 0, 0}, gap = 0;
    vec3 n = v3(0, 0, 0), ys[4], xs[4];
    int keep, j, v[4], is_vf = k < in->nvf;
    if (is_vf) {
        const int *t = in->tris + 3 * (size_t)in->vf[2 * k + 1];
        v[0] = in->vf[2 * k];
        v[1] = t[0];
        v[2] = t[1];
        v[3] = t[2];
    } else {
        const int *e1 = in->edges + 2 * (size_t)in->ee[2 * (k - in->nvf)];
        const int *e2 = in->edges + 2 * (size_t)in->ee[2 * (k - in->nvf) + 1];
        v[0] = e1[0];
        v[1] = e1[1];
        v[2] = e2[0];
        v[3] = e2[1];
    }
    for (j = 0; j < 4; j++) {
        ys[j] = narrow_ld(in->y, v[j]);
        xs[j] = narrow_ld(in->x0, v[j]);
    }
    keep = dist_candidate(is_vf, ys, xs, in->tiny, in->dhat, 0, beta, &n, &gap);
    r->keep = keep;
    for (j = 0; j < 4; j++) r->beta[j] = keep ? beta[j] : 0.0f;
    for (j = 0; j < 3; j++) r->n[j] = keep ? n.v[j] : 0.0f;
}

/* Host: the kept records of the nvf + nee candidates of v, in candidate order, into out
 * (capacity cap).  *npairs = the number of pairs found, also when they do not fit: then out is
 * not written and SIPD_EFAIL returned (with a message naming the count and the capacity). */
static inline int narrow_compact(const sipd_collide_view *v, const narrow_rec *rec, sipd_contact_pair *out, int cap,
                                 int *npairs)
{
    size_t k, nc = v->nvf + v->nee, cnt = 0;
    const int *tris = v->m->tris;
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
    cnt = 0;
    for (k = 0; k < nc; k++) {
        sipd_contact_pair *p;
        int j;
        if (!rec[k].keep)
            continue;
        p = out + cnt++;
        memset(p, 0, sizeof *p);   /* padding too, as collide.c does */
        if (k < v->nvf) {
            int f = v->vf[2 * k + 1];
            p->v[0] = v->vf[2 * k];
            p->v[1] = tris[3 * (size_t)f];
            p->v[2] = tris[3 * (size_t)f + 1];
            p->v[3] = tris[3 * (size_t)f + 2];
            p->kind = 0;
        } else {
            const int *e1 = v->edges + 2 * (size_t)v->ee[2 * (k - v->nvf)];
            const int *e2 = v->edges + 2 * (size_t)v->ee[2 * (k - v->nvf) + 1];
            p->v[0] = e1[0];
            p->v[1] = e1[1];
            p->v[2] = e2[0];
            p->v[3] = e2[1];
            p->kind = 1;
        }
        for (j = 0; j < 4; j++) p->beta[j] = rec[k].beta[j];
        for (j = 0; j < 3; j++) p->n[j] = rec[k].n[j];
    }
    return SIPD_OK;
}

#endif
