/* registry.h — the backends this build has, and which one runs a scene.
 *
 * One row per backend (registry.c): its --device name, its ops (backend.h), its precision, and
 * two predicates — `available` (is there something to run on: the CPU always, the CUDA backend
 * when a device is usable) and `supports` (does it run this scene, and if not why: the CUDA
 * backend refuses what method.c's method_cpu_only names).  `auto_declines` says why device auto
 * passes over a backend that could run the scene (newton stays on the float64 CPU).
 *
 * registry_choose() is the one place that turns a scene and a device request (--device, else
 * the scene's `device`) into a backend and a reason: sipd-run's choose_device and --dry-run, and
 * test_gpu (a scene the CUDA backend does not support is checked to be refused, not skipped).
 *
 * registry.c is compiled into the programs that link the backends (sipd-run, test_gpu), not
 * into sipd_core: with SIPD_HAVE_CUDA it has the CUDA row, without it the CPU row only.
 */
#ifndef SIPD_REGISTRY_H
#define SIPD_REGISTRY_H

#include <stddef.h>

#include "backend.h"
#include "scene.h"

typedef struct {
    const char *name;                 /* --device value: "cpu", "cuda"; "cpu-float32": the CPU   */
                                      /* with --precision float32 (registry_choose_precision)     */
    const sipd_backend_ops *ops;
    const char *precision;            /* "float64" / "float32": the output's attribute         */
    /* 1: there is a device to run on; 0: none, and why (at most n bytes into why) */
    int (*available)(char *why, size_t n);
    /* 1: the backend runs the scene; 0: it refuses it, and why ("method mixed-fem") */
    int (*supports)(const sipd_scene *sc, char *why, size_t n);
    /* 1: device auto leaves the scene to the CPU although supported, and why; NULL: never */
    int (*auto_declines)(const sipd_scene *sc, char *why, size_t n);
} sipd_backend_entry;

/* the rows, CPU first (the fall-back); NULL past the last */
const sipd_backend_entry *registry_backend(int i);
/* the row called name, NULL when this build has none */
const sipd_backend_entry *registry_find(const char *name);

/* What registry_choose decided. */
typedef struct {
    const sipd_backend_entry *backend;  /* the chosen row; NULL when the request is refused   */
    int status;                         /* SIPD_OK, or the exit status of the refusal         */
    int auto_fallback;                  /* device auto took the CPU: why says why             */
    char why[400];                      /* the reason of the choice (dry-run, the log); when  */
                                        /* refused the error message                          */
} sipd_backend_choice;

/* The backend for scene sc under request (SIPD_DEVICE_AUTO / CUDA / CPU).  cpu: the CPU.  cuda:
 * the CUDA backend, refused (SIPD_EINPUT) when it does not support the scene, or (SIPD_EFAIL)
 * when no device is usable or the build has no CUDA backend.  auto: the CUDA backend when it is
 * available, supports the scene and does not decline it, else the CPU with the reason.
 * Returns c->status. */
int registry_choose(const sipd_scene *sc, sipd_device request, sipd_backend_choice *c);

/* registry_choose with a precision request (--precision; docs/precision.md): NULL: as
 * registry_choose.  "float64": the float64 CPU backend (device cpu or auto); device cuda is
 * refused (SIPD_EINPUT: the CUDA backend is float32).  "float32": registry_choose's choice (with
 * auto the CUDA backend also where auto_declines would keep the scene on the float64 CPU), its
 * CPU row replaced by the float32 CPU backend ("cpu-float32"), refused (SIPD_EINPUT) when
 * that does not run the scene (cpu32_supports: contact.ccd with contact pairs).  Another
 * string: SIPD_EINPUT.  Returns c->status. */
int registry_choose_precision(const sipd_scene *sc, sipd_device request, const char *precision,
                              sipd_backend_choice *c);

#endif
