/* step_load.h — the "do nothing" state of a step, where both backends measure the step's load
 * (backend.h step_load: max|g| there, the driver's force scale; src/backend_cpu.c and
 * kernels/backend_cuda.cu step_load_eval): free vertices at their step-start position x,
 * Dirichlet ones where begin_step put them (their prescribed end-of-step position, already in
 * y).  Written once, per coordinate i of the 3 nv (a CPU loop, a grid-stride kernel); SIPD_HD,
 * in each translation unit's sipd_real.  Includes only physics/.
 */
#ifndef SIPD_STEP_LOAD_H
#define SIPD_STEP_LOAD_H

#include <stddef.h>

#include "physics/common.h"

/* Coordinate i of the "do nothing" state into y. */
SIPD_HD void step_load_state(const unsigned char *fixed, const sipd_real *x, sipd_real *y, size_t i)
{
    if (!fixed[i / 3])
        y[i] = x[i];
}

#endif
