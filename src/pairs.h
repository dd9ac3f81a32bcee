/* pairs.h — what both backends derive from a narrow phase (src/collide.h): per pair its
 * vertices, weights β and normal as flat arrays (the view of src/passes.h), the stiffness k_c
 * and the lagged normal force λ_n of its friction (contact.h, from the step-start positions
 * x0), its thickness offset (the contact half-thicknesses of thin bodies, model.h crad), and the incidences of the pairs on free vertices as CSR (vertex a's entries are
 * k in [off[a], off[a+1]): slot slot[k] of pair pair[k], in pair order), for the
 * vertex-centric gather of the Jacobi pass.
 */
#ifndef SIPD_PAIRS_H
#define SIPD_PAIRS_H

#include "collide.h"

/* Pairs are tracked from SIPD_DETECT_FACTOR d̂ on (active, with energy, below d̂), and a narrow
 * phase is due as soon as a vertex moved more than (SIPD_DETECT_FACTOR − 1) d̂ / 4 since the
 * last one: two primitives then cannot close the gap from outside the tracked band to inside
 * d̂ unseen, whatever the step sizes of the iteration (Chebyshev, unchecked windows).  Both
 * backends use these. */
#define SIPD_DETECT_FACTOR 2.0
#define SIPD_DETECT_MOVE(dhat) (0.25 * (SIPD_DETECT_FACTOR - 1) * (dhat))

/* The detection schedule both backends keep (backend.h detect): a narrow phase is due every
 * `every` iterations (contact.detect_every; pair_detect_every: 4 when the parameters leave it
 * 0) or sooner, once a vertex moved more than SIPD_DETECT_MOVE(d̂) since the last one.
 * pair_detect_count counts this iteration in *since (set to 0 by each narrow phase) and says
 * whether the count alone makes one due; pair_detect_moved, given the largest squared motion
 * since the last narrow phase, whether the motion does. */
static inline int pair_detect_every(int every) { return every > 0 ? every : 4; }
static inline int pair_detect_count(int *since, int every) { return ++*since >= every; }
static inline int pair_detect_moved(double move2, double dhat)
{
    double lim = SIPD_DETECT_MOVE(dhat);
    return move2 > lim * lim;
}

typedef struct {
    int nv, npr, cap;
    int *v;        /* 4 npr: the pair's vertices (sipd_contact_pair.v)   */
    double *beta;  /* 4 npr: their weights                               */
    double *n;     /* 3 npr: the unit normal                             */
    double *k;     /* npr: k_c of the pair (pair_stiffness)                                   */
    double *lam;   /* npr: λ_n (0 when μ = 0)                            */
    double *h;     /* npr: the thickness offset o of the pair (physics/distance.h
                      dist_pair_offset; 0 without thin bodies): gap = n·Σβy − o */
    double *o;     /* 3 npr: the friction anchor offset (contact.h stick memory): the value
                      the store holds for the pair's key, 0 for a pair new this step   */
    int *key;      /* 5 npr: the anchor's key — VF: 0, the vertex, the face's body, 0, 0;
                      EE: 1, its 4 vertices (pair_data_build)                            */
    int *off;      /* nv+1                                               */
    int *pair;     /* up to 4 npr: the pair of each incidence            */
    unsigned char *slot;   /* up to 4 npr: the vertex's slot in it (0..3) */
    int *cur;      /* nv: fill cursors (scratch, allocated once)         */
    /* the anchors' store, carried from one step to the next across narrow phases: one entry
       per key that sticks or slides at the end of the last step, sorted by key
       for a binary search; rebuilt by pair_anchor_commit */
    int ns, scap;
    int *skey;     /* 5 per entry: the key                               */
    double *sval;  /* 3 per entry: the anchor offset                     */
} sipd_pair_data;

/* Allocate for a model of nv vertices (no pairs). SIPD_OK or SIPD_EFAIL. */
int pair_data_init(sipd_pair_data *d, int nv);
/* The stiffness of a pair of vertices v[0..4): kc when kv is NULL (contact.stiffness, or one
 * automatic value for the whole scene), else the smallest positive kv of its vertices (the
 * softer deformable side; model.h contact_kv), kc when none is positive. */
double pair_stiffness(const double *kv, const int v[4], double kc);
/* The contact stiffness both backends use, for pairs and the ground: kc_set (contact.stiffness)
 * when > 0, else the bodies' own (model.c): one scalar when they all agree (contact_k_one),
 * else per vertex (*kv = m->contact_kv, and the scene-wide contact_k_auto returned for vertices
 * without one).  *kv is NULL when one value holds everywhere. */
double pair_contact_k(const sipd_model *m, double kc_set, const double **kv);
/* Fill from the pairs pr[0..npr) of model m (x0: step-start positions); each pair's k_c is
 * pair_stiffness(kv, its vertices, kc). */
int pair_data_build(sipd_pair_data *d, const sipd_model *m, const sipd_contact_pair *pr, int npr, const double *x0,
                    double kc, const double *kv, double mu, double dhat);
void pair_data_free(sipd_pair_data *d);
/* End of step: the store ← the current pairs' keys with their new anchors o_new (3 npr: passes.h
 * pass_pair_anchor_next; the CUDA backend downloads them), the pairs whose anchor is 0 left
 * out.  The next pair_data_build gives each pair the store's value for its key, 0 when none.
 * SIPD_OK or SIPD_EFAIL (out of memory; the store is then empty). */
int pair_anchor_commit(sipd_pair_data *d, const double *o_new);
/* Drop every anchor (the store and the current pairs' o): a fresh start (upload). */
void pair_anchor_clear(sipd_pair_data *d);
/* The store as doubles for a checkpoint: 8 per entry (the key's 5 ints, o[0..3)), n entries; with
 * buf NULL only *n.  pair_anchor_load: the store ← such an array (n entries, sorted as written);
 * SIPD_EINPUT when the keys are not valid vertex indices or out of order, SIPD_EFAIL (memory). */
void pair_anchor_save(const sipd_pair_data *d, double *buf, long *n);
int pair_anchor_load(sipd_pair_data *d, const double *buf, long n);

/* The friction state of backend.h friction_state, laid out once for both backends: n3 ground
 * anchors (nv*3, or 0 without ground friction), the pairs' entry count np, 8 doubles per entry.
 * friction_state_len: its length; friction_state_fits: whether buf (n doubles) is such a state
 * for this model (pairs: the backend detects pairs; without, np must be 0). */
static inline long friction_state_len(size_t n3, long np) { return (long)n3 + 1 + 8 * np; }
static inline int friction_state_fits(const double *buf, long n, size_t n3, int pairs)
{
    return n >= (long)n3 + 1 && buf[n3] >= 0 && n == friction_state_len(n3, (long)buf[n3]) && (pairs || buf[n3] == 0);
}

/* The pairs' couplings between the free vertices of a pair — the off-diagonal blocks β_l β_c D_z
 * (slots l ≠ c) of its Hessian; the diagonal blocks β_l² D_z are in H's rows (passes.h
 * pass_hessian_row) — as the extra term of an assembled H (sparse.h sipd_bsr_extra, with a
 * sipd_pair_coupling as ctx): pair_coupling_row applies row a matrix-free (out += Σ β_a β_c D_z
 * x_c), pair_coupling_blocks writes the same as blocks (for a factorisation).  Both backends'
 * `assemble` (the CUDA backend with D_z computed on the device and downloaded). */
typedef struct {
    const sipd_pair_data *pd;      /* the pairs, their weights and incidences                 */
    const double *D;               /* 6 per pair: D_z at y (passes.h pass_pair_hessian, s3_store) */
    const unsigned char *fixed;    /* the model's Dirichlet flags: no couplings to or from them */
} sipd_pair_coupling;
void pair_coupling_row(const void *ctx, int a, const double *x, double out[3]);
int pair_coupling_blocks(const void *ctx, int a, int *cols, double *blocks, int cap);

#endif
