/* stress_check.c — independent checks of sipd-run output files (HDF5 only; no sipd-run code).
 *
 *   stress_check rest OUT.h5 [TOL [FRAME]]
 *       J = det F per tet of the LAST frame (or of FRAME) of /frames/positions against /mesh/rest_positions
 *       (F = Ds Dm^-1, so J = det Ds / det Dm, from the four corners in /mesh/tets).  Prints
 *       "max|J-1| = ... inverted = N of NT frames = F time = T"; exit 0 when max|J-1| < TOL
 *       (default 1e-2) and no tet is inverted (J <= 0), 1 otherwise, 2 on unreadable input.
 *   stress_check frame0 OUT.h5 FILE.node TX TY TZ
 *       frame 0 of /frames/positions equals FILE.node's positions + (TX, TY, TZ) to float32
 *       round-off (relative 1e-6 of the largest coordinate); exit 0 / 1 / 2 likewise.
 *   stress_check frames A.h5 FA B.h5 FB
 *       frame FA of A.h5 and frame FB of B.h5 hold identical positions; exit 0 / 1 / 2.
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *read_all(hid_t f, const char *name, hid_t type, size_t elem, int nd_want, hsize_t *dims)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), sp;
    void *v;
    size_t n = 1;
    int k;
    if (d < 0)
        return NULL;
    sp = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(sp) != nd_want) {
        H5Dclose(d);
        return NULL;
    }
    H5Sget_simple_extent_dims(sp, dims, NULL);
    for (k = 0; k < nd_want; k++) n *= dims[k];
    v = malloc(n * elem + 1);
    if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    H5Sclose(sp);
    H5Dclose(d);
    return v;
}

/* Frame `fr` of /frames/positions as doubles; *nframes = number of frames (fr < 0: the last). */
static double *read_frame(hid_t f, long fr, hsize_t *nv, hsize_t *nframes)
{
    hid_t d = H5Dopen2(f, "/frames/positions", H5P_DEFAULT), sp, ms;
    hsize_t dims[3], start[3] = {0, 0, 0}, cnt[3];
    float *buf;
    double *x;
    hsize_t i, n;
    if (d < 0)
        return NULL;
    sp = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(sp) != 3)
        return NULL;
    H5Sget_simple_extent_dims(sp, dims, NULL);
    *nframes = dims[0];
    *nv = dims[1];
    if (dims[0] == 0 || (fr >= 0 && (hsize_t)fr >= dims[0]))
        return NULL;
    start[0] = fr < 0 ? dims[0] - 1 : (hsize_t)fr;
    cnt[0] = 1, cnt[1] = dims[1], cnt[2] = 3;
    n = dims[1] * 3;
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, cnt, NULL);
    ms = H5Screate_simple(1, &n, NULL);
    buf = malloc(n * sizeof(float) + 1);
    x = malloc(n * sizeof(double) + 1);
    if (H5Dread(d, H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, buf) < 0)
        return NULL;
    for (i = 0; i < n; i++) x[i] = buf[i];
    free(buf);
    H5Sclose(ms);
    H5Sclose(sp);
    H5Dclose(d);
    return x;
}

static double det_edges(const double *x, const int *t)
{
    double e[3][3];
    int k, r;
    for (r = 0; r < 3; r++)
        for (k = 0; k < 3; k++) e[r][k] = x[3 * t[r + 1] + k] - x[3 * t[0] + k];
    return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

static int check_rest(const char *path, double tol, long frame)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t rd[2], td[2], nv = 0, nfr = 0, e;
    double *X, *x, worst = 0, tlast = NAN;
    int *T;
    long inverted = 0;
    if (f < 0)
        return fprintf(stderr, "%s: cannot open\n", path), 2;
    X = read_all(f, "/mesh/rest_positions", H5T_NATIVE_DOUBLE, sizeof(double), 2, rd);
    T = (int *)read_all(f, "/mesh/tets", H5T_NATIVE_INT, sizeof(int), 2, td);
    x = read_frame(f, frame, &nv, &nfr);
    if (!X || !T || !x || nv != rd[0] || td[1] != 4)
        return fprintf(stderr, "%s: missing or inconsistent /mesh/rest_positions, /mesh/tets, /frames/positions\n",
                       path), 2;
    {
        hsize_t tdim[1];
        double *tm = read_all(f, "/frames/time", H5T_NATIVE_DOUBLE, sizeof(double), 1, tdim);
        if (tm && tdim[0] == nfr)
            tlast = tm[frame < 0 ? (long)nfr - 1 : frame];
        free(tm);
    }
    for (e = 0; e < td[0]; e++) {
        double J = det_edges(x, T + 4 * e) / det_edges(X, T + 4 * e);
        if (!(J > 0))
            inverted++;
        if (getenv("STRESS_CHECK_VERBOSE") && !(fabs(J - 1) < tol))
            printf("tet %llu (%d %d %d %d): J = %.4f\n", (unsigned long long)e, T[4 * e], T[4 * e + 1], T[4 * e + 2],
                   T[4 * e + 3], J);
        if (!(fabs(J - 1) <= worst))
            worst = isfinite(J) ? fabs(J - 1) : INFINITY;
    }
    printf("max|J-1| = %.3e inverted = %ld of %llu frames = %llu time = %g\n", worst, inverted,
           (unsigned long long)td[0], (unsigned long long)nfr, tlast);
    free(X);
    free(T);
    free(x);
    H5Fclose(f);
    return worst < tol && inverted == 0 ? 0 : 1;
}

static int check_frame0(const char *path, const char *node, const double tr[3])
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t nv = 0, nfr = 0, i;
    double *x, scale = 0, worst = 0;
    FILE *in = fopen(node, "r");
    char line[1024];
    long n = -1, got = 0;
    if (f < 0 || !in)
        return fprintf(stderr, "cannot open %s or %s\n", path, node), 2;
    x = read_frame(f, 0, &nv, &nfr);
    if (!x)
        return fprintf(stderr, "%s: no frame 0\n", path), 2;
    while (fgets(line, sizeof line, in)) {
        char *h = strchr(line, '#');
        long idx;
        double p[3];
        int k;
        if (h)
            *h = 0;
        if (n < 0) {
            if (sscanf(line, "%ld", &n) == 1 && (hsize_t)n != nv)
                return fprintf(stderr, "%s has %ld vertices, the output %llu\n", node, n, (unsigned long long)nv), 1;
            continue;
        }
        if (sscanf(line, "%ld %lf %lf %lf", &idx, &p[0], &p[1], &p[2]) != 4)
            continue;
        for (k = 0; k < 3; k++) {
            double dlt = fabs(x[3 * got + k] - (p[k] + tr[k]));
            worst = dlt > worst ? dlt : worst;
            scale = fabs(p[k] + tr[k]) > scale ? fabs(p[k] + tr[k]) : scale;
        }
        got++;
    }
    fclose(in);
    for (i = 0; i < 3 * nv; i++) scale = fabs(x[i]) > scale ? fabs(x[i]) : scale;
    printf("frame 0 vs %s: %ld vertices, max difference %.3e (scale %.3e)\n", node, got, worst, scale);
    free(x);
    H5Fclose(f);
    return (hsize_t)got == nv && worst <= 1e-6 * scale ? 0 : 1;
}

static int check_frames(const char *a, long fa, const char *b, long fb)
{
    hid_t f = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), g = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t na = 0, nb = 0, nfa, nfb, i;
    double *x, *y, worst = 0;
    if (f < 0 || g < 0)
        return fprintf(stderr, "cannot open %s or %s\n", a, b), 2;
    x = read_frame(f, fa, &na, &nfa);
    y = read_frame(g, fb, &nb, &nfb);
    if (!x || !y)
        return fprintf(stderr, "no frame %ld in %s or no frame %ld in %s\n", fa, a, fb, b), 2;
    if (na != nb)
        return printf("%s has %llu vertices, %s %llu\n", a, (unsigned long long)na, b, (unsigned long long)nb), 1;
    for (i = 0; i < 3 * na; i++) worst = fabs(x[i] - y[i]) > worst ? fabs(x[i] - y[i]) : worst;
    printf("frame %ld of %s vs frame %ld of %s: max difference %.3e\n", fa, a, fb, b, worst);
    free(x);
    free(y);
    H5Fclose(f);
    H5Fclose(g);
    return worst == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "frames") == 0)
        return check_frames(argv[2], atol(argv[3]), argv[4], atol(argv[5]));
    if (argc >= 3 && argc <= 5 && strcmp(argv[1], "rest") == 0)
        return check_rest(argv[2], argc > 3 ? atof(argv[3]) : 1e-2, argc > 4 ? atol(argv[4]) : -1);
    if (argc == 7 && strcmp(argv[1], "frame0") == 0) {
        double tr[3] = {atof(argv[4]), atof(argv[5]), atof(argv[6])};
        return check_frame0(argv[2], argv[3], tr);
    }
    fprintf(stderr, "usage: stress_check rest OUT.h5 [TOL [FRAME]] | frame0 OUT.h5 FILE.node TX TY TZ | "
                    "frames A.h5 FA B.h5 FB\n");
    return 2;
}
