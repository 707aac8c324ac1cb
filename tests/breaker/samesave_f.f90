! Seventh pass: unchanged re-saves from Fortran. Each round every rank puts
! its columns of u(nx, ny) (statistics on rank 0's block only) and a small
! object "step" with tags back identically; every 5th round u changes.
! keep_revisions 1. After each commit every rank reads u whole, "step" of
! every rank and the block statistics back and compares them with what
! that revision must hold. Prints "samesave_f np N: R revisions, B bad".
!   mpiexec -n N breaker_samesave_f DIR ROUNDS
program samesave_f
  use mpi
  use cairn
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  integer, parameter :: nx = 9, ny = 23
  type(cairn_store) :: st
  integer :: ierr, rank, nranks, rnd, rounds, y0, y1, ver, bad, i, r, nb, allbad
  integer(int64) :: rev
  real(real64) :: u(nx, ny), whole(nx, ny)
  integer(int64) :: stepv(1), got(1)
  character(len=256) :: dir, arg
  logical, allocatable :: hs(:)
  real(real64), allocatable :: lo(:), hi(:)
  integer, allocatable :: rk(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, dir)
  call get_command_argument(2, arg)
  read (arg, *) rounds
  call cairn_open(st, trim(dir), MPI_COMM_WORLD, keep_revisions=1_int64)
  y0 = ny * rank / nranks
  y1 = ny * (rank + 1) / nranks
  bad = 0
  ver = 1
  do rnd = 1, rounds
    if (mod(rnd, 5) == 0) ver = ver + 1
    call fill(u, ver)
    stepv(1) = 1000 * rank + ver
    call cairn_put(st, "step", stepv, tags=[cairn_tag("ver", ver), cairn_tag("units", "s")])
    if (y1 > y0) call cairn_put_array(st, "u", [nx, ny], [0, y0], u(:, y0 + 1:y1), &
                                      tags=[cairn_tag("ver", ver)], statistics=(rank == 0))
    call cairn_commit(st, rev)
    ! read back what this revision holds
    call cairn_get_array(st, "u", [0, 0], whole)
    if (any(whole /= u)) bad = bad + 1
    do r = 0, nranks - 1
      call cairn_get(st, "step", got, rank=r)
      if (got(1) /= 1000 * r + ver) bad = bad + 1
    end do
    call cairn_array_blocks(st, "u", ranks=rk, has_statistics=hs, minimum=lo, maximum=hi)
    nb = size(rk)
    do i = 1, nb
      if (hs(i) .neqv. (rk(i) == 0)) bad = bad + 1
      if (hs(i)) then
        if (lo(i) /= minval(u(:, 1:ny / nranks)) .or. hi(i) /= maxval(u(:, 1:ny / nranks))) bad = bad + 1
      end if
    end do
  end do
  call cairn_close(st)
  call MPI_Reduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a,i0,a)', "samesave_f np ", nranks, ": ", rounds, " revisions, ", allbad, " bad"
  call MPI_Finalize(ierr)
contains
  subroutine fill(a, v)
    real(real64), intent(out) :: a(nx, ny)
    integer, intent(in) :: v
    integer :: ii, jj
    do jj = 1, ny
      do ii = 1, nx
        a(ii, jj) = real(v, real64) * 0.5_real64 + real(ii * 100 + jj, real64) * (-1.0_real64)**(ii + jj)
      end do
    end do
  end subroutine fill
end program samesave_f
