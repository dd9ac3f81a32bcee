# SLURM tooling (tools/slurm/): the sweep generator (no SLURM needed) and the batch templates on a
# private single-node SLURM cluster started by the test (skipped, exit 77, when slurmctld, slurmd
# and munge are not installed or cannot start). test_slurm.sh describes what each case checks.
foreach(case sweep cluster)
  add_test(NAME slurm_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_slurm.sh ${case} $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR})
  set_tests_properties(slurm_${case} PROPERTIES LABELS slurm SKIP_RETURN_CODE 77)
endforeach()
# about a minute, mostly SLURM's requeue delay; `slow` keeps it out of the sanitizer run
set_tests_properties(slurm_cluster PROPERTIES LABELS "slurm;slow" TIMEOUT 300)
