/* nvcc_physics.cu — compile check: every shared physics header under nvcc, every SIPD_HD function
 * instantiated for the device (tests/unit/physics.cmake: physics_nvcc_compile[_double]; the list of
 * functions is kept complete by physics_nvcc_coverage).
 *
 * Compiled with -DSIPD_REAL_FLOAT (the CUDA backend's precision) and without it (double).
 * Nothing here runs: it only has to compile, warning-free, for sm_90.
 */
/* as kernels/backend_cuda.cu compiles them: the device forms (material.h's inline bodies with
   their out-of-line wrappers, the neo-Hookean Gauss–Seidel parts) */
#define SIPD_FIXED_SPECIALISED 1
#include "physics/common.h"
#include "physics/mat3.h"
#include "physics/material.h"
#include "physics/tet.h"
#include "physics/inertia.h"
#include "physics/kinematic.h"
#include "physics/eig.h"
#include "physics/hessian.h"
#include "physics/polar.h"
#include "physics/mixed.h"
#include "physics/contact.h"
#include "physics/distance.h"
#include "physics/broad.h"
#include "physics/ccd.h"
#include "kinds/kind.h"
#include "physics/edge.h"
#include "physics/tri.h"
#include "physics/bend.h"
#include "physics/midedge.h"
#include "physics/fields.h"

/* in: at least 64 reals; out: at least 64 reals; one thread is enough */
__global__ void sipd_physics_all(const sipd_real *in, sipd_real *out, int split)
{
    sipd_real acc = 0;
    /* common.h */
    acc += sipd_max(in[0], in[1]) + sipd_min(in[0], in[1]);
    acc += local_ls_accept(in[0], in[1], in[2], -in[3], in[4]);
    acc += sipd_mul_nc(in[0], in[1]);

    /* mat3.h: vectors */
    vec3 a = v3(in[0], in[1], in[2]);
    vec3 b = v3_load(in + 3);
    vec3 c = v3_add(a, b);
    c = v3_sub(c, v3_scale(b, in[6]));
    c = v3_axpy(in[7], a, c);
    c = v3_cross(c, b);
    acc += v3_dot(a, c) + v3_norm2(c);
    v3_store(out, c);

    /* mat3.h: 3x3 */
    mat3 F = m3_from_cols(a, b, c);
    mat3 G = m3_mul(m3_transpose(F), m3_identity());
    mat3 Z = m3_zero();
    mat3 Cf = m3_cof(G), Fi;
    vec3 col = m3_col(G, 1);
    acc += m3_det(G) + m3_frob2(Cf) + Z.m[0] + col.v[2];
    if (m3_inverse(G, &Fi)) acc += Fi.m[4];
    c = m3_mulv(Fi, col);

    /* mat3.h: symmetric 3x3 */
    sym3 S = s3_zero(), T;
    s3_load(in + 8, &T);
    S = s3_add(S, s3_diag(in[14]));
    S = s3_axpy(in[15], s3_aat(F), S);
    S = s3_add(S, s3_outer(c));
    S = s3_axpy(in[16], T, S);
    mat3 Sm = s3_to_m3(S);
    vec3 x;
    acc += Sm.m[1] + s3_solve(S, s3_mulv(S, a), &x);
    {
        vec3 piv = v3(0, 0, 0);   /* (the device returns at the first pivot <= 0, the rest unset) */
        acc += s3_chol_pivots(S, a, &x, &piv) + s3_pivots_positive(piv);
    }
    s3_store(out + 3, S);

    /* material.h */
    sipd_material mat = material_stable_neohookean(in[17], in[18]);
    mat3 P = material_P(&mat, F), P2;
    sym3 K = material_K(&mat, F), Kp;
    material_eval(&mat, split, F, &P2, &Kp);
    {
        mat3 Cs, Ps;
        acc += material_snh_eval_c(mat.mu, mat.lambda, mat.alpha, split, F, &Cs, &Ps) + Cs.m[2] + Ps.m[4];
    }
    acc += material_psi(&mat, F) + P.m[0] + P2.m[8] + K.s[3] + Kp.s[5];
    {   /* an unknown model: NaN, no fallback (the default branches) */
        sipd_material bad = material_make(split + SIPD_MAT_NMODELS, in[17], in[18]);
        acc += material_model_valid(bad.model) + material_psi(&bad, F);
    }
    {   /* the other models (their out-of-line evaluations) and their helpers */
        sipd_material om = material_make(1 + (split & 3), in[17], in[18]);
        sipd_real d1, d2, cc, trE;
        mat3 Ro, Po;
        sym3 So, Ko;
        material_eval(&om, split, F, &Po, &Ko);
        acc += material_psi(&om, F) + Po.m[1] + Ko.s[2] + material_K(&om, F).s[0] + material_P(&om, F).m[4];
        acc += material_nh_f(&om, in[5], &d1, &d2) + d1 + d2;
        acc += material_corot_parts(&om, F, &Ro, &So, &cc) + cc + material_stvk_S2(&om, F, &trE).s[1] + trE;
        {   /* the neo-Hookean Gauss–Seidel corner's parts (kinds/tet.h kind_tet_corner_nh) */
            mat3 Cn, Pn;
            sipd_real Jn, s1, s2;
            material_nh_P(&om, F, &Cn, &Jn, &s1, &s2, &Pn);
            acc += material_nh_c(split, Jn, s1, s2) + Pn.m[3];
            acc += material_K_eigfix_inline(om.mu, -in[6], Cn, split).s[1];
            acc += material_axpy_fma(in[7], So, Ko).s[4];
        }
    }

    /* tet.h */
    sipd_real Bm[9];
    vec3 y[4], grad[4];
    int i;
    for (i = 0; i < 4; i++) y[i] = v3_load(in + 20 + 3 * i);
    sipd_real vol = tet_rest(y[0], y[1], y[2], y[3], Bm);
    for (i = 0; i < 4; i++) y[i] = v3_add(y[i], v3_load(in + 32 + 3 * i));
    mat3 Ft = tet_F(Bm, y[0], y[1], y[2], y[3]);
    vec3 gN = tet_gradN(Bm, split & 3);
    tet_element(&mat, split, Bm, vol, y[0], y[1], y[2], y[3], grad, &Kp);
    vec3 gv = tet_vertex_gradient(&mat, split, Bm, vol, y[0], y[1], y[2], y[3], 2, &Kp);
    sipd_real ev;
    vec3 gw = tet_vertex_eval(&mat, split, Bm, vol, y[0], y[1], y[2], y[3], 1, &Kp, &ev);
    acc += ev + gw.v[0];
    vec3 gp = tet_pairwise_gradient(&mat, Bm, vol, y, 1);
    acc += tet_energy(&mat, Bm, vol, y[0], y[1], y[2], y[3]) + Ft.m[2] + gN.v[0] + grad[3].v[1] + gv.v[2] +
           gp.v[0];

    /* inertia.h */
    vec3 gi = inertia_gradient(in[44], in[45], a, b, c);
    acc += inertia_energy(in[44], in[45], a, b, c) + gi.v[1];

    /* kinematic.h */
    vec3 kp = kinematic_position(a, b, c, x, in[46]);
    acc += kp.v[0];

    /* eig.h */
    {
        sipd_real M[144], ev[12], V[144];
        vec3 e3;
        mat3 V3;
        for (i = 0; i < 144; i++) M[i] = in[i % 47] * in[(i / 12 + 12 * (i % 12)) % 47];
        sym_eig(12, M, ev, V);
        sym_project(9, M, split);
        s3_eig(S, &e3, &V3);
        sym3 Sp = s3_project(S, split);
        acc += ev[3] + V[17] + M[5] + e3.v[1] + V3.m[2] + Sp.s[4] + sym_project_value(in[3], split);
    }

    /* polar.h */
    {
        sipd_real DR[81];
        sipd_real qf[4];
        polar_rotation_quat(F, qf);
        mat3 Rq = polar_quat_to_rot(qf[0], qf[1], qf[2], qf[3]), Rp = polar_rotation(F), Rd;
        sym3 Sp;
        vec3 sp;
        mat3 Vp;
        polar_decompose(G, &Rd, &Sp);
        Sp = s3_add(Sp, polar_stretch(G, Rd));
        mat3 dR = polar_dR(Rd, Sp, F);
        s3_eig(Sp, &sp, &Vp);
        mat3 dR2 = polar_dR_eig(Rd, sp, Vp, polar_guard(sp), G);
        polar_dRdF(Rd, Sp, DR);
        acc += Rq.m[1] + Rp.m[2] + dR.m[3] + dR2.m[4] + DR[17];
        sipd_real R32[6], S32[3], dR32[6], D32[36];
        vec3 n32;
        polar_3x2(in, R32, S32, &n32);
        polar_3x2_dR(R32, S32, n32, in + 6, dR32);
        polar_3x2_dRdF(R32, S32, n32, D32);
        acc += R32[1] + S32[2] + dR32[3] + D32[7] + n32.v[0];
    }

    /* mixed.h */
    {
        sipd_real B[54], BJ[72], Kx[144], r[12], Hs[36], gs[6], sh[6], ds[6], lm[6], s6[6], g6[6], H6[36], dx[12];
        mat3 Rx;
        sym3 Sx;
        int k;
        polar_decompose(G, &Rx, &Sx);
        mixed_B(G, Rx, Sx, B);
        mixed_BJ(B, Bm, BJ);
        for (k = 0; k < 6; k++) s6[k] = Sx.s[k];
        for (k = 0; k < 12; k++) dx[k] = in[k];
        acc += mixed_frob2(s6, g6, H6) + mixed_det(s6, g6, H6) + mixed_psi(&mat, s6, g6, H6) + mixed_sym(split);
        acc += (sipd_real)mixed_model_valid(split);
        mixed_tet_shat(Bm, a, b, c, x, sh);
        mixed_tet_system(&mat, Bm, vol, a, b, c, x, s6, Kx, r, BJ, Hs, gs, sh);
        mixed_local_update(BJ, Hs, gs, sh, s6, dx, ds, lm);
        acc += mixed_tet_lagrangian(&mat, Bm, vol, a, b, c, x, s6, lm);
        acc += B[7] + BJ[9] + Kx[13] + r[2] + ds[3] + lm[4];
        {   /* element kinds: edges and membranes */
            const sipd_real sym3w[3] = {1, 1, 2};
            sipd_real Ke[81], re[9], BJe[27], He[9], ge[3], she[3], se[3], le[3], Ft2[6], R2[6], B2[18], Bt[4];
            vec3 n2 = v3(0, 0, 1);
            int q;
            for (q = 0; q < 4; q++) Bt[q] = Bm[q];
            se[0] = mixed_edge_shat(vol + 1, a, b);
            mixed_edge_system(vol + 1, mat.mu, a, b, se, Ke, re, BJe, He, ge, she);
            acc += mixed_edge_lagrangian(vol + 1, mat.mu, a, b, se, le) + (sipd_real)mixed_kind_stretch(split);
            acc += mixed_kind_sym(split, 2) + (sipd_real)mixed_tri_model_valid(split);
            mixed_tri_shat(Bt, a, b, c, se);
            mixed_tri_F(Bt, a, b, c, Ft2);
            polar_3x2(Ft2, R2, she, &n2);
            mixed_tri_B(Ft2, R2, she, n2, B2);
            acc += mixed_tri_psi(&mat, se, ge, He);
            mixed_tri_system(&mat, Bt, vol, a, b, c, se, Ke, re, BJe, He, ge, she);
            mixed_element_system(3, 9, vol, BJe, He, ge, she, se, Ke, re);
            mixed_local_update_n(3, 9, sym3w, BJe, He, ge, she, se, in, ds, le);
            acc += mixed_tri_lagrangian(&mat, Bt, vol, a, b, c, se, le) + Ke[3] + re[1] + B2[5] + le[0];
        }
    }

    /* hessian.h */
    {
        sipd_real D[81], He[144];
        material_dPdF(&mat, Ft, D);
        mat3 Hc = hess_contract(D, gN, a, vol);
        sym3 Bv = tet_vertex_block(&mat, Bm, vol, Ft, split & 3, split);
        sym3 Bs = tet_vertex_block_snh(&mat, Bm, vol, Ft, 2);
        acc += tet_vertex_block_psd(&mat, Bm, vol, Ft, 1).s[0];
        tet_element_hessian(&mat, Bm, vol, Ft, split, He);
        acc += D[40] + Hc.m[1] + Bv.s[3] + Bs.s[0] + He[77] + hess_levi(split, 1, 2) + hess_mode(split);
    }

    /* contact.h */
    {
        vec3 cg = v3(0, 0, 0), cn = v3(0, 0, 1);
        sym3 cD = s3_zero();
        sipd_real lam = friction_normal_force(b, cn, in[47], in[48], in[49]);
        acc += contact_plane_gap(a, cn, in[47]) + contact_plane_energy(a, cn, in[47], in[48], in[49]);
        acc += contact_plane_eval(a, cn, in[47], in[48], in[49], &cg, &cD);
        acc += friction_energy(a, b, cn, lam, in[50], in[51]) + friction_slip(a, b, cn).v[0];
        acc += friction_f0(in[52], in[51]) + friction_f1(in[52], in[51]) + friction_f1_over_x(in[52], in[51]);
        friction_eval(a, b, cn, lam, in[50], in[51], &cg, &cD);
        acc += cg.v[0] + cD.s[5];
        {   /* the friction anchor (stick memory) */
            vec3 o = v3(SIPD_R(0.1) * in[52], SIPD_R(-0.05) * in[52], SIPD_R(0.02) * in[52]);
            acc += friction_slip_off(a, b, o, cn).v[1] + friction_energy_off(a, b, o, cn, lam, in[50], in[51]);
            friction_eval_off(a, b, o, cn, lam, in[50], in[51], &cg, &cD);
            acc += friction_anchor_next(a, b, o, cn, in[51], 1).v[0] + cg.v[2] + cD.s[1];
        }
        {   /* pairs */
            vec3 ys[4] = {a, b, c, x};
            sipd_real beta[4] = {1, -in[53], -in[54], in[53] + in[54] - 1};
            vec3 z = contact_pair_combine(ys, beta, 4), z0 = contact_pair_combine(ys, beta, 3);
            sipd_real lp = friction_normal_force(z0, cn, 0, in[48], in[49]);
            acc += contact_point_energy(z, z0, v3(0, 0, 0), cn, in[47], in[48], in[49], lp, in[50], in[51]);
            acc += contact_point_eval(z, z0, v3(0, 0, 0), cn, in[47], in[48], in[49], lp, in[50], in[51], &cg, &cD);
            acc += contact_point_penetration(z, cn, in[47]);
            acc += cg.v[1] + cD.s[2] + contact_pair_jacobi_weight(beta, 4, 2);
        }
    }

    /* distance.h (collision detection) */
    {
        vec3 p = v3(in[55], in[56], in[57]), q = v3_load(in + 58), r = v3(in[61], in[62], in[63]);
        vec3 dn, lo, hi, lo2, hi2;
        sipd_real w[3], s, t, beta[4], gap;
        acc += dist_point_segment(p, a, b) + dist_point_triangle(p, a, b, c, w) + w[1];
        acc += dist_point_triangle2(q, a, b, c);
        acc += dist_edge_edge(p, q, a, r, &s, &t) + s + t + dist_segment_segment2(p, q, a, r);
        dn = dist_pair_normal(v3_sub(p, q), r, a, in[55]);
        acc += dn.v[2];
        acc += dist_vf_pair(p, a, b, c, q, a, b, r, in[63], beta, &dn, &gap) + beta[3] + gap + dn.v[0];
        acc += dist_ee_pair(p, q, a, r, b, q, a, c, in[63], beta, &dn, &gap) + beta[1] + gap + dn.v[1];
        acc += dist_plane_bary(p, a, b, c, w) + w[2];
        acc += dist_segment_params(p, q, a, r, &s, &t) + s + t;
        acc += dist_pair_offset(beta, in + 52) + dist_pair_offset(beta, NULL);
        {
            vec3 ys[4] = {p, q, a, r}, xs[4] = {b, q, a, c};
            acc += dist_candidate(1, ys, xs, in[63], in[60], 1, in + 56, 0, beta, &dn, &gap) + beta[2] + gap;
            acc += dist_candidate(0, ys, xs, in[63], in[60], 0, NULL, 1, beta, &dn, &gap) + dn.v[2];
        }
        aabb_of_motion(p, q, in[60], &lo, &hi);
        aabb_of_motion(a, r, in[60], &lo2, &hi2);
        acc += aabb_overlap(lo, hi, lo2, hi2);
        aabb_union(&lo, &hi, lo2, hi2);
        acc += aabb_outside(c, lo, hi) + hi.v[0];
    }
    /* ccd.h (contact.ccd's step filter) */
    {
        vec3 p = v3(in[55], in[56], in[57]), q = v3_load(in + 58), r = v3(in[61], in[62], in[63]);
        vec3 ys[4] = {p, q, a, r}, ds[4] = {b, c, q, a};
        acc += ccd_ball_scale(p, q, r, in[50]) + ccd_plane_scale(p, q, r, in[51]) + ccd_box_scale(p, q, a, r);
        acc += ccd_clear(in[53], in[54]) + ccd_pair_bound(in[55], in[56]);
        acc += ccd_distance(split & 1, ys) + ccd_pair_toi(split & 1, ys, ds, in[57], in[58]);
    }
    /* broad.h (the broad phase's grid; double on both sides) */
    {
        double X[6], blo[3], bhi[3], ext;
        int v[2] = {0, 1}, q0[3] = {0, 0, 0}, p0[3] = {split, 0, 0};
        broad_red red;
        broad_grid g;
        for (int i = 0; i < 6; i++) X[i] = (double)in[20 + i];
        broad_box(X, X, v, 2, (double)in[60], blo, bhi, &ext);
        for (int k = 0; k < 3; k++) {
            red.lo[k] = blo[k];
            red.hi[k] = bhi[k];
        }
        red.ext = ext;
        red = broad_red_join(red, red);
        if (broad_grid_setup(&g, red, 2)) {
            int cx = broad_cell(&g, X[0], 0);
            acc += (sipd_real)(broad_key(cx, 0, 0) & 7u) + (sipd_real)broad_overlap(blo, bhi, blo, bhi) +
                   (sipd_real)broad_reports_here(q0, p0, cx, 0, 0);
        }
    }

    /* kinds/kind.h (the kinds' sizes) */
    acc += (sipd_real)(kind_corners(split) + kind_rest_size(split) + kind_grad_size(split) +
                       kind_block_size(split, split) + kind_hessian_size(split) + kind_split_per_corner(split));

    /* edge.h (springs, rod bending) */
    {
        vec3 p0 = v3(in[30], in[31], in[32]), p1 = v3(in[33], in[34], in[35]), p2 = v3(in[36], in[37], in[38]);
        vec3 gr[3];
        sym3 B[3], W;
        mat3 J[3];
        sipd_real H[81], c;
        acc += spring_energy(in[40], in[41], p0, p1) + spring_gradient0(in[40], in[41], p0, p1).v[0] +
               spring_block_psd(in[40], in[41], p0, p1).s[0] +
               spring_kplus(in[40], in[41], p0, p1, split).s[1];
        spring_element_hessian(in[40], in[41], p0, p1, H);
        acc += H[7] + m3_skew(p0).m[1];
        acc += rod_kappa(p0, p1, p2, J).v[0] + J[1].m[4] + rod_bend_energy(in[42], in[43], p0, p1, p2);
        W = rod_bend_weights(in[42], in[43], p2, &c);
        acc += c + rod_sym(rod_jtwj(J[0], W, J[2])).s[3];
        rod_bend_element(in[42], in[43], p0, p1, p2, gr, B);
        rod_bend_element_hessian(in[42], in[43], p0, p1, p2, H);
        acc += gr[2].v[1] + B[1].s[5] + H[80];
    }

    /* tri.h (membranes), bend.h (hinges) */
    {
        vec3 p0 = v3(in[30], in[31], in[32]), p1 = v3(in[33], in[34], in[35]), p2 = v3(in[36], in[37], in[38]);
        vec3 p3 = v3(in[39], in[40], in[41]), f0, f1, n, g0, g1, q0, q1, gr[4];
        sipd_real Bm[4], gN[2], H[144];
        sym3 K, B[4];
        sipd_material tm = tri_material(split % SIPD_MAT_NMODELS, (double)in[44], 0.3);
        sipd_real F6[6];
        acc += tri_rest(p0, p1, p2, Bm);
        tri_gradN(Bm, split, gN);
        tri_F(Bm, p0, p1, p2, &f0, &f1);
        acc += gN[0] + tri_J(f0, f1, &n, &g0, &g1) + tri_psi(&tm, f0, f1);
        tri_eval(&tm, split, f0, f1, &q0, &q1, &K);
        tri_element(&tm, split, Bm, in[45], p0, p1, p2, gr, &K);
        acc += q0.v[0] + K.s[2] + gr[1].v[2] + tri_energy(&tm, Bm, in[45], p0, p1, p2);
        tri_dPdF(&tm, f0, f1, 1, H);
        acc += H[35] + tri_vertex_block_psd(&tm, Bm, in[45], f0, f1, split).s[0];
        tri_vertex_blocks_psd(&tm, Bm, in[45], f0, f1, B);
        tri_element_hessian(&tm, Bm, in[45], f0, f1, H);
        acc += B[2].s[1] + H[80];
        tri_F6(f0, f1, F6);
        acc += F6[3] + tri_psi_other(&tm, f0, f1);
        tri_eval_other(&tm, split, f0, f1, &q0, &q1, &K);
        tri_dPdF_other(&tm, f0, f1, H);
        acc += q1.v[1] + K.s[4] + H[7];
        acc += hinge_theta(p0, p1, p2, p3) + hinge_dtheta(in[46], in[47]) + hinge_energy(in[46], in[47], p0, p1, p2, p3);
        hinge_grad_theta(p0, p1, p2, p3, gr);
        acc += gr[3].v[0];
        hinge_element(in[46], in[47], p0, p1, p2, p3, gr, B);
        hinge_element_hessian(in[47], p0, p1, p2, p3, H);
        acc += gr[0].v[1] + B[3].s[4] + H[143];
    }

    /* midedge.h (mid-edge bending over a 12-vertex stencil; the rest data from in[]) */
    {
        vec3 y[MIDEDGE_NC], gr[MIDEDGE_NC], J[3];
        sym3 B[MIDEDGE_NC], Bl;
        sipd_real R[MIDEDGE_REST], x3[3] = {in[1], in[2], in[3]}, w3[3], e;
        midedge_state st;
        int j;
        for (j = 0; j < MIDEDGE_REST; j++) R[j] = in[j % 64];
        for (j = 0; j < MIDEDGE_NC; j++) y[j] = v3(in[j], in[j + 12], in[j + 24]);
        midedge_wmul(R + 36, x3, w3);
        midedge_eval(R, y, &st);
        midedge_jac(R, y, &st, split % MIDEDGE_NC, J);
        acc += w3[1] + st.r[2] + J[1].v[2] + midedge_energy(R, in[50], y);
        acc += midedge_m3_sym(midedge_pair(R + 36, in[50], J, J)).s[3];
        acc += midedge_corner(R, in[50], y, split % MIDEDGE_NC, &Bl, &e).v[1] + Bl.s[2] + e;
        midedge_element(R, in[50], y, gr, B, split & 1);
        acc += gr[11].v[0] + B[5].s[1];
    }
    /* fields.h (output fields) and tri.h's rest frame */
    {
        vec3 p0 = v3(in[30], in[31], in[32]), p1 = v3(in[33], in[34], in[35]), p2 = v3(in[36], in[37], in[38]);
        vec3 p3 = v3(in[39], in[40], in[41]), u, w;
        sipd_real Bm[9] = {in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8]}, s6[6];
        sipd_material mt = material_make(split % SIPD_MAT_NMODELS, (double)in[44], 0.3);
        sipd_elem_fields ft = field_tet(&mt, Bm, p0, p1, p2, p3);
        sipd_elem_fields fr = field_tri(&mt, Bm, p0, p1, p2, p1, p2, p3);
        sipd_elem_fields fe = field_edge(in[9], in[10], in[11], p0, p1, p2, p3);
        acc += tri_rest_frame(p0, p1, p2, &u, &w) + u.v[0] + w.v[1];
        acc += ft.von_mises + fr.J + fe.strain[4] + field_von_mises(s3_diag(in[12]));
        field_store_sym(field_sym(m3_identity()), s6);
        acc += s6[3];
    }
    {   /* the 36x36 Gauss–Newton Hessian: its own scope (5 KiB of local memory in float) */
        vec3 y[MIDEDGE_NC];
        sipd_real R[MIDEDGE_REST], H[9 * MIDEDGE_NC * MIDEDGE_NC];
        int j;
        for (j = 0; j < MIDEDGE_REST; j++) R[j] = in[(j + 7) % 64];
        for (j = 0; j < MIDEDGE_NC; j++) y[j] = v3(in[j + 3], in[j + 15], in[j + 27]);
        midedge_element_hessian(R, in[51], y, H);
        acc += H[1295];
    }

    out[9] = acc + x.v[0];
}
