/* libFuzzer harness: gmsh .msh (2.2 and 4.1; ASCII seeds: the binary target shares the loader
 * and has its own seeds). Any input must give SIPD_OK or an error status, never a crash. */
#include "fuzz_common.h"
#include "mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char *path;
    sipd_mesh m;
    if (!path)
        path = fuzz_path("in.msh");
    fuzz_write(path, data, n);
    memset(&m, 0, sizeof m);
    if (mesh_load_gmsh(path, &m) == 0)
        mesh_free(&m);
    return 0;
}
