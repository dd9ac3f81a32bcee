/* collide.c — collision detection between surfaces (src/collide.h, docs/design.md §3.6).
 *
 * Surface: the vertices of m->tris (sorted by model index), the undirected edges of m->tris
 * (each once, as (lo, hi) vertex pairs sorted lexicographically) and the faces in m->tris order.
 *
 * Broad phase: one uniform grid (cell size = the mean of the largest extent of the inflated
 * face boxes), hashed: every face box and every edge box is inserted into every cell it
 * overlaps (entries generated per primitive by a count / prefix-sum / fill pass, then a stable
 * counting sort by hash bucket, so a bucket lists its primitives in index order).  Queries:
 * every surface vertex box against the face table (VF), every edge box against the edge table
 * (EE, only partners with a larger index).  A pair of overlapping boxes is reported only from
 * the cell that holds the lower corner of their intersection, i.e. the cell whose integer
 * coordinates are the per-axis maximum of the two boxes' lowest cells, so it is reported once;
 * two different cells hashed into one bucket are told apart by their 63-bit cell keys.
 * Candidates are written per block of consecutive queries (a fixed block size, independent of
 * the thread count) into per-block buffers, then concatenated in block order: the order is that
 * of the serial loop (queries in index order, cells in z-y-x order, bucket entries in index
 * order) for any number of threads.
 *
 * Narrow phase: the same blocking over the candidates (VF then EE), the pair computed by
 * dist_vf_pair / dist_ee_pair of physics/distance.h, kept when its gap is below d̂.
 */
#include "collide.h"

#include "candidate.h"
#include "physics/broad.h"
#include "physics/ccd.h"
#include "physics/distance.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define COLLIDE_PAR_MIN 2048   /* fewer items than this: serial                          */
#define QBLOCK 256             /* broad phase: queries per output block                  */
#define NBLOCK 2048            /* narrow phase: candidates per output block              */

typedef struct { int a, b; } cand;   /* VF: model vertex, face;  EE: edge i < edge j */

typedef struct {                       /* growable byte buffer of one output block */
    unsigned char *p;
    size_t n, cap;                     /* n elements; cap bytes                    */
} blockbuf;

typedef struct {
    uint64_t key;
    int prim;
    int body;   /* of the primitive: a query rejects its own body's entries at once (self = 0) */
} gentry;

typedef struct {                       /* one hashed grid table */
    int nbits;
    size_t T;                          /* buckets (a power of 2)                   */
    uint32_t *start;                   /* T+1 bucket offsets into e                */
    gentry *e;
    uint32_t *run_end;                 /* per entry: end of its run of entries of the same
                                          cell and body (a query skips its own body's run) */
    size_t cap_run;
    size_t ne, cap_e, cap_T;
    size_t *off;                       /* per primitive: first entry (n+1)         */
    uint32_t *bkt;                     /* per entry: its bucket (build scratch)    */
    gentry *tmp;
    size_t cap_tmp, cap_off;
} gtable;

struct sipd_collide {
    const sipd_model *m;
    int self;
    int rest_mode;      /* collide_rest_excluded: keep exactly the rest-shape exclusions */
    double dhat, tiny;
    double rest2;       /* (d̂ (1 + 1e-9))²: rest distances below d̂ up to round-off are excluded */
    int nsv, ne, ne_tri;
    int *sv;            /* nsv model indices of the surface vertices         */
    int *edges;         /* ne*2, lo < hi                                     */
    int *fbody, *ebody; /* body of each face and edge                        */
    /* last broad phase */
    int have_broad;
    double margin, r;
    double *vlo, *vhi;  /* nsv*3: bbox of x0, y1 (not inflated)              */
    double *flo, *fhi;  /* nf*3 inflated face boxes                          */
    double *fext;       /* nf: largest extent of each face box (grid cell size) */
    double *elo, *ehi;  /* ne*3 inflated edge boxes                          */
    double *eext;       /* ne: largest extent of each edge box (the grid of a model without
                           triangles: rods only)                              */
    int *fcell, *ecell; /* nf*3, ne*3: lowest cell of each box               */
    broad_grid g;
    gtable tf, te;
    cand *vf, *ee;
    size_t nvf, nee, cap_vf, cap_ee;
    /* output blocks, reused by every phase */
    blockbuf *blk;
    size_t nblk_cap;
    /* per candidate: a pair at the previous narrow phase (hysteresis, dist_candidate) */
    unsigned char *was;
    size_t cap_was;
    /* narrow-phase output */
    sipd_contact_pair *pairs;
    size_t npairs, cap_pairs;
    /* contact.ccd (measure): per candidate its distance at yb (cdist) and its clear distance
       (cb: cdist less what its thickness keeps clear); the positions they were measured at
       (nv*3); collide_toi's per-vertex scratch */
    double *cb, *cdist;
    size_t cap_cb, cap_cdist;
    double *yb, *ve, *vl;
    double *vs;         /* per vertex: the smallest clear distance (distance − ccd_clear) of its
                           candidates at yb (HUGE_VAL: none) */
    int have_bounds;
};

/* ---------------------------------------------------------------- small helpers */

static vec3 ld(const double *x, int i) { return v3(x[3 * i], x[3 * i + 1], x[3 * i + 2]); }

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t nc;
    void *q;
    if (need <= *cap)
        return SIPD_OK;
    nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    q = realloc(*p, nc * elem);
    if (!q) {
        sipd_error("collide: out of memory (%zu bytes)", nc * elem);
        return SIPD_EFAIL;
    }
    *p = q;
    *cap = nc;
    return SIPD_OK;
}

static int blk_reserve(sipd_collide *c, size_t nb)
{
    if (nb > c->nblk_cap) {
        size_t nc = c->nblk_cap ? c->nblk_cap : 16;
        blockbuf *q;
        while (nc < nb) nc *= 2;
        q = realloc(c->blk, nc * sizeof *q);
        if (!q) {
            sipd_error("collide: out of memory");
            return SIPD_EFAIL;
        }
        memset(q + c->nblk_cap, 0, (nc - c->nblk_cap) * sizeof *q);
        c->blk = q;
        c->nblk_cap = nc;
    }
    return SIPD_OK;
}

/* Append one element of `size` bytes; 0 on success. Not thread-safe per block (one owner). */
static int blk_push(blockbuf *b, const void *x, size_t size)
{
    if ((b->n + 1) * size > b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 64 * size;
        unsigned char *q = realloc(b->p, nc);
        if (!q)
            return 1;
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n * size, x, size);
    b->n++;
    return 0;
}

/* Concatenate blocks 0..nb-1 (elements of `size` bytes) into *out (capacity *cap, elements). */
static int blk_gather(sipd_collide *c, size_t nb, void **out, size_t *cap, size_t *n, size_t size)
{
    size_t i, tot = 0;
    long j;
    size_t *off = sipd_malloc((nb + 1) * sizeof *off);
    if (!off)
        return SIPD_EFAIL;
    for (i = 0; i < nb; i++) {
        off[i] = tot;
        tot += c->blk[i].n;
    }
    off[nb] = tot;
    if (grow(out, cap, tot ? tot : 1, size) != SIPD_OK) {
        free(off);
        return SIPD_EFAIL;
    }
#pragma omp parallel for schedule(static) if (tot > 16 * COLLIDE_PAR_MIN)
    for (j = 0; j < (long)nb; j++)
        if (c->blk[j].n)
            memcpy((unsigned char *)*out + off[j] * size, c->blk[j].p, c->blk[j].n * size);
    *n = tot;
    free(off);
    return SIPD_OK;
}

/* ---------------------------------------------------------------- surface */

static int cmp_edge(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
    return 0;
}

int collide_create(sipd_collide **out, const sipd_model *m, int self, double dhat)
{
    sipd_collide *c;
    int i, k, nh;
    int *he = NULL;
    unsigned char *on = NULL;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, diag = m->bbox_diag;

    *out = NULL;
    c = sipd_calloc(1, sizeof *c);
    if (!c)
        return SIPD_EFAIL;
    c->m = m;
    c->self = self;
    c->dhat = dhat;
    if (!(diag > 0)) {
        for (i = 0; i < m->nv; i++)
            for (k = 0; k < 3; k++) {
                double x = m->X[3 * i + k];
                if (i == 0 || x < lo[k]) lo[k] = x;
                if (i == 0 || x > hi[k]) hi[k] = x;
            }
        diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                    (hi[2] - lo[2]) * (hi[2] - lo[2]));
        if (!(diag > 0))
            diag = 1;
    }
    c->tiny = 1e-12 * diag;
    c->rest2 = dhat * (1 + 1e-9) * dhat * (1 + 1e-9);

    on = sipd_calloc((size_t)(m->nv > 0 ? m->nv : 1), 1);
    nh = 3 * m->nf + m->nce;
    he = sipd_malloc((size_t)(nh > 0 ? nh : 1) * 2 * sizeof *he);
    if (!on || !he)
        goto fail;
    for (i = 0; i < m->nf; i++)
        for (k = 0; k < 3; k++) {
            int a = m->tris[3 * i + k], b = m->tris[3 * i + (k + 1) % 3];
            on[a] = 1;
            he[2 * (3 * i + k)] = a < b ? a : b;
            he[2 * (3 * i + k) + 1] = a < b ? b : a;
        }
    for (i = 0; i < m->nce; i++) {   /* the segments of rods (line meshes): edges and vertices too */
        int a = m->cedges[2 * i], b = m->cedges[2 * i + 1];
        on[a] = on[b] = 1;
        he[2 * (3 * m->nf + i)] = a < b ? a : b;
        he[2 * (3 * m->nf + i) + 1] = a < b ? b : a;
    }
    for (i = 0; i < m->nv; i++) c->nsv += on[i];
    c->sv = sipd_malloc((size_t)(c->nsv > 0 ? c->nsv : 1) * sizeof *c->sv);
    if (!c->sv)
        goto fail;
    for (i = 0, k = 0; i < m->nv; i++)
        if (on[i]) c->sv[k++] = i;
    /* the triangles' edges sorted and unique, then the rods' (a line mesh shares no edge with a
       triangle mesh: they are other bodies), so edge i is a rod's exactly when i >= ne_tri */
    qsort(he, (size_t)(3 * m->nf), 2 * sizeof *he, cmp_edge);
    qsort(he + 2 * 3 * (size_t)m->nf, (size_t)m->nce, 2 * sizeof *he, cmp_edge);
    for (i = 0; i < nh; i++) {
        if (i == 3 * m->nf)
            c->ne_tri = c->ne;
        if (i == 0 || i == 3 * m->nf || he[2 * i] != he[2 * (i - 1)] || he[2 * i + 1] != he[2 * (i - 1) + 1]) {
            he[2 * c->ne] = he[2 * i];
            he[2 * c->ne + 1] = he[2 * i + 1];
            c->ne++;
        }
    }
    if (m->nce == 0)
        c->ne_tri = c->ne;
    c->edges = sipd_malloc((size_t)(c->ne > 0 ? c->ne : 1) * 2 * sizeof *c->edges);
    if (!c->edges)
        goto fail;
    memcpy(c->edges, he, (size_t)c->ne * 2 * sizeof *he);
    free(he);
    free(on);

    c->vlo = sipd_malloc((size_t)(c->nsv + 1) * 3 * sizeof(double));
    c->vhi = sipd_malloc((size_t)(c->nsv + 1) * 3 * sizeof(double));
    c->flo = sipd_malloc((size_t)(m->nf + 1) * 3 * sizeof(double));
    c->fhi = sipd_malloc((size_t)(m->nf + 1) * 3 * sizeof(double));
    c->fext = sipd_malloc((size_t)(m->nf + 1) * sizeof(double));
    c->elo = sipd_malloc((size_t)(c->ne + 1) * 3 * sizeof(double));
    c->ehi = sipd_malloc((size_t)(c->ne + 1) * 3 * sizeof(double));
    c->eext = sipd_malloc((size_t)(c->ne + 1) * sizeof(double));
    c->fcell = sipd_malloc((size_t)(m->nf + 1) * 3 * sizeof(int));
    c->ecell = sipd_malloc((size_t)(c->ne + 1) * 3 * sizeof(int));
    c->fbody = sipd_malloc((size_t)(m->nf + 1) * sizeof(int));
    c->ebody = sipd_malloc((size_t)(c->ne + 1) * sizeof(int));
    if (!c->vlo || !c->vhi || !c->flo || !c->fhi || !c->fext || !c->elo || !c->ehi || !c->eext || !c->fcell || !c->ecell ||
        !c->fbody || !c->ebody) {
        collide_destroy(c);
        return SIPD_EFAIL;
    }
    for (i = 0; i < m->nf; i++) c->fbody[i] = m->body[m->tris[3 * i]];
    for (i = 0; i < c->ne; i++) c->ebody[i] = m->body[c->edges[2 * i]];
    *out = c;
    return SIPD_OK;
fail:
    free(he);
    free(on);
    collide_destroy(c);
    return SIPD_EFAIL;
}

static void gtable_free(gtable *t)
{
    free(t->start);
    free(t->e);
    free(t->run_end);
    free(t->off);
    free(t->bkt);
    free(t->tmp);
}

void collide_destroy(sipd_collide *c)
{
    size_t i;
    if (!c)
        return;
    free(c->sv);
    free(c->edges);
    free(c->vlo);
    free(c->vhi);
    free(c->flo);
    free(c->fhi);
    free(c->fext);
    free(c->elo);
    free(c->ehi);
    free(c->eext);
    free(c->fcell);
    free(c->fbody);
    free(c->ebody);
    free(c->ecell);
    gtable_free(&c->tf);
    gtable_free(&c->te);
    free(c->vf);
    free(c->ee);
    free(c->was);
    for (i = 0; i < c->nblk_cap; i++) free(c->blk[i].p);
    free(c->blk);
    free(c->pairs);
    free(c->cb); free(c->cdist); free(c->yb); free(c->ve); free(c->vl); free(c->vs);
    free(c);
}

/* ---------------------------------------------------------------- grid */

static int cell_of(const sipd_collide *c, double x, int k) { return broad_cell(&c->g, x, k); }

static size_t cell_bucket(uint64_t key, int nbits)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - nbits));
}

/* Insert n boxes (lowest cells `cell`, upper corners hi; bodies body) into table t. */
static int gtable_build(sipd_collide *c, gtable *t, int n, const double *hi, const int *cell, const int *body)
{
    long i;
    size_t j, E;
    int par = n > COLLIDE_PAR_MIN;
    if (grow((void **)&t->off, &t->cap_off, (size_t)n + 1, sizeof *t->off) != SIPD_OK)
        return SIPD_EFAIL;
    /* count */
#pragma omp parallel for schedule(static) if (par)
    for (i = 0; i < n; i++) {
        size_t cnt = 1;
        int k;
        for (k = 0; k < 3; k++) cnt *= (size_t)(cell_of(c, hi[3 * i + k], k) - cell[3 * i + k] + 1);
        t->off[i + 1] = cnt;
    }
    t->off[0] = 0;
    for (i = 0; i < n; i++) t->off[i + 1] += t->off[i];
    E = t->off[n];
    if (E >= (size_t)UINT32_MAX) {
        sipd_error("collide: broad phase: %zu grid entries (boxes far larger than the cells)", E);
        return SIPD_EFAIL;
    }
    t->nbits = 4;
    /* ~2 entries per bucket: a cell holds several entries anyway, so distinct cells rarely
     * share a bucket, and the table stays small (4 bytes per bucket) */
    while (((size_t)1 << t->nbits) < E / 2) t->nbits++;
    t->T = (size_t)1 << t->nbits;
    if (grow((void **)&t->e, &t->cap_e, E + 1, sizeof *t->e) != SIPD_OK ||
        grow((void **)&t->tmp, &t->cap_tmp, E + 1, sizeof *t->tmp) != SIPD_OK ||
        grow((void **)&t->start, &t->cap_T, t->T + 1, sizeof *t->start) != SIPD_OK)
        return SIPD_EFAIL;
    {
        size_t cb = t->cap_tmp;   /* bkt shares tmp's capacity bookkeeping */
        uint32_t *q = realloc(t->bkt, (cb ? cb : 1) * sizeof *t->bkt);
        if (!q) {
            sipd_error("collide: out of memory");
            return SIPD_EFAIL;
        }
        t->bkt = q;
    }
    /* fill */
#pragma omp parallel for schedule(static) if (par)
    for (i = 0; i < n; i++) {
        size_t p = t->off[i];
        int c0[3], c1[3], x, y, z, k;
        for (k = 0; k < 3; k++) {
            c0[k] = cell[3 * i + k];
            c1[k] = cell_of(c, hi[3 * i + k], k);
        }
        for (z = c0[2]; z <= c1[2]; z++)
            for (y = c0[1]; y <= c1[1]; y++)
                for (x = c0[0]; x <= c1[0]; x++) {
                    uint64_t key = broad_key(x, y, z);
                    t->tmp[p].key = key;
                    t->tmp[p].prim = (int)i;
                    t->tmp[p].body = body[i];
                    t->bkt[p] = (uint32_t)cell_bucket(key, t->nbits);
                    p++;
                }
    }
    /* stable counting sort by bucket */
    memset(t->start, 0, (t->T + 1) * sizeof *t->start);
    for (j = 0; j < E; j++) t->start[t->bkt[j] + 1]++;
    for (j = 0; j < t->T; j++) t->start[j + 1] += t->start[j];
    /* place, advancing start[b] as the cursor of bucket b, then shift it back */
    for (j = 0; j < E; j++) t->e[t->start[t->bkt[j]]++] = t->tmp[j];
    for (j = t->T; j > 0; j--) t->start[j] = t->start[j - 1];
    t->start[0] = 0;
    /* runs of one cell and one body are contiguous (entries keep primitive order within a
       bucket, and a body's primitives are numbered contiguously) */
    if (grow((void **)&t->run_end, &t->cap_run, E + 1, sizeof *t->run_end) != SIPD_OK)
        return SIPD_EFAIL;
    for (j = E; j-- > 0;)
        t->run_end[j] = (j + 1 < E && t->e[j + 1].key == t->e[j].key && t->e[j + 1].body == t->e[j].body)
                            ? t->run_end[j + 1]
                            : (uint32_t)(j + 1);
    t->ne = E;
    return SIPD_OK;
}

/* ---------------------------------------------------------------- exclusions */

/* (d̂ + ra + rb)² (1 + 1e-9)², the rest-shape exclusion bound of a pair whose two sides have
 * the largest contact half-thicknesses ra and rb: c->rest2 itself when both are 0 (solids). */
static double rest_bound2(const sipd_collide *c, double ra, double rb)
{
    double t;
    if (ra + rb == 0)
        return c->rest2;
    t = (c->dhat + ra + rb) * (1 + 1e-9);
    return t * t;
}

static double crad_of(const sipd_model *m, int v) { return m->crad ? m->crad[v] : 0; }

static double crad_max2(const sipd_model *m, int a, int b)
{
    double x = crad_of(m, a), y = crad_of(m, b);
    return x > y ? x : y;
}

static double crad_max3(const sipd_model *m, const int *t)
{
    double x = crad_max2(m, t[0], t[1]), y = crad_of(m, t[2]);
    return x > y ? x : y;
}

static int vf_excluded(const sipd_collide *c, int v, int f)
{
    const sipd_model *m = c->m;
    const int *t = m->tris + 3 * f;
    if (v == t[0] || v == t[1] || v == t[2])
        return 1;
    if (c->rest_mode)
        return !(m->body[v] == m->body[t[0]] &&
                 dist_point_triangle2(ld(m->X, v), ld(m->X, t[0]), ld(m->X, t[1]), ld(m->X, t[2])) <
                     rest_bound2(c, crad_of(m, v), crad_max3(m, t)));
    if (m->fixed && m->fixed[v] && m->fixed[t[0]] && m->fixed[t[1]] && m->fixed[t[2]])
        return 1;
    if (m->body[v] == m->body[t[0]]) {
        if (!c->self)
            return 1;
        if (dist_point_triangle2(ld(m->X, v), ld(m->X, t[0]), ld(m->X, t[1]), ld(m->X, t[2])) <
            rest_bound2(c, crad_of(m, v), crad_max3(m, t)))
            return 1;
    }
    return 0;
}

static int ee_excluded(const sipd_collide *c, int i, int j)
{
    const sipd_model *m = c->m;
    int a0 = c->edges[2 * i], a1 = c->edges[2 * i + 1], b0 = c->edges[2 * j], b1 = c->edges[2 * j + 1];
    if (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1)
        return 1;
    if (c->rest_mode)
        return !(m->body[a0] == m->body[b0] &&
                 dist_segment_segment2(ld(m->X, a0), ld(m->X, a1), ld(m->X, b0), ld(m->X, b1)) <
                     rest_bound2(c, crad_max2(m, a0, a1), crad_max2(m, b0, b1)));
    if (m->fixed && m->fixed[a0] && m->fixed[a1] && m->fixed[b0] && m->fixed[b1])
        return 1;
    if (m->body[a0] == m->body[b0]) {
        if (!c->self)
            return 1;
        if (dist_segment_segment2(ld(m->X, a0), ld(m->X, a1), ld(m->X, b0), ld(m->X, b1)) <
            rest_bound2(c, crad_max2(m, a0, a1), crad_max2(m, b0, b1)))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- broad phase */

/* VF candidates of surface vertex s into block b */
static int query_vf(const sipd_collide *c, int s, blockbuf *b)
{
    const gtable *t = &c->tf;
    double lo[3], hi[3];
    int q0[3], q1[3], x, y, z, k, v = c->sv[s], vb = c->m->body[v];
    for (k = 0; k < 3; k++) {
        lo[k] = c->vlo[3 * s + k] - c->r;
        hi[k] = c->vhi[3 * s + k] + c->r;
        q0[k] = cell_of(c, lo[k], k);
        q1[k] = cell_of(c, hi[k], k);
    }
    for (z = q0[2]; z <= q1[2]; z++)
        for (y = q0[1]; y <= q1[1]; y++)
            for (x = q0[0]; x <= q1[0]; x++) {
                uint64_t key = broad_key(x, y, z);
                size_t bk = cell_bucket(key, t->nbits);
                uint32_t e;
                for (e = t->start[bk]; e < t->start[bk + 1]; e++) {
                    int f;
                    const int *fc;
                    cand cd;
                    if (t->e[e].key != key)
                        continue;
                    if (!c->self && t->e[e].body == vb) {
                        e = t->run_end[e] - 1;   /* the rest of this body's run in this cell */
                        continue;
                    }
                    f = t->e[e].prim;
                    fc = c->fcell + 3 * f;
                    /* report from the cell of the lower corner of the intersection only */
                    if (!broad_reports_here(q0, fc, x, y, z))
                        continue;
                    if (!broad_overlap(lo, hi, c->flo + 3 * f, c->fhi + 3 * f) || vf_excluded(c, v, f))
                        continue;
                    cd.a = v;
                    cd.b = f;
                    if (blk_push(b, &cd, sizeof cd))
                        return SIPD_EFAIL;
                }
            }
    return SIPD_OK;
}

/* EE candidates (i, j > i) of edge i into block b */
static int query_ee(const sipd_collide *c, int i, blockbuf *b)
{
    const gtable *t = &c->te;
    const double *lo = c->elo + 3 * i, *hi = c->ehi + 3 * i;
    const int *q0 = c->ecell + 3 * i;
    int q1[3], x, y, z, k, ib = c->ebody[i];
    for (k = 0; k < 3; k++) q1[k] = cell_of(c, hi[k], k);
    for (z = q0[2]; z <= q1[2]; z++)
        for (y = q0[1]; y <= q1[1]; y++)
            for (x = q0[0]; x <= q1[0]; x++) {
                uint64_t key = broad_key(x, y, z);
                size_t bk = cell_bucket(key, t->nbits);
                uint32_t e;
                for (e = t->start[bk]; e < t->start[bk + 1]; e++) {
                    int j;
                    const int *jc;
                    cand cd;
                    if (t->e[e].key != key)
                        continue;
                    if (!c->self && t->e[e].body == ib) {
                        e = t->run_end[e] - 1;   /* the rest of this body's run in this cell */
                        continue;
                    }
                    if (t->e[e].prim <= i)
                        continue;
                    j = t->e[e].prim;
                    jc = c->ecell + 3 * j;
                    if (!broad_reports_here(q0, jc, x, y, z))
                        continue;
                    if (!broad_overlap(lo, hi, c->elo + 3 * j, c->ehi + 3 * j) || ee_excluded(c, i, j))
                        continue;
                    cd.a = i;
                    cd.b = j;
                    if (blk_push(b, &cd, sizeof cd))
                        return SIPD_EFAIL;
                }
            }
    return SIPD_OK;
}

/* Run query(c, i, block) for i in [0, n) in blocks of QBLOCK and gather into *out. */
static int run_queries(sipd_collide *c, int n, int (*query)(const sipd_collide *, int, blockbuf *), cand **out,
                       size_t *cap, size_t *cnt)
{
    long nb = (n + QBLOCK - 1) / QBLOCK, ib;
    int err = 0, stopped = 0;
    if (blk_reserve(c, (size_t)nb + 1) != SIPD_OK)
        return SIPD_EFAIL;
#pragma omp parallel for schedule(dynamic, 1) if (n > COLLIDE_PAR_MIN)
    for (ib = 0; ib < nb; ib++) {
        int i, i1 = (int)(ib + 1) * QBLOCK < n ? (int)(ib + 1) * QBLOCK : n;
        blockbuf b = c->blk[ib];   /* a local copy: no false sharing of the counters */
        b.n = 0;
        if (sipd_stopping()) {   /* a stop request (util.h): skip the remaining blocks */
#pragma omp atomic write
            stopped = 1;
            i1 = 0;
        }
        for (i = (int)ib * QBLOCK; i < i1; i++)
            if (query(c, i, &b) != SIPD_OK) {
#pragma omp atomic write
                err = 1;
                break;
            }
        c->blk[ib] = b;
    }
    if (err) {
        sipd_error("collide: out of memory in the broad phase");
        return SIPD_EFAIL;
    }
    if (stopped)
        return SIPD_ESIGNAL;
    return blk_gather(c, (size_t)nb, (void **)out, cap, cnt, sizeof(cand));
}

int collide_broad(sipd_collide *c, const double *x0, const double *y1, double margin)
{
    const sipd_model *m = c->m;
    long i;
    int k, nf = m->nf, ne = c->ne, par;
    /* + the largest contact half-thickness: a pair of offset o ≤ 2 crad_max is kept up to a
       distance d̂ + o */
    double r = margin + 0.5 * c->dhat + m->crad_max;
    broad_red red;
    const double *glo, *ghi, *gext;   /* the boxes that make the grid: faces, or edges without faces */
    int ng;

    c->have_broad = 0;
    c->have_bounds = 0;   /* (collide_toi's distances are per candidate) */
    c->nvf = c->nee = 0;
    c->margin = margin;
    c->r = r;
    if ((nf == 0 && ne == 0) || c->nsv == 0)
        return SIPD_OK;
    par = c->nsv > COLLIDE_PAR_MIN;
    /* vertex boxes (not inflated), indexed by surface vertex */
#pragma omp parallel for schedule(static) if (par)
    for (i = 0; i < c->nsv; i++) broad_box(x0, y1, c->sv + i, 1, 0, c->vlo + 3 * i, c->vhi + 3 * i, NULL);
    /* face and edge boxes (inflated) from their vertices' x0 and y1 */
#pragma omp parallel for schedule(static) if (nf > COLLIDE_PAR_MIN)
    for (i = 0; i < nf; i++)
        broad_box(x0, y1, m->tris + 3 * i, 3, r, c->flo + 3 * i, c->fhi + 3 * i, &c->fext[i]);
#pragma omp parallel for schedule(static) if (ne > COLLIDE_PAR_MIN)
    for (i = 0; i < ne; i++) broad_box(x0, y1, c->edges + 2 * i, 2, r, c->elo + 3 * i, c->ehi + 3 * i, &c->eext[i]);
    /* grid: covers every face box (the vertex and edge boxes of triangles lie inside their faces'
       boxes; a rod's lie elsewhere and are clamped to the border cells, which keeps the set of
       candidates); a model without faces (rods only) takes its edge boxes.  A serial sum in
       primitive order, so h does not depend on the number of threads */
    glo = nf ? c->flo : c->elo;
    ghi = nf ? c->fhi : c->ehi;
    gext = nf ? c->fext : c->eext;
    ng = nf ? nf : ne;
    for (k = 0; k < 3; k++) {
        red.lo[k] = glo[k];
        red.hi[k] = ghi[k];
    }
    red.ext = 0;
    for (i = 0; i < ng; i++) {
        broad_red one;
        for (k = 0; k < 3; k++) {
            one.lo[k] = glo[3 * i + k];
            one.hi[k] = ghi[3 * i + k];
        }
        one.ext = gext[i];
        red = broad_red_join(red, one);
    }
    if (!broad_grid_setup(&c->g, red, ng)) {
        sipd_error("collide: broad phase: non-finite positions");
        return SIPD_EFAIL;
    }
#pragma omp parallel for schedule(static) if (nf > COLLIDE_PAR_MIN)
    for (i = 0; i < nf; i++) {
        int kk;
        for (kk = 0; kk < 3; kk++) c->fcell[3 * i + kk] = cell_of(c, c->flo[3 * i + kk], kk);
    }
#pragma omp parallel for schedule(static) if (ne > COLLIDE_PAR_MIN)
    for (i = 0; i < ne; i++) {
        int kk;
        for (kk = 0; kk < 3; kk++) c->ecell[3 * i + kk] = cell_of(c, c->elo[3 * i + kk], kk);
    }
    if (gtable_build(c, &c->tf, nf, c->fhi, c->fcell, c->fbody) != SIPD_OK ||
        gtable_build(c, &c->te, ne, c->ehi, c->ecell, c->ebody) != SIPD_OK)
        return SIPD_EFAIL;
    {
        int rc = run_queries(c, c->nsv, query_vf, &c->vf, &c->cap_vf, &c->nvf);
        if (rc == SIPD_OK)
            rc = run_queries(c, ne, query_ee, &c->ee, &c->cap_ee, &c->nee);
        if (rc != SIPD_OK) {   /* SIPD_EFAIL, or SIPD_ESIGNAL: no candidates until the next broad phase */
            c->nvf = c->nee = 0;
            return rc;
        }
    }
    /* new candidates: no history (the first narrow phase applies the strict rule) */
    if (grow((void **)&c->was, &c->cap_was, c->nvf + c->nee + 1, 1) != SIPD_OK)
        return SIPD_EFAIL;
    memset(c->was, 0, c->nvf + c->nee);
    c->have_broad = 1;
    return SIPD_OK;
}

int collide_outside(const sipd_collide *c, const double *y) { return collide_outside_by(c, y, c->margin); }

int collide_outside_by(const sipd_collide *c, const double *y, double dist)
{
    long i;
    int out = 0;
    if (!c->have_broad)
        return (c->m->nf > 0 || c->ne > 0) && c->nsv > 0;
#pragma omp parallel for schedule(static) reduction(max : out) if (c->nsv > COLLIDE_PAR_MIN)
    for (i = 0; i < c->nsv; i++) {
        vec3 lo = ld(c->vlo, (int)i), hi = ld(c->vhi, (int)i);
        if (aabb_outside(ld(y, c->sv[i]), lo, hi) > dist)
            out = 1;
    }
    return out;
}

/* The largest contact half-thickness of each side of candidate k (vertices v), summed. */
static double cand_offset(const sipd_model *m, int is_vf, const int *v)
{
    if (!m->crad)
        return 0;
    return is_vf ? crad_of(m, v[0]) + crad_max3(m, v + 1) : crad_max2(m, v[0], v[1]) + crad_max2(m, v[2], v[3]);
}

/* The distance between the boxes of candidate k's two primitives at y (vertices v): a lower
 * bound of their distance, at a fraction of its cost. */
static double cand_box_gap(const double *y, int is_vf, const int *v)
{
    double g2 = 0;
    int k, j, n1 = is_vf ? 1 : 2;
    for (k = 0; k < 3; k++) {
        double lo1 = HUGE_VAL, hi1 = -HUGE_VAL, lo2 = HUGE_VAL, hi2 = -HUGE_VAL, gk;
        for (j = 0; j < 4; j++) {
            double x = y[3 * (size_t)v[j] + k];
            if (j < n1) {
                lo1 = x < lo1 ? x : lo1;
                hi1 = x > hi1 ? x : hi1;
            } else {
                lo2 = x < lo2 ? x : lo2;
                hi2 = x > hi2 ? x : hi2;
            }
        }
        gk = lo2 - hi1 > lo1 - hi2 ? lo2 - hi1 : lo1 - hi2;
        if (gk > 0)
            g2 += gk * gk;
    }
    return sqrt(g2);
}

/* The candidates' distances at y, for collide_toi and collide_bounds: cdist[k] the distance of
 * candidate k's primitives (ccd_distance) where their boxes come within dhat of each other, else
 * the gap between the boxes (a lower bound: all the filter needs of a pair that far); vs per
 * vertex the smallest clear distance (cdist − ccd_clear) of its candidates; yb = y. */
static int measure(sipd_collide *c, const double *y, double dhat)
{
    const sipd_model *m = c->m;
    size_t nc = c->nvf + c->nee;
    long k;
    int i, j;
    c->have_bounds = 0;
    if (!c->yb && (!(c->yb = sipd_malloc((size_t)m->nv * 3 * sizeof(double))) ||
                   !(c->ve = sipd_malloc((size_t)m->nv * sizeof(double))) ||
                   !(c->vl = sipd_malloc((size_t)m->nv * sizeof(double))) ||
                   !(c->vs = sipd_malloc((size_t)m->nv * sizeof(double)))))
        return SIPD_EFAIL;
    memcpy(c->yb, y, (size_t)m->nv * 3 * sizeof(double));
    for (i = 0; i < m->nv; i++) c->vs[i] = HUGE_VAL;
    if (!c->have_broad)
        return SIPD_OK;
    if (grow((void **)&c->cdist, &c->cap_cdist, nc + 1, sizeof(double)) != SIPD_OK ||
        grow((void **)&c->cb, &c->cap_cb, nc + 1, sizeof(double)) != SIPD_OK)
        return SIPD_EFAIL;
#pragma omp parallel for schedule(static) if (nc > COLLIDE_PAR_MIN)
    for (k = 0; k < (long)nc; k++) {
        int v[4], is_vf = (size_t)k < c->nvf;
        const cand *cd = is_vf ? &c->vf[k] : &c->ee[(size_t)k - c->nvf];
        double g;
        vec3 p[4];
        candidate_verts(is_vf, cd->a, cd->b, m->tris, c->edges, v);
        g = cand_box_gap(y, is_vf, v);
        if (g < dhat) {
            for (j = 0; j < 4; j++) p[j] = ld(y, v[j]);
            g = ccd_distance(is_vf, p);
        }
        c->cdist[k] = g;
        c->cb[k] = g - ccd_clear(cand_offset(m, is_vf, v), dhat);   /* the clear distance */
    }
    /* the smallest per vertex (serial: a min, the same for any thread count) */
    for (k = 0; k < (long)nc; k++) {
        int v[4], is_vf = (size_t)k < c->nvf;
        const cand *cd = is_vf ? &c->vf[k] : &c->ee[(size_t)k - c->nvf];
        candidate_verts(is_vf, cd->a, cd->b, m->tris, c->edges, v);
        for (j = 0; j < 4; j++)
            if (c->cb[k] < c->vs[v[j]])
                c->vs[v[j]] = c->cb[k];
    }
    c->have_bounds = 1;
    return SIPD_OK;
}

/* Each vertex's drift since the distances were measured (ve) and step (vl); 1 when some vertex
 * with candidates fails the per-vertex sufficient test (collide_toi), *drift = the largest ve. */
static int toi_close(sipd_collide *c, const double *y, const double *d, double *drift)
{
    const sipd_model *m = c->m;
    double dr = 0;
    int i, close = 0;
#pragma omp parallel for schedule(static) reduction(max : close, dr) if (m->nv > COLLIDE_PAR_MIN)
    for (i = 0; i < m->nv; i++) {
        c->ve[i] = sqrt(v3_norm2(v3_sub(ld(y, i), ld(c->yb, i))));
        c->vl[i] = sqrt(v3_norm2(ld(d, i)));
        dr = c->ve[i] > dr ? c->ve[i] : dr;
        if (c->vs[i] < HUGE_VAL && !(2 * (c->vl[i] + (1 - CCD_KEEP) * c->ve[i]) <= (1 - CCD_KEEP) * c->vs[i]))
            close = 1;
    }
    *drift = dr;
    return close;
}

double collide_toi(sipd_collide *c, const double *y, const double *d, double dhat)
{
    const sipd_model *m = c->m;
    size_t nc = c->nvf + c->nee;
    long k;
    double t = 1, drift;
    if (nc == 0 || !c->have_broad)
        return 1;
    /* A candidate k is safe when l₁ + l₂ ≤ (1 − CCD_KEEP)(its clear distance − e₁ − e₂), with e
       a vertex's drift since the distances were measured and l its step (the largest of each
       side).  With w = l + (1 − CCD_KEEP) e that holds for every candidate when each vertex has
       2 w ≤ (1 − CCD_KEEP) × the smallest clear distance of its candidates (vs): then the
       candidates are not visited at all (a body at rest).  The distances are measured again at
       y when that test fails with some drift, or were never measured for these candidates. */
    if (!c->have_bounds && measure(c, y, dhat) != SIPD_OK)
        return 0;
    if (!toi_close(c, y, d, &drift))
        return 1;
    if (drift > 0 && (measure(c, y, dhat) != SIPD_OK || !toi_close(c, y, d, &drift)))
        return c->have_bounds ? 1 : 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : t) if (nc > COLLIDE_PAR_MIN)
    for (k = 0; k < (long)nc; k++) {
        int v[4], j, is_vf = (size_t)k < c->nvf, n1 = is_vf ? 1 : 2;
        const cand *cd = is_vf ? &c->vf[k] : &c->ee[(size_t)k - c->nvf];
        double e1 = 0, e2 = 0, l1 = 0, l2 = 0, xi, tk;
        vec3 yy[4], dd[4];
        candidate_verts(is_vf, cd->a, cd->b, m->tris, c->edges, v);
        for (j = 0; j < 4; j++) {
            double *e = j < n1 ? &e1 : &e2, *l = j < n1 ? &l1 : &l2;
            *e = c->ve[v[j]] > *e ? c->ve[v[j]] : *e;
            *l = c->vl[v[j]] > *l ? c->vl[v[j]] : *l;
        }
        if (l1 + l2 == 0 || (l1 + l2 <= (1 - CCD_KEEP) * (c->cb[k] - e1 - e2)))
            continue;
        xi = ccd_clear(cand_offset(m, is_vf, v), dhat);
        for (j = 0; j < 4; j++) {
            yy[j] = ld(y, v[j]);
            dd[j] = ld(d, v[j]);
        }
        tk = ccd_pair_toi(is_vf, yy, dd, xi, t < 1 ? t : 1);
        if (tk < t)
            t = tk;
    }
    return t;
}

int collide_bounds(sipd_collide *c, const double *y, double dhat, double *b, double *lo, double *hi)
{
    const sipd_model *m = c->m;
    size_t nc = c->nvf + c->nee;
    long k;
    int i, j, rc;
    double pad = CCD_BOX_PAD * c->margin;
    for (i = 0; i < m->nv; i++) {
        b[i] = -1;
        for (j = 0; j < 3; j++) {
            lo[3 * i + j] = -HUGE_VAL;
            hi[3 * i + j] = HUGE_VAL;
        }
    }
    if ((rc = measure(c, y, dhat)) != SIPD_OK || !c->have_broad)
        return rc;
    for (i = 0; i < c->nsv; i++)
        for (j = 0; j < 3; j++) {
            lo[3 * (size_t)c->sv[i] + j] = c->vlo[3 * (size_t)i + j] - pad;
            hi[3 * (size_t)c->sv[i] + j] = c->vhi[3 * (size_t)i + j] + pad;
        }
    /* the balls: CCD_GAMMA of each candidate's clear distance (ccd_pair_bound), the smallest */
    for (k = 0; k < (long)nc; k++) {
        int v[4], is_vf = (size_t)k < c->nvf;
        const cand *cd = is_vf ? &c->vf[k] : &c->ee[(size_t)k - c->nvf];
        double r = ccd_pair_bound(c->cdist[k], c->cdist[k] - c->cb[k]);
        candidate_verts(is_vf, cd->a, cd->b, m->tris, c->edges, v);
        for (j = 0; j < 4; j++)
            if (b[v[j]] < 0 || r < b[v[j]])
                b[v[j]] = r;
    }
    return SIPD_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* candidates (a, b) → sorted keys a << 32 | b */
static int pair_keys(const cand *cd, size_t n, uint64_t **out, size_t *nout)
{
    size_t i;
    *out = sipd_malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return SIPD_EFAIL;
    for (i = 0; i < n; i++) (*out)[i] = (uint64_t)(uint32_t)cd[i].a << 32 | (uint32_t)cd[i].b;
    qsort(*out, n, sizeof **out, cmp_u64);
    *nout = n;
    return SIPD_OK;
}

int collide_rest_excluded(const sipd_model *m, double dhat, uint64_t **vf, size_t *nvf, uint64_t **ee, size_t *nee)
{
    sipd_collide *c;
    int rc;
    *vf = *ee = NULL;
    *nvf = *nee = 0;
    if (collide_create(&c, m, 1, dhat) != SIPD_OK)
        return SIPD_EFAIL;
    c->rest_mode = 1;
    /* boxes of the rest shape inflated by d̂/2 + 1e-3 d̂: every pair closer than d̂ (1 + 1e-9)
       overlaps; the queries then keep those that vf_excluded / ee_excluded reject for the rest
       distance */
    rc = collide_broad(c, m->X, m->X, 1e-3 * dhat);
    if (rc == SIPD_OK)
        rc = pair_keys(c->vf, c->nvf, vf, nvf);
    if (rc == SIPD_OK)
        rc = pair_keys(c->ee, c->nee, ee, nee);
    collide_destroy(c);
    if (rc != SIPD_OK) {
        free(*vf);
        free(*ee);
        *vf = *ee = NULL;
        *nvf = *nee = 0;
    }
    return rc;
}

void collide_candidates(const sipd_collide *c, long *nvf, long *nee)
{
    if (nvf) *nvf = (long)c->nvf;
    if (nee) *nee = (long)c->nee;
}

/* The candidates are arrays of cand = two ints: exposed as int pairs, without a copy. */
_Static_assert(sizeof(cand) == 2 * sizeof(int), "cand must be two ints without padding");

void collide_candidate_arrays(const sipd_collide *c, sipd_collide_view *v)
{
    memset(v, 0, sizeof *v);
    v->m = c->m;
    v->vf = c->nvf ? &c->vf[0].a : NULL;
    v->nvf = c->nvf;
    v->ee = c->nee ? &c->ee[0].a : NULL;
    v->nee = c->nee;
    v->edges = c->edges;
    v->nedges = c->ne;
    v->ne_tri = c->ne_tri;
    v->dhat = c->dhat;
    v->tiny = c->tiny;
    v->sv = c->sv;
    v->nsv = c->nsv;
    v->self = c->self;
}

/* ---------------------------------------------------------------- narrow phase */

/* Pair of candidate k (VF for k < nvf, then EE); 1 when kept (dist_candidate: the rule, with
 * hysteresis on the candidate's previous result, which is updated here — each k by one thread). */
static int narrow_one(sipd_collide *c, const double *x0, const double *y, size_t k, sipd_contact_pair *p)
{
    const sipd_model *m = c->m;
    sipd_real beta[4];
    vec3 n;
    int v[4], is_vf = k < c->nvf, keep;
    const cand *cd = is_vf ? &c->vf[k] : &c->ee[k - c->nvf];
    keep = candidate_test(is_vf, cd->a, cd->b, m->tris, c->edges, c->ne_tri, x0, y, m->crad, c->tiny, c->dhat,
                          c->was[k], v, beta, &n);
    c->was[k] = (unsigned char)keep;
    if (!keep)
        return 0;
    collide_pair_set(p, v, beta, n.v, is_vf ? 0 : 1);
    return 1;
}

int collide_narrow(sipd_collide *c, const double *x0, const double *y, const sipd_contact_pair **pairs, int *npairs)
{
    size_t nc = c->nvf + c->nee;
    long nb = (long)((nc + NBLOCK - 1) / NBLOCK), ib;
    int err = 0, stopped = 0;
    *pairs = c->pairs;
    *npairs = 0;
    c->npairs = 0;
    if (nc == 0)
        return SIPD_OK;
    if (blk_reserve(c, (size_t)nb + 1) != SIPD_OK)
        return SIPD_EFAIL;
#pragma omp parallel for schedule(dynamic, 1) if (nc > COLLIDE_PAR_MIN)
    for (ib = 0; ib < nb; ib++) {
        size_t k, k1 = (size_t)(ib + 1) * NBLOCK < nc ? (size_t)(ib + 1) * NBLOCK : nc;
        blockbuf b = c->blk[ib];
        sipd_contact_pair p;
        b.n = 0;
        if (sipd_stopping()) {   /* a stop request (util.h): skip the remaining blocks */
#pragma omp atomic write
            stopped = 1;
            k1 = 0;
        }
        for (k = (size_t)ib * NBLOCK; k < k1; k++)
            if (narrow_one(c, x0, y, k, &p) && blk_push(&b, &p, sizeof p)) {
#pragma omp atomic write
                err = 1;
                break;
            }
        c->blk[ib] = b;
    }
    if (err) {
        sipd_error("collide: out of memory in the narrow phase");
        return SIPD_EFAIL;
    }
    if (stopped)
        return SIPD_ESIGNAL;
    if (blk_gather(c, (size_t)nb, (void **)&c->pairs, &c->cap_pairs, &c->npairs, sizeof(sipd_contact_pair)) != SIPD_OK)
        return SIPD_EFAIL;
    if (c->npairs > (size_t)INT32_MAX) {
        sipd_error("collide: %zu contact pairs", c->npairs);
        return SIPD_EFAIL;
    }
    *pairs = c->pairs;
    *npairs = (int)c->npairs;
    return SIPD_OK;
}
