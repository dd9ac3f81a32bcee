/* libFuzzer harness: gmsh binary .msh.  The input is the file after its header line: the first
 * byte picks the version (even: 2.2, odd: 4.1), so every input reaches the binary readers
 * (seeds: tests/data/meshes/box_v*_bin.msh with their header line replaced by that byte, made
 * by tests/fuzz/run.sh). */
#include "fuzz_common.h"
#include "mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char *path;
    static const char *const head[2] = {"$MeshFormat\n2.2 1 8\n", "$MeshFormat\n4.1 1 8\n"};
    sipd_mesh m;
    uint8_t *buf;
    size_t hl;
    int v;
    if (n < 1)
        return 0;
    if (!path)
        path = fuzz_path("in_bin.msh");
    v = data[0] & 1;
    hl = strlen(head[v]);
    buf = malloc(hl + n - 1 + 1);
    if (!buf)
        abort();
    memcpy(buf, head[v], hl);
    memcpy(buf + hl, data + 1, n - 1);
    fuzz_write(path, buf, hl + n - 1);
    free(buf);
    memset(&m, 0, sizeof m);
    if (mesh_load_gmsh(path, &m) == 0)
        mesh_free(&m);
    return 0;
}
