/* host_material.h — the model's materials as seen from a float32 translation unit (the CUDA
 * backend, kernels/backend_cuda.cu; the float32 CPU backend, src/backend_cpu32.c).
 *
 * The model is built by C code in double precision (model.c): its sipd_material array has double
 * fields, while a unit compiled with SIPD_REAL_FLOAT sees the float32 sipd_material.
 * host_material_f64 mirrors the model's layout; host_materials_check tests the mirror against the
 * stable-neo-Hookean relation α = 1 + μ/λ (so a layout change is caught rather than read as
 * garbage) and host_materials_to converts the array.  Include it after SIPD_REAL_FLOAT is set.
 */
#ifndef SIPD_HOST_MATERIAL_H
#define SIPD_HOST_MATERIAL_H

#include <math.h>

#include "model.h"
#include "physics/material.h"

typedef struct {
    int model;
    double mu, lambda, alpha;
} host_material_f64;

static inline const host_material_f64 *host_materials(const sipd_model *m)
{
    return (const host_material_f64 *)(const void *)m->mats;
}

/* -1 when every material is a known model with plausible constants, else the first bad one's index */
static inline int host_materials_check(const sipd_model *m)
{
    const host_material_f64 *hm = host_materials(m);
    int i;
    for (i = 0; i < m->nmat; i++)
        if (!material_model_valid(hm[i].model) || !(hm[i].mu > 0) ||
            (hm[i].model == SIPD_MAT_STABLE_NEOHOOKEAN &&
             (!(hm[i].lambda > 0) || fabs(hm[i].alpha - (1 + hm[i].mu / hm[i].lambda)) > 1e-9 * hm[i].alpha)))
            return i;
    return -1;
}

/* the model's nmat materials into out[], in this unit's precision */
static inline void host_materials_to(const sipd_model *m, sipd_material *out)
{
    const host_material_f64 *hm = host_materials(m);
    int i;
    for (i = 0; i < m->nmat; i++) {
        out[i].model = hm[i].model;
        out[i].mu = (sipd_real)hm[i].mu;
        out[i].lambda = (sipd_real)hm[i].lambda;
        out[i].alpha = (sipd_real)hm[i].alpha;
    }
}

#endif
