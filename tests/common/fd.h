/* fd.h — central finite differences for the derivative checks (docs/testing.md, "Shared helpers").
 *
 *   fd_gradient(n, x, h, f, ctx, g)      g_i  = (f(x + h e_i) − f(x − h e_i)) / 2h
 *   fd_jacobian(n, m, x, h, F, ctx, J)   J_ij = (F_i(x + h e_j) − F_i(x − h e_j)) / 2h, m × n
 *                                        row-major: the Hessian from an analytic gradient (m = n)
 *   fd_hessian(n, x, h, f, ctx, H)       H_ij = (f(x+h e_i+h e_j) − f(x+h e_i−h e_j)
 *                                                − f(x−h e_i+h e_j) + f(x−h e_i−h e_j)) / 4h²,
 *                                        from the scalar alone (symmetric by construction)
 *   fd_rel_err(n, a, ref)                max_i |a_i − ref_i| / max_i |ref_i| (the scale of the
 *                                        reference, floored at 1e-300)
 *
 * x has n ≤ FD_MAX_N entries (the functions return -1 beyond, 0 otherwise) and is not modified:
 * the functions perturb a copy.  The error of a central difference is O(h²) in the third
 * derivative plus O(eps |f| / h) round-off; each test chooses h and its tolerance for its scales.
 * Header-only (static inline), C11 and C++.
 */
#ifndef SIPD_TEST_FD_H
#define SIPD_TEST_FD_H

#include <math.h>
#include <string.h>

enum { FD_MAX_N = 96 };

typedef double (*fd_scalar_fn)(const double *x, const void *ctx);
typedef void (*fd_vector_fn)(const double *x, const void *ctx, double *out);

static inline int fd_gradient(int n, const double *x, double h, fd_scalar_fn f, const void *ctx, double *g)
{
    double xp[FD_MAX_N];
    int i;
    if (n > FD_MAX_N)
        return -1;
    memcpy(xp, x, sizeof(double) * n);
    for (i = 0; i < n; i++) {
        double fp, fm;
        xp[i] = x[i] + h;
        fp = f(xp, ctx);
        xp[i] = x[i] - h;
        fm = f(xp, ctx);
        xp[i] = x[i];
        g[i] = (fp - fm) / (2 * h);
    }
    return 0;
}

static inline int fd_jacobian(int n, int m, const double *x, double h, fd_vector_fn F, const void *ctx, double *J)
{
    double xp[FD_MAX_N], fp[FD_MAX_N], fm[FD_MAX_N];
    int i, j;
    if (n > FD_MAX_N || m > FD_MAX_N)
        return -1;
    memcpy(xp, x, sizeof(double) * n);
    for (j = 0; j < n; j++) {
        xp[j] = x[j] + h;
        F(xp, ctx, fp);
        xp[j] = x[j] - h;
        F(xp, ctx, fm);
        xp[j] = x[j];
        for (i = 0; i < m; i++) J[n * i + j] = (fp[i] - fm[i]) / (2 * h);
    }
    return 0;
}

static inline int fd_hessian(int n, const double *x, double h, fd_scalar_fn f, const void *ctx, double *H)
{
    double xp[FD_MAX_N];
    int i, j, si, sj;
    if (n > FD_MAX_N)
        return -1;
    memcpy(xp, x, sizeof(double) * n);
    for (i = 0; i < n; i++)
        for (j = i; j < n; j++) {
            double s = 0;
            for (si = 1; si >= -1; si -= 2)
                for (sj = 1; sj >= -1; sj -= 2) {
                    /* two steps on the same coordinate when i == j: x_i ± 2h (or x_i itself) */
                    xp[i] += si * h;
                    xp[j] += sj * h;
                    s += si * sj * f(xp, ctx);
                    xp[i] = x[i];
                    xp[j] = x[j];
                }
            H[n * i + j] = H[n * j + i] = s / (4 * h * h);
        }
    return 0;
}

static inline double fd_rel_err(int n, const double *a, const double *ref)
{
    double d = 0, s = 1e-300;
    int i;
    for (i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - ref[i]));
        s = fmax(s, fabs(ref[i]));
    }
    return d / s;
}

#endif
