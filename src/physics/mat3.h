/* mat3.h — 3-vectors, 3x3 matrices (row-major) and symmetric 3x3 matrices.
 * Small value types so that kernels keep them in registers. */
#ifndef SIPD_PHYSICS_MAT3_H
#define SIPD_PHYSICS_MAT3_H

#include "common.h"

typedef struct { sipd_real v[3]; } vec3;
typedef struct { sipd_real m[9]; } mat3;   /* m[3*i + j] = row i, column j           */
typedef struct { sipd_real s[6]; } sym3;   /* xx, yy, zz, xy, xz, yz                   */

SIPD_HD vec3 v3(sipd_real x, sipd_real y, sipd_real z) { vec3 r; r.v[0] = x; r.v[1] = y; r.v[2] = z; return r; }
SIPD_HD vec3 v3_load(const sipd_real *p) { return v3(p[0], p[1], p[2]); }
SIPD_HD void v3_store(sipd_real *p, vec3 a) { p[0] = a.v[0]; p[1] = a.v[1]; p[2] = a.v[2]; }
SIPD_HD vec3 v3_add(vec3 a, vec3 b) { return v3(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]); }
SIPD_HD vec3 v3_sub(vec3 a, vec3 b) { return v3(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]); }
SIPD_HD vec3 v3_scale(vec3 a, sipd_real s) { return v3(s * a.v[0], s * a.v[1], s * a.v[2]); }
SIPD_HD vec3 v3_axpy(sipd_real s, vec3 x, vec3 y) { return v3(s * x.v[0] + y.v[0], s * x.v[1] + y.v[1], s * x.v[2] + y.v[2]); }
SIPD_HD sipd_real v3_dot(vec3 a, vec3 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
SIPD_HD vec3 v3_cross(vec3 a, vec3 b)
{
    return v3(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
              a.v[0] * b.v[1] - a.v[1] * b.v[0]);
}
SIPD_HD sipd_real v3_norm2(vec3 a) { return v3_dot(a, a); }

SIPD_HD mat3 m3_zero(void) { mat3 r; int i; for (i = 0; i < 9; i++) r.m[i] = 0; return r; }
SIPD_HD mat3 m3_identity(void) { mat3 r = m3_zero(); r.m[0] = r.m[4] = r.m[8] = 1; return r; }
SIPD_HD vec3 m3_col(mat3 a, int j) { return v3(a.m[j], a.m[3 + j], a.m[6 + j]); }
SIPD_HD mat3 m3_from_cols(vec3 c0, vec3 c1, vec3 c2)
{
    mat3 r;
    int i;
    for (i = 0; i < 3; i++) { r.m[3 * i] = c0.v[i]; r.m[3 * i + 1] = c1.v[i]; r.m[3 * i + 2] = c2.v[i]; }
    return r;
}
SIPD_HD mat3 m3_mul(mat3 a, mat3 b)
{
    mat3 r;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            r.m[3 * i + j] = a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j];
    return r;
}
SIPD_HD mat3 m3_transpose(mat3 a)
{
    mat3 r;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) r.m[3 * i + j] = a.m[3 * j + i];
    return r;
}
SIPD_HD vec3 m3_mulv(mat3 a, vec3 x)
{
    return v3(a.m[0] * x.v[0] + a.m[1] * x.v[1] + a.m[2] * x.v[2],
              a.m[3] * x.v[0] + a.m[4] * x.v[1] + a.m[5] * x.v[2],
              a.m[6] * x.v[0] + a.m[7] * x.v[1] + a.m[8] * x.v[2]);
}
SIPD_HD sipd_real m3_det(mat3 a)
{
    return a.m[0] * (a.m[4] * a.m[8] - a.m[5] * a.m[7]) - a.m[1] * (a.m[3] * a.m[8] - a.m[5] * a.m[6]) +
           a.m[2] * (a.m[3] * a.m[7] - a.m[4] * a.m[6]);
}
/* Cofactor matrix: cof(F) = dJ/dF = J F^-T, defined for singular F too.
 * Its columns are f1 x f2, f2 x f0, f0 x f1 for the columns f_k of F. */
SIPD_HD mat3 m3_cof(mat3 a)
{
    mat3 c;
    c.m[0] = a.m[4] * a.m[8] - a.m[5] * a.m[7];
    c.m[1] = a.m[5] * a.m[6] - a.m[3] * a.m[8];
    c.m[2] = a.m[3] * a.m[7] - a.m[4] * a.m[6];
    c.m[3] = a.m[2] * a.m[7] - a.m[1] * a.m[8];
    c.m[4] = a.m[0] * a.m[8] - a.m[2] * a.m[6];
    c.m[5] = a.m[1] * a.m[6] - a.m[0] * a.m[7];
    c.m[6] = a.m[1] * a.m[5] - a.m[2] * a.m[4];
    c.m[7] = a.m[2] * a.m[3] - a.m[0] * a.m[5];
    c.m[8] = a.m[0] * a.m[4] - a.m[1] * a.m[3];
    return c;
}
/* Inverse through the cofactor; returns 0 (and leaves *inv untouched) when singular. */
SIPD_HD int m3_inverse(mat3 a, mat3 *inv)
{
    mat3 c = m3_cof(a);
    sipd_real d = a.m[0] * c.m[0] + a.m[1] * c.m[1] + a.m[2] * c.m[2];
    int i, j;
    if (d == 0 || !(sipd_fabs(d) < SIPD_R(1e300)))
        return 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) inv->m[3 * i + j] = c.m[3 * j + i] / d;
    return 1;
}
SIPD_HD sipd_real m3_frob2(mat3 a)
{
    sipd_real s = 0;
    int i;
    for (i = 0; i < 9; i++) s += a.m[i] * a.m[i];
    return s;
}

/* ---- symmetric 3x3 ---- */
SIPD_HD sym3 s3_zero(void) { sym3 r; int i; for (i = 0; i < 6; i++) r.s[i] = 0; return r; }
SIPD_HD sym3 s3_diag(sipd_real d) { sym3 r = s3_zero(); r.s[0] = r.s[1] = r.s[2] = d; return r; }
SIPD_HD sym3 s3_add(sym3 a, sym3 b) { sym3 r; int i; for (i = 0; i < 6; i++) r.s[i] = a.s[i] + b.s[i]; return r; }
SIPD_HD sym3 s3_axpy(sipd_real w, sym3 a, sym3 b) { sym3 r; int i; for (i = 0; i < 6; i++) r.s[i] = w * a.s[i] + b.s[i]; return r; }
SIPD_HD void s3_load(const sipd_real *p, sym3 *a) { int i; for (i = 0; i < 6; i++) a->s[i] = p[i]; }
SIPD_HD void s3_store(sipd_real *p, sym3 a) { int i; for (i = 0; i < 6; i++) p[i] = a.s[i]; }
/* A A^T */
SIPD_HD sym3 s3_aat(mat3 a)
{
    sym3 r;
    r.s[0] = a.m[0] * a.m[0] + a.m[1] * a.m[1] + a.m[2] * a.m[2];
    r.s[1] = a.m[3] * a.m[3] + a.m[4] * a.m[4] + a.m[5] * a.m[5];
    r.s[2] = a.m[6] * a.m[6] + a.m[7] * a.m[7] + a.m[8] * a.m[8];
    r.s[3] = a.m[0] * a.m[3] + a.m[1] * a.m[4] + a.m[2] * a.m[5];
    r.s[4] = a.m[0] * a.m[6] + a.m[1] * a.m[7] + a.m[2] * a.m[8];
    r.s[5] = a.m[3] * a.m[6] + a.m[4] * a.m[7] + a.m[5] * a.m[8];
    return r;
}
/* n n^T */
SIPD_HD sym3 s3_outer(vec3 n)
{
    sym3 r;
    r.s[0] = n.v[0] * n.v[0]; r.s[1] = n.v[1] * n.v[1]; r.s[2] = n.v[2] * n.v[2];
    r.s[3] = n.v[0] * n.v[1]; r.s[4] = n.v[0] * n.v[2]; r.s[5] = n.v[1] * n.v[2];
    return r;
}
SIPD_HD mat3 s3_to_m3(sym3 a)
{
    mat3 r;
    r.m[0] = a.s[0]; r.m[4] = a.s[1]; r.m[8] = a.s[2];
    r.m[1] = r.m[3] = a.s[3]; r.m[2] = r.m[6] = a.s[4]; r.m[5] = r.m[7] = a.s[5];
    return r;
}
SIPD_HD vec3 s3_mulv(sym3 a, vec3 x)
{
    return v3(a.s[0] * x.v[0] + a.s[3] * x.v[1] + a.s[4] * x.v[2],
              a.s[3] * x.v[0] + a.s[1] * x.v[1] + a.s[5] * x.v[2],
              a.s[4] * x.v[0] + a.s[5] * x.v[1] + a.s[2] * x.v[2]);
}

/* The Cholesky solve of A x = b (s3_solve's first try) with its three pivots into *piv: A is
 * positive definite when every pivot is > 0, and x is then the solution (otherwise meaningless:
 * NaN from the square root of a pivot < 0, or its successors').  On the host no branch, so a
 * loop over several blocks at once vectorises (the CPU's vertex pass, cpu_loops.h
 * cpu_vertex_acc_block, which tests the pivots afterwards); on the device it returns 0 at the
 * first pivot that is not > 0 (branch-free, k_vertex<0,0> took 58 registers instead of 56,
 * tests/gpu/check-registers.sh).  Returns 1 when it ran to the end. */
#ifdef __CUDA_ARCH__
#define S3_PIVOT_OR_RETURN(p) \
    if (!((p) > 0))           \
    return 0
#else
#define S3_PIVOT_OR_RETURN(p) (void)0
#endif
SIPD_HD SIPD_ALWAYS_INLINE int s3_chol_pivots(sym3 a, vec3 b, vec3 *x, vec3 *piv)
{
    sipd_real l00, l10, l20, l11, l21, l22, y0, y1, y2;
    piv->v[0] = a.s[0];
    S3_PIVOT_OR_RETURN(piv->v[0]);
    l00 = sipd_sqrt(piv->v[0]);
    l10 = a.s[3] / l00;
    l20 = a.s[4] / l00;
    piv->v[1] = a.s[1] - l10 * l10;
    S3_PIVOT_OR_RETURN(piv->v[1]);
    l11 = sipd_sqrt(piv->v[1]);
    l21 = (a.s[5] - l20 * l10) / l11;
    piv->v[2] = a.s[2] - l20 * l20 - l21 * l21;
    S3_PIVOT_OR_RETURN(piv->v[2]);
    l22 = sipd_sqrt(piv->v[2]);
    y0 = b.v[0] / l00;
    y1 = (b.v[1] - l10 * y0) / l11;
    y2 = (b.v[2] - l20 * y0 - l21 * y1) / l22;
    x->v[2] = y2 / l22;
    x->v[1] = (y1 - l21 * x->v[2]) / l11;
    x->v[0] = (y0 - l10 * x->v[1] - l20 * x->v[2]) / l00;
    return 1;
}
#undef S3_PIVOT_OR_RETURN
SIPD_HD int s3_pivots_positive(vec3 piv) { return piv.v[0] > 0 && piv.v[1] > 0 && piv.v[2] > 0; }

/* Solve A x = b for a symmetric A.  Cholesky when A is positive definite (the SIPD blocks
 * are, by construction of K+); otherwise falls back to the cofactor inverse (only the
 * "none" ablation can get there).  Returns 1 on success, 0 when A is singular (x = 0). */
SIPD_HD int s3_solve(sym3 a, vec3 b, vec3 *x)
{
    mat3 inv;
    vec3 piv;
#ifdef __CUDA_ARCH__
    if (s3_chol_pivots(a, b, x, &piv))   /* every pivot > 0 */
        return 1;
#else
    s3_chol_pivots(a, b, x, &piv);
    if (s3_pivots_positive(piv))
        return 1;
#endif
    if (!m3_inverse(s3_to_m3(a), &inv)) {
        *x = v3(0, 0, 0);
        return 0;
    }
    *x = m3_mulv(inv, b);
    return 1;
}

#endif
