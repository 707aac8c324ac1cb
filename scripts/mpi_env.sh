# Sourced by the scripts: lets OpenMPI run as root (CI runs as root) and
# start more ranks than there are cores. MPICH ignores these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
