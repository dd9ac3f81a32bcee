/* registry.c — the backend table and the choice of a backend (registry.h). */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "method.h"
#include "physics/common.h"   /* SIPD_REAL_NAME */
#include "util.h"
#ifdef SIPD_HAVE_CUDA
#include "backend_cuda.h"
#endif

static int cpu_available(char *why, size_t n)
{
    (void)why, (void)n;
    return 1;
}

static int cpu_supports(const sipd_scene *sc, char *why, size_t n)
{
    (void)sc, (void)why, (void)n;
    return 1;
}

/* what the float32 CPU backend (backend_cpu32.c) does not run yet: contact.ccd with contact
   pairs (docs/precision.md#what-float32-refuses) */
static int cpu32_supports(const sipd_scene *sc, char *why, size_t n)
{
    if (scene_has_pairs(sc) && sc->ccd) {
        snprintf(why, n, "contact.ccd with contact pairs (contact.ccd = false runs the discrete detection)");
        return 0;
    }
    return 1;
}

#ifdef SIPD_HAVE_CUDA
static int cuda_available(char *why, size_t n)
{
    if (sipd_cuda_device_count() > 0)
        return 1;
    sipd_cuda_describe(why, (int)n);   /* "no CUDA device: ..." */
    return 0;
}

/* what method.c keeps on the CPU: mixed-fem, newton with contact pairs, contact with a
   Gauss-Seidel sweep */
static int cuda_supports(const sipd_scene *sc, char *why, size_t n)
{
    return !method_cpu_only(sc, why, n);
}
#endif

static const sipd_backend_entry registry_rows[] = {
    {"cpu", &sipd_backend_cpu, SIPD_REAL_NAME, cpu_available, cpu_supports, NULL},
    {"cpu-float32", &sipd_backend_cpu32, "float32", cpu_available, cpu32_supports, NULL},
#ifdef SIPD_HAVE_CUDA
    {"cuda", &sipd_backend_cuda, "float32", cuda_available, cuda_supports, method_auto_cpu},
#endif
};

const sipd_backend_entry *registry_backend(int i)
{
    return i >= 0 && i < (int)(sizeof registry_rows / sizeof registry_rows[0]) ? &registry_rows[i] : NULL;
}

const sipd_backend_entry *registry_find(const char *name)
{
    const sipd_backend_entry *e;
    int i;
    for (i = 0; (e = registry_backend(i)) != NULL; i++)
        if (!strcmp(e->name, name))
            return e;
    return NULL;
}

int registry_choose(const sipd_scene *sc, sipd_device request, sipd_backend_choice *c)
{
    const sipd_backend_entry *cpu = registry_find("cpu"), *cuda = registry_find("cuda");
    char why[256];
    memset(c, 0, sizeof *c);
    c->status = SIPD_OK;
    if (request == SIPD_DEVICE_CPU) {
        c->backend = cpu;
        snprintf(c->why, sizeof c->why, "device cpu requested");
        return c->status;
    }
    if (!cuda) {
        if (request == SIPD_DEVICE_CUDA) {
            snprintf(c->why, sizeof c->why, "--device cuda: this build has no CUDA backend (nvcc not found at "
                     "configure time, or a sanitizer build); use --device cpu or auto");
            return c->status = SIPD_EFAIL;
        }
        c->backend = cpu;
        c->auto_fallback = 1;
        snprintf(c->why, sizeof c->why, "no CUDA backend in this build");
        return c->status;
    }
    /* a request for cuda: a scene it does not run is a bad combination (exit 2) before any
       question of a device (exit 1) */
    if (!cuda->supports(sc, why, sizeof why)) {
        if (request == SIPD_DEVICE_CUDA) {
            snprintf(c->why, sizeof c->why, "device cuda: %s runs on the CPU backend only so far; use --device cpu "
                     "or auto", why);
            return c->status = SIPD_EINPUT;
        }
        c->backend = cpu;
        c->auto_fallback = 1;
        if (!cuda->available(c->why, sizeof c->why))   /* auto names the missing device first */
            return c->status;
        snprintf(c->why, sizeof c->why, "%s runs on the CPU backend only", why);
        return c->status;
    }
    if (!cuda->available(why, sizeof why)) {
        if (request == SIPD_DEVICE_CUDA) {
            snprintf(c->why, sizeof c->why, "device cuda: no CUDA backend available: %s; use --device cpu or auto",
                     why);
            return c->status = SIPD_EFAIL;
        }
        c->backend = cpu;
        c->auto_fallback = 1;
        snprintf(c->why, sizeof c->why, "%s", why);
        return c->status;
    }
    if (request == SIPD_DEVICE_AUTO && cuda->auto_declines && cuda->auto_declines(sc, why, sizeof why)) {
        c->backend = cpu;
        c->auto_fallback = 1;
        snprintf(c->why, sizeof c->why, "%s stays on the CPU", why);
        return c->status;
    }
    c->backend = cuda;
    snprintf(c->why, sizeof c->why, request == SIPD_DEVICE_AUTO ? "CUDA device found" : "device cuda requested");
    return c->status;
}

int registry_choose_precision(const sipd_scene *sc, sipd_device request, const char *precision, sipd_backend_choice *c)
{
    const sipd_backend_entry *cpu32 = registry_find("cpu-float32");
    char why[256], prev[sizeof c->why];
    if (!precision)
        return registry_choose(sc, request, c);
    if (!strcmp(precision, "float64")) {
        memset(c, 0, sizeof *c);
        if (request == SIPD_DEVICE_CUDA) {
            snprintf(c->why, sizeof c->why, "precision float64: the CUDA backend computes in float32 only; use "
                     "--device cpu (or --precision float32)");
            return c->status = SIPD_EINPUT;
        }
        c->status = SIPD_OK;
        c->backend = registry_find("cpu");
        c->auto_fallback = request == SIPD_DEVICE_AUTO;
        snprintf(c->why, sizeof c->why, request == SIPD_DEVICE_AUTO ? "precision float64 requested (the CPU backend)"
                                                                    : "device cpu requested, precision float64");
        return c->status;
    }
    if (strcmp(precision, "float32")) {
        memset(c, 0, sizeof *c);
        snprintf(c->why, sizeof c->why, "--precision: expected float32 or float64, got '%s'", precision);
        return c->status = SIPD_EINPUT;
    }
    {   /* auto: the CUDA backend wherever it runs the scene (what auto_declines keeps on the CPU, it
           keeps there as the float64 reference: not asked for here) */
        const sipd_backend_entry *cuda = registry_find("cuda");
        if (request == SIPD_DEVICE_AUTO && cuda && cuda->supports(sc, why, sizeof why) &&
            cuda->available(why, sizeof why)) {
            memset(c, 0, sizeof *c);
            c->status = SIPD_OK;
            c->backend = cuda;
            snprintf(c->why, sizeof c->why, "CUDA device found, precision float32");
            return c->status;
        }
    }
    if (registry_choose(sc, request, c) != SIPD_OK)
        return c->status;
    if (strcmp(c->backend->precision, "float32") == 0)   /* the CUDA backend: float32 anyway */
        return c->status;
    /* the CPU: its float32 backend, when it runs the scene */
    if (!cpu32->supports(sc, why, sizeof why)) {
        c->backend = NULL;
        c->auto_fallback = 0;
        snprintf(c->why, sizeof c->why, "precision float32: %s runs in float64 only so far on the CPU; use "
                 "--precision float64", why);
        return c->status = SIPD_EINPUT;
    }
    memcpy(prev, c->why, sizeof prev);
    c->backend = cpu32;
    snprintf(c->why, sizeof c->why, "precision float32 on the CPU; %.360s", prev);
    return c->status;
}
