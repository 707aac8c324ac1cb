# cairn_isolate_mpi_sessions(): gives every test of the calling directory
# its own Open MPI session directory base (OMPI_MCA_orte_tmpdir_base, under
# the build tree; MPICH ignores it). Open MPI keeps one top session
# directory per node and user, made by the first mpiexec that needs it and
# removed by the last one to end; with two tests running at once, one
# mpiexec's start-up met another's removal and failed in orte_init ("A call
# to mkdir was unable to create the desired directory ... File exists":
# crash_test of a clean clone, 2026-12-07). Call at the end of a
# CMakeLists.txt that adds tests (CMake 3.25 sets test properties only in
# the directory that made the test).
function(cairn_isolate_mpi_sessions)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    string(MAKE_C_IDENTIFIER "${t}" id)
    set_property(TEST "${t}" APPEND PROPERTY ENVIRONMENT
                 "OMPI_MCA_orte_tmpdir_base=${CMAKE_BINARY_DIR}/mpi-sessions/${id}")
  endforeach()
endfunction()
