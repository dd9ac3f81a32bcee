/* sparse.c — block-CSR 3x3 matrices and PCG (sparse.h). */
#define _POSIX_C_SOURCE 200809L
#include "sparse.h"

#include <stdlib.h>
#include <string.h>

#include "physics/mat3.h"
#include "util.h"

/* below this many rows a loop runs serially (as the CPU backend's PAR_MIN) */
#define PAR_MIN 4096

void sipd_bsr_free(sipd_bsr *A)
{
    free(A->row_off);
    free(A->col);
    free(A->diag);
    free(A->val);
    free(A->elem_blk);
    memset(A, 0, sizeof *A);
}

void sipd_bsr_gather_element_row(sipd_bsr *A, int i0, int i1, const int *inc_elem, const unsigned char *inc_corner,
                                 const unsigned char *inc_group, int group, const int *elems, int nc, int e_off,
                                 const unsigned char *skip, const double *Ke)
{
    const int k = A->k, w = 3 * nc;
    int i;
    for (i = i0; i < i1; i++) {
        int e = inc_elem[i], l = inc_corner[i], c, r, s;
        const double *He = Ke + (size_t)w * w * e;
        const size_t pe = (size_t)e_off + (size_t)e;
        if (inc_group && inc_group[i] != group)
            continue;
        for (c = 0; c < nc; c++) {
            double *B;
            if (skip[elems[(size_t)nc * e + c]])
                continue;
            B = A->val + 9 * (size_t)A->elem_blk[(pe * k + l) * k + c];
            for (r = 0; r < 3; r++)
                for (s = 0; s < 3; s++) B[3 * r + s] += He[w * (3 * l + r) + 3 * c + s];
        }
    }
}

int sipd_bsr_pattern(sipd_bsr *A, int n, const int *elems, int ne, int k)
{
    int a, e, l, c, i, cap = 0;
    int *inc_off = NULL, *inc = NULL, *mark = NULL, *tmp = NULL;
    memset(A, 0, sizeof *A);
    A->n = n;
    A->ne = ne;
    A->k = k;
    /* vertex → element incidence (CSR) */
    inc_off = sipd_calloc((size_t)n + 1, sizeof(int));
    inc = sipd_malloc(((size_t)ne * k + 1) * sizeof(int));
    mark = sipd_malloc(((size_t)n + 1) * sizeof(int));
    A->row_off = sipd_calloc((size_t)n + 1, sizeof(int));
    A->diag = sipd_malloc(((size_t)n + 1) * sizeof(int));
    if (!inc_off || !inc || !mark || !A->row_off || !A->diag)
        goto fail;
    for (i = 0; i < ne * k; i++) inc_off[elems[i] + 1]++;
    for (a = 0; a < n; a++) inc_off[a + 1] += inc_off[a];
    for (a = 0; a < n; a++) mark[a] = inc_off[a];
    for (e = 0; e < ne; e++)
        for (l = 0; l < k; l++) inc[mark[elems[k * e + l]]++] = e;
    /* count: a itself and the vertices of its elements, each once */
    for (a = 0; a < n; a++) mark[a] = -1;
    for (a = 0; a < n; a++) {
        int cnt = 1;
        mark[a] = a;
        for (i = inc_off[a]; i < inc_off[a + 1]; i++)
            for (l = 0; l < k; l++) {
                int v = elems[k * inc[i] + l];
                if (mark[v] != a) { mark[v] = a; cnt++; }
            }
        A->row_off[a + 1] = A->row_off[a] + cnt;
        if (cnt > cap) cap = cnt;
    }
    A->nnzb = A->row_off[n];
    A->col = sipd_malloc(((size_t)A->nnzb + 1) * sizeof(int));
    A->val = sipd_malloc(((size_t)A->nnzb + 1) * 9 * sizeof(double));
    A->elem_blk = sipd_malloc(((size_t)ne * k * k + 1) * sizeof(int));
    tmp = sipd_malloc(((size_t)cap + 1) * sizeof(int));
    if (!A->col || !A->val || !A->elem_blk || !tmp)
        goto fail;
    /* fill, insertion-sorted (rows are short) */
    for (a = 0; a < n; a++) mark[a] = -1;
    for (a = 0; a < n; a++) {
        int cnt = 0, j;
        mark[a] = a;
        tmp[cnt++] = a;
        for (i = inc_off[a]; i < inc_off[a + 1]; i++)
            for (l = 0; l < k; l++) {
                int v = elems[k * inc[i] + l];
                if (mark[v] != a) { mark[v] = a; tmp[cnt++] = v; }
            }
        for (i = 1; i < cnt; i++)
            for (j = i; j > 0 && tmp[j - 1] > tmp[j]; j--) { int t = tmp[j]; tmp[j] = tmp[j - 1]; tmp[j - 1] = t; }
        memcpy(A->col + A->row_off[a], tmp, (size_t)cnt * sizeof(int));
        for (j = 0; j < cnt; j++)
            if (tmp[j] == a)
                A->diag[a] = A->row_off[a] + j;
    }
    for (e = 0; e < ne; e++)
        for (l = 0; l < k; l++)
            for (c = 0; c < k; c++) {
                int r = elems[k * e + l], cc = elems[k * e + c], lo = A->row_off[r], hi = A->row_off[r + 1] - 1;
                while (lo < hi) {   /* binary search for column cc in row r */
                    int mid = (lo + hi) / 2;
                    if (A->col[mid] < cc) lo = mid + 1; else hi = mid;
                }
                A->elem_blk[(e * k + l) * k + c] = lo;
            }
    free(inc_off);
    free(inc);
    free(mark);
    free(tmp);
    return SIPD_OK;
fail:
    free(inc_off);
    free(inc);
    free(mark);
    free(tmp);
    sipd_bsr_free(A);
    return SIPD_EFAIL;
}

void sipd_bsr_mul(const sipd_bsr *A, const sipd_bsr_extra *extra, const double *x, double *out)
{
    sipd_bsr_row_fn row = extra ? extra->row : NULL;
    int a;
#pragma omp parallel for schedule(static) if (A->n > PAR_MIN)
    for (a = 0; a < A->n; a++) {
        double o[3] = {0, 0, 0};
        int k, i, j;
        for (k = A->row_off[a]; k < A->row_off[a + 1]; k++) {
            const double *B = A->val + 9 * k, *xc = x + 3 * A->col[k];
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++) o[i] += B[3 * i + j] * xc[j];
        }
        if (row)
            row(extra->ctx, a, x, o);
        out[3 * a] = o[0];
        out[3 * a + 1] = o[1];
        out[3 * a + 2] = o[2];
    }
}

void sipd_bsr_block_jacobi(const sipd_bsr *A, double *Pinv)
{
    int a;
#pragma omp parallel for schedule(static) if (A->n > PAR_MIN)
    for (a = 0; a < A->n; a++) {
        mat3 Dk, inv;
        int i;
        for (i = 0; i < 9; i++) Dk.m[i] = A->val[9 * A->diag[a] + i];
        if (!m3_inverse(Dk, &inv))
            inv = m3_identity();
        for (i = 0; i < 9; i++) Pinv[9 * a + i] = inv.m[i];
    }
}

double sipd_dot(const double *x, const double *y, int n)
{
    double s = 0;
    int i;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > 3 * PAR_MIN)
    for (i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* z = Pinv r, block by block */
static void precond_apply(const double *Pinv, int nb, const double *r, double *z)
{
    int a;
#pragma omp parallel for schedule(static) if (nb > PAR_MIN)
    for (a = 0; a < nb; a++) {
        const double *P = Pinv + 9 * a, *ra = r + 3 * a;
        int i;
        for (i = 0; i < 3; i++) z[3 * a + i] = P[3 * i] * ra[0] + P[3 * i + 1] * ra[1] + P[3 * i + 2] * ra[2];
    }
}

int sipd_pcg(const sipd_bsr *A, const sipd_bsr_extra *extra, const double *Pinv, const double *rhs, double *x,
             int maxit, double rtol, double *work)
{
    const int n = 3 * A->n;
    double *r = work, *z = work + n, *p = work + 2 * (size_t)n, *q = work + 3 * (size_t)n;
    double rz, rz0;
    int a, it;
    memset(x, 0, sizeof(double) * (size_t)n);
    for (a = 0; a < n; a++) r[a] = rhs[a];
    precond_apply(Pinv, A->n, r, z);
    memcpy(p, z, sizeof(double) * (size_t)n);
    rz = rz0 = sipd_dot(r, z, n);
    for (it = 0; it < maxit && rz > rtol * rtol * rz0 && rz > 0; it++) {
        double pq, al, rzn, be;
        if (sipd_stopping())
            return -1;   /* a stop request (util.h): the caller returns SIPD_ESIGNAL */
        sipd_bsr_mul(A, extra, p, q);
        pq = sipd_dot(p, q, n);
        if (!(pq > 0))
            break;   /* A is SPD by construction; stop on round-off trouble */
        al = rz / pq;
        for (a = 0; a < n; a++) {
            x[a] += al * p[a];
            r[a] -= al * q[a];
        }
        precond_apply(Pinv, A->n, r, z);
        rzn = sipd_dot(r, z, n);
        be = rzn / rz;
        rz = rzn;
        for (a = 0; a < n; a++) p[a] = z[a] + be * p[a];
    }
    return it;
}

/* ---- CHOLMOD (sparse.h) ------------------------------------------------------------------ */
#include <cholmod.h>
#include <pthread.h>
#include <time.h>

/* ---- CHOLMOD calls that a signal can interrupt ----------------------------------------------
 *
 * A factorisation cannot be stopped from outside: CHOLMOD has no cancellation, and one
 * factorisation of Newton's matrix on a 15,625-vertex box (47k unknowns) took 38 s on the
 * development machine (reference BLAS, 2 shared cores; 3 s at 4,913 vertices) — a run
 * asked to stop (SIGTERM: a SLURM preemption gives 30 s) must not wait for it.  So every CHOLMOD
 * call that grows with the matrix (analyse, factorise, solve) runs in a worker thread while the
 * caller waits on it, checking sipd_stop_flag every CHOL_POLL_MS: on a stop request the caller
 * returns SIPD_ESIGNAL at once and abandons the worker, which runs on until the process exits
 * (sipd-run then checkpoints the start of the step and exits; the factor is not needed for
 * that).  What the worker uses — the CHOLMOD common, the matrix, the factor and the job — is
 * then never freed (sipd_chol_free leaks it: the process is about to end).  Without a stop request
 * the result is the same call's, made from another thread: bit for bit what it was.
 * (The alternative, checkpointing the step's start before each long call so that the signal
 * handler itself could _exit, would write a checkpoint per step and leave exit_reason
 * "running".)  A thread costs 0.2-0.3 ms per call on the loaded development machine (a 4-vertex
 * factor + solve: 0.5 ms against 0.01 ms), so only calls that can take long use one: an analysis
 * of a matrix with more than CHOL_THREAD_NNZ stored entries, a factorisation of more than
 * CHOL_THREAD_FLOPS (CHOLMOD's count from the analysis), a solve with more than CHOL_THREAD_LNZ
 * entries in L — below them a call takes a few tens of milliseconds at most (reference BLAS), and
 * a stop request only waits for that; a request already raised stops every call before it
 * starts. */
#define CHOL_POLL_MS 20
#define CHOL_THREAD_NNZ 2e5
#define CHOL_THREAD_FLOPS 2e7
#define CHOL_THREAD_LNZ 5e6

enum { CHOL_ANALYSE, CHOL_FACTOR, CHOL_SOLVE };

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int op, done;
    cholmod_common *cm;
    cholmod_sparse *S;
    cholmod_factor *L;     /* in: the analysis (factor, solve); out: it (analyse)          */
    cholmod_dense *B, *X;  /* solve: right-hand side in, solution out                      */
    int ok;
    void *next;            /* the list of abandoned jobs (below)                                */
} chol_job;

/* Jobs a stop request left to their workers: never freed (the process is about to exit), but
 * kept reachable, so that a leak checker (LSan in `make asan`) does not report them. */
static chol_job *abandoned;

/* The CHOLMOD call itself; returns its success. */
static int chol_work(chol_job *j)
{
    if (j->op == CHOL_ANALYSE)
        return j->ok = (j->L = cholmod_analyze(j->S, j->cm)) != NULL && j->cm->status >= CHOLMOD_OK;
    if (j->op == CHOL_FACTOR)
        return j->ok = cholmod_factorize(j->S, j->L, j->cm) && j->cm->status == CHOLMOD_OK && j->L->minor >= j->L->n;
    return j->ok = (j->X = cholmod_solve(CHOLMOD_A, j->L, j->B, j->cm)) != NULL;
}

static void *chol_worker(void *arg)
{
    chol_job *j = arg;
    int ok = chol_work(j);
    pthread_mutex_lock(&j->mu);
    j->ok = ok;
    j->done = 1;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* Run job j in a worker and wait for it: SIPD_OK (j->ok says how CHOLMOD did), SIPD_ESIGNAL when
 * a stop was requested first (c->busy set: the worker and j are abandoned), SIPD_EFAIL when no
 * thread could be started. */
static int chol_run(sipd_chol *c, chol_job *j)
{
    pthread_t th;
    pthread_attr_t at;
    int stopped = 0;
    if (pthread_mutex_init(&j->mu, NULL) != 0)
        return SIPD_EFAIL;
    if (pthread_cond_init(&j->cv, NULL) != 0) {
        pthread_mutex_destroy(&j->mu);
        return SIPD_EFAIL;
    }
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &at, chol_worker, j) != 0) {
        pthread_attr_destroy(&at);
        pthread_cond_destroy(&j->cv);
        pthread_mutex_destroy(&j->mu);
        return SIPD_EFAIL;
    }
    pthread_attr_destroy(&at);
    pthread_mutex_lock(&j->mu);
    while (!j->done && !(stopped = sipd_stopping())) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += CHOL_POLL_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&j->cv, &j->mu, &ts);
    }
    stopped = !j->done;
    pthread_mutex_unlock(&j->mu);
    if (stopped) {
        c->busy = 1;   /* the worker still uses the common, matrix and factor */
        return SIPD_ESIGNAL;
    }
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    return SIPD_OK;
}

/* One CHOLMOD call, through the worker when it may be long; *ok = its success.  The job is on
 * the heap: an abandoned worker keeps it. */
static int chol_call(sipd_chol *c, int op, cholmod_dense *B, cholmod_dense **X, int *ok)
{
    chol_job *j;
    int rc;
    *ok = 0;
    if (sipd_stopping())
        return SIPD_ESIGNAL;   /* (nothing started: the sipd_chol stays usable) */
    if (op == CHOL_ANALYSE ? (double)((cholmod_sparse *)c->A)->nzmax <= CHOL_THREAD_NNZ
        : op == CHOL_FACTOR ? c->fl <= CHOL_THREAD_FLOPS
                            : c->lnz <= CHOL_THREAD_LNZ) {
        chol_job direct;   /* short: in this thread */
        memset(&direct, 0, sizeof direct);
        direct.op = op;
        direct.cm = c->common;
        direct.S = c->A;
        direct.L = c->L;
        direct.B = B;
        direct.done = 1;
        chol_work(&direct);
        *ok = direct.ok;
        if (op == CHOL_ANALYSE)
            c->L = direct.L;
        if (X)
            *X = direct.X;
        return SIPD_OK;
    }
    if (!(j = sipd_calloc(1, sizeof *j)))
        return SIPD_EFAIL;
    j->op = op;
    j->cm = c->common;
    j->S = c->A;
    j->L = c->L;
    j->B = B;
    if ((rc = chol_run(c, j)) != SIPD_OK) {
        if (rc == SIPD_ESIGNAL) {
            j->next = abandoned;
            abandoned = j;
        } else
            free(j);
        return rc;
    }
    *ok = j->ok;
    if (op == CHOL_ANALYSE)
        c->L = j->L;
    if (X)
        *X = j->X;
    free(j);
    return SIPD_OK;
}

void sipd_chol_free(sipd_chol *c)
{
    if (c->common && !c->busy) {   /* busy: an abandoned worker still uses them (see above) */
        cholmod_common *cm = c->common;
        if (c->L) {
            cholmod_factor *L = c->L;
            cholmod_free_factor(&L, cm);
        }
        if (c->A) {
            cholmod_sparse *S = c->A;
            cholmod_free_sparse(&S, cm);
        }
        cholmod_finish(cm);
        free(cm);
    }
    free(c->src);
    memset(c, 0, sizeof *c);
}

/* Scalar column j = 3b + l of the lower triangle is scalar row j of the (symmetric) matrix
 * restricted to columns ≥ j: block row b, row l of each block whose column c ≥ b, entries
 * 3c + m ≥ j.  Blocks are sorted by column, so the row indices come out increasing. */
int sipd_chol_analyse(sipd_chol *c, const sipd_bsr *A)
{
    cholmod_common *cm;
    cholmod_sparse *S;
    int b, l, k, m, nz = 0;
    size_t cnt = 0;
    memset(c, 0, sizeof *c);
    c->n = 3 * A->n;
    cm = sipd_calloc(1, sizeof *cm);
    if (!cm)
        return SIPD_EFAIL;
    c->common = cm;
    cholmod_start(cm);
    cm->print = 0;       /* errors are reported by status, not printed by CHOLMOD */
    cm->error_handler = NULL;
    for (b = 0; b < A->n; b++)
        for (l = 0; l < 3; l++)
            for (k = A->row_off[b]; k < A->row_off[b + 1]; k++)
                for (m = 0; m < 3; m++)
                    if (3 * A->col[k] + m >= 3 * b + l)
                        cnt++;
    S = cholmod_allocate_sparse((size_t)c->n, (size_t)c->n, cnt, 1, 1, -1, CHOLMOD_REAL, cm);
    c->src = sipd_malloc((cnt + 1) * sizeof(int));
    if (!S || !c->src) {
        if (S)
            cholmod_free_sparse(&S, cm);
        sipd_chol_free(c);
        return SIPD_EFAIL;
    }
    c->A = S;
    {
        int *cp = S->p, *ri = S->i;
        for (b = 0; b < A->n; b++)
            for (l = 0; l < 3; l++) {
                int j = 3 * b + l;
                cp[j] = nz;
                for (k = A->row_off[b]; k < A->row_off[b + 1]; k++)
                    for (m = 0; m < 3; m++)
                        if (3 * A->col[k] + m >= j) {
                            ri[nz] = 3 * A->col[k] + m;
                            c->src[nz++] = 9 * k + 3 * l + m;
                        }
            }
        cp[c->n] = nz;
    }
    {
        int ok, rc = chol_call(c, CHOL_ANALYSE, NULL, NULL, &ok);
        if (rc == SIPD_OK && !ok)
            rc = SIPD_EFAIL;
        if (rc != SIPD_OK) {
            sipd_chol_free(c);   /* (after a stop: frees only what the worker does not use) */
            return rc;
        }
        c->fl = cm->fl;     /* the analysis's estimates: which calls get a worker thread */
        c->lnz = cm->lnz;
    }
    return SIPD_OK;
}

int sipd_chol_factor(sipd_chol *c, const sipd_bsr *A)
{
    cholmod_sparse *S = c->A;
    double *v = S->x;
    int *cp = S->p, i, ok, rc;
    if (c->busy)
        return SIPD_ESIGNAL;
    for (i = 0; i < cp[c->n]; i++) v[i] = A->val[c->src[i]];
    c->ok = 0;
    if ((rc = chol_call(c, CHOL_FACTOR, NULL, NULL, &ok)) != SIPD_OK)
        return rc;
    if (!ok)
        return SIPD_EFAIL;   /* not positive definite (CHOLMOD_NOT_POSDEF) or out of memory */
    c->ok = 1;
    return SIPD_OK;
}

int sipd_chol_solve(sipd_chol *c, const double *rhs, double *x)
{
    cholmod_common *cm = c->common;
    cholmod_dense *B, *X = NULL;
    int ok, rc;
    if (c->busy)
        return SIPD_ESIGNAL;
    if (!c->ok)
        return SIPD_EFAIL;
    B = cholmod_allocate_dense((size_t)c->n, 1, (size_t)c->n, CHOLMOD_REAL, cm);
    if (!B)
        return SIPD_EFAIL;
    memcpy(B->x, rhs, sizeof(double) * (size_t)c->n);
    if ((rc = chol_call(c, CHOL_SOLVE, B, &X, &ok)) != SIPD_OK)
        return rc;   /* (after a stop B stays with the worker) */
    cholmod_free_dense(&B, cm);
    if (!ok || !X)
        return SIPD_EFAIL;
    memcpy(x, X->x, sizeof(double) * (size_t)c->n);
    cholmod_free_dense(&X, cm);
    return SIPD_OK;
}

/* ---- stored couplings and the direct solve ------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int sipd_bsr_merge_extra(sipd_bsr *out, const sipd_bsr *A, const sipd_bsr_extra *extra, int *changed)
{
    const int n = A->n;
    int cap = 64, a, nnz = 0, rc = SIPD_EFAIL;
    int *cols = NULL, *row_off = NULL, *col = NULL, *diag = NULL, *tmp = NULL;
    double *blk = NULL;
    size_t tcap = 0, tn = 0;
    *changed = 1;
    if (!extra->blocks)
        return SIPD_EFAIL;
    cols = sipd_malloc((size_t)cap * sizeof(int));
    blk = sipd_malloc((size_t)cap * 9 * sizeof(double));
    row_off = sipd_malloc(((size_t)n + 1) * sizeof(int));
    diag = sipd_malloc(((size_t)n + 1) * sizeof(int));
    if (!cols || !blk || !row_off || !diag)
        goto done;
    /* the pattern: per row, A's columns and the couplings', sorted and unique */
    row_off[0] = 0;
    for (a = 0; a < n; a++) {
        int nb = extra->blocks(extra->ctx, a, cols, blk, cap), na = A->row_off[a + 1] - A->row_off[a], m, k;
        if (nb > cap) {
            cap = nb + nb / 2;
            free(cols);
            free(blk);
            cols = sipd_malloc((size_t)cap * sizeof(int));
            blk = sipd_malloc((size_t)cap * 9 * sizeof(double));
            if (!cols || !blk)
                goto done;
            nb = extra->blocks(extra->ctx, a, cols, blk, cap);
        }
        if (tn + (size_t)na + (size_t)nb > tcap) {
            int *t2;
            tcap = 2 * (tn + (size_t)na + (size_t)nb) + 1024;
            if (!(t2 = realloc(tmp, tcap * sizeof(int))))
                goto done;
            tmp = t2;
        }
        memcpy(tmp + tn, A->col + A->row_off[a], (size_t)na * sizeof(int));
        memcpy(tmp + tn + na, cols, (size_t)nb * sizeof(int));
        qsort(tmp + tn, (size_t)(na + nb), sizeof(int), cmp_int);
        for (m = 0, k = 0; k < na + nb; k++)
            if (k == 0 || tmp[tn + k] != tmp[tn + m - 1])
                tmp[tn + m++] = tmp[tn + k];
        for (k = 0; k < m; k++)
            if (tmp[tn + k] == a)
                diag[a] = nnz + k;
        tn += (size_t)m;
        nnz += m;
        row_off[a + 1] = nnz;
    }
    col = tmp;
    tmp = NULL;
    if (out->n == n && out->nnzb == nnz && out->row_off && !memcmp(out->row_off, row_off, ((size_t)n + 1) * sizeof(int)) &&
        !memcmp(out->col, col, (size_t)nnz * sizeof(int))) {
        *changed = 0;
    } else {
        double *val = sipd_malloc(((size_t)nnz + 1) * 9 * sizeof(double));
        if (!val)
            goto done;
        sipd_bsr_free(out);
        out->n = n;
        out->nnzb = nnz;
        out->row_off = row_off;
        out->col = col;
        out->diag = diag;
        out->val = val;
        row_off = col = diag = NULL;
    }
    /* the values: A's blocks, then the couplings' */
    for (a = 0; a < n; a++) {
        int k, j = out->row_off[a], nb;
        double *V = out->val + 9 * (size_t)out->row_off[a];
        memset(V, 0, sizeof(double) * 9 * (size_t)(out->row_off[a + 1] - out->row_off[a]));
        for (k = A->row_off[a]; k < A->row_off[a + 1]; k++) {   /* both sorted: a merge */
            while (out->col[j] != A->col[k]) j++;
            memcpy(out->val + 9 * (size_t)j, A->val + 9 * (size_t)k, 9 * sizeof(double));
        }
        nb = extra->blocks(extra->ctx, a, cols, blk, cap);   /* fits: the pattern pass grew cap */
        for (k = 0; k < nb; k++) {
            int lo = out->row_off[a], hi = out->row_off[a + 1] - 1, r;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (out->col[mid] < cols[k])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (r = 0; r < 9; r++) out->val[9 * (size_t)lo + r] += blk[9 * k + r];
        }
    }
    rc = SIPD_OK;
done:
    free(cols);
    free(blk);
    free(row_off);
    free(col);
    free(diag);
    free(tmp);
    return rc;
}

int sipd_direct_solve(sipd_direct *d, const sipd_bsr *A, const sipd_bsr_extra *extra, const double *rhs, double *x)
{
    const sipd_bsr *M = A;
    int merged = extra && extra->row != NULL, changed = 0;
    if (merged) {
        if (sipd_bsr_merge_extra(&d->U, A, extra, &changed) != SIPD_OK)
            return SIPD_EFAIL;
        M = &d->U;
    }
    if (d->analysed && (d->merged != merged || changed)) {   /* a new pattern: a new analysis */
        sipd_chol_free(&d->chol);
        d->analysed = 0;
    }
    if (!d->analysed) {
        int rc = sipd_chol_analyse(&d->chol, M);
        if (rc != SIPD_OK)
            return rc;
        d->analysed = 1;
        d->merged = merged;
        d->analyses++;
    }
    d->factors++;
    {
        int rc = sipd_chol_factor(&d->chol, M);
        if (rc == SIPD_OK)
            rc = sipd_chol_solve(&d->chol, rhs, x);
        return rc;
    }
}

void sipd_direct_free(sipd_direct *d)
{
    if (d->analysed)
        sipd_chol_free(&d->chol);
    sipd_bsr_free(&d->U);
    memset(d, 0, sizeof *d);
}
