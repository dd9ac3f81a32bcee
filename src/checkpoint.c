#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define CKPT_MAGIC_V1 "SIPDCKP1"   /* frame boundaries only            */
#define CKPT_MAGIC "SIPDCKP2"      /* + the substep inside the frame     */
#define CKPT_MAGIC_V3 "SIPDCKP3"   /* + solver state (ns doubles after v) */
#define CKPT_MAGIC_V4 "SIPDCKP4"   /* + x_extent, f_start                 */
#define CKPT_MAGIC_V5 "SIPDCKP5"   /* + the adaptive guess' history    */
#define CKPT_MAGIC_V6 "SIPDCKP6"   /* + the friction anchors (written now) */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t checkpoint_scene_hash(const char *scene_text, int nv, int nt)
{
    uint64_t h = 14695981039346656037ull;
    int32_t sz[2];
    sz[0] = nv;
    sz[1] = nt;
    h = fnv1a(h, scene_text ? scene_text : "", scene_text ? strlen(scene_text) : 0);
    return fnv1a(h, sz, sizeof sz);
}

/* Header, fixed layout (native endianness: checkpoints are not meant to move between
 * machines of different byte order). */
typedef struct {
    char magic[8];
    int32_t nv, frame;
    int64_t out_frames, out_solves, out_hist;
    double t, lam_min;
    uint64_t scene_hash;
} ckpt_header;

/* Version 2: the version-1 header, then the substep (and padding to 8 bytes). */
typedef struct {
    ckpt_header h;
    int32_t substep, reserved;
} ckpt_header2;

/* Version 3: the version-2 header, then the count of solver-state doubles. */
typedef struct {
    ckpt_header2 h2;
    int64_t ns;
} ckpt_header3;

/* Version 4: the version-3 header, then the driver's running scales. */
typedef struct {
    ckpt_header3 h3;
    double x_extent, f_start;
} ckpt_header4;

/* Version 5: the version-4 header, then whether nv*3 doubles of the adaptive guess' history
   (the velocities before the last step) follow the solver state. */
typedef struct {
    ckpt_header4 h4;
    int64_t has_vp;
} ckpt_header5;

/* Version 6: the version-5 header, then the count of friction-anchor doubles (backend.h
   friction_state) that follow the history. */
typedef struct {
    ckpt_header5 h5;
    int64_t nf;
} ckpt_header6;

static int write_all(int fd, const void *buf, size_t n, uint64_t *h)
{
    const char *p = buf;
    *h = fnv1a(*h, buf, n);
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int checkpoint_write(const char *path, const sipd_checkpoint *c)
{
    size_t n = strlen(path) + 8;
    char *tmp = sipd_malloc(n);
    ckpt_header2 hd2;
    ckpt_header4 hd4;
    ckpt_header5 hd5;
    ckpt_header6 hd6;
    ckpt_header hd;
    uint64_t h = 14695981039346656037ull;
    size_t nb = (size_t)c->nv * 3 * sizeof(double), ns = c->ns > 0 ? (size_t)c->ns * sizeof(double) : 0;
    int fd;
    if (!tmp)
        return SIPD_EFAIL;
    snprintf(tmp, n, "%s.tmp", path);
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, CKPT_MAGIC, 8);
    hd.nv = c->nv;
    hd.frame = c->frame;
    hd.out_frames = c->out_frames;
    hd.out_solves = c->out_solves;
    hd.out_hist = c->out_hist;
    hd.t = c->t;
    hd.lam_min = c->lam_min;
    hd.scene_hash = c->scene_hash;
    memset(&hd2, 0, sizeof hd2);
    hd2.h = hd;
    hd2.substep = c->substep;
    memset(&hd4, 0, sizeof hd4);
    memcpy(hd2.h.magic, CKPT_MAGIC_V6, 8);
    hd4.h3.h2 = hd2;
    hd4.h3.ns = ns ? c->ns : 0;
    hd4.x_extent = c->x_extent;
    hd4.f_start = c->f_start;
    memset(&hd5, 0, sizeof hd5);
    hd5.h4 = hd4;
    hd5.has_vp = c->vp != NULL;
    memset(&hd6, 0, sizeof hd6);
    hd6.h5 = hd5;
    hd6.nf = c->f && c->nf > 0 ? c->nf : 0;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write_all(fd, &hd6, sizeof hd6, &h) ||
        write_all(fd, c->x, nb, &h) || write_all(fd, c->v, nb, &h) || (ns && write_all(fd, c->s, ns, &h)) ||
        (c->vp && write_all(fd, c->vp, nb, &h)) ||
        (hd6.nf && write_all(fd, c->f, (size_t)hd6.nf * sizeof(double), &h)) ||
        write_all(fd, &h, sizeof h, &(uint64_t){0}) || fsync(fd) || close(fd)) {
        sipd_error_at(path, 0, "cannot write checkpoint: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        unlink(tmp);
        free(tmp);
        return SIPD_EFAIL;
    }
    if (rename(tmp, path) != 0) {
        sipd_error_at(path, 0, "cannot rename the new checkpoint into place: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return SIPD_EFAIL;
    }
    free(tmp);
    return SIPD_OK;
}

int checkpoint_read(const char *path, sipd_checkpoint *c)
{
    size_t len = 0, nb;
    char *buf;
    ckpt_header hd;
    ckpt_header2 hd2;
    ckpt_header3 hd3;
    ckpt_header4 hd4;
    ckpt_header5 hd5;
    ckpt_header6 hd6;
    size_t hsize, ns = 0, nvp, nf;
    uint64_t stored;
    memset(c, 0, sizeof *c);
    buf = sipd_read_file(path, &len);
    if (!buf) {
        sipd_error_at(path, 0, "cannot read checkpoint: %s", strerror(errno));
        return SIPD_EFAIL;
    }
    hsize = len >= 8 && memcmp(buf, CKPT_MAGIC_V1, 8) == 0   ? sizeof hd
            : len >= 8 && memcmp(buf, CKPT_MAGIC_V3, 8) == 0 ? sizeof hd3
            : len >= 8 && memcmp(buf, CKPT_MAGIC_V4, 8) == 0 ? sizeof hd4
            : len >= 8 && memcmp(buf, CKPT_MAGIC_V5, 8) == 0 ? sizeof hd5
            : len >= 8 && memcmp(buf, CKPT_MAGIC_V6, 8) == 0 ? sizeof hd6
                                                            : sizeof hd2;
    if (len < hsize + sizeof stored || (memcmp(buf, CKPT_MAGIC, 8) != 0 && memcmp(buf, CKPT_MAGIC_V1, 8) != 0 &&
                                        memcmp(buf, CKPT_MAGIC_V3, 8) != 0 && memcmp(buf, CKPT_MAGIC_V4, 8) != 0 &&
                                        memcmp(buf, CKPT_MAGIC_V5, 8) != 0 && memcmp(buf, CKPT_MAGIC_V6, 8) != 0)) {
        sipd_error_at(path, 0, "not a sipd-run checkpoint (or an incompatible version)");
        free(buf);
        return SIPD_EINPUT;
    }
    memset(&hd6, 0, sizeof hd6);
    memcpy(&hd6, buf, hsize);
    hd5 = hd6.h5;
    hd4 = hd5.h4;
    hd3 = hd4.h3;
    hd2 = hd3.h2;
    hd = hd2.h;
    nb = hd.nv > 0 ? (size_t)hd.nv * 3 * sizeof(double) : 0;
    if (hd3.ns < 0 || hd3.ns > (int64_t)(len / sizeof(double)) || hd6.nf < 0 ||
        hd6.nf > (int64_t)(len / sizeof(double))) {
        sipd_error_at(path, 0, "checkpoint is truncated or has a wrong size");
        free(buf);
        return SIPD_EINPUT;
    }
    ns = (size_t)hd3.ns * sizeof(double);
    nvp = hd5.has_vp ? nb : 0;
    nf = (size_t)hd6.nf * sizeof(double);
    if (hd.nv <= 0 || hd.nv > INT32_MAX / 3 || len != hsize + 2 * nb + ns + nvp + nf + sizeof stored) {
        sipd_error_at(path, 0, "checkpoint is truncated or has a wrong size");
        free(buf);
        return SIPD_EINPUT;
    }
    memcpy(&stored, buf + len - sizeof stored, sizeof stored);
    if (fnv1a(14695981039346656037ull, buf, len - sizeof stored) != stored) {
        sipd_error_at(path, 0, "checkpoint checksum mismatch: the file is corrupt");
        free(buf);
        return SIPD_EINPUT;
    }
    c->nv = hd.nv;
    c->frame = hd.frame;
    c->substep = hd2.substep;
    if (c->frame < 0 || c->substep < 0) {
        sipd_error_at(path, 0, "checkpoint holds a negative frame or step");
        free(buf);
        return SIPD_EINPUT;
    }
    c->out_frames = (long)hd.out_frames;
    c->out_solves = (long)hd.out_solves;
    c->out_hist = (long)hd.out_hist;
    c->t = hd.t;
    c->lam_min = hd.lam_min;
    c->x_extent = hd4.x_extent;
    c->f_start = hd4.f_start;
    c->scene_hash = hd.scene_hash;
    c->x = sipd_malloc(nb);
    c->v = sipd_malloc(nb);
    c->ns = (long)hd3.ns;
    c->s = ns ? sipd_malloc(ns) : NULL;
    c->vp = nvp ? sipd_malloc(nvp) : NULL;
    c->nf = (long)hd6.nf;
    c->f = nf ? sipd_malloc(nf) : NULL;
    if (!c->x || !c->v || (ns && !c->s) || (nvp && !c->vp) || (nf && !c->f)) {
        free(buf);
        checkpoint_free(c);
        return SIPD_EFAIL;
    }
    memcpy(c->x, buf + hsize, nb);
    memcpy(c->v, buf + hsize + nb, nb);
    if (ns)
        memcpy(c->s, buf + hsize + 2 * nb, ns);
    if (nvp)
        memcpy(c->vp, buf + hsize + 2 * nb + ns, nvp);
    if (nf)
        memcpy(c->f, buf + hsize + 2 * nb + ns + nvp, nf);
    free(buf);
    return SIPD_OK;
}

void checkpoint_free(sipd_checkpoint *c)
{
    free(c->x);
    free(c->v);
    free(c->s);
    free(c->vp);
    free(c->f);
    c->x = c->v = c->s = c->vp = c->f = NULL;
    c->ns = c->nf = 0;
}
