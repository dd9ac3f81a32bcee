/* sipd-contact-bench-gpu — tools/sipd-contact-bench.c built with SIPD_HAVE_CUDA: the same noodle
 * piles and CPU columns, plus the GPU broad phase (sipd_cuda_broad_run) and narrow phase
 * (sipd_cuda_collide_narrow) timed on them.  See that file. */
#include "../sipd-contact-bench.c"
