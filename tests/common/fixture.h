/* fixture.h — what the solver-level tests share: CHECK (check.h, included), a scratch
 * directory, generated box meshes, and a scene + model + sim loaded from scene text through the
 * real scene, mesh and model code.  Header-only (static functions): include it once per test
 * executable.
 */
#ifndef SIPD_TEST_FIXTURE_H
#define SIPD_TEST_FIXTURE_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "meshgen.h"
#include "model.h"
#include "scene.h"
#include "util.h"

#include "check.h"

static char scratch[512];

typedef struct {
    sipd_scene sc;
    sipd_model m;
    sipd_sim s;
} fixture;

/* Create the scratch directory /tmp/sipd_<prog>_<case>_<pid>. */
static inline int scratch_open(const char *prog, const char *which)
{
    char cmd[600];
    snprintf(scratch, sizeof scratch, "/tmp/sipd_%s_%s_%d", prog, which, (int)getpid());
    snprintf(cmd, sizeof cmd, "mkdir -p %s", scratch);
    return system(cmd) == 0 ? 0 : 1;
}

static inline void scratch_close(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", scratch);
}

/* Write a box mesh of nx*ny*nz cells and size lx*ly*lz as TetGen files; base name in out. */
static inline int write_box(char *out, size_t n, int nx, int ny, int nz, double lx, double ly, double lz)
{
    sipd_mesh mesh;
    int rc;
    snprintf(out, n, "%s/box_%d_%d_%d_%g_%g_%g", scratch, nx, ny, nz, lx, ly, lz);
    if (meshgen_box(nx, ny, nz, lx, ly, lz, &mesh) != SIPD_OK)
        return 1;
    rc = mesh_write_tetgen(out, &mesh) != SIPD_OK;
    mesh_free(&mesh);
    return rc;
}

/* Write `text` as scratch/<tag>.cfg and load scene, model and a sim on `ops` (threads 0).
 * On failure nothing stays allocated. */
static inline int fixture_load_ops(fixture *f, const char *text, const char *tag, const sipd_backend_ops *ops)
{
    char cfg[700];
    sipd_backend_params bp;
    FILE *fp;
    memset(f, 0, sizeof *f);
    snprintf(cfg, sizeof cfg, "%s/%s.cfg", scratch, tag);
    fp = fopen(cfg, "w");
    if (!fp)
        return 1;
    fputs(text, fp);
    fclose(fp);
    if (scene_load(cfg, &f->sc) != SIPD_OK)
        return 1;
    if (model_build(&f->sc, &f->m) != SIPD_OK) {
        scene_free(&f->sc);
        return 1;
    }
    sim_backend_params(&f->sc, 0, &bp);
    if (sim_init(&f->s, &f->sc, &f->m, ops, &bp) != SIPD_OK) {
        model_free(&f->m);
        scene_free(&f->sc);
        return 1;
    }
    return 0;
}

/* The same on the CPU backend, as scratch/scene.cfg. */
static inline int fixture_load(fixture *f, const char *text)
{
    return fixture_load_ops(f, text, "scene", &sipd_backend_cpu);
}

static inline void fixture_free(fixture *f)
{
    sim_free(&f->s);
    model_free(&f->m);
    scene_free(&f->sc);
}

#endif
