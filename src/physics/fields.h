/* fields.h — per-element output fields (output.fields; docs/looking-at-results.md).
 *
 * What an analyst colours a result by, per element, from the same deformation gradient and the
 * same material functions the solver uses (tet.h, tri.h, edge.h, material.h):
 *   J               volume ratio (tets: det F; shells: area ratio |f0 × f1|; rods and springs: the
 *                   length ratio l/L)
 *   von_mises       von Mises equivalent of the Cauchy stress σ (Pa)
 *   energy_density  elastic energy per unit rest volume Ψ (J/m³ = Pa), 0 at rest
 *   strain          Green–Lagrange strain E = ½(FᵀF − I), 6 components in the order
 *                   xx, yy, zz, xy, yz, xz (VTK's symmetric-tensor order), world axes of the rest shape
 * Per kind:
 *   tets:      σ = P Fᵀ / J (undefined for J = 0: NaN), E = ½(FᵀF − I).
 *   shells:    the membrane only (bending is not included).  F is 3x2 from the triangle's rest-plane
 *              frame T = [u w] (tri.h) to the world; E₂ = ½(FᵀF − I₂) is written in world axes as
 *              T E₂ Tᵀ (in-plane; the thickness strain is not modelled, so its zz-like part is 0);
 *              σ = P Fᵀ / J with J the area ratio, i.e. the thickness taken as unchanged (plane stress:
 *              σ is in-plane); Ψ per unit rest volume (the membrane energy / (A t)).
 *   edges:     axial only (rod bending is not included).  N = k (l − L) the axial force, A = πr² the
 *              section (bodies[].radius; kept constant: the rod model has no lateral contraction),
 *              σ = N/A along the current tangent, von Mises = |σ|, Ψ = k (l − L)² / (2 A L),
 *              E = ½(λ² − 1) t tᵀ with λ = l/L and t the rest unit tangent.
 */
#ifndef SIPD_PHYSICS_FIELDS_H
#define SIPD_PHYSICS_FIELDS_H

#include "edge.h"
#include "material.h"
#include "tet.h"
#include "tri.h"

typedef struct {
    sipd_real J, von_mises, energy_density;
    sipd_real strain[6];   /* xx, yy, zz, xy, yz, xz */
} sipd_elem_fields;

/* von Mises equivalent of a symmetric stress (sym3 order xx, yy, zz, xy, xz, yz) */
SIPD_HD sipd_real field_von_mises(sym3 s)
{
    sipd_real a = s.s[0] - s.s[1], b = s.s[1] - s.s[2], c = s.s[2] - s.s[0];
    sipd_real q = SIPD_R(0.5) * (a * a + b * b + c * c) + 3 * (s.s[3] * s.s[3] + s.s[4] * s.s[4] + s.s[5] * s.s[5]);
    return sipd_sqrt(q > 0 ? q : SIPD_R(0));
}

/* sym3 (xx, yy, zz, xy, xz, yz) into the output order xx, yy, zz, xy, yz, xz */
SIPD_HD void field_store_sym(sym3 s, sipd_real out[6])
{
    out[0] = s.s[0]; out[1] = s.s[1]; out[2] = s.s[2];
    out[3] = s.s[3]; out[4] = s.s[5]; out[5] = s.s[4];
}

/* the symmetric part of a 3x3 as a sym3 */
SIPD_HD sym3 field_sym(mat3 a)
{
    sym3 r;
    r.s[0] = a.m[0]; r.s[1] = a.m[4]; r.s[2] = a.m[8];
    r.s[3] = SIPD_R(0.5) * (a.m[1] + a.m[3]);
    r.s[4] = SIPD_R(0.5) * (a.m[2] + a.m[6]);
    r.s[5] = SIPD_R(0.5) * (a.m[5] + a.m[7]);
    return r;
}

/* A tetrahedron with rest data Bm at corners y[0..3]. */
SIPD_HD sipd_elem_fields field_tet(const sipd_material *mat, const sipd_real *Bm, vec3 y0, vec3 y1, vec3 y2, vec3 y3)
{
    sipd_elem_fields o;
    mat3 F = tet_F(Bm, y0, y1, y2, y3), P = material_P(mat, F);
    mat3 E = m3_mul(m3_transpose(F), F);
    sipd_real J = m3_det(F);
    int i;
    o.J = J;
    o.energy_density = material_psi(mat, F);
    o.von_mises = J != 0 ? field_von_mises(field_sym(m3_mul(P, m3_transpose(F)))) / sipd_fabs(J) : (sipd_real)NAN;
    for (i = 0; i < 9; i++) E.m[i] *= SIPD_R(0.5);
    E.m[0] -= SIPD_R(0.5); E.m[4] -= SIPD_R(0.5); E.m[8] -= SIPD_R(0.5);
    field_store_sym(field_sym(E), o.strain);
    return o;
}

/* A membrane triangle: rest data Bm, rest corners x0..x2 (for its rest-plane frame), corners y0..y2. */
SIPD_HD sipd_elem_fields field_tri(const sipd_material *mat, const sipd_real *Bm, vec3 x0, vec3 x1, vec3 x2, vec3 y0,
                                   vec3 y1, vec3 y2)
{
    sipd_elem_fields o;
    vec3 f0, f1, p0, p1, u, w;
    sipd_real J, e00, e11, e01;
    mat3 S;
    sym3 E;
    int i, j;
    tri_F(Bm, y0, y1, y2, &f0, &f1);
    tri_eval(mat, SIPD_SPLIT_EXPANDED, f0, f1, &p0, &p1, (sym3 *)0);
    J = sipd_sqrt(v3_norm2(v3_cross(f0, f1)));
    o.J = J;
    /* from the rest state: the stable neo-Hookean membrane's Ψ keeps its rest value ½λ'(1 − α)² */
    o.energy_density = tri_psi(mat, f0, f1) - tri_psi(mat, v3(1, 0, 0), v3(0, 1, 0));
    for (i = 0; i < 3; i++)   /* P Fᵀ = p0 f0ᵀ + p1 f1ᵀ */
        for (j = 0; j < 3; j++) S.m[3 * i + j] = p0.v[i] * f0.v[j] + p1.v[i] * f1.v[j];
    o.von_mises = J > 0 ? field_von_mises(field_sym(S)) / J : (sipd_real)NAN;
    /* E₂ in the rest-plane frame, then T E₂ Tᵀ */
    e00 = SIPD_R(0.5) * (v3_norm2(f0) - 1);
    e11 = SIPD_R(0.5) * (v3_norm2(f1) - 1);
    e01 = SIPD_R(0.5) * v3_dot(f0, f1);
    if (!tri_rest_frame(x0, x1, x2, &u, &w))   /* a degenerate rest triangle (the model refuses them) */
        u = w = v3((sipd_real)NAN, (sipd_real)NAN, (sipd_real)NAN);
    E = s3_axpy(e00, s3_outer(u), s3_axpy(e11, s3_outer(w), s3_zero()));
    E.s[0] += 2 * e01 * u.v[0] * w.v[0];
    E.s[1] += 2 * e01 * u.v[1] * w.v[1];
    E.s[2] += 2 * e01 * u.v[2] * w.v[2];
    E.s[3] += e01 * (u.v[0] * w.v[1] + w.v[0] * u.v[1]);
    E.s[4] += e01 * (u.v[0] * w.v[2] + w.v[0] * u.v[2]);
    E.s[5] += e01 * (u.v[1] * w.v[2] + w.v[1] * u.v[2]);
    field_store_sym(E, o.strain);
    return o;
}

/* A spring or rod segment: rest length L, stiffness k, section area A, rest ends x0, x1, ends y0, y1. */
SIPD_HD sipd_elem_fields field_edge(sipd_real L, sipd_real k, sipd_real A, vec3 x0, vec3 x1, vec3 y0, vec3 y1)
{
    sipd_elem_fields o;
    vec3 t = v3_sub(x1, x0);
    sipd_real l = sipd_sqrt(v3_norm2(v3_sub(y1, y0))), lt = sipd_sqrt(v3_norm2(t)), lam = l / L;
    sipd_real e = SIPD_R(0.5) * (lam * lam - 1);
    sym3 E;
    o.J = lam;
    o.von_mises = sipd_fabs(k * (l - L)) / A;
    o.energy_density = SIPD_R(0.5) * k * (l - L) * (l - L) / (A * L);
    t = lt > 0 ? v3_scale(t, 1 / lt) : v3(0, 0, 0);
    E = s3_axpy(e, s3_outer(t), s3_zero());
    field_store_sym(E, o.strain);
    return o;
}

#endif
