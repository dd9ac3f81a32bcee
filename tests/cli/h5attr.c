/* h5attr FILE NAME [VALUE] — set (or, without VALUE, delete) a string attribute on the root of
 * an HDF5 file.  For tests that need an output in a state only a kill at an exact moment
 * leaves (tests/cli/test_cli.sh resume_finished). */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    hid_t f, t, sp, a;
    int ok = 1;
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: h5attr FILE NAME [VALUE]\n");
        return 2;
    }
    if ((f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT)) < 0)
        return 1;
    if (H5Aexists(f, argv[2]) > 0 && H5Adelete(f, argv[2]) < 0)
        ok = 0;
    if (ok && argc == 4) {
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, strlen(argv[3]) + 1);
        sp = H5Screate(H5S_SCALAR);
        a = H5Acreate2(f, argv[2], t, sp, H5P_DEFAULT, H5P_DEFAULT);
        ok = a >= 0 && H5Awrite(a, t, argv[3]) >= 0;
        if (a >= 0)
            H5Aclose(a);
        H5Sclose(sp);
        H5Tclose(t);
    }
    return H5Fclose(f) >= 0 && ok ? 0 : 1;
}
