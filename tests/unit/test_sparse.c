/* test_sparse.c — the sparse module (sparse.h) against independent references:
 *   chol   CHOLMOD's solve of a random SPD block matrix (the pattern of random 4-vertex
 *          elements, values Σ_e GᵀG + shift) checked by its residual ‖Ax − b‖ / ‖b‖ with the
 *          product sipd_bsr_mul, against a tight PCG solve of the same system, and refactored with
 *          new values on the same analysis; an indefinite matrix is refused (SIPD_EFAIL) and
 *          sipd_chol_solve then refuses too.
 *   stop   a stop request (sipd_stop_flag, issue 31) ends a direct solve of a matrix whose
 *          factorisation takes a while (a 12³-cell box of tets: 6.6k unknowns) within a poll
 *          interval, raised before the call and in the middle of it (SIPD_ESIGNAL), ends PCG
 *          (-1); a fresh solve afterwards gives the uninterrupted solve's x bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshgen.h"
#include "sparse.h"
#include "util.h"
#include "check.h"
#include "runner.h"
#include "rng.h"

/* A = shift I + Σ_e G_eᵀ G_e, G_e a random 12x12 on the element's 4 vertices (symmetric PSD),
 * scattered through the pattern's element map. */
static void fill(sipd_bsr *A, int ne, unsigned seed, double shift)
{
    test_rng rng = rng_make(seed);
    int e, i, j, k, a;
    memset(A->val, 0, sizeof(double) * 9 * (size_t)A->nnzb);
    for (e = 0; e < ne; e++) {
        double G[144], H[144];
        for (i = 0; i < 144; i++) G[i] = rng_range(&rng, -1, 1);
        for (i = 0; i < 12; i++)
            for (j = 0; j < 12; j++) {
                double s = 0;
                for (k = 0; k < 12; k++) s += G[12 * k + i] * G[12 * k + j];
                H[12 * i + j] = s;
            }
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++) {
                double *B = A->val + 9 * A->elem_blk[(e * 4 + i) * 4 + j];
                int r, c;
                for (r = 0; r < 3; r++)
                    for (c = 0; c < 3; c++) B[3 * r + c] += H[12 * (3 * i + r) + 3 * j + c];
            }
    }
    for (a = 0; a < A->n; a++)
        for (i = 0; i < 3; i++) A->val[9 * A->diag[a] + 4 * i] += shift;
}

static double rel_residual(const sipd_bsr *A, const double *x, const double *b)
{
    int n = 3 * A->n, i;
    double *Ax = malloc(sizeof(double) * (size_t)n), num = 0, den = 0;
    sipd_bsr_mul(A, NULL, x, Ax);
    for (i = 0; i < n; i++) {
        num += (Ax[i] - b[i]) * (Ax[i] - b[i]);
        den += b[i] * b[i];
    }
    free(Ax);
    return sqrt(num / den);
}

static void test_chol(void)
{
    const int nv = 300, ne = 500;
    int *el = malloc(sizeof(int) * 4 * ne), e, i, it, rc;
    test_rng rng = rng_make(7);
    sipd_bsr A;
    sipd_chol C;
    double *b = malloc(sizeof(double) * 3 * nv), *x = malloc(sizeof(double) * 3 * nv);
    double *xc = malloc(sizeof(double) * 3 * nv), *Pinv = malloc(sizeof(double) * 9 * nv);
    double *work = malloc(sizeof(double) * 12 * nv), diff = 0, norm = 0;
    for (e = 0; e < ne; e++)
        for (i = 0; i < 4; i++) {   /* four distinct vertices, mostly near each other */
            int v, j, dup;
            do {
                v = (int)((rng_range(&rng, -1, 1) + 1) / 2 * (nv - 1) * 0.1 + e * (nv - 1) * 0.9 / ne);
                for (dup = 0, j = 0; j < i; j++) dup |= el[4 * e + j] == v;
            } while (dup || v < 0 || v >= nv);
            el[4 * e + i] = v;
        }
    CHECK(sipd_bsr_pattern(&A, nv, el, ne, 4) == SIPD_OK, "pattern");
    fill(&A, ne, 11, 1e-3);
    for (i = 0; i < 3 * nv; i++) b[i] = rng_range(&rng, -1, 1);
    CHECK(sipd_chol_analyse(&C, &A) == SIPD_OK, "analyse");
    CHECK(sipd_chol_factor(&C, &A) == SIPD_OK, "factor");
    CHECK(sipd_chol_solve(&C, b, xc) == SIPD_OK, "solve");
    CHECK(rel_residual(&A, xc, b) < 1e-10, "CHOLMOD residual %.3g", rel_residual(&A, xc, b));
    sipd_bsr_block_jacobi(&A, Pinv);
    it = sipd_pcg(&A, NULL, Pinv, b, x, 20000, 1e-13, work);
    for (i = 0; i < 3 * nv; i++) {
        diff = fmax(diff, fabs(x[i] - xc[i]));
        norm = fmax(norm, fabs(x[i]));
    }
    CHECK(diff < 1e-6 * norm, "CHOLMOD vs PCG (%d its): %.3g of %.3g", it, diff, norm);
    /* new values on the same analysis */
    fill(&A, ne, 12, 0.5);
    CHECK(sipd_chol_factor(&C, &A) == SIPD_OK, "refactor");
    CHECK(sipd_chol_solve(&C, b, xc) == SIPD_OK, "solve 2");
    CHECK(rel_residual(&A, xc, b) < 1e-10, "CHOLMOD residual after refactor %.3g", rel_residual(&A, xc, b));
    /* indefinite: refused, and the solve refuses until a factor succeeds */
    fill(&A, ne, 12, -1e3);
    rc = sipd_chol_factor(&C, &A);
    CHECK(rc == SIPD_EFAIL, "indefinite matrix factored (rc %d)", rc);
    CHECK(sipd_chol_solve(&C, b, xc) == SIPD_EFAIL, "solve after a failed factor");
    sipd_chol_free(&C);
    sipd_bsr_free(&A);
    free(el), free(b), free(x), free(xc), free(Pinv), free(work);
}

static double delay;    /* seconds before the stop thread raises the request */
static double t_raised; /* when it did                                        */

static void *raise_later(void *arg)
{
    struct timespec ts;
    (void)arg;
    ts.tv_sec = (time_t)delay;
    ts.tv_nsec = (long)((delay - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    t_raised = sipd_now();
    sipd_stop_flag = 1;
    return NULL;
}

static void test_stop(void)
{
    sipd_mesh m;
    sipd_bsr A;
    sipd_direct d0, d1, d2, d3;
    double *b, *x0, *x, *Pinv, *work, t0, T, dt;
    test_rng rng = rng_make(3);
    int n, i, rc;
    pthread_t th;
    CHECK(meshgen_box(12, 12, 12, 1.0, 1.0, 1.0, &m) == SIPD_OK, "mesh");
    CHECK(sipd_bsr_pattern(&A, m.nv, m.tets, m.nt, 4) == SIPD_OK, "pattern");
    fill(&A, m.nt, 5, 1e-2);
    n = 3 * m.nv;
    b = malloc(sizeof(double) * n);
    x0 = malloc(sizeof(double) * n);
    x = malloc(sizeof(double) * n);
    Pinv = malloc(sizeof(double) * 3 * n);
    work = malloc(sizeof(double) * 4 * n);
    for (i = 0; i < n; i++) b[i] = rng_range(&rng, -1, 1);
    memset(&d0, 0, sizeof d0);
    memset(&d1, 0, sizeof d1);
    memset(&d2, 0, sizeof d2);
    memset(&d3, 0, sizeof d3);

    /* uninterrupted */
    t0 = sipd_now();
    rc = sipd_direct_solve(&d0, &A, NULL, b, x0);
    T = sipd_now() - t0;
    CHECK(rc == SIPD_OK && rel_residual(&A, x0, b) < 1e-10, "reference solve (rc %d)", rc);
    printf("stop: %d unknowns, analyse + factorise + solve %.3f s\n", n, T);

    /* a request already raised: the call returns at once */
    sipd_stop_flag = 1;
    t0 = sipd_now();
    rc = sipd_direct_solve(&d1, &A, NULL, b, x);
    dt = sipd_now() - t0;
    sipd_stop_flag = 0;
    CHECK(rc == SIPD_ESIGNAL, "stop raised before the solve: rc %d", rc);
    printf("stop: raised before: returned after %.3f s\n", dt);
    CHECK(dt < 0.1 + T / 4, "stop raised before the solve: returned after %.3f s (the solve takes %.3f s)", dt, T);

    /* raised a third of the way into it */
    if (T > 0.15) {
        delay = T / 3;
        pthread_create(&th, NULL, raise_later, NULL);
        rc = sipd_direct_solve(&d2, &A, NULL, b, x);
        dt = sipd_now() - t_raised;
        pthread_join(th, NULL);
        sipd_stop_flag = 0;
        CHECK(rc == SIPD_ESIGNAL, "stop raised during the solve: rc %d", rc);
        CHECK(dt < 0.25, "stop raised during the solve: returned %.3f s after it (the solve takes %.3f s)", dt, T);
        printf("stop: raised %.3f s into it: returned %.3f s after the request\n", delay, dt);
    } else
        printf("stop: the solve takes %.3f s here: too short to interrupt in its middle (not checked)\n", T);

    /* CG */
    sipd_bsr_block_jacobi(&A, Pinv);
    sipd_stop_flag = 1;
    CHECK(sipd_pcg(&A, NULL, Pinv, b, x, 1000, 1e-12, work) == -1, "PCG with a stop request does not return -1");
    sipd_stop_flag = 0;

    /* the abandoned solves leave nothing behind that a new one sees */
    sipd_direct_free(&d1);
    sipd_direct_free(&d2);
    rc = sipd_direct_solve(&d3, &A, NULL, b, x);
    CHECK(rc == SIPD_OK && memcmp(x, x0, sizeof(double) * n) == 0, "a solve after the stops differs (rc %d)", rc);
    sipd_direct_free(&d0);
    sipd_direct_free(&d3);
    sipd_bsr_free(&A);
    mesh_free(&m);
    free(b), free(x0), free(x), free(Pinv), free(work);
}

static const test_case cases[] = {
    {"chol", .run = test_chol},
    {"stop", .run = test_stop},
};
static const test_program program = {"test_sparse", TEST_CASES(cases), .dflt = "chol"};
TEST_MAIN(program)
