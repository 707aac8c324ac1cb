! Probe: Fortran cairn_get_array into a buffer of another kind than the array's dtype.
program pf
  use mpi
  use cairn
  use iso_fortran_env
  implicit none
  type(cairn_store) :: st
  real(real64) :: u(4, 3), back(4, 3)
  integer(int64) :: i8(4, 3)
  real(real32) :: r4(8, 3)
  integer(int32) :: i4(8, 3)
  integer :: ierr, rank, i, dt
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  u = reshape([(real(i, real64) + 0.5d0, i = 1, 12)], [4, 3])
  call cairn_open(st, "/tmp/arrays8_f_kinds", MPI_COMM_WORLD)
  if (rank == 0) call cairn_put_array(st, "u", [4, 3], [0, 0], u)
  call cairn_commit(st)
  call cairn_array_info(st, "u", dtype=dt)
  call cairn_get_array(st, "u", [0, 0], back, ierr=ierr)
  if (rank == 0) print *, "real64 into real64: ierr", ierr, " ok:", all(back == u)
  i8 = -1
  call cairn_get_array(st, "u", [0, 0], i8, ierr=ierr)
  if (rank == 0) print *, "real64 array into integer(int64): ierr", ierr, " i8(1,1) =", i8(1, 1)
  r4 = -1
  call cairn_get_array(st, "u", [0, 0], r4, ierr=ierr)
  if (rank == 0) print *, "real64 array into real32(8,3) (same bytes): ierr", ierr, " r4(1,1) =", r4(1, 1)
  i4 = -1
  call cairn_get_array(st, "u", [0, 0], i4(1:4, :), ierr=ierr)
  if (rank == 0) print *, "real64 array into int32(4,3): ierr", ierr
  call cairn_close(st)
  call MPI_Finalize(ierr)
end program pf
