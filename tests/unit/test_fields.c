/* test_fields.c — the per-element output fields (src/physics/fields.h) against computations that
 * do not use them: linear elasticity at small strain (uniaxial stress: von Mises = E ε, for the
 * solid and plane-stress membrane Lamé mappings), the Cauchy stress from finite differences of Ψ
 * (not material_P), a rigid rotation (no stress, no strain, J = 1, Ψ = 0), an isochoric shear
 * (J = 1), and the Green–Lagrange strain from the affine map's own ½(MᵀM − I).
 *   test_fields [solid|membrane|edge|all]
 */
#include <math.h>

#include "fixture.h"   /* CHECK, failures */
#include "runner.h"
#include "physics/fields.h"

static const double E_Y = 1.0e6, NU = 0.3;
static const int models[] = {SIPD_MAT_STABLE_NEOHOOKEAN, SIPD_MAT_NEOHOOKEAN, SIPD_MAT_COROTATIONAL, SIPD_MAT_STVK};
static const char *const model_names[] = {"stable-neohookean", "neohookean", "corotational", "stvk"};

/* a proper rotation from an axis and an angle (Rodrigues) */
static mat3 rotation(vec3 axis, double ang)
{
    double n = sqrt(v3_norm2(axis)), c = cos(ang), s = sin(ang);
    vec3 k = v3_scale(axis, 1 / n);
    mat3 R;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) R.m[3 * i + j] = (i == j ? c : 0) + (1 - c) * k.v[i] * k.v[j];
    R.m[1] -= s * k.v[2]; R.m[2] += s * k.v[1];
    R.m[3] += s * k.v[2]; R.m[5] -= s * k.v[0];
    R.m[6] -= s * k.v[1]; R.m[7] += s * k.v[0];
    return R;
}

/* the rest tet used throughout: irregular, positive volume */
static void rest_tet(vec3 x[4], double Bm[9])
{
    x[0] = v3(0.1, -0.2, 0.05);
    x[1] = v3(1.1, 0.1, -0.1);
    x[2] = v3(0.3, 0.9, 0.2);
    x[3] = v3(-0.1, 0.2, 1.2);
    tet_rest(x[0], x[1], x[2], x[3], Bm);
}

/* corners moved by y = M x */
static void map_corners(mat3 M, const vec3 *x, vec3 *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = m3_mulv(M, x[i]);
}

/* von Mises of σ = P Fᵀ / J with P from central differences of Ψ (not material_P) */
static double vm_fd(const sipd_material *mat, mat3 F)
{
    mat3 P, S;
    double J = m3_det(F);
    int i, j, k;
    sym3 s;
    for (i = 0; i < 9; i++) {
        double h = 1e-6;
        mat3 Fp = F, Fm = F;
        Fp.m[i] += h;
        Fm.m[i] -= h;
        P.m[i] = (material_psi(mat, Fp) - material_psi(mat, Fm)) / (2 * h);
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            S.m[3 * i + j] = 0;
            for (k = 0; k < 3; k++) S.m[3 * i + j] += P.m[3 * i + k] * F.m[3 * j + k];
        }
    s = field_sym(S);
    return sqrt(0.5 * ((s.s[0] - s.s[1]) * (s.s[0] - s.s[1]) + (s.s[1] - s.s[2]) * (s.s[1] - s.s[2]) +
                       (s.s[2] - s.s[0]) * (s.s[2] - s.s[0])) +
                3 * (s.s[3] * s.s[3] + s.s[4] * s.s[4] + s.s[5] * s.s[5])) / fabs(J);
}

/* ½(MᵀM − I) in the output order xx, yy, zz, xy, yz, xz */
static void green(mat3 M, double e[6])
{
    mat3 C = m3_mul(m3_transpose(M), M);
    e[0] = 0.5 * (C.m[0] - 1); e[1] = 0.5 * (C.m[4] - 1); e[2] = 0.5 * (C.m[8] - 1);
    e[3] = 0.5 * C.m[1]; e[4] = 0.5 * C.m[5]; e[5] = 0.5 * C.m[2];
}

static double maxdiff6(const double *a, const double *b)
{
    double d = 0;
    int i;
    for (i = 0; i < 6; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void test_solid(void)
{
    vec3 x[4], y[4];
    double Bm[9], e[6];
    const double eps = 1e-4;
    size_t mi;
    mat3 R = rotation(v3(0.3, -1.0, 0.4), 1.1), M, D;
    for (mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        sipd_material mat = material_make(models[mi], E_Y, NU);
        sipd_elem_fields f;
        const char *nm = model_names[mi];
        rest_tet(x, Bm);
        /* rigid rotation: nothing */
        map_corners(R, x, y, 4);
        f = field_tet(&mat, Bm, y[0], y[1], y[2], y[3]);
        CHECK(fabs(f.J - 1) < 1e-12 && f.von_mises < 1e-9 * E_Y && fabs(f.energy_density) < 1e-9 * E_Y,
              "%s rotation: J %.17g, von Mises %g, Ψ %g", nm, f.J, f.von_mises, f.energy_density);
        green(R, e);
        CHECK(maxdiff6(f.strain, e) < 1e-12 && fabs(f.strain[0]) < 1e-12, "%s rotation: strain %g", nm, f.strain[0]);
        /* uniaxial stress at small strain, rotated: linear elasticity gives σ_xx = E ε, the rest 0 */
        D = m3_identity();
        D.m[0] = 1 + eps;
        D.m[4] = D.m[8] = 1 - NU * eps;
        M = m3_mul(R, D);
        map_corners(M, x, y, 4);
        f = field_tet(&mat, Bm, y[0], y[1], y[2], y[3]);
        CHECK(fabs(f.von_mises - E_Y * eps) < 2e-3 * E_Y * eps, "%s uniaxial: von Mises %.9g, linear E ε %.9g", nm,
              f.von_mises, E_Y * eps);
        CHECK(fabs(f.energy_density - 0.5 * E_Y * eps * eps) < 2e-3 * 0.5 * E_Y * eps * eps,
              "%s uniaxial: Ψ %.9g, linear ½Eε² %.9g", nm, f.energy_density, 0.5 * E_Y * eps * eps);
        green(D, e);   /* the strain does not rotate with R: it lives on the rest shape */
        CHECK(maxdiff6(f.strain, e) < 1e-12, "%s uniaxial: strain xx %.12g vs %.12g", nm, f.strain[0], e[0]);
        CHECK(fabs(f.J - (1 + eps) * (1 - NU * eps) * (1 - NU * eps)) < 1e-12, "%s uniaxial: J %.17g", nm, f.J);
        /* large stretch + shear: σ from finite differences of Ψ, strain from ½(MᵀM − I) */
        M = m3_identity();
        M.m[0] = 1.4; M.m[1] = 0.3; M.m[4] = 0.8; M.m[5] = -0.2; M.m[8] = 1.1; M.m[6] = 0.1;
        M = m3_mul(R, M);
        map_corners(M, x, y, 4);
        f = field_tet(&mat, Bm, y[0], y[1], y[2], y[3]);
        {
            double vf = vm_fd(&mat, M);
            CHECK(fabs(f.von_mises - vf) < 1e-5 * vf, "%s large strain: von Mises %.9g, from FD of Ψ %.9g", nm,
                  f.von_mises, vf);
        }
        green(M, e);
        CHECK(maxdiff6(f.strain, e) < 1e-12, "%s large strain: strain differs by %g", nm, maxdiff6(f.strain, e));
        CHECK(fabs(f.J - m3_det(M)) < 1e-12, "%s large strain: J %.17g vs det %.17g", nm, f.J, m3_det(M));
        CHECK(fabs(f.energy_density - material_psi(&mat, M)) < 1e-9 * E_Y, "%s: Ψ", nm);
        /* isochoric simple shear: J = 1 */
        M = m3_identity();
        M.m[1] = 0.7;
        M = m3_mul(R, M);
        map_corners(M, x, y, 4);
        f = field_tet(&mat, Bm, y[0], y[1], y[2], y[3]);
        CHECK(fabs(f.J - 1) < 1e-12, "%s shear: J %.17g", nm, f.J);
        CHECK(fabs(f.strain[1] - 0.5 * 0.49) < 1e-12 && fabs(f.strain[3] - 0.35) < 1e-12,
              "%s shear: E_yy %.12g (0.245), E_xy %.12g (0.35)", nm, f.strain[1], f.strain[3]);
    }
    {   /* the von Mises helper: uniaxial |σ|, pure shear √3 τ */
        sym3 s = s3_zero();
        s.s[2] = -5;
        CHECK(fabs(field_von_mises(s) - 5) < 1e-12, "von Mises of uniaxial -5: %g", field_von_mises(s));
        s = s3_zero();
        s.s[5] = 2;
        CHECK(fabs(field_von_mises(s) - 2 * sqrt(3.0)) < 1e-12, "von Mises of shear 2: %g", field_von_mises(s));
    }
}

static void test_membrane(void)
{
    const double eps = 1e-4;
    /* u, w: set by tri_rest_frame (initialised for GCC's -Wmaybe-uninitialized) */
    vec3 x[3], y[3], u = v3(0, 0, 0), w = v3(0, 0, 0), n;
    double Bm[4], e[6];
    size_t mi;
    mat3 R = rotation(v3(1.0, 0.2, -0.5), 0.8), Q = rotation(v3(-0.2, 0.4, 1.0), 2.0);
    /* a rest triangle in a tilted plane: its corners in plane coordinates, mapped by Q */
    x[0] = m3_mulv(Q, v3(0, 0, 0));
    x[1] = m3_mulv(Q, v3(1.0, 0.1, 0));
    x[2] = m3_mulv(Q, v3(0.3, 0.8, 0));
    tri_rest(x[0], x[1], x[2], Bm);
    CHECK(tri_rest_frame(x[0], x[1], x[2], &u, &w), "rest frame");
    n = v3_cross(u, w);
    for (mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        sipd_material mat = tri_material(models[mi], E_Y, NU);
        const char *nm = model_names[mi];
        sipd_elem_fields f;
        mat3 D, M;
        int i, j;
        /* rigid rotation */
        map_corners(R, x, y, 3);
        f = field_tri(&mat, Bm, x[0], x[1], x[2], y[0], y[1], y[2]);
        CHECK(fabs(f.J - 1) < 1e-12 && f.von_mises < 1e-9 * E_Y && fabs(f.energy_density) < 1e-9 * E_Y,
              "%s membrane rotation: J %.17g, von Mises %g, Ψ %g", nm, f.J, f.von_mises, f.energy_density);
        CHECK(fabs(f.strain[0]) + fabs(f.strain[3]) < 1e-12, "%s membrane rotation: strain", nm);
        /* plane-stress uniaxial along a in-plane direction a, −ν ε across: von Mises = E ε */
        {
            vec3 a = v3_add(v3_scale(u, 0.6), v3_scale(w, 0.8)), b = v3_cross(n, a);
            D = m3_identity();
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++) D.m[3 * i + j] += eps * a.v[i] * a.v[j] - NU * eps * b.v[i] * b.v[j];
            M = m3_mul(R, D);
            map_corners(M, x, y, 3);
            f = field_tri(&mat, Bm, x[0], x[1], x[2], y[0], y[1], y[2]);
            CHECK(fabs(f.von_mises - E_Y * eps) < 2e-3 * E_Y * eps, "%s membrane uniaxial: von Mises %.9g vs E ε %.9g",
                  nm, f.von_mises, E_Y * eps);
            CHECK(fabs(f.energy_density - 0.5 * E_Y * eps * eps) < 2e-3 * 0.5 * E_Y * eps * eps,
                  "%s membrane uniaxial: Ψ %.9g vs ½Eε² %.9g", nm, f.energy_density, 0.5 * E_Y * eps * eps);
            CHECK(fabs(f.J - (1 + eps) * (1 - NU * eps)) < 1e-12, "%s membrane uniaxial: J %.17g", nm, f.J);
        }
        /* large in-plane strain: E = Π ½(MᵀM − I) Π, Π the rest plane's projector */
        M = m3_identity();
        M.m[0] = 1.3; M.m[1] = 0.2; M.m[3] = -0.1; M.m[4] = 0.9; M.m[2] = 0.3; M.m[8] = 0.7;
        M = m3_mul(R, M);
        map_corners(M, x, y, 3);
        f = field_tri(&mat, Bm, x[0], x[1], x[2], y[0], y[1], y[2]);
        {
            mat3 C = m3_mul(m3_transpose(M), M), P, G, T;
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++) {
                    P.m[3 * i + j] = (i == j) - n.v[i] * n.v[j];
                    C.m[3 * i + j] = 0.5 * (C.m[3 * i + j] - (i == j));
                }
            T = m3_mul(P, m3_mul(C, P));
            G = T;
            e[0] = G.m[0]; e[1] = G.m[4]; e[2] = G.m[8]; e[3] = G.m[1]; e[4] = G.m[5]; e[5] = G.m[2];
            CHECK(maxdiff6(f.strain, e) < 1e-12, "%s membrane strain differs by %g", nm, maxdiff6(f.strain, e));
            /* the area ratio */
            {
                double A0 = sqrt(v3_norm2(v3_cross(v3_sub(x[1], x[0]), v3_sub(x[2], x[0]))));
                double A1 = sqrt(v3_norm2(v3_cross(v3_sub(y[1], y[0]), v3_sub(y[2], y[0]))));
                CHECK(fabs(f.J - A1 / A0) < 1e-12, "%s membrane J %.17g vs area ratio %.17g", nm, f.J, A1 / A0);
            }
        }
    }
}

static void test_edge(void)
{
    const double L0 = 0.25, r = 0.002, A = 3.14159265358979323846 * r * r, k = E_Y * A / L0, lam = 1.07;
    vec3 x0 = v3(0.1, 0.2, 0.3), t = v3(0.48, 0.6, 0.64), x1 = v3_axpy(L0, t, x0);
    mat3 R = rotation(v3(0.2, 1.0, 0.1), 0.9);
    sipd_elem_fields f;
    double e[6] = {0};
    int i;
    /* rotated: nothing */
    f = field_edge(L0, k, A, x0, x1, m3_mulv(R, x0), m3_mulv(R, x1));
    CHECK(fabs(f.J - 1) < 1e-12 && f.von_mises < 1e-9 * E_Y && f.energy_density < 1e-9 * E_Y, "edge rotation");
    /* stretched by λ along its axis, then rotated: σ = E(λ − 1) (the rod's k = EA/L), Ψ = ½E(λ − 1)² */
    f = field_edge(L0, k, A, x0, x1, m3_mulv(R, x0), m3_mulv(R, v3_axpy(lam * L0, t, x0)));
    CHECK(fabs(f.J - lam) < 1e-12, "edge J %.17g", f.J);
    CHECK(fabs(f.von_mises - E_Y * (lam - 1)) < 1e-9 * E_Y, "edge stress %.9g vs E(λ − 1) %.9g", f.von_mises,
          E_Y * (lam - 1));
    CHECK(fabs(f.energy_density - 0.5 * E_Y * (lam - 1) * (lam - 1)) < 1e-9 * E_Y, "edge Ψ %.9g", f.energy_density);
    {   /* E = ½(λ² − 1) t tᵀ: a stretch λ along t is the map I + (λ − 1) t tᵀ */
        mat3 M = m3_identity();
        int j;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) M.m[3 * i + j] += (lam - 1) * t.v[i] * t.v[j];
        green(M, e);
        CHECK(maxdiff6(f.strain, e) < 1e-12, "edge strain differs by %g", maxdiff6(f.strain, e));
    }
    /* compressed: the same magnitude of stress */
    f = field_edge(L0, k, A, x0, x1, x0, v3_axpy(0.9 * L0, t, x0));
    CHECK(fabs(f.von_mises - E_Y * 0.1) < 1e-9 * E_Y, "edge compression stress %.9g", f.von_mises);
}

static const test_case cases[] = {
    {"solid", .run = test_solid},
    {"membrane", .run = test_membrane},
    {"edge", .run = test_edge},
};
static const test_program program = {"test_fields", TEST_CASES(cases), .dflt = "all", .all = 1};
TEST_MAIN(program)
