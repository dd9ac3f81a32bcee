/* bench_model.h — the in-memory cantilever the benchmark tools share (tools/sipd-bench.c,
 * tools/gpu/sipd-ttt-gpu.c, tools/gpu/sipd-bench-gpu.c).  It builds a model, so it belongs to
 * the tools, above src/model.h: src/meshgen.* only generate meshes and do not include the model.
 *
 * Header-only on purpose: tools/CMakeLists.txt makes every .c file in tools/ a program, and
 * tools/bench-compare.sh builds OLD commits with this tree's tools/sipd-bench.c copied in; a
 * header copied next to it needs no build rule there (it uses only meshgen_box,
 * model_build_meshes and scene fields that commits back to dd4348c all have). */
#ifndef SIPD_TOOLS_BENCH_MODEL_H
#define SIPD_TOOLS_BENCH_MODEL_H

#include <string.h>

#include "mesh.h"
#include "meshgen.h"
#include "model.h"
#include "scene.h"
#include "util.h"

/* A box of nx*ny*nz cells and size lx*ly*lz, rubber (E = 1e6, ν = 0.45, ρ = 1000), clamped at
 * x = 0, gravity −9.81 y, dt = 1/60, one substep, tolerance 0.  sc points into *mat and *body
 * (no allocation; scene_free must not be called); the model is built into *m.  SIPD_OK or an
 * error. */
static int bench_model_cantilever(int nx, int ny, int nz, double lx, double ly, double lz, sipd_scene *sc,
                                  sipd_scene_material *mat, sipd_scene_body *body, sipd_model *m)
{
    sipd_mesh mesh;
    int rc = meshgen_box(nx, ny, nz, lx, ly, lz, &mesh);
    if (rc != SIPD_OK)
        return rc;
    memset(sc, 0, sizeof *sc);
    memset(mat, 0, sizeof *mat);
    memset(body, 0, sizeof *body);
    strcpy(mat->name, "rubber");
    mat->youngs = 1e6;
    mat->poisson = 0.45;
    mat->density = 1000;
    body->scale = 1;
    body->initial_stretch[0] = body->initial_stretch[1] = body->initial_stretch[2] = 1;
    body->npin = 1;
    body->pin[0].box_min[0] = body->pin[0].box_min[1] = body->pin[0].box_min[2] = -1;
    body->pin[0].box_max[0] = 1e-6 * lx;
    body->pin[0].box_max[1] = 2 * ly + 1;
    body->pin[0].box_max[2] = 2 * lz + 1;
    sc->dt = 1.0 / 60;
    sc->substeps = 1;
    sc->iterations = 100;
    sc->tolerance = 0;
    sc->omega = 1;
    sc->gravity[1] = -9.81;
    sc->friction_velocity = 1e-3;
    sc->nmaterials = 1;
    sc->materials = mat;
    sc->nbodies = 1;
    sc->bodies = body;
    rc = model_build_meshes(sc, &mesh, m);
    mesh_free(&mesh);
    return rc;
}

#endif
