/* checkpoint.h — restart files (--resume).
 *
 * A checkpoint holds everything the run's future depends on: the completed frame, simulated
 * time, positions and velocities (float64, bit-exact), the adaptive Chebyshev estimate, and
 * the row counts of the HDF5 output at that frame (so a resumed run truncates the output to
 * exactly the checkpoint's state).  A hash of the scene text and the mesh sizes guards
 * against resuming with another scene.  Written as PATH.tmp, fsync'ed, then renamed over
 * PATH, so a kill at any moment leaves either the old or the new checkpoint, never a torn
 * one; a trailing FNV-1a checksum catches any other corruption.  Format versions: SIPDCKP1
 * (frame boundaries only) is still read, as substep 0; SIPDCKP2 adds the substep; SIPDCKP3
 * adds a count ns and ns doubles after v (solver state beyond x and v: mixed-fem's per-element
 * stretches); SIPDCKP4, the one written now, adds the driver's two running scales after ns —
 * x_extent (the stall rule's round-off scale, driver.h) and f_start (the first step's force
 * scale, the divergence check's) — which a resume otherwise recomputed from other states.
 * SIPDCKP5 adds a flag after them and, when set, nv*3 doubles after the
 * solver state: the adaptive initial guess' history (the velocities before the last step,
 * backend.h guess_history).  SIPDCKP6, the one written now, adds a count nf after the flag and
 * nf doubles after the history: the friction anchors (contact.h stick memory, backend.h
 * friction_state).  Versions 1-5 are still read (x_extent, f_start 0 before 4:
 * recomputed as before; no history before 5: the first step after the resume starts from ỹ;
 * no anchors before 6: the contacts start the resume without stick memory).
 */
#ifndef SIPD_CHECKPOINT_H
#define SIPD_CHECKPOINT_H

#include <stdint.h>

typedef struct {
    int nv;
    int frame;            /* frames completed (the last frame index simulated)         */
    int substep;          /* time steps of frame `frame`+1 done (a stop inside a frame)  */
    long out_frames;      /* rows of /frames at that point                               */
    long out_solves;      /* rows of /convergence                                       */
    long out_hist;        /* rows of /convergence/history                               */
    double t;             /* simulated time                                             */
    double lam_min;       /* adaptive Chebyshev estimate (inf when none)                */
    uint64_t scene_hash;
    double *x, *v;        /* nv*3 each                                                  */
    long ns;              /* solver state doubles (mixed-fem: s, nt*6); 0: none         */
    double *s;
    double *vp;           /* nv*3: the adaptive guess' history (NULL: none)               */
    long nf;              /* friction anchors (backend.h friction_state): nf doubles, 0: none */
    double *f;
    double x_extent;      /* sipd_sim x_extent at that point (0: unknown, version < 4)   */
    double f_start;       /* sipd_sim f_start at that point (0: none yet or unknown)     */
} sipd_checkpoint;

/* FNV-1a 64 of a scene text plus mesh sizes (what a checkpoint must match). */
uint64_t checkpoint_scene_hash(const char *scene_text, int nv, int nt);
/* Atomic write (temp + fsync + rename). SIPD_OK or SIPD_EFAIL (message printed). */
int checkpoint_write(const char *path, const sipd_checkpoint *c);
/* Read and validate. SIPD_OK; SIPD_EFAIL when it cannot be read; SIPD_EINPUT when it is
 * corrupt. c->x and c->v are malloc'ed (checkpoint_free). */
int checkpoint_read(const char *path, sipd_checkpoint *c);
void checkpoint_free(sipd_checkpoint *c);

#endif
