/* h5out.h — HDF5 output (docs/design.md §5) and its XDMF sidecar.
 *
 * Layout (paths are a contract):
 *   /  attributes: version, scene (text), resolved_parameters (text), command_line, device,
 *                  precision, units (strings); at the end of a run (main.c) exit_reason,
 *                  wall_time_s, solves_* and the other tallies as strings, and their numeric
 *                  twins (float64 / int64 scalars): wall_time_seconds, solves_total,
 *                  solves_converged, solves_at_cap, solves_stalled, solves_diverged,
 *                  worst_residual, max_momentum_error; resumed_from_frame, resumed_from_substep
 *                  and resumed_from_time beside the string resumed_from
 *   /mesh/rest_positions (nv x 3 f64), /mesh/tets (nt x 4 i32, 0-based),
 *   /mesh/surface_triangles (nf x 3 i32), /mesh/body (nv i32)
 *   /frames/positions (frames x nv x 3 f32; chunk = one frame; shuffle + deflate)
 *   /frames/time (frames f64)
 *   /frames/fields/<name>[/<kind>] (output.fields: see h5out_add_fields)
 *   /frames/convergence_rows, /frames/history_rows (frames i64): the rows of /convergence and of
 *                 /convergence/history written when the frame was (rows past the last frame's
 *                 belong to a frame not finished; -1: a frame written before these existed)
 *   /convergence/{frame, substep, iterations (i32), residual, energy, line_search_steps (i32),
 *                 contacts (i32), wall_time (f64), history_offset (i64), max_penetration (f64),
 *                 min_gap (f64)}:
 *                 one row per solve
 *   /convergence/history/{residual, energy, alpha, force, wall_time} (f64), iteration (i32, the
 *                 0-based iteration within its solve): the iterations output.history keeps (all
 *                 by default); solve k's rows start at history_offset[k] and end where solve
 *                 k+1's start
 * Every dataset that grows is 1-D or frame-major extendible; the file is flushed after every
 * frame and every chunk of the log (h5out.c: write batches), so a killed run leaves all
 * completed frames readable.  The .xdmf next to the .h5 is rewritten atomically (temp + rename)
 * after every frame.  PATH.writing exists while a write batch is open: a kill inside one leaves
 * it, and h5out_open_append then rebuilds the (possibly torn) file from the checkpoint's rows.
 *
 * Crash behaviour (checked by tests/unit/test_h5out_kill.c): no SWMR.  The file is written in the
 * HDF5 1.8 format (libver bounds V18..V18: superblock v2, readable by HDF5 >= 1.8), which has
 * no "open for writing" flag, so after SIGKILL it opens read-only (H5Fopen, h5dump) with every
 * flushed frame and needs no `h5clear -s`.  (With the latest format, as SWMR requires, the same
 * kill leaves a file that every H5Fopen refuses until `h5clear -s`.)  A reader of a file still
 * being written is not guaranteed a consistent view.  The sidecar is <path minus .h5/.hdf5/.hdf>
 * + ".xdmf" and names the .h5 by basename.  h5out_create calls H5dont_atexit() (see h5out.c).
 */
#ifndef SIPD_H5OUT_H
#define SIPD_H5OUT_H

#include <stdint.h>

typedef struct sipd_h5out sipd_h5out;

typedef struct {
    const char *version, *scene_text, *resolved_parameters, *command_line;
    const char *device, *precision, *units;
} sipd_h5_meta;

typedef struct {
    int nv, nt, nf;
    const double *rest;  /* nv*3 */
    const int *tets;     /* nt*4 */
    const int *tris;     /* nf*3 */
    const int *body;     /* nv   */
    /* the other element kinds (written only when present, so a tets-only file is unchanged):
       /mesh/triangles (the elastic triangles of shells) and /mesh/edges (springs and rod
       segments); the XDMF gets a grid per kind */
    int ntri, ned;
    const int *triangles; /* ntri*3 */
    const int *edges;     /* ned*2  */
} sipd_h5_mesh;

typedef struct {
    int frame, substep, iterations;
    double residual, energy;
    int line_search_steps, contacts;
    double wall_time;
    double max_penetration;  /* m, ≥ 0 */
    int status;              /* sipd_solve_status: 0 converged, 1 at-cap, 2 stalled, 3 diverged */
    double residual_displacement; /* max|D⁻¹g| / bbox diagonal at the final iterate            */
    double force_reference;  /* f_ref of the step (N): `residual` = max|g| / f_ref           */
    double momentum_error;   /* N·s, NaN when the backend does not provide it                */
    double min_gap;          /* m: the smallest contact gap at the final iterate (negative: a
                                penetration); NaN without contact or from a backend without it */
} sipd_h5_solve;

/* compression: 0 (none) .. 9 deflate level; xdmf: write path-with-.xdmf sidecar.
 * Creates the parent directory if missing. Returns SIPD_OK or SIPD_EFAIL (message printed). */
int h5out_create(sipd_h5out **out, const char *path, const sipd_h5_meta *meta,
                 const sipd_h5_mesh *mesh, int compression, int xdmf);
/* Reopen an existing output file to continue it (--resume): every growing dataset is
 * truncated to the given row counts (the checkpoint's), the XDMF rewritten.  When PATH.writing
 * is there (the run was killed inside a write), the file is first rebuilt from those rows rather
 * than changed in place.  SIPD_EINPUT when the file is not this scene's output or has fewer rows
 * than the checkpoint. */
int h5out_open_append(sipd_h5out **out, const char *path, int nv, int nt, int xdmf, long keep_frames,
                      long keep_solves, long keep_hist);
/* Rows written so far: frames, solves, per-iteration history rows. */
void h5out_counts(const sipd_h5out *out, long *frames, long *solves, long *hist);
/* Append one frame (x: nv*3 doubles, converted to float32), flush, rewrite the XDMF. */
int h5out_append_frame(sipd_h5out *out, double time, const double *x);
/* Output fields (output.fields; docs/looking-at-results.md): per vertex a dataset
 * /frames/fields/<name> (frames x nv x ncomp float32), per element one per kind present in /mesh,
 * /frames/fields/<name>/<kind> (kind tets, triangles or edges; frames x n_kind x ncomp), each one
 * frame per chunk with shuffle + deflate like /frames/positions; with the XDMF sidecar, a view per
 * frame /xdmf/fields/<name>[/<kind>]/N and an Attribute of every frame's grids (Center Node / Cell;
 * Scalar, Vector, or for 6 components (a symmetric tensor xx, yy, zz, xy, yz, xz) a 3x3 "Tensor"
 * view of them, the one form all three of ParaView's XDMF readers read the same way). */
typedef struct {
    const char *name;   /* plain: no '/', spaces or XML specials */
    int ncomp;          /* 1, 3 or 6 */
    int per_element;    /* 0: one value per vertex; 1: one per element of every kind in /mesh */
} sipd_h5_field;
/* Declare the fields every frame carries: after h5out_create, before the first frame; after
 * h5out_open_append, the list the file was written with (its datasets are reopened and cut to the
 * kept frames; SIPD_EINPUT when they are missing). */
int h5out_add_fields(sipd_h5out *out, int n, const sipd_h5_field *fields);
/* h5out_append_frame with the fields' values: vals[i] holds field i's nv*ncomp (per vertex) or
 * (nt + ntri + ned)*ncomp (per element: the kinds in /mesh order, tets, triangles, edges) doubles,
 * converted to float32.  h5out_append_frame(o, t, x) is this with vals = NULL (no fields declared). */
int h5out_append_frame_fields(sipd_h5out *out, double time, const double *x, const double *const *vals);
/* Per-iteration history of one solve (arrays of length n; all but residual may be NULL -> NaN):
 * residual (the relative force residual max|g| / f_ref the tolerance applies to), energy, alpha (step length; ω for Chebyshev/SOR steps),
 * force (max_a |g_a| over free vertices, N: the same measure for every method), wall_time
 * (seconds since the start of the solve, at the end of the iteration). */
typedef struct {
    const double *residual, *energy, *alpha, *force, *wall_time;
    const double *residual_displacement;   /* max|D⁻¹g| / bbox diagonal per iteration */
} sipd_h5_history;

/* Queue one solve row and the per-iteration values output.history keeps of its n (all, none, or
 * iterations 0, N, 2N, ... and n−1): the queue (bounded: LOG_ROWS history rows, LOG_SOLVES
 * solve rows) is written and flushed when full, a second after the last write, and with the
 * next frame, h5out_flush or h5out_close — never outside such a flushed batch. */
int h5out_append_solve(sipd_h5out *out, const sipd_h5_solve *rec, int n, const sipd_h5_history *h);
/* output.history: 1 every iteration (default), 0 none, N every N-th (and each solve's last). */
void h5out_set_history(sipd_h5out *out, int every);
/* Rows queued and not yet written (solve rows, history rows): bounded whatever the run does. */
void h5out_queued(const sipd_h5out *out, long *solves, long *hist);
/* Write the queued rows and flush (done by append_frame and close as well). */
int h5out_flush(sipd_h5out *out);
/* Set/overwrite a string attribute on the root group (e.g. wall time, exit reason). */
int h5out_set_attr(sipd_h5out *out, const char *name, const char *value);
/* Set/overwrite a numeric root attribute: a scalar float64 or int64 (the numeric twins of the
 * string attributes that hold counts and times, e.g. wall_time_seconds beside wall_time_s). */
int h5out_set_attr_double(sipd_h5out *out, const char *name, double value);
int h5out_set_attr_int(sipd_h5out *out, const char *name, long long value);
int h5out_close(sipd_h5out *out);

/* Before a fresh run writes `path` (and, with xdmf, its .xdmf sidecar): SIPD_OK when nothing is
 * there or it is a sipd-run output; SIPD_EINPUT (message printed) for a directory, or for a file
 * that is not a sipd-run output (not HDF5, or HDF5 without sipd-run's `version` attribute) unless
 * overwrite is set.  The XDMF path of an output file (malloc'ed). */
int h5out_check_target(const char *path, int xdmf, int overwrite);
char *h5out_xdmf_path(const char *path);
/* The marker of an open write batch, PATH.writing (malloc'ed). */
char *h5out_marker_path(const char *path);

#endif
