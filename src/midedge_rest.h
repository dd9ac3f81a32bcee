/* midedge_rest.h — the rest data of mid-edge bending (physics/midedge.h) for one shell body:
 * the fitted mid-edge slopes of its interior edges, each triangle's 12-vertex stencil, its
 * coefficients C, the metric W' with its free edges eliminated, and b̄. */
#ifndef SIPD_MIDEDGE_REST_H
#define SIPD_MIDEDGE_REST_H

/* Called once per element: the 12 corner vertices (offset by vo), the MIDEDGE_REST rest values
 * and the rest area; returns SIPD_OK or an error code, which stops the build. */
typedef int (*midedge_push_fn)(void *ctx, const int *v, const double *rest, double area);

/* Builds the elements of nf triangles tris (0-based into X, 3 per vertex) with bending stiffness
 * D and Poisson ratio nu; a triangle whose three edges are all free has no bending and no
 * element.  *nlow counts the interior edges whose stencil does not determine the slope of a
 * quadratic (too few vertices, or all on a conic that has a slope there): their slope is a
 * least-norm estimate, not exact for quadratics.  SIPD_OK, SIPD_EFAIL (memory). */
int midedge_rest_build(const double *X, const int *tris, int nf, int vo, double D, double nu, midedge_push_fn push,
                       void *ctx, int *nlow);

#endif
