/* sparse.h — block-CSR matrices of 3x3 blocks over the vertex graph, and PCG on them.
 *
 * The global linear solves (Newton's direction today; the mixed-FEM solve and a multigrid
 * coarse correction later) are drivers over this module: the pattern comes from the model's
 * element connectivity (sipd_bsr_pattern), a backend assembles the values (backend.h, assemble), and
 * sipd_pcg() solves with a block-Jacobi preconditioner (sipd_bsr_block_jacobi).  A term that is not
 * stored in the matrix (Newton's contact-pair couplings, applied matrix-free) enters the
 * product through a per-row callback, added after the row's stored blocks.
 *
 * The floating-point operation order of sipd_bsr_mul, the preconditioner and sipd_pcg is part of the
 * contract (results are compared bit for bit across refactorings): per row, blocks in column
 * order, each block row by row; the dot products are OpenMP reductions above 3 * 4096 entries.
 */
#ifndef SIPD_SPARSE_H
#define SIPD_SPARSE_H

typedef struct {
    int n;          /* block rows = block columns                                          */
    int nnzb;       /* stored blocks                                                       */
    int *row_off;   /* n + 1: row a's blocks are row_off[a] .. row_off[a+1]                */
    int *col;       /* nnzb: their columns, increasing                                      */
    int *diag;      /* n: the index of each row's diagonal block                            */
    double *val;    /* nnzb * 9: the blocks, row-major                                       */
    /* the element map of the pattern: block (corner l, corner c) of element e is
       elem_blk[(e * k + l) * k + c], k the element's vertex count */
    int ne, k;
    int *elem_blk;
} sipd_bsr;

/* A term of the product y = A x not stored in A: out[0..2] += (row a of it) x.  Called
 * concurrently for different rows. */
typedef void (*sipd_bsr_row_fn)(const void *ctx, int a, const double *x, double out[3]);

/* The same term as stored blocks (for a factorisation): row a's coupling blocks, column
 * cols[i] and 3x3 block blocks[9 i] (row-major), for i < the returned count; a column may repeat
 * (the blocks add).  Only the first `cap` are written: a return above cap asks for more room. */
typedef int (*sipd_bsr_row_blocks_fn)(const void *ctx, int a, int *cols, double *blocks, int cap);

typedef struct {
    sipd_bsr_row_fn row;              /* NULL: none */
    const void *ctx;
    sipd_bsr_row_blocks_fn blocks;    /* the same couplings as blocks (NULL: not available) */
} sipd_bsr_extra;

/* The pattern of n vertices coupled by ne elements of k vertices each (elems: ne*k vertex
 * indices): row a holds a and every vertex sharing an element with it, sorted; values
 * allocated, uninitialised.  SIPD_OK or SIPD_EFAIL (out of memory). */
int sipd_bsr_pattern(sipd_bsr *A, int n, const int *elems, int ne, int k);
void sipd_bsr_free(sipd_bsr *A);

/* Row a's share of element blocks (Newton's element Hessians, the mixed-FEM element systems):
 * for the incidences i in [i0, i1) of row a — corner inc_corner[i] of element inc_elem[i] — of
 * group `group` (every incidence when inc_group is NULL), add block (corner, c) of that
 * element's matrix Ke (per element (3 nc)², row/column 3c + r, row-major) to block
 * (a, elems[nc e + c]) of A, for every corner c whose vertex has skip[v] == 0 (Dirichlet columns
 * stay out).  The group's element e is element e_off + e of the pattern (nc ≤ A->k corners; a
 * pattern of padded elements, model_pattern_elements, has the groups one after another).  Only
 * row a is written: rows can be gathered concurrently. */
void sipd_bsr_gather_element_row(sipd_bsr *A, int i0, int i1, const int *inc_elem, const unsigned char *inc_corner,
                                 const unsigned char *inc_group, int group, const int *elems, int nc, int e_off,
                                 const unsigned char *skip, const double *Ke);

/* out = A x (+ the extra term); x and out are n*3. */
void sipd_bsr_mul(const sipd_bsr *A, const sipd_bsr_extra *extra, const double *x, double *out);

/* Pinv (n*9) = the inverses of A's diagonal blocks (identity where one is singular). */
void sipd_bsr_block_jacobi(const sipd_bsr *A, double *Pinv);

/* Σ x_i y_i over n entries. */
double sipd_dot(const double *x, const double *y, int n);

/* Preconditioned CG on (A + extra) x = rhs from x = 0, preconditioner Pinv (sipd_bsr_block_jacobi):
 * stops after maxit iterations, when rᵀz ≤ rtol² r₀ᵀz₀ (or rᵀz ≤ 0), or when pᵀAp ≤ 0
 * (A is SPD by construction: round-off trouble).  work: 4 * n * 3 doubles.  Returns the
 * iterations taken, or -1 when a stop was requested (sipd_stop_flag, util.h) before it ended. */
int sipd_pcg(const sipd_bsr *A, const sipd_bsr_extra *extra, const double *Pinv, const double *rhs, double *x,
             int maxit, double rtol, double *work);

/* Sparse Cholesky of a symmetric positive definite block-CSR matrix by CHOLMOD (SuiteSparse):
 * sipd_chol_analyse once per pattern (fill-reducing ordering and symbolic factorisation), then
 * sipd_chol_factor for each new set of values and sipd_chol_solve for each right-hand side.
 * Only the stored blocks enter (a sipd_bsr_extra term goes through sipd_direct_solve below).
 * The matrix's lower triangle is read; it must be symmetric.  Status: SIPD_OK; SIPD_EFAIL when
 * out of memory, or from sipd_chol_factor when the matrix is not positive definite (then
 * sipd_chol_solve refuses until a factor succeeds);
 * SIPD_ESIGNAL when a stop was requested (sipd_stop_flag) during the call, which runs in a worker
 * thread for that reason (sparse.c) and is then abandoned: the sipd_chol is unusable after it. */
typedef struct {
    int n;            /* scalar rows (3 × block rows)                                          */
    int ok;           /* the last sipd_chol_factor succeeded                                   */
    int *src;         /* per stored scalar entry: its index in the bsr's val                   */
    void *common;     /* cholmod_common                                                        */
    void *A;          /* cholmod_sparse, lower triangle, CSC                                   */
    void *L;          /* cholmod_factor                                                        */
    int busy;         /* a stop request abandoned a CHOLMOD call still running in its worker
                         thread (sparse.c): common, A and L are left to it, never freed        */
    double fl, lnz;   /* the analysis's flop count and nnz(L): long calls run in a worker      */
} sipd_chol;

int sipd_chol_analyse(sipd_chol *c, const sipd_bsr *A);
int sipd_chol_factor(sipd_chol *c, const sipd_bsr *A);
int sipd_chol_solve(sipd_chol *c, const double *rhs, double *x);
void sipd_chol_free(sipd_chol *c);

/* out = A's stored blocks plus the extra term's coupling blocks (extra->blocks), as one stored
 * matrix (no element map): row a's columns are A's and the couplings', sorted.  *changed = 1
 * when out's pattern differs from the one it held before (or it held none), 0 when only the
 * values are new.  SIPD_EFAIL when out of memory or extra->blocks is NULL. */
int sipd_bsr_merge_extra(sipd_bsr *out, const sipd_bsr *A, const sipd_bsr_extra *extra, int *changed);

/* A direct solve of (A + extra) x = rhs by CHOLMOD.  Without an extra term A is factorised as
 * it is (analysed once).  With one (Newton's and the mixed system's contact-pair couplings,
 * which change with the pair set) the couplings join the pattern through sipd_bsr_merge_extra and
 * the symbolic analysis is redone whenever that pattern changes — at most once per narrow
 * phase, since the pairs are frozen in between; the counters say how often it happened. */
typedef struct {
    sipd_chol chol;
    int analysed;      /* chol holds an analysis ...                                           */
    int merged;        /* ... of the merged matrix U (1) or of A (0)                            */
    sipd_bsr U;        /* A + couplings                                                         */
    long analyses;     /* symbolic analyses so far                                             */
    long factors;      /* numeric factorisations so far                                        */
} sipd_direct;

/* SIPD_OK; SIPD_EFAIL when out of memory or the matrix is not positive definite; SIPD_ESIGNAL
 * after a stop request (as sipd_chol_factor). */
int sipd_direct_solve(sipd_direct *d, const sipd_bsr *A, const sipd_bsr_extra *extra, const double *rhs, double *x);
void sipd_direct_free(sipd_direct *d);

#endif
