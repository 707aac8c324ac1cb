program hello
  use mpi
  use cairn
  implicit none
  type(cairn_store) :: st
  integer :: ierr
  call MPI_Init(ierr)
  call cairn_open(st, "/tmp/nu-hello-store", MPI_COMM_WORLD)
  call cairn_close(st)
  call MPI_Finalize(ierr)
end program hello
