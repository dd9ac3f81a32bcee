/* libFuzzer harness: the scene loader (scene text checks, @include expansion, libconfig, every
 * key's validation).  The scene is written to DIR/s/scene.cfg with a one-tet TetGen mesh at
 * DIR/s/tet and DIR/tet, so the seeds from tests/data/scenes (mesh = "tet" and "../tet") load. */
#include "fuzz_common.h"
#include "scene.h"

static const char tet_node[] = "4 3 0 0\n0 0.0 0.0 0.0\n1 1.0 0.0 0.0\n2 0.0 1.0 0.0\n3 0.0 0.0 1.0\n";
static const char tet_ele[] = "1 4 0\n0 0 1 2 3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char *path;
    sipd_scene sc;
    if (!path) {
        const char *const files[4] = {"tet.node", "tet.ele", "s/tet.node", "s/tet.ele"};
        char *s = fuzz_path("s");
        mkdir(s, 0777);
        free(s);
        for (int i = 0; i < 4; i++) {
            char *p = fuzz_path(files[i]);
            const char *t = i % 2 ? tet_ele : tet_node;
            fuzz_write(p, (const uint8_t *)t, strlen(t));
            free(p);
        }
        path = fuzz_path("s/scene.cfg");
    }
    fuzz_write(path, data, n);
    if (scene_load(path, &sc) == 0)
        scene_free(&sc);
    return 0;
}
