/* libFuzzer harness: TetGen .node/.ele/.face.  One input holds the three files, separated by
 * lines "#@ele" and "#@face" (comments to TetGen, so a seed made by tests/fuzz/run.sh reads as
 * three valid files); a missing part means a missing file (.face is optional). */
#include "fuzz_common.h"
#include "mesh.h"

static const uint8_t *find(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0)
            return p + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char *base, *node, *ele, *face;
    const uint8_t *e, *f, *end = data + n;
    sipd_mesh m;
    if (!base) {
        base = fuzz_path("in");
        node = fuzz_path("in.node");
        ele = fuzz_path("in.ele");
        face = fuzz_path("in.face");
    }
    e = find(data, n, "#@ele");
    f = e ? find(e, (size_t)(end - e), "#@face") : NULL;
    unlink(ele);
    unlink(face);
    fuzz_write(node, data, (size_t)((e ? e : end) - data));
    if (e)
        fuzz_write(ele, e, (size_t)((f ? f : end) - e));
    if (f)
        fuzz_write(face, f, (size_t)(end - f));
    memset(&m, 0, sizeof m);
    if (mesh_load_tetgen(base, &m) == 0)
        mesh_free(&m);
    return 0;
}
