/* libFuzzer harness: Wavefront .obj (mesh_load_obj; seeds: the .obj files in tests/data/meshes).  Any input
 * must give SIPD_OK or an error status, never a crash. */
#include "fuzz_common.h"
#include "mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char *path;
    sipd_mesh m;
    if (!path)
        path = fuzz_path("in.obj");
    fuzz_write(path, data, n);
    memset(&m, 0, sizeof m);
    if (mesh_load_obj(path, &m) == 0)
        mesh_free(&m);
    return 0;
}
