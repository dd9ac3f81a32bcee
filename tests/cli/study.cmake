# Issue 26's study scenes (scenes/study/, written without a solver group) through
# tools/defaults-study.py at reduced size, at the defaults and with Newton (tests/cli/test_study.sh):
# Newton's block on the slope sticks and its stack stands; the defaults do the same within 5 mm of
# Newton (the stack, the slope, the ball on the pinned cloth), put the hanging cloth within 1% and
# the quasi-static beam within 0.1% of Newton's motion,
# with >= 95% of their solves converged or at the energy floor.  Skipped (77) without
# /usr/bin/python3's numpy and h5py.  One thread each; about 10-30 s of CPU time per case in a
# release build (study_ball_cloth, about 30 s, the longest): label slow.
# study_shipped: tools/shipped-scenes.py on two small shipped scenes, 2 frames (under a second).
foreach(case slope stack hang beam ball_cloth shipped)
  add_test(NAME study_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_study.sh $<TARGET_FILE:sipd-run> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/study_${case} ${case})
  set_tests_properties(study_${case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS slow)
endforeach()
