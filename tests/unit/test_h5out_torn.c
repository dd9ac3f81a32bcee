/* test_h5out_torn — a SIGKILL inside a flush of the output file, at every write of it, must
 * leave a file that --resume can continue (issue 31, item 4: the cli_checkpoint_seconds failure),
 * output fields (output.fields) included.
 *
 * Fault injection without a hook in production code: this executable defines pwrite() and
 * ftruncate(), which the HDF5 library's sec2 driver (all of its file writes and its truncation
 * at a flush) then calls instead of the C library's (an executable's definitions come first in
 * the dynamic symbol lookup).  They pass every call on to the kernel, and once armed they raise
 * SIGKILL before the k-th one: the process dies between two writes of HDF5's flush, as a
 * SIGKILLed sipd-run can.
 *
 *   writer (a child, once per k): create an output as the driver does (frame 0; then per frame
 *     S solves and the frame), "checkpoint" after frame C (h5out_flush, h5out_counts: what
 *     driver.c's write_checkpoint records), arm the countdown, and go on writing frames C+1 ..
 *     C+NMORE with their solves
 *   the test: count the writes after the checkpoint once (k = infinity), then for every k
 *     kill the writer before its k-th write and resume the file as main.c does
 *     (h5out_open_append with the checkpoint's row counts); it must open, take two more frames
 *     and solves, close, and read back: every frame and row the checkpoint counted, bit for bit,
 *     then the two new ones.
 */
#define _GNU_SOURCE
#include "h5out.h"
#include "util.h"

#include <hdf5.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { NV = 300, C = 4, NMORE = 2, S = 3 };

/* ---- the fault injection: HDF5's file writes come through here ---------------------------- */

static int armed;             /* count the writes (and maybe die) from now on                 */
static long countdown = -1;   /* >= 0: SIGKILL before write number `countdown` (0-based)      */
static long writes;           /* writes seen since arming                                      */

static void maybe_die(void)
{
    if (!armed)
        return;
    if (countdown >= 0 && writes == countdown)
        raise(SIGKILL);
    writes++;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    maybe_die();
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    maybe_die();
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

int ftruncate(int fd, off_t len)
{
    maybe_die();
    return (int)syscall(SYS_ftruncate, fd, len);
}

/* ---- the data ----------------------------------------------------------------------------- */

static double xval(int k, int j) { return 0.001 * j + 0.01 * k + 1.0 / 7.0; }
static double tval(int k) { return 0.025 * k; }
static int niter(int k, int i) { return 1 + (3 * k + i) % 7; }
static double hval(int k, int i, int j) { return 1.0 / (1 + k * 31 + i * 7 + j); }

/* the output fields (output.fields): one per vertex (3 components), one per element (the mesh's
   one tet): the rebuild of a torn file must keep their frames too */
static const sipd_h5_field fspec[2] = {{"displacement", 3, 0}, {"J", 1, 1}};
static double fval(int f, int k, int j) { return f == 0 ? 0.5 * xval(k, j) : 1.0 + 0.001 * k; }

static int write_frame(sipd_h5out *o, int k)
{
    static double x[NV * 3], disp[NV * 3], J[1];
    const double *vals[2] = {disp, J};
    double h[16];
    int i, j;
    for (i = 0; k > 0 && i < S; i++) {
        sipd_h5_solve r;
        sipd_h5_history hh = {h, NULL, NULL, NULL, NULL, NULL};
        memset(&r, 0, sizeof r);
        r.frame = k;
        r.substep = i;
        r.iterations = niter(k, i);
        r.residual = hval(k, i, 99);
        for (j = 0; j < r.iterations; j++)
            h[j] = hval(k, i, j);
        if (h5out_append_solve(o, &r, r.iterations, &hh) != SIPD_OK)
            return SIPD_EFAIL;
    }
    for (j = 0; j < NV * 3; j++) {
        x[j] = xval(k, j);
        disp[j] = fval(0, k, j);
    }
    J[0] = fval(1, k, 0);
    return h5out_append_frame_fields(o, tval(k), x, vals);
}

/* The writer: exits 0 when it was not killed; its checkpoint counts go to `ck` (3 longs). */
static int writer(const char *path, const char *ck, long kill_at)
{
    static double rest[NV * 3];
    static int body[NV];
    static const int tets[4] = {0, 1, 2, 3}, tris[3] = {0, 1, 2};
    sipd_h5_mesh mesh = {NV, 1, 1, rest, tets, tris, body, 0, 0, NULL, NULL};
    sipd_h5_meta meta = {"torn-test", "scene", NULL, "test_h5out_torn", "cpu", "double", "SI"};
    sipd_h5out *o;
    long cnt[3];
    FILE *f;
    int k;
    for (k = 0; k < NV * 3; k++)
        rest[k] = xval(0, k);
    if (h5out_create(&o, path, &meta, &mesh, 4, 1) != SIPD_OK || h5out_add_fields(o, 2, fspec) != SIPD_OK)
        return 1;
    for (k = 0; k <= C; k++)
        if (write_frame(o, k) != SIPD_OK)
            return 1;
    if (h5out_flush(o) != SIPD_OK)   /* the checkpoint: everything counted is on disk */
        return 1;
    h5out_counts(o, &cnt[0], &cnt[1], &cnt[2]);
    if (!(f = fopen(ck, "w")) || fprintf(f, "%ld %ld %ld\n", cnt[0], cnt[1], cnt[2]) < 0 || fclose(f) != 0)
        return 1;
    countdown = kill_at;   /* -2: count only */
    writes = 0;
    armed = 1;
    for (k = C + 1; k <= C + NMORE; k++)
        if (write_frame(o, k) != SIPD_OK)
            return 1;
    if (h5out_close(o) != SIPD_OK)
        return 1;
    if (kill_at == -2) {
        if (!(f = fopen(ck, "a")) || fprintf(f, "%ld\n", writes) < 0 || fclose(f) != 0)
            return 1;
    }
    return 0;
}

/* ---- the check ---------------------------------------------------------------------------- */

static int read_1d(hid_t f, const char *name, hid_t mt, void *buf, hsize_t want)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s;
    hsize_t n = 0;
    int ok;
    if (d < 0)
        return 0;
    s = H5Dget_space(d);
    H5Sget_simple_extent_dims(s, &n, NULL);
    H5Sclose(s);
    ok = n == want && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
    H5Dclose(d);
    return ok;
}

/* After the resume: frames 0..C and C+1, C+2 (the resumed run's), and their solve rows. */
static int check_resumed(const char *path, long k)
{
    const int nf = C + 3;
    int bad = 0, fr, i, j, row = 0, hrow = 0;
    float *pos = malloc(sizeof(float) * (size_t)nf * NV * 3);
    double t[C + 3], *hres = malloc(sizeof(double) * 4096);
    int32_t it[64], frm[64];
    int64_t off[64];
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    long nsolves = (long)(nf - 1) * S, nhist = 0;
    for (fr = 1; fr < nf; fr++)
        for (i = 0; i < S; i++)
            nhist += niter(fr > C ? fr : fr, i);
    if (f < 0) {
        CHECK(0, "k = %ld: the resumed file does not open read-only", k);
        free(pos);
        free(hres);
        return 1;
    }
    {
        hid_t d = H5Dopen2(f, "/frames/positions", H5P_DEFAULT);
        hsize_t dims[3] = {0, 0, 0};
        hid_t s = d >= 0 ? H5Dget_space(d) : -1;
        if (s >= 0)
            H5Sget_simple_extent_dims(s, dims, NULL);
        bad |= !(d >= 0 && dims[0] == (hsize_t)nf && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, pos) >= 0);
        if (s >= 0)
            H5Sclose(s);
        if (d >= 0)
            H5Dclose(d);
        CHECK(!bad, "k = %ld: /frames/positions is not %d frames x %d (or unreadable)", k, nf, NV);
    }
    for (fr = 0; fr < nf && !bad; fr++)
        for (j = 0; j < NV * 3; j++)
            if (pos[(size_t)fr * NV * 3 + j] != (float)xval(fr, j)) {
                CHECK(0, "k = %ld: frame %d value %d = %g, expected %g", k, fr, j, pos[(size_t)fr * NV * 3 + j],
                      (float)xval(fr, j));
                bad = 1;
                break;
            }
    if (!bad) {   /* the fields: every frame, as written */
        float *disp = malloc(sizeof(float) * (size_t)nf * NV * 3), J[C + 3];
        hid_t d = H5Dopen2(f, "/frames/fields/displacement", H5P_DEFAULT);
        hid_t e = H5Dopen2(f, "/frames/fields/J/tets", H5P_DEFAULT);
        hid_t s = d >= 0 ? H5Dget_space(d) : -1, se = e >= 0 ? H5Dget_space(e) : -1;
        hsize_t dims[3] = {0, 0, 0}, edims[3] = {0, 0, 0};
        if (s >= 0)
            H5Sget_simple_extent_dims(s, dims, NULL);
        if (se >= 0)
            H5Sget_simple_extent_dims(se, edims, NULL);
        bad = !(disp && dims[0] == (hsize_t)nf && edims[0] == (hsize_t)nf && edims[1] == 1 &&
                H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, disp) >= 0 &&
                H5Dread(e, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, J) >= 0);
        CHECK(!bad, "k = %ld: the fields are not %d frames (displacement %llu, J %llu)", k, nf,
              (unsigned long long)dims[0], (unsigned long long)edims[0]);
        for (fr = 0; fr < nf && !bad; fr++) {
            if (J[fr] != (float)fval(1, fr, 0)) {
                CHECK(0, "k = %ld: J of frame %d = %g", k, fr, J[fr]);
                bad = 1;
            }
            for (j = 0; j < NV * 3 && !bad; j++)
                if (disp[(size_t)fr * NV * 3 + j] != (float)fval(0, fr, j)) {
                    CHECK(0, "k = %ld: displacement of frame %d value %d = %g", k, fr, j, disp[(size_t)fr * NV * 3 + j]);
                    bad = 1;
                }
        }
        if (s >= 0)
            H5Sclose(s);
        if (se >= 0)
            H5Sclose(se);
        if (d >= 0)
            H5Dclose(d);
        if (e >= 0)
            H5Dclose(e);
        free(disp);
    }
    if (!bad && !read_1d(f, "/frames/time", H5T_NATIVE_DOUBLE, t, nf)) {
        CHECK(0, "k = %ld: /frames/time", k);
        bad = 1;
    }
    for (fr = 0; fr < nf && !bad; fr++)
        if (t[fr] != tval(fr)) {
            CHECK(0, "k = %ld: time[%d] = %g", k, fr, t[fr]);
            bad = 1;
        }
    if (!bad && (!read_1d(f, "/convergence/iterations", H5T_NATIVE_INT32, it, nsolves) ||
                 !read_1d(f, "/convergence/frame", H5T_NATIVE_INT32, frm, nsolves) ||
                 !read_1d(f, "/convergence/history_offset", H5T_NATIVE_INT64, off, nsolves) ||
                 !read_1d(f, "/convergence/history/residual", H5T_NATIVE_DOUBLE, hres, nhist))) {
        CHECK(0, "k = %ld: /convergence does not hold %ld solves and %ld history rows", k, nsolves, nhist);
        bad = 1;
    }
    for (fr = 1; fr < nf && !bad; fr++)
        for (i = 0; i < S && !bad; i++, row++) {
            if (frm[row] != fr || it[row] != niter(fr, i) || off[row] != hrow) {
                CHECK(0, "k = %ld: solve row %d: frame %d iterations %d offset %lld", k, row, frm[row], it[row],
                      (long long)off[row]);
                bad = 1;
            }
            for (j = 0; j < niter(fr, i) && !bad; j++, hrow++)
                if (hres[hrow] != hval(fr, i, j)) {
                    CHECK(0, "k = %ld: history row %d = %g, expected %g", k, hrow, hres[hrow], hval(fr, i, j));
                    bad = 1;
                }
        }
    H5Fclose(f);
    free(pos);
    free(hres);
    return bad;
}

/* Resume the killed file at the checkpoint's counts and write frames C+1, C+2. */
static int resume(const char *path, const long cnt[3], long k)
{
    sipd_h5out *o;
    int rc = h5out_open_append(&o, path, NV, 1, 1, cnt[0], cnt[1], cnt[2]);
    if (rc == SIPD_OK && (rc = h5out_add_fields(o, 2, fspec)) != SIPD_OK)
        h5out_close(o);
    if (rc != SIPD_OK) {
        CHECK(0, "k = %ld: killed before write %ld of the %d frames after the checkpoint: the resume cannot open "
              "the file (status %d; see the message above)", k, k, NMORE, rc);
        return 1;
    }
    rc = write_frame(o, C + 1);
    if (rc == SIPD_OK)
        rc = write_frame(o, C + 2);
    if (h5out_close(o) != SIPD_OK)
        rc = SIPD_EFAIL;
    CHECK(rc == SIPD_OK, "k = %ld: the resumed file failed to take two more frames", k);
    {
        char mark[1200];
        snprintf(mark, sizeof mark, "%s.writing", path);
        CHECK(access(mark, F_OK) != 0, "k = %ld: %s is still there after the resumed run closed the file", k, mark);
    }
    return rc != SIPD_OK || check_resumed(path, k);
}

static pid_t spawn(const char *self, const char *path, const char *ck, long kill_at)
{
    char arg[32];
    pid_t pid = fork();
    if (pid == 0) {
        snprintf(arg, sizeof arg, "%ld", kill_at);
        execl(self, self, "write", path, ck, arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

int main(int argc, char **argv)
{
    char self[1024], path[1100], ck[1100];
    long cnt[3], total = -1, k, torn = 0;
    ssize_t n;
    int status;
    FILE *f;

    if (argc == 5 && strcmp(argv[1], "write") == 0)
        return writer(argv[2], argv[3], atol(argv[4]));
    if (argc != 2) {
        fprintf(stderr, "usage: %s scratch-dir\n", argv[0]);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    sipd_quiet = 1;   /* one "rebuilding" note per kill point */
    alarm(600);
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 2;
    self[n] = '\0';
    mkdir(argv[1], 0777);
    snprintf(path, sizeof path, "%s/torn.h5", argv[1]);
    snprintf(ck, sizeof ck, "%s/torn.ck", argv[1]);
    /* the writes after the checkpoint, counted by a writer that is not killed */
    waitpid(spawn(self, path, ck, -2), &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(f = fopen(ck, "r")) ||
        fscanf(f, "%ld %ld %ld %ld", &cnt[0], &cnt[1], &cnt[2], &total) != 4) {
        fprintf(stderr, "test_h5out_torn: the counting writer failed (status 0x%x)\n", status);
        return 1;
    }
    fclose(f);
    CHECK(total > 0, "no file write after the checkpoint was seen: the fault injection does not reach HDF5");
    printf("checkpoint after frame %d: %ld frames, %ld solves, %ld history rows; %ld file writes in the %d frames "
           "after it\n", C, cnt[0], cnt[1], cnt[2], total, NMORE);
    for (k = 0; k < total; k++) {
        long c2[3];
        waitpid(spawn(self, path, ck, k), &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
            CHECK(0, "k = %ld: the writer was not killed (status 0x%x)", k, status);
            continue;
        }
        f = fopen(ck, "r");
        if (!f || fscanf(f, "%ld %ld %ld", &c2[0], &c2[1], &c2[2]) != 3 || c2[0] != cnt[0] || c2[1] != cnt[1] ||
            c2[2] != cnt[2]) {
            CHECK(0, "k = %ld: the writer's checkpoint counts differ", k);
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        torn += resume(path, cnt, k);
    }
    printf("killed at each of the %ld writes after the checkpoint: %ld left a file the resume could not continue\n",
           total, torn);
    if (failures) {
        fprintf(stderr, "test_h5out_torn: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_h5out_torn: all checks passed\n");
    return 0;
}
