/* scene_keys — print every key the scene parser accepts, one dotted path a line, from
 * scene.c's own key tables (scene_print_keys).  The docs test (tests/cli/docs.cmake,
 * tests/cli/test_docs.sh keys) checks each against docs/scene-reference.md. */
#include <stdio.h>

#include "scene.h"

int main(void)
{
    scene_print_keys(stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}
