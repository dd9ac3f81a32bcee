/* eig.h — small symmetric eigen-decompositions (n <= 12) and PSD projections.
 *
 * Used by the eigenvalue-based baselines: the "clamp"/"abs" splits of K (material.h), the
 * PSD-projected VBD blocks and element Hessians of the comparison solvers (hessian.h).
 * Cyclic Jacobi rotations: unconditionally stable, accurate to round-off (also for small
 * eigenvalues), branch-light and with a fixed sweep cap, so it is usable in CUDA kernels.
 * Matrices are row-major n×n arrays; no allocation (the caller provides the storage; the
 * projections keep at most one 12x12 matrix plus 12 values on the stack).
 */
#ifndef SIPD_PHYSICS_EIG_H
#define SIPD_PHYSICS_EIG_H

#include "mat3.h"

/* Projection modes (sym_project, s3_project, and the project argument of hessian.h):
 *   NONE   leave the matrix as is
 *   CLAMP  λ_i -> max(λ_i, 0)     (the nearest PSD matrix in the Frobenius norm)
 *   ABS    λ_i -> |λ_i|           (the "absolute eigenvalue" projection)           */
enum { SIPD_PROJECT_NONE = 0, SIPD_PROJECT_CLAMP = 1, SIPD_PROJECT_ABS = 2 };

#define SIPD_EIG_NMAX 12
#ifndef SIPD_EIG_SWEEPS
#define SIPD_EIG_SWEEPS 16 /* sweep cap; measured n = 12: 6-9 typical, <= 12 with repeated eigenvalues */
#endif
#ifdef SIPD_REAL_FLOAT
#define SIPD_EIG_EPS SIPD_R(1e-7)
#else
#define SIPD_EIG_EPS SIPD_R(1e-15)
#endif

/* Eigen-decomposition of the symmetric n×n matrix A (row-major, 1 <= n <= 12):
 * A = V diag(evals) Vᵀ with V orthonormal, eigenvectors in the columns (V[n*r + i] is row r of
 * eigenvector i).  Eigenvalues are not sorted.  A is overwritten (it ends up ~diagonal).
 * Only the symmetric part of A is meaningful; A should be symmetric on input. */
SIPD_HD void sym_eig(int n, sipd_real *A, sipd_real *evals, sipd_real *V)
{
    int sweep, p, q, r;
    for (p = 0; p < n; p++)
        for (q = 0; q < n; q++) V[n * p + q] = (p == q) ? SIPD_R(1) : SIPD_R(0);
    for (sweep = 0; sweep < SIPD_EIG_SWEEPS; sweep++) {
        sipd_real off = 0, tot = 0, tiny;
        for (p = 0; p < n; p++) {
            tot += A[n * p + p] * A[n * p + p];
            for (q = p + 1; q < n; q++) off += A[n * p + q] * A[n * p + q];
        }
        tot += 2 * off;
        if (off <= SIPD_EIG_EPS * SIPD_EIG_EPS * tot)
            break;
        tiny = SIPD_R(0.01) * SIPD_EIG_EPS * sipd_sqrt(tot);
        for (p = 0; p < n - 1; p++)
            for (q = p + 1; q < n; q++) {
                sipd_real apq = A[n * p + q], theta, t, c, s;
                if (sipd_fabs(apq) <= tiny) {
                    /* negligible against |A| (error below round-off): zero it without rotating.
                     * Rotating would be harmless in exact arithmetic, but between (nearly) equal
                     * diagonal entries it is a large-angle rotation that shuffles the remaining
                     * off-diagonal mass and turns the convergence linear (repeated eigenvalues). */
                    A[n * p + q] = A[n * q + p] = 0;
                    continue;
                }
                /* rotation angle φ with cot 2φ = θ; t = tan φ, the smaller root */
                theta = (A[n * q + q] - A[n * p + p]) / (2 * apq);
                if (sipd_fabs(theta) > SIPD_R(1e15))
                    t = SIPD_R(0.5) / theta;
                else {
                    t = SIPD_R(1) / (sipd_fabs(theta) + sipd_sqrt(theta * theta + 1));
                    if (theta < 0)
                        t = -t;
                }
                c = SIPD_R(1) / sipd_sqrt(t * t + 1);
                s = t * c;
                A[n * p + p] -= t * apq;
                A[n * q + q] += t * apq;
                A[n * p + q] = A[n * q + p] = 0;
                for (r = 0; r < n; r++) {
                    sipd_real arp, arq, vrp, vrq;
                    if (r != p && r != q) {
                        arp = A[n * r + p];
                        arq = A[n * r + q];
                        A[n * r + p] = A[n * p + r] = c * arp - s * arq;
                        A[n * r + q] = A[n * q + r] = s * arp + c * arq;
                    }
                    vrp = V[n * r + p];
                    vrq = V[n * r + q];
                    V[n * r + p] = c * vrp - s * vrq;
                    V[n * r + q] = s * vrp + c * vrq;
                }
            }
    }
    for (p = 0; p < n; p++) evals[p] = A[n * p + p];
}

/* The projected eigenvalue for a mode. */
SIPD_HD sipd_real sym_project_value(sipd_real l, int mode)
{
    if (mode == SIPD_PROJECT_ABS)
        return sipd_fabs(l);
    if (mode == SIPD_PROJECT_NONE)
        return l;
    return sipd_max(l, 0);
}

/* In place: A <- V diag(f(λ)) Vᵀ with f from the mode (CLAMP, ABS; NONE leaves A alone).
 * A PSD input comes back equal to itself up to round-off (clamp and abs alike). */
SIPD_HD void sym_project(int n, sipd_real *A, int mode)
{
    sipd_real V[SIPD_EIG_NMAX * SIPD_EIG_NMAX], ev[SIPD_EIG_NMAX];
    int i, j, k;
    if (mode == SIPD_PROJECT_NONE)
        return;
    sym_eig(n, A, ev, V);
    for (k = 0; k < n; k++) ev[k] = sym_project_value(ev[k], mode);
    for (i = 0; i < n; i++)
        for (j = i; j < n; j++) {
            sipd_real s = 0;
            for (k = 0; k < n; k++) s += V[n * i + k] * ev[k] * V[n * j + k];
            A[n * i + j] = A[n * j + i] = s;
        }
}

/* 3x3 symmetric eigen-decomposition on a sym3 (evals unsorted, eigenvectors = columns of *V). */
SIPD_HD void s3_eig(sym3 A, vec3 *evals, mat3 *V)
{
    mat3 M = s3_to_m3(A);
    sym_eig(3, M.m, evals->v, V->m);
}

/* 3x3 convenience: the projection of a sym3.  Only modifies the negative eigen-directions
 * (K + Σ_{λ_i<0} (f(λ_i) − λ_i) v_i v_iᵀ), so a PSD input is returned bit-for-bit. */
SIPD_HD sym3 s3_project(sym3 A, int mode)
{
    vec3 ev;
    mat3 V;
    sym3 R = A;
    int i;
    if (mode == SIPD_PROJECT_NONE)
        return A;
    s3_eig(A, &ev, &V);
    for (i = 0; i < 3; i++)
        if (ev.v[i] < 0)
            R = s3_axpy(sym_project_value(ev.v[i], mode) - ev.v[i], s3_outer(m3_col(V, i)), R);
    return R;
}

#endif
