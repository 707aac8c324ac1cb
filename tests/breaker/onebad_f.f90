! Seventh pass: Fortran cairn_open with an argument the wrapper refuses on the
! last rank only (keep_revisions=-1, revision=-2, char(0) in the path) or one
! the library refuses (staging_bytes=-5): every rank must fail, the others
! naming that rank and its cause.   mpiexec -n N breaker_onebad_f CASE
! (the store is /tmp/breaker7_fo; FINDINGS7.md finding 5)
program fo
  use mpi
  use cairn
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  type(cairn_store) :: st
  integer :: ierr, rank, nranks, e
  character(len=64) :: c
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, c)
  e = 0
  if (rank == nranks - 1) then
    select case (trim(c))
    case ("keep"); call cairn_open(st, "/tmp/breaker7_fo", MPI_COMM_WORLD, keep_revisions=-1_int64, ierr=e)
    case ("rev"); call cairn_open(st, "/tmp/breaker7_fo", MPI_COMM_WORLD, revision=-2_int64, ierr=e)
    case ("nul"); call cairn_open(st, "/tmp/breaker7_fo"//char(0)//"x", MPI_COMM_WORLD, ierr=e)
    case ("stg"); call cairn_open(st, "/tmp/breaker7_fo", MPI_COMM_WORLD, staging_bytes=-5_int64, ierr=e)
    end select
  else
    call cairn_open(st, "/tmp/breaker7_fo", MPI_COMM_WORLD, ierr=e)
  end if
  print '(a,a,i0,a,i0,a,a)', trim(c), " rank ", rank, " ierr ", e, " ", trim(cairn_last_error())
  call MPI_Finalize(ierr)
end program fo
