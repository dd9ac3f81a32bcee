/* pairs.c — per-pair data and vertex incidences of the contact pairs (pairs.h). */
#include "pairs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/distance.h"
#include "util.h"

int pair_data_init(sipd_pair_data *d, int nv)
{
    memset(d, 0, sizeof *d);
    d->nv = nv;
    d->off = sipd_calloc((size_t)nv + 1, sizeof(int));
    d->cur = sipd_malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
    return d->off && d->cur ? SIPD_OK : SIPD_EFAIL;
}

void pair_data_free(sipd_pair_data *d)
{
    free(d->v);
    free(d->beta);
    free(d->n);
    free(d->k);
    free(d->lam);
    free(d->h);
    free(d->o);
    free(d->key);
    free(d->skey);
    free(d->sval);
    free(d->off);
    free(d->pair);
    free(d->slot);
    free(d->cur);
    memset(d, 0, sizeof *d);
}

double pair_stiffness(const double *kv, const int v[4], double kc)
{
    double k = 0;
    int i;
    if (!kv)
        return kc;
    for (i = 0; i < 4; i++)
        if (kv[v[i]] > 0 && (k == 0 || kv[v[i]] < k))
            k = kv[v[i]];
    return k > 0 ? k : kc;
}

double pair_contact_k(const sipd_model *m, double kc_set, const double **kv)
{
    *kv = kc_set > 0 || m->contact_k_one > 0 ? NULL : m->contact_kv;
    return kc_set > 0 ? kc_set : m->contact_k_one > 0 ? m->contact_k_one : m->contact_k_auto;
}

static int key_cmp(const int *a, const int *b)
{
    int i;
    for (i = 0; i < 5; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The store's value for key (5 ints), NULL when none: a binary search over the sorted keys. */
static const double *anchor_find(const sipd_pair_data *d, const int *key)
{
    int lo = 0, hi = d->ns;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = key_cmp(d->skey + 5 * (size_t)mid, key);
        if (c == 0)
            return d->sval + 3 * (size_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int anchor_reserve(sipd_pair_data *d, int n)
{
    if (n <= d->scap)
        return SIPD_OK;
    free(d->skey);
    free(d->sval);
    d->scap = n + n / 2 + 16;
    d->skey = sipd_malloc((size_t)d->scap * 5 * sizeof(int));
    d->sval = sipd_malloc((size_t)d->scap * 3 * sizeof(double));
    if (!d->skey || !d->sval) {
        free(d->skey);
        free(d->sval);
        d->skey = NULL;
        d->sval = NULL;
        d->scap = d->ns = 0;
        return SIPD_EFAIL;
    }
    return SIPD_OK;
}

/* qsort of entry indices by key (the keys of one step's pairs are distinct; ties, if any, keep
   the index order so the result does not depend on the sort) */
static const int *sort_keys;
static int idx_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb, c = key_cmp(sort_keys + 5 * (size_t)a, sort_keys + 5 * (size_t)b);
    return c ? c : (a > b) - (a < b);
}

int pair_anchor_commit(sipd_pair_data *d, const double *o_new)
{
    int p, n = 0, i;
    int *idx;
    const int *keys = d->key;
    d->ns = 0;
    if (d->npr == 0)
        return SIPD_OK;
    idx = sipd_malloc((size_t)d->npr * sizeof(int));
    if (!idx || anchor_reserve(d, d->npr) != SIPD_OK) {
        free(idx);
        return SIPD_EFAIL;
    }
    for (p = 0; p < d->npr; p++) {
        const double *o = o_new + 3 * (size_t)p;
        if (o[0] != 0 || o[1] != 0 || o[2] != 0)
            idx[n++] = p;
    }
    sort_keys = keys;
    qsort(idx, (size_t)n, sizeof(int), idx_cmp);
    for (i = 0; i < n; i++) {
        p = idx[i];
        if (d->ns > 0 && key_cmp(d->skey + 5 * (size_t)(d->ns - 1), keys + 5 * p) == 0)
            continue;   /* a duplicate key (a vertex on two faces of one body): the first pair's */
        memcpy(d->skey + 5 * (size_t)d->ns, keys + 5 * p, 5 * sizeof(int));
        memcpy(d->sval + 3 * (size_t)d->ns, o_new + 3 * (size_t)p, 3 * sizeof(double));
        d->ns++;
    }
    free(idx);
    return SIPD_OK;
}

void pair_anchor_clear(sipd_pair_data *d)
{
    d->ns = 0;
    if (d->o && d->npr > 0)
        memset(d->o, 0, (size_t)d->npr * 3 * sizeof(double));
}

void pair_anchor_save(const sipd_pair_data *d, double *buf, long *n)
{
    int i, k;
    *n = d->ns;
    if (!buf)
        return;
    for (i = 0; i < d->ns; i++) {
        for (k = 0; k < 5; k++) buf[8 * (size_t)i + k] = d->skey[5 * (size_t)i + k];
        for (k = 0; k < 3; k++) buf[8 * (size_t)i + 5 + k] = d->sval[3 * (size_t)i + k];
    }
}

int pair_anchor_load(sipd_pair_data *d, const double *buf, long n)
{
    long i;
    int k;
    d->ns = 0;
    if (n < 0 || n > INT32_MAX / 8)
        return SIPD_EINPUT;
    if (anchor_reserve(d, (int)n) != SIPD_OK)
        return SIPD_EFAIL;
    for (i = 0; i < n; i++) {
        const double *e = buf + 8 * (size_t)i;
        int *key = d->skey + 5 * (size_t)i;
        if (!(e[0] == 0 || e[0] == 1))
            return SIPD_EINPUT;
        key[0] = (int)e[0];
        for (k = 0; k < 4; k++) {
            if (!(e[1 + k] >= 0 && e[1 + k] < d->nv) || e[1 + k] != (double)(int)e[1 + k])
                return SIPD_EINPUT;
            key[1 + k] = (int)e[1 + k];
        }
        if (i > 0 && key_cmp(key - 5, key) >= 0)
            return SIPD_EINPUT;
        for (k = 0; k < 3; k++) d->sval[3 * (size_t)i + k] = e[5 + k];
    }
    d->ns = (int)n;
    return SIPD_OK;
}

int pair_data_build(sipd_pair_data *d, const sipd_model *m, const sipd_contact_pair *pr, int npr, const double *x0,
                    double kc, const double *kv, double mu, double dhat)
{
    int p, k, a, *cur = d->cur;
    d->npr = 0;
    if (npr > d->cap) {
        int cap = npr + npr / 2 + 16;
        free(d->v);
        free(d->beta);
        free(d->n);
        free(d->k);
        free(d->lam);
        free(d->h);
        free(d->o);
        free(d->key);
        free(d->pair);
        free(d->slot);
        d->v = sipd_malloc((size_t)cap * 4 * sizeof(int));
        d->beta = sipd_malloc((size_t)cap * 4 * sizeof(double));
        d->n = sipd_malloc((size_t)cap * 3 * sizeof(double));
        d->k = sipd_malloc((size_t)cap * sizeof(double));
        d->lam = sipd_malloc((size_t)cap * sizeof(double));
        d->h = sipd_malloc((size_t)cap * sizeof(double));
        d->o = sipd_malloc((size_t)cap * 3 * sizeof(double));
        d->key = sipd_malloc((size_t)cap * 5 * sizeof(int));
        d->pair = sipd_malloc((size_t)cap * 4 * sizeof(int));
        d->slot = sipd_malloc((size_t)cap * 4);
        if (!d->v || !d->beta || !d->n || !d->k || !d->lam || !d->h || !d->o || !d->key || !d->pair || !d->slot) {
            d->cap = 0;
            return SIPD_EFAIL;
        }
        d->cap = cap;
    }
    memset(d->off, 0, ((size_t)d->nv + 1) * sizeof(int));
    for (p = 0; p < npr; p++) {
        vec3 xs[4];
        double rad[4];
        d->k[p] = pair_stiffness(kv, pr[p].v, kc);
        for (k = 0; k < 3; k++) d->n[3 * p + k] = pr[p].n[k];
        for (k = 0; k < 4; k++) {
            d->v[4 * p + k] = pr[p].v[k];
            d->beta[4 * p + k] = pr[p].beta[k];
            xs[k] = v3_load(x0 + 3 * pr[p].v[k]);
            rad[k] = m->crad ? m->crad[pr[p].v[k]] : 0;
            if (!m->fixed[pr[p].v[k]])
                d->off[pr[p].v[k] + 1]++;
        }
        d->h[p] = m->crad ? dist_pair_offset(pr[p].beta, rad) : 0;
        if (m->cval && pr[p].kind == 1) {   /* a rod pair clamped to a joint: once per joint */
            const int *v = pr[p].v;
            if (pr[p].beta[1] == 0 && m->cval[v[0]] > 1) d->k[p] /= m->cval[v[0]];
            if (pr[p].beta[0] == 0 && m->cval[v[1]] > 1) d->k[p] /= m->cval[v[1]];
            if (pr[p].beta[3] == 0 && m->cval[v[2]] > 1) d->k[p] /= m->cval[v[2]];
            if (pr[p].beta[2] == 0 && m->cval[v[3]] > 1) d->k[p] /= m->cval[v[3]];
        }
        d->lam[p] = mu > 0 ? friction_normal_force(contact_pair_combine(xs, pr[p].beta, 4), v3_load(pr[p].n), d->h[p],
                                                   dhat, d->k[p])
                           : 0;
        {   /* the anchor the pair's key left at the end of the last step (0: none).  The key of a
               vertex–face pair is its vertex and the face's body, not the face: the slip is the
               vertex's relative to that surface, and a vertex resting near a face edge is paired
               with one face in one step and the neighbouring one in the next (keyed by face, the
               stack of scenes/study/stack.cfg lost ~5 loaded anchors per step and took 40% more
               iterations, results/friction-anchor-27.md).  An edge–edge pair: its 4 vertices. */
            int *key = d->key + 5 * (size_t)p, j;
            const double *o;
            key[0] = pr[p].kind;
            if (pr[p].kind == 0) {
                key[1] = pr[p].v[0];
                key[2] = m->body ? m->body[pr[p].v[1]] : 0;
                key[3] = key[4] = 0;
            } else
                for (k = 0; k < 4; k++) key[1 + k] = pr[p].v[k];
            o = anchor_find(d, key);
            for (j = 0; j < 3; j++) d->o[3 * p + j] = o && mu > 0 ? o[j] : 0;
        }
    }
    for (a = 0; a < d->nv; a++) d->off[a + 1] += d->off[a];
    memcpy(cur, d->off, (size_t)d->nv * sizeof(int));
    for (p = 0; p < npr; p++)   /* in pair order: the gather order is deterministic */
        for (k = 0; k < 4; k++) {
            int v = pr[p].v[k];
            if (!m->fixed[v]) {
                d->pair[cur[v]] = p;
                d->slot[cur[v]++] = (unsigned char)k;
            }
        }
    d->npr = npr;
    return SIPD_OK;
}

/* pairs.h: row a of the couplings Σ β_a β_c D_z x_c over the pair's other free vertices. */
void pair_coupling_row(const void *ctx, int a, const double *x, double o[3])
{
    const sipd_pair_coupling *pc = (const sipd_pair_coupling *)ctx;
    const sipd_pair_data *d = pc->pd;
    int k, i;
    if (pc->fixed[a])
        return;
    for (k = d->off[a]; k < d->off[a + 1]; k++) {
        int p = d->pair[k], l = d->slot[k], c;
        sym3 Dz;
        s3_load(pc->D + 6 * p, &Dz);
        for (c = 0; c < 4; c++) {
            int v = d->v[4 * p + c];
            vec3 w;
            if (c == l || pc->fixed[v])
                continue;
            w = s3_mulv(Dz, v3_load(x + 3 * (size_t)v));
            for (i = 0; i < 3; i++) o[i] += d->beta[4 * p + l] * d->beta[4 * p + c] * w.v[i];
        }
    }
}

/* pairs.h: the same couplings as blocks β_a β_c D_z (sparse.h sipd_bsr_row_blocks_fn). */
int pair_coupling_blocks(const void *ctx, int a, int *cols, double *blocks, int cap)
{
    const sipd_pair_coupling *pc = (const sipd_pair_coupling *)ctx;
    const sipd_pair_data *d = pc->pd;
    int k, n = 0;
    if (pc->fixed[a])
        return 0;
    for (k = d->off[a]; k < d->off[a + 1]; k++) {
        int p = d->pair[k], l = d->slot[k], c;
        sym3 Dz;
        s3_load(pc->D + 6 * p, &Dz);
        for (c = 0; c < 4; c++) {
            int v = d->v[4 * p + c];
            if (c == l || pc->fixed[v])
                continue;
            if (n < cap) {
                mat3 B = s3_to_m3(Dz);
                double w = d->beta[4 * p + l] * d->beta[4 * p + c];
                int r;
                cols[n] = v;
                for (r = 0; r < 9; r++) blocks[9 * n + r] = w * B.m[r];
            }
            n++;
        }
    }
    return n;
}
