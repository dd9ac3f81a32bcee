/* test_scene.c — scene loader tests.
 *
 *   test_scene full|minimal|roundtrip|accepted|names|missing_file|models SCENES_DIR
 *   test_scene bad FIXTURE.cfg
 *
 * A bad fixture's first line says what must happen:  "# expect: LINE KEY TEXT"
 * scene_load must return SIPD_EINPUT and print exactly one line on stderr that starts with
 * "FIXTURE.cfg:LINE: " and contains KEY (unless KEY is "-") and TEXT.
 */
#define _POSIX_C_SOURCE 200809L
#include "model.h"
#include "scene.h"
#include "util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runner.h"

#define CHECK_STR(a, b)                                                                          \
    do {                                                                                         \
        const char *a_ = (a), *b_ = (b);                                                         \
        CHECK(a_ && b_ && strcmp(a_, b_) == 0, "%s == %s (\"%s\" vs \"%s\")", #a, #b,          \
              a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                           \
    } while (0)
#define CHECK_V3(v, x, y, z) CHECK((v)[0] == (x) && (v)[1] == (y) && (v)[2] == (z))

static const char *scenes;

/* Load with stderr captured; returns the captured text (malloc'ed). */
static char *load_captured(const char *path, sipd_scene *sc, int *rc)
{
    FILE *tmp = tmpfile();
    int saved;
    char *text;
    long n;
    if (!tmp) {
        perror("tmpfile");
        exit(1);
    }
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(tmp), 2);
    *rc = scene_load(path, sc);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(tmp, 0, SEEK_END);
    n = ftell(tmp);
    rewind(tmp);
    text = calloc((size_t)n + 1, 1);
    if (!text || fread(text, 1, (size_t)n, tmp) != (size_t)n) {
        fprintf(stderr, "reading captured stderr failed\n");
        exit(1);
    }
    fclose(tmp);
    return text;
}

/* A scene that must load silently. */
static int load_ok(const char *path, sipd_scene *sc)
{
    int rc;
    char *err = load_captured(path, sc, &rc);
    if (rc != SIPD_OK || err[0]) {
        fprintf(stderr, "%s: expected to load, rc=%d, stderr:\n%s", path, rc, err);
        failures++;
    }
    free(err);
    return rc;
}

static char *data_path(const char *name)
{
    char *p = sipd_path_join(scenes, name);
    if (!p)
        exit(1);
    return p;
}

/* ---------------------------------------------------------------- full / minimal */

static void check_full(const sipd_scene *sc, const char *dir)
{
    char buf[4096];
    CHECK(sc->dt == 0.005);
    CHECK(sc->substeps == 4);
    CHECK(sc->frames == 120);
    CHECK(sc->quasistatic == 1);
    CHECK(sc->method == SIPD_METHOD_SIPD);
    CHECK(sc->sweep == SIPD_SWEEP_GS);
    CHECK(sc->iterations == 250);
    CHECK(sc->tolerance == 1.0e-6);
    CHECK(sc->line_search == SIPD_LS_ALWAYS);
    CHECK(sc->projection == SIPD_PROJ_SIGN);
    CHECK(sc->chebyshev == 1);
    CHECK(sc->chebyshev_rho == 0.95);
    CHECK(sc->omega == 1.3);
    CHECK(sc->device == SIPD_DEVICE_CPU);
    CHECK(sc->precision == SIPD_PRECISION_FLOAT64);
    CHECK_V3(sc->gravity, 0.0, 0.0, -9.8);

    CHECK(sc->nmaterials == 2);
    if (sc->nmaterials == 2) {
        CHECK_STR(sc->materials[0].name, "rubber");
        CHECK(sc->materials[0].model == SIPD_MAT_STABLE_NEOHOOKEAN);
        CHECK(sc->materials[0].youngs == 1.0e6);
        CHECK(sc->materials[0].poisson == 0.45);
        CHECK(sc->materials[0].density == 1100.0);
        CHECK_STR(sc->materials[1].name, "foam");
        CHECK(sc->materials[1].youngs == 2.5e4);
        CHECK(sc->materials[1].poisson == -0.2);
        CHECK(sc->materials[1].density == 1000.0);
    }

    CHECK(sc->nbodies == 3);
    CHECK(sc->self_contact == 1 && sc->detect_every == 4);
    if (sc->nbodies == 3) {
        const sipd_scene_body *b = &sc->bodies[0];
        snprintf(buf, sizeof buf, "%s/meshes/tet.msh", dir);
        CHECK_STR(b->mesh, buf);
        CHECK(b->material == 1);
        CHECK_V3(b->translate, 0.0, 1.0, 0.0);
        CHECK_V3(b->rotate_deg, 90.0, 0.0, 45.0);
        CHECK(b->scale == 2.0);
        CHECK_V3(b->velocity, 0.5, 0.0, 0.0);
        CHECK(b->npin == 1);
        CHECK_V3(b->pin[0].box_min, -0.01, -1.0, -1.0);
        CHECK_V3(b->pin[0].box_max, 0.01, 2.0, 2.0);
        CHECK(b->initial_positions == NULL);
        CHECK(b->nmove == 1);
        CHECK_V3(b->move[0].box.box_min, 0.99, -1.0, -1.0);
        CHECK_V3(b->move[0].box.box_max, 1.01, 2.0, 2.0);
        CHECK_V3(b->move[0].velocity, 0.1, 0.0, 0.0);
        CHECK_V3(b->move[0].angular_velocity, 0.0, 0.0, 3.14159);
        CHECK_V3(b->move[0].center, 0.5 * (0.99 + 1.01), 0.5, 0.5); /* default: box centre */

        b = &sc->bodies[1];
        snprintf(buf, sizeof buf, "%s/tet", dir);
        CHECK_STR(b->mesh, buf);
        CHECK(b->material == 0);
        snprintf(buf, sizeof buf, "%s/tet.node", dir);
        CHECK_STR(b->initial_positions, buf);
        CHECK_V3(b->translate, 0.0, 0.0, 0.0);
        CHECK(b->scale == 1.0);
        CHECK(b->npin == 2);
        CHECK_V3(b->pin[0].box_min, 0.0, 0.0, 0.0);
        CHECK_V3(b->pin[0].box_max, 0.1, 0.1, 0.1);
        CHECK_V3(b->pin[1].box_min, 0.9, 0.9, 0.9);
        CHECK_V3(b->pin[1].box_max, 1.0, 1.0, 1.0);
        CHECK(b->nmove == 1);
        CHECK_V3(b->move[0].center, 5.0, 6.0, 7.0);
        CHECK_V3(b->move[0].velocity, 0.0, 0.0, 0.0);
        CHECK_V3(b->move[0].angular_velocity, 0.0, 0.0, 0.0);
        CHECK(b->obstacle == 0);

        b = &sc->bodies[2];
        CHECK(b->obstacle == 1 && b->center_set == 1);
        CHECK_V3(b->velocity, 0.0, 0.25, 0.0);
        CHECK_V3(b->angular_velocity, 0.0, 2.0, 0.0);
        CHECK_V3(b->center, 1.0, 2.0, 3.0);
        CHECK(b->npin == 0 && b->nmove == 0);
    }

    snprintf(buf, sizeof buf, "%s/out/full.h5", dir);
    CHECK_STR(sc->output_file, buf);
    CHECK(sc->output_every == 2);
    CHECK(sc->compression == 9);
    CHECK(sc->xdmf == 0);
    CHECK(sc->fields == ((1u << SIPD_FIELD_STRAIN) | (1u << SIPD_FIELD_DISPLACEMENT)));
}

static void test_full(void)
{
    sipd_scene sc;
    char *path = data_path("full.cfg");
    if (load_ok(path, &sc) == SIPD_OK) {
        check_full(&sc, scenes);
        CHECK_STR(sc.path, path);
        CHECK_STR(sc.dir, scenes);
        CHECK(sc.text && strstr(sc.text, "gauss-seidel"));
    }
    scene_free(&sc);
    scene_free(&sc); /* idempotent */
    free(path);
}

static void check_defaults(const sipd_scene *sc)
{
    CHECK(sc->dt == 1.0 / 60.0);
    CHECK(sc->substeps == 1);
    CHECK(sc->frames == 60);
    CHECK(sc->quasistatic == 0);
    CHECK(sc->method == SIPD_METHOD_SIPD);
    CHECK(sc->sweep == SIPD_SWEEP_JACOBI);
    CHECK(sc->iterations == 1000);
    CHECK(sc->coarse_levels == 2);   /* "auto" (printed as resolved): on for plain sipd Jacobi */
    CHECK(sc->tolerance == 1e-5);
    CHECK(sc->line_search == SIPD_LS_AUTO);
    CHECK(sc->projection == SIPD_PROJ_EXPANDED);
    CHECK(sc->chebyshev == 0);
    CHECK(sc->chebyshev_rho == 0.0);
    CHECK(sc->omega == 1.0);
    CHECK(sc->device == SIPD_DEVICE_AUTO);
    CHECK(sc->precision == SIPD_PRECISION_AUTO);
    CHECK_V3(sc->gravity, 0.0, -9.81, 0.0);
    CHECK(sc->nmaterials == 1);
    if (sc->nmaterials == 1) {
        CHECK(sc->materials[0].model == SIPD_MAT_STABLE_NEOHOOKEAN);
        CHECK(sc->materials[0].density == 1000.0);
    }
    CHECK(sc->nbodies == 1);
    if (sc->nbodies == 1) {
        const sipd_scene_body *b = &sc->bodies[0];
        CHECK(b->material == 0);
        CHECK(b->initial_positions == NULL);
        CHECK_V3(b->translate, 0.0, 0.0, 0.0);
        CHECK_V3(b->rotate_deg, 0.0, 0.0, 0.0);
        CHECK(b->scale == 1.0);
        CHECK_V3(b->velocity, 0.0, 0.0, 0.0);
        CHECK(b->npin == 0);
        CHECK(b->nmove == 0);
    }
    CHECK(sc->output_every == 1);
    CHECK(sc->compression == 4);
    CHECK(sc->xdmf == 1);
    CHECK(sc->fields == 0);
}

static void test_minimal(void)
{
    sipd_scene sc;
    char buf[4096];
    char *path = data_path("minimal.cfg");
    if (load_ok(path, &sc) == SIPD_OK) {
        check_defaults(&sc);
        CHECK_STR(sc.materials[0].name, "rubber");
        CHECK(sc.materials[0].youngs == 1.0e6);
        CHECK(sc.materials[0].poisson == 0.45);
        snprintf(buf, sizeof buf, "%s/tet", scenes);
        CHECK_STR(sc.bodies[0].mesh, buf);
        /* default output is relative to the current directory, not the scene's */
        CHECK_STR(sc.output_file, "results/minimal.h5");
    }
    scene_free(&sc);
    free(path);
}

/* ---------------------------------------------------------------- round trip */

static char *abs_path(const char *p)
{
    char cwd[4096];
    if (!p)
        return NULL;
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
        return sipd_path_join(NULL, p);
    return sipd_path_join(cwd, p);
}

static void check_same_path(const char *a, const char *b)
{
    char *x = abs_path(a), *y = abs_path(b);
    CHECK_STR(x, y);
    free(x);
    free(y);
}

static void check_same(const sipd_scene *a, const sipd_scene *b)
{
    CHECK(a->dt == b->dt);
    CHECK(a->substeps == b->substeps);
    CHECK(a->frames == b->frames);
    CHECK(a->quasistatic == b->quasistatic);
    CHECK(a->method == b->method);
    CHECK(a->sweep == b->sweep);
    CHECK(a->iterations == b->iterations);
    CHECK(a->tolerance == b->tolerance);
    CHECK(a->line_search == b->line_search);
    CHECK(a->projection == b->projection);
    CHECK(a->chebyshev == b->chebyshev);
    CHECK(a->chebyshev_rho == b->chebyshev_rho);
    CHECK(a->omega == b->omega);
    CHECK(a->device == b->device);
    CHECK(a->precision == b->precision);
    CHECK(memcmp(a->gravity, b->gravity, sizeof a->gravity) == 0);
    CHECK(a->nmaterials == b->nmaterials);
    for (int i = 0; i < a->nmaterials && i < b->nmaterials; i++) {
        const sipd_scene_material *x = &a->materials[i], *y = &b->materials[i];
        CHECK_STR(x->name, y->name);
        CHECK(x->model == y->model);
        CHECK(x->youngs == y->youngs);
        CHECK(x->poisson == y->poisson);
        CHECK(x->density == y->density);
    }
    CHECK(a->nbodies == b->nbodies);
    for (int i = 0; i < a->nbodies && i < b->nbodies; i++) {
        const sipd_scene_body *x = &a->bodies[i], *y = &b->bodies[i];
        check_same_path(x->mesh, y->mesh);
        CHECK(x->material == y->material);
        CHECK(memcmp(x->translate, y->translate, sizeof x->translate) == 0);
        CHECK(memcmp(x->rotate_deg, y->rotate_deg, sizeof x->rotate_deg) == 0);
        CHECK(x->scale == y->scale);
        CHECK(memcmp(x->velocity, y->velocity, sizeof x->velocity) == 0);
        CHECK(x->npin == y->npin);
        CHECK(x->nmove == y->nmove);
        if (x->npin == y->npin)
            CHECK(memcmp(x->pin, y->pin, sizeof x->pin[0] * (size_t)x->npin) == 0);
        if (x->nmove == y->nmove)
            CHECK(memcmp(x->move, y->move, sizeof x->move[0] * (size_t)x->nmove) == 0);
    }
    check_same_path(a->output_file, b->output_file);
    CHECK(a->output_every == b->output_every);
    CHECK(a->compression == b->compression);
    CHECK(a->xdmf == b->xdmf);
    CHECK(a->fields == b->fields);
}

static void print_to(const char *path, const sipd_scene *sc)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    scene_print(f, sc);
    fclose(f);
}

/* Text after the first line (the header comment names the source file). */
static char *body_text(const char *path)
{
    char *t = sipd_read_file(path, NULL);
    char *nl = t ? strchr(t, '\n') : NULL;
    if (!nl)
        return t;
    memmove(t, nl + 1, strlen(nl + 1) + 1);
    return t;
}

static void roundtrip(const char *name, const char *tmpdir)
{
    sipd_scene a, b;
    char p1[4096], p2[4096];
    char *path = data_path(name);
    snprintf(p1, sizeof p1, "%s/first.cfg", tmpdir);
    snprintf(p2, sizeof p2, "%s/second.cfg", tmpdir);
    if (load_ok(path, &a) == SIPD_OK) {
        print_to(p1, &a);
        if (load_ok(p1, &b) == SIPD_OK) {
            check_same(&a, &b);
            /* printing the reloaded scene gives the same text again */
            print_to(p2, &b);
            char *t1 = body_text(p1), *t2 = body_text(p2);
            CHECK(t1 && t2 && strcmp(t1, t2) == 0);
            free(t1);
            free(t2);
            scene_free(&b);
        } else {
            char *t = sipd_read_file(p1, NULL);
            fprintf(stderr, "printed scene:\n%s", t ? t : "");
            free(t);
        }
        /* the full scene's values survive exactly (guards against a lossy printer) */
        if (strcmp(name, "full.cfg") == 0 && load_ok(p1, &b) == SIPD_OK) {
            check_full(&b, scenes);
            scene_free(&b);
        }
        if (strcmp(name, "minimal.cfg") == 0 && load_ok(p1, &b) == SIPD_OK) {
            check_defaults(&b);
            scene_free(&b);
        }
    }
    scene_free(&a);
    remove(p1);
    remove(p2);
    free(path);
}

static void test_roundtrip(void)
{
    char tmpdir[] = "/tmp/sipd_scene_rt_XXXXXX";
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(1);
    }
    roundtrip("full.cfg", tmpdir);
    roundtrip("minimal.cfg", tmpdir);
    rmdir(tmpdir);
}

/* ---------------------------------------------------------------- accepted variants */

/* Write a one-body scene with `extra` appended and load it. */
static int load_variant(const char *tmpdir, const char *extra, sipd_scene *sc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/variant.cfg", tmpdir);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.3; } );\n"
               "bodies = ( { mesh = \"%s/tet\"; material = \"m\"; } );\n%s\n",
            scenes, extra);
    fclose(f);
    int rc = load_ok(path, sc);
    if (rc)
        fprintf(stderr, "  (variant: %s)\n", extra);
    remove(path);
    return rc;
}

static void test_accepted(void)
{
    static const struct {
        const char *text;
        size_t offset;
        int value;
    } cases[] = {
        {"solver = { sweep = \"jacobi\"; };", offsetof(sipd_scene, sweep), SIPD_SWEEP_JACOBI},
        {"solver = { sweep = \"gauss-seidel\"; };", offsetof(sipd_scene, sweep), SIPD_SWEEP_GS},
        {"solver = { line_search = \"auto\"; };", offsetof(sipd_scene, line_search), SIPD_LS_AUTO},
        {"solver = { line_search = \"always\"; };", offsetof(sipd_scene, line_search),
         SIPD_LS_ALWAYS},
        {"solver = { line_search = \"never\"; };", offsetof(sipd_scene, line_search),
         SIPD_LS_NEVER},
        {"solver = { projection = \"expanded\"; };", offsetof(sipd_scene, projection),
         SIPD_PROJ_EXPANDED},
        {"solver = { projection = \"analytic\"; };", offsetof(sipd_scene, projection),
         SIPD_PROJ_EXPANDED},
        {"solver = { projection = \"sign\"; };", offsetof(sipd_scene, projection), SIPD_PROJ_SIGN},
        {"solver = { projection = \"none\"; };", offsetof(sipd_scene, projection), SIPD_PROJ_NONE},
        {"solver = { method = \"sipd\"; };", offsetof(sipd_scene, method), SIPD_METHOD_SIPD},
        {"device = \"auto\";", offsetof(sipd_scene, device), SIPD_DEVICE_AUTO},
        {"device = \"cuda\";", offsetof(sipd_scene, device), SIPD_DEVICE_CUDA},
        {"device = \"cpu\";", offsetof(sipd_scene, device), SIPD_DEVICE_CPU},
        {"precision = \"auto\";", offsetof(sipd_scene, precision), SIPD_PRECISION_AUTO},
        {"precision = \"float32\";", offsetof(sipd_scene, precision), SIPD_PRECISION_FLOAT32},
        {"precision = \"float64\";", offsetof(sipd_scene, precision), SIPD_PRECISION_FLOAT64},
        {"time = { frames = 0; };", offsetof(sipd_scene, frames), 0},
        {"output = { compression = 0; };", offsetof(sipd_scene, compression), 0},
        {"output = { compression = 9; };", offsetof(sipd_scene, compression), 9},
        {"output = { fields = []; };", offsetof(sipd_scene, fields), 0},
        {"output = { fields = (\"J\"); };", offsetof(sipd_scene, fields), 1 << SIPD_FIELD_J},
        /* contact switched off (or an empty group) is accepted and ignored */
        {"contact = { enabled = false; dhat = 0.01; ground = { height = -1.0; }; };",
         offsetof(sipd_scene, xdmf), 1},
        {"contact = { };", offsetof(sipd_scene, xdmf), 1},
    };
    char tmpdir[] = "/tmp/sipd_scene_var_XXXXXX";
    sipd_scene sc;
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(1);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (load_variant(tmpdir, cases[i].text, &sc) == SIPD_OK) {
            int v;
            memcpy(&v, (const char *)&sc + cases[i].offset, sizeof v);
            if (v != cases[i].value) {
                fprintf(stderr, "variant '%s': got %d, expected %d\n", cases[i].text, v,
                        cases[i].value);
                failures++;
            }
        }
        scene_free(&sc);
    }
    /* a relative output file resolves against the scene's directory */
    if (load_variant(tmpdir, "output = { file = \"o/x.h5\"; };", &sc) == SIPD_OK) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s/o/x.h5", tmpdir);
        CHECK_STR(sc.output_file, buf);
    }
    scene_free(&sc);
    if (load_variant(tmpdir, "time = { dt = 1.0e-3; }; solver = { omega = 1.9; "
                             "chebyshev_rho = 0.0; tolerance = 0.0; };",
                     &sc) == SIPD_OK) {
        CHECK(sc.dt == 1.0e-3);
        CHECK(sc.omega == 1.9);
        CHECK(sc.tolerance == 0.0);
    }
    scene_free(&sc);
    rmdir(tmpdir);

    /* pins: an empty list, and exactly SIPD_MAX_BOXES of them */
    {
        char tmp2[] = "/tmp/sipd_scene_pin_XXXXXX", path[4096];
        if (!mkdtemp(tmp2)) {
            perror("mkdtemp");
            exit(1);
        }
        for (int npin = 0; npin <= SIPD_MAX_BOXES; npin += SIPD_MAX_BOXES) {
            snprintf(path, sizeof path, "%s/pins.cfg", tmp2);
            FILE *f = fopen(path, "w");
            if (!f)
                exit(1);
            fprintf(f, "materials = ( { name = \"m\"; youngs = 1.0e5; poisson = 0.3; } );\n"
                       "bodies = ( { mesh = \"%s/tet\"; material = \"m\"; pin = (",
                    scenes);
            for (int i = 0; i < npin; i++)
                fprintf(f, "%s{ box_min = [%d.0, 0.0, 0.0]; box_max = [%d.5, 1.0, 1.0]; }",
                        i ? ", " : "", i, i);
            fputs("); } );\n", f);
            fclose(f);
            if (load_ok(path, &sc) == SIPD_OK) {
                CHECK(sc.bodies[0].npin == npin);
                if (npin)
                    CHECK(sc.bodies[0].pin[npin - 1].box_max[0] == npin - 1 + 0.5);
            }
            scene_free(&sc);
            remove(path);
        }
        rmdir(tmp2);
    }
}

/* ---------------------------------------------------------------- names, I/O error */

static void test_names(void)
{
    CHECK_STR(scene_method_name(SIPD_METHOD_SIPD), "sipd");
    CHECK_STR(scene_sweep_name(SIPD_SWEEP_JACOBI), "jacobi");
    CHECK_STR(scene_sweep_name(SIPD_SWEEP_GS), "gauss-seidel");
    CHECK_STR(scene_line_search_name(SIPD_LS_AUTO), "auto");
    CHECK_STR(scene_line_search_name(SIPD_LS_ALWAYS), "always");
    CHECK_STR(scene_line_search_name(SIPD_LS_NEVER), "never");
    CHECK_STR(scene_projection_name(SIPD_PROJ_EXPANDED), "expanded");
    CHECK_STR(scene_projection_name(SIPD_PROJ_SIGN), "sign");
    CHECK_STR(scene_projection_name(SIPD_PROJ_NONE), "none");
    CHECK_STR(scene_device_name(SIPD_DEVICE_AUTO), "auto");
    CHECK_STR(scene_device_name(SIPD_DEVICE_CUDA), "cuda");
    CHECK_STR(scene_device_name(SIPD_DEVICE_CPU), "cpu");
    CHECK_STR(scene_precision_name(SIPD_PRECISION_AUTO), "auto");
    CHECK_STR(scene_precision_name(SIPD_PRECISION_FLOAT32), "float32");
    CHECK_STR(scene_precision_name(SIPD_PRECISION_FLOAT64), "float64");
    CHECK_STR(scene_model_name(SIPD_MAT_STABLE_NEOHOOKEAN), "stable-neohookean");
}

static void test_missing_file(void)
{
    sipd_scene sc, zero;
    int rc;
    char *path = data_path("no-such-scene.cfg");
    char *err = load_captured(path, &sc, &rc);
    memset(&zero, 0, sizeof zero);
    CHECK(rc == SIPD_EINPUT);
    CHECK(strstr(err, path) != NULL);
    CHECK(memcmp(&sc, &zero, sizeof sc) == 0);
    fprintf(stderr, "captured: %s", err);
    scene_free(&sc);
    free(err);
    free(path);
}

/* ---------------------------------------------------------------- material models */

/* Every implemented model round-trips through its scene name (load, print, load), and
 * model_build builds that model; a model id out of range makes model_build fail (the physics
 * switches have no fallback model). */
static void test_models(void)
{
    char tmp[] = "/tmp/sipd_models_XXXXXX";
    int mdl;
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        failures++;
        return;
    }
    for (mdl = 0; mdl < SIPD_MAT_NMODELS; mdl++) {
        char extra[256], path[4096];
        sipd_scene sc, sc2;
        sipd_model m;
        const char *name = scene_model_name((sipd_material_model)mdl);
        CHECK(material_model_valid(mdl));
        CHECK(strcmp(name, "?") != 0);
        /* a second material names the model explicitly; the first takes the default */
        snprintf(extra, sizeof extra, "materials = ( { name = \"m\"; model = \"%s\"; youngs = 1.0e5; poisson = 0.3; } );",
                 name);
        snprintf(path, sizeof path, "%s/models.cfg", tmp);
        {
            FILE *f = fopen(path, "w");
            if (!f) {
                perror(path);
                failures++;
                break;
            }
            fprintf(f, "%s\nbodies = ( { mesh = \"%s/tet\"; material = \"m\"; } );\n", extra, scenes);
            fclose(f);
        }
        if (load_ok(path, &sc) != SIPD_OK)
            continue;
        CHECK(sc.materials[0].model == (sipd_material_model)mdl);
        print_to(path, &sc);   /* the printed scene names the model and reads back the same */
        if (load_ok(path, &sc2) == SIPD_OK)
            CHECK(sc2.materials[0].model == (sipd_material_model)mdl);
        scene_free(&sc2);
        if (model_build(&sc, &m) == SIPD_OK) {
            CHECK(m.mats[0].model == mdl);
            model_free(&m);
        } else
            CHECK(!"model_build of an implemented model");
        {   /* out of range: refused with an error, never built as some other model */
            const int bad[] = {SIPD_MAT_NMODELS, -1, 1000};
            int i;
            for (i = 0; i < 3; i++) {
                int rc;
                sc.materials[0].model = (sipd_material_model)bad[i];
                fprintf(stderr, "expected error: ");
                rc = model_build(&sc, &m);
                CHECK(rc == SIPD_EINPUT);
                if (rc == SIPD_OK)
                    model_free(&m);
            }
        }
        scene_free(&sc);
        remove(path);
    }
    rmdir(tmp);
}

/* ---------------------------------------------------------------- bad fixtures */

static void test_bad(const char *path)
{
    char *text = sipd_read_file(path, NULL), key[256], want[512], prefix[4200];
    int line = 0, consumed = 0, rc, nlines = 0;
    sipd_scene sc, zero;
    if (!text || sscanf(text, "# expect: %d %255s %n", &line, key, &consumed) != 2) {
        fprintf(stderr, "%s: first line must be '# expect: LINE KEY TEXT'\n", path);
        exit(1);
    }
    {
        const char *s = text + consumed, *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n >= sizeof want)
            n = sizeof want - 1;
        memcpy(want, s, n);
        want[n] = '\0';
    }
    free(text);

    char *err = load_captured(path, &sc, &rc);
    fprintf(stderr, "captured: %s", err);
    CHECK(rc == SIPD_EINPUT);
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (strncmp(err, prefix, strlen(prefix)) != 0) {
        fprintf(stderr, "expected the message to start with '%s'\n", prefix);
        failures++;
    }
    if (strcmp(key, "-") != 0 && !strstr(err, key)) {
        fprintf(stderr, "expected the key '%s' in the message\n", key);
        failures++;
    }
    if (!strstr(err, want)) {
        fprintf(stderr, "expected '%s' in the message\n", want);
        failures++;
    }
    for (const char *p = err; *p; p++)
        nlines += *p == '\n';
    if (nlines != 1) {
        fprintf(stderr, "expected exactly one error line, got %d\n", nlines);
        failures++;
    }
    /* a failed load leaves nothing behind (scene_free is still safe) */
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&sc, &zero, sizeof sc) == 0);
    scene_free(&sc);
    free(err);
}

static int case_bad(int argc, char **argv)
{
    (void)argc;
    test_bad(argv[2]);
    return 0;
}

static int prog_setup(const char *which, int argc, char **argv)
{
    (void)which;
    scenes = argc > 2 ? argv[2] : ".";
    return 0;
}

static const test_case cases[] = {
    {"full", .run = test_full, .args = "SCENES_DIR"},
    {"minimal", .run = test_minimal, .args = "SCENES_DIR"},
    {"roundtrip", .run = test_roundtrip, .args = "SCENES_DIR"},
    {"accepted", .run = test_accepted, .args = "SCENES_DIR"},
    {"names", .run = test_names, .args = "[SCENES_DIR]"},
    {"missing_file", .run = test_missing_file, .args = "SCENES_DIR"},
    {"models", .run = test_models, .args = "SCENES_DIR"},
    {"bad", .run_args = case_bad, .args = "FIXTURE"},
};
static const test_program program = {"test_scene", TEST_CASES(cases), .setup = prog_setup};
TEST_MAIN(program)
