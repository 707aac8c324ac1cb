! A Fortran program using an installed cairn through `use cairn`: arrays of
! several kinds and ranks, tags, a neighbour's namespace, an error returned
! through ierr, key and revision listings, and a global array (each rank a
! column slab, a neighbour's slab read back). Usage: user_f STORE_DIR.
program user_f
  use mpi
  use cairn
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  implicit none
  character(len=1024) :: dir
  type(cairn_store) :: st
  integer :: rank, nranks, peer, ierr, bad, anybad, i, writers
  real(real64) :: grid(3, 4), back(3, 4)
  integer(int32) :: ids(5), ids_back(5)
  real(real32) :: x, x_back
  integer(int64) :: rev, nbytes, step
  character(len=:), allocatable :: keys(:), units
  integer(int64), allocatable :: revs(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, dir)
  bad = 0
  peer = mod(rank + 1, nranks)

  call cairn_open(st, trim(dir), MPI_COMM_WORLD)
  grid = reshape([(real(i + 100 * rank, real64), i = 1, 12)], [3, 4])
  ids = [(i * (rank + 1), i = 1, 5)]
  x = 2.5 + rank
  call cairn_put(st, "grid", grid)
  call cairn_put(st, "ids", ids(1:5:2))      ! a non-contiguous section
  call cairn_put(st, "x", x)
  call cairn_set_tag(st, "grid", "step", 42_int64)
  call cairn_set_tag(st, "grid", "units", "kelvin")
  call cairn_put_array(st, "global", [3, 4 * nranks], [0, 4 * rank], grid)
  call cairn_commit(st, rev)

  call cairn_get(st, "grid", back, rank=peer)
  if (back(3, 4) /= 12 + 100 * peer) bad = 1
  ids_back = 0
  call cairn_get(st, "ids", ids_back(1:3), rank=peer)
  if (any(ids_back(1:3) /= [1, 3, 5] * (peer + 1))) bad = 2
  call cairn_get(st, "x", x_back)
  if (x_back /= x) bad = 3
  call cairn_get_tag(st, "grid", "step", step, rank=peer)
  call cairn_get_tag(st, "grid", "units", units)
  if (step /= 42 .or. units /= "kelvin") bad = 4
  back = 0
  call cairn_get_array(st, "global", [0, 4 * peer], back)
  if (any(back /= reshape([(real(i + 100 * peer, real64), i = 1, 12)], [3, 4]))) bad = 10
  call cairn_get_size(st, "grid", nbytes)
  if (nbytes /= 96) bad = 5
  ! Errors come back through ierr, with a message naming the key.
  call cairn_get(st, "absent", back, ierr=ierr)
  if (ierr /= CAIRN_NOT_FOUND .or. index(cairn_last_error(), "absent") == 0) bad = 6
  call cairn_get(st, "grid", ids_back, ierr=ierr)    ! 20 bytes, value 96
  if (ierr /= CAIRN_INVALID_ARGUMENT) bad = 7
  call cairn_keys(st, keys)
  if (size(keys) /= 3 .or. keys(1) /= "grid" .or. keys(3) /= "x") bad = 8
  call cairn_revisions(st, revs)
  call cairn_revision_ranks(st, rev, writers)
  if (size(revs) /= 1 .or. revs(1) /= rev .or. writers /= nranks) bad = 9
  call cairn_close(st)
  deallocate(keys, revs, units)  ! the main program's allocatables are not freed at its end

  call MPI_Allreduce(bad, anybad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (anybad /= 0) then
      print '(a,i0)', "user_f: FAILED, check ", anybad
    else
      print '(a,a,a,i0,a)', "user_f: cairn ", cairn_version(), ", ", nranks, " ranks: ok"
    end if
  end if
  call MPI_Finalize(ierr)
  if (anybad /= 0) stop 1
end program user_f
