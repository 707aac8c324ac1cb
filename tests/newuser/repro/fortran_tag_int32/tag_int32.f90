! Repro (FINDINGS.md): cairn_get_tag into an integer(int32) of an integer
! tag that does not fit in 32 bits returns a wrong number with ierr = 0.
program tag_int32
  use mpi
  use cairn
  use, intrinsic :: iso_fortran_env, only: int32, int64
  implicit none
  type(cairn_store) :: st
  integer :: ierr
  integer(int32) :: v4
  integer(int64) :: v8
  character(len=256) :: dir
  call MPI_Init(ierr)
  call get_command_argument(1, dir)
  call cairn_open(st, trim(dir), MPI_COMM_WORLD)
  call cairn_put(st, "x", [1.0d0])
  call cairn_set_tag(st, "x", "big", 5000000000_int64)      ! > 2**31
  call cairn_get_tag(st, "x", "big", v8, ierr=ierr)
  print '(a,i0,a,i0)', "int64: ", v8, "  ierr ", ierr
  call cairn_get_tag(st, "x", "big", v4, ierr=ierr)
  print '(a,i0,a,i0)', "int32: ", v4, "  ierr ", ierr
  if (ierr == CAIRN_OK .and. int(v4, int64) /= v8) then
    print '(a)', "BROKEN: a wrong int32 value with ierr = CAIRN_OK"
  end if
  call cairn_close(st)
  call MPI_Finalize(ierr)
end program tag_int32
