/* fields.h — output.fields: the values written with every frame beside the positions
 * (docs/looking-at-results.md; the per-element physics in physics/fields.h).
 *
 * A host-side pass over the model at output time (it runs once per written frame): per vertex
 * displacement x − X (X = /mesh/rest_positions), velocity, contact force (from the backend's
 * contact_force op at the frame's last step; 0 at frame 0); per element J, von Mises stress,
 * energy density and Green–Lagrange strain of the tets, the shells' membrane triangles and the
 * edges (springs, rod segments), in the order of /mesh (tets, triangles, edges).
 */
#ifndef SIPD_FIELDS_H
#define SIPD_FIELDS_H

#include "h5out.h"
#include "model.h"
#include "scene.h"

typedef struct {
    int n;                               /* fields written (bits of sc->fields)           */
    int which[SIPD_FIELD_COUNT];         /* the sipd_field of entry i                     */
    sipd_h5_field spec[SIPD_FIELD_COUNT];/* entry i for h5out_add_fields                 */
    double *val[SIPD_FIELD_COUNT];       /* entry i's values of the last fields_compute   */
    int nel;                             /* elements in /mesh order: tets, triangles, edges */
    double *edge_area;                   /* per edge: the section area πr² of its body    */
} sipd_fields;

/* The fields sc->fields asks for (f->n = 0 when none). */
int fields_init(sipd_fields *f, const sipd_scene *sc, const sipd_model *m);
/* Every field at positions x, velocities v and contact forces fc (nv*3 each; v, fc may be NULL
 * when those fields are not asked for, fc NULL gives 0). */
int fields_compute(sipd_fields *f, const sipd_model *m, const double *x, const double *v, const double *fc);
void fields_free(sipd_fields *f);

#endif
