# Sourced by the test scripts (test.sh, test_sanitized.sh): scripts/mpi_env.sh,
# and two Open MPI settings that only make the suite's many short mpiexec
# jobs start and end sooner (MPICH ignores both). Measured on the 2-core CI
# machine: crash_test 184 s -> 108 s (tests/README.md, "The suite's time").
#  - pml ob1: the PML Open MPI selects on one node anyway (Debian's
#    openmpi-mca-params.conf excludes ucx); naming it skips opening the cm
#    PML and its PSM/PSM2 libraries, 0.2-0.25 s of every job's start-up.
#  - odls_base_sigkill_timeout 0: when a rank dies (kill -9, a crash point,
#    MPI_Abort), mpiexec sends the others SIGCONT, SIGTERM and SIGKILL at
#    once instead of 1 s apart (strace: 1.7 s -> 0.7 s for such a job);
#    cairn handles no SIGTERM, so they die the same way, only sooner.
source "$(dirname "${BASH_SOURCE[0]}")/mpi_env.sh"
export OMPI_MCA_pml=ob1
export OMPI_MCA_odls_base_sigkill_timeout=0
