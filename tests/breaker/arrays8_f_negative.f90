program pf2
  use mpi
  use cairn
  use iso_fortran_env
  implicit none
  type(cairn_store) :: st
  real(real64) :: u(4, 3), box(2, 2)
  integer :: ierr, rank, i
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  u = reshape([(real(i, real64), i = 1, 12)], [4, 3])
  call cairn_open(st, "/tmp/arrays8_f_negative", MPI_COMM_WORLD)
  call cairn_put_array(st, "u", [4, 3], [-1, 0], u, ierr=ierr)
  if (rank == 0) print *, "put start -1:", ierr, " ", cairn_last_error()
  call cairn_put_array(st, "u", [-4, 3], [0, 0], u, ierr=ierr)
  if (rank == 0) print *, "put shape -4:", ierr, " ", cairn_last_error()
  call cairn_put_array(st, "u", [4_int64, -3_int64], [0_int64, 0_int64], u, ierr=ierr)
  if (rank == 0) print *, "put shape -3 (int64):", ierr, " ", cairn_last_error()
  if (rank == 0) call cairn_put_array(st, "u", [4, 3], [0, 0], u)
  call cairn_commit(st)
  call cairn_get_array(st, "u", [-1, 0], box, ierr)
  if (rank == 0) print *, "get start -1:", ierr, " ", cairn_last_error()
  call cairn_get_array(st, "u", [0_int64, -2_int64], box, ierr)
  if (rank == 0) print *, "get start -2 (int64):", ierr, " ", cairn_last_error()
  call cairn_get_array(st, "u", [3, 2], box, ierr)
  if (rank == 0) print *, "get past edge:", ierr, " ", cairn_last_error()
  call cairn_close(st)
  call MPI_Finalize(ierr)
end program pf2
