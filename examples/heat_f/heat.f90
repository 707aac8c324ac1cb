! heat_f: the heat example (examples/heat/heat.cc) in Fortran, on the
! Fortran module `cairn`. The same grid, initial state, stencil and
! checksum, so for the same flags it prints the same final checksum as the
! C++ version; only the decomposition differs (blocks of whole rows here).
!
!   mpiexec -n 4 heat_f --store DIR [--steps N] [--every K] [--nx NX] [--ny NY] [--sleep-ms MS]
!
! Every K steps each rank puts its block ("grid", tagged with its place in
! the global grid) and the step ("step"), and all ranks commit one
! revision. At start, if the store has a revision, every rank restores its
! block and the step from it. A run killed at any moment and started again
! with the same flags ends with the same checksum as a run never
! interrupted (tests/heat_kill_test.sh checks this). The last line of
! output is "checksum <16 hex digits>": FNV-1a 64 of the final global grid
! (ny*nx little-endian doubles, row-major).
program heat_f
  use mpi
  use cairn
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  implicit none

  interface
    integer(c_int) function usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface

  character(len=4096) :: store_dir = ""
  integer(int64) :: steps = 500, every = 50, nx = 512, ny = 512, sleep_ms = 0
  integer :: rank, nranks, ierr, north, south, r, i, j, k, rc
  integer(int64) :: y0, ly, lx, step, rev, tag
  real(real64), allocatable :: u(:,:), v(:,:), blk(:,:), global(:)
  real(real64), parameter :: alpha = 0.2_real64
  integer, allocatable :: counts(:), displs(:)
  type(cairn_store) :: st
  integer :: writers

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call parse_args()
  if (ny < nranks) call die("the grid has fewer rows than there are ranks")

  ! Blocks of whole rows: rank r owns rows [ny*r/p, ny*(r+1)/p).
  y0 = ny * rank / nranks
  ly = ny * (rank + 1) / nranks - y0
  lx = nx
  north = rank - 1
  south = rank + 1
  if (north < 0) north = MPI_PROC_NULL
  if (south >= nranks) south = MPI_PROC_NULL
  ! u(x, y) with a one-cell halo; the halo of the global boundary stays 0.
  allocate(u(0:lx + 1, 0:ly + 1), v(0:lx + 1, 0:ly + 1), blk(lx, ly))
  u = 0
  v = 0

  call cairn_open(st, trim(store_dir), MPI_COMM_WORLD)
  if (rank == 0) then
    write(*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') "heat_f: ", nranks, " ranks, grid ", ny, "x", nx, &
        ", ", steps, " steps, checkpoint every ", every, ", store ", trim(store_dir)
    flush(6)
  end if

  step = 0
  if (cairn_revision(st) > 0) then
    rev = cairn_revision(st)
    call cairn_revision_ranks(st, rev, writers)
    if (writers /= nranks) call die("the store was written by a different number of ranks")
    call cairn_get(st, "step", step)
    call cairn_get_tag(st, "grid", "ny", tag)
    if (tag /= ny) call die("the store holds a grid of another size (--ny)")
    call cairn_get_tag(st, "grid", "nx", tag)
    if (tag /= nx) call die("the store holds a grid of another size (--nx)")
    call cairn_get_tag(st, "grid", "y0", tag)
    if (tag /= y0) call die("the stored block does not match this rank's block")
    call cairn_get(st, "grid", blk)
    u(1:lx, 1:ly) = blk
    if (step > steps) call die("the store is beyond --steps")
    if (rank == 0) then
      write(*, '(a,i0,a,i0)') "restart from revision ", rev, " at step ", step
      flush(6)
    end if
  else
    do i = 1, int(ly)
      do j = 1, int(lx)
        u(j, i) = initial(y0 + i - 1, int(j - 1, int64))
      end do
    end do
    if (rank == 0) then
      write(*, '(a)') "new run: no revision in the store, starting at step 0"
      flush(6)
    end if
  end if

  do while (step < steps)
    call MPI_Sendrecv(u(1:lx, 1), int(lx), MPI_DOUBLE_PRECISION, north, 0, &
                      u(1:lx, ly + 1), int(lx), MPI_DOUBLE_PRECISION, south, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(1:lx, ly), int(lx), MPI_DOUBLE_PRECISION, south, 1, &
                      u(1:lx, 0), int(lx), MPI_DOUBLE_PRECISION, north, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    ! The same expression, in the same order, as heat.cc.
    do i = 1, int(ly)
      do j = 1, int(lx)
        v(j, i) = u(j, i) + alpha * ((u(j, i - 1) + u(j, i + 1)) + (u(j - 1, i) + u(j + 1, i)) &
                                     - 4.0_real64 * u(j, i))
      end do
    end do
    u(1:lx, 1:ly) = v(1:lx, 1:ly)
    step = step + 1
    if (sleep_ms > 0) rc = usleep(int(sleep_ms * 1000, c_int))
    if (every > 0) then
      if (mod(step, every) == 0) then
        call cairn_put(st, "grid", u(1:lx, 1:ly))
        call cairn_set_tag(st, "grid", "ny", ny)
        call cairn_set_tag(st, "grid", "nx", nx)
        call cairn_set_tag(st, "grid", "y0", y0)
        call cairn_set_tag(st, "grid", "ly", ly)
        call cairn_set_tag(st, "grid", "dtype", "float64")
        call cairn_put(st, "step", step)
        call cairn_commit(st, rev)
        if (rank == 0) then
          write(*, '(a,i0,a,i0)') "checkpoint rev ", rev, " at step ", step
          flush(6)
        end if
      end if
    end if
  end do
  call cairn_close(st)

  ! The checksum of the global grid, gathered on rank 0 in row-major order.
  blk = u(1:lx, 1:ly)
  allocate(counts(nranks), displs(nranks))
  do r = 0, nranks - 1
    displs(r + 1) = int(nx * (ny * r / nranks))
    counts(r + 1) = int(nx * (ny * (r + 1) / nranks)) - displs(r + 1)
  end do
  if (rank == 0) then
    allocate(global(nx * ny))
  else
    allocate(global(1))
  end if
  call MPI_Gatherv(blk, int(lx * ly), MPI_DOUBLE_PRECISION, global, counts, displs, &
                   MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write(*, '(a,i0)') "done: step ", step
    write(*, '(a,a)') "checksum ", hex16(fnv1a(global))
    flush(6)
  end if
  ! The main program's allocatables are not freed at its end (LeakSanitizer).
  deallocate(u, v, blk, global, counts, displs)
  call MPI_Finalize(ierr)

contains

  subroutine die(msg)
    character(*), intent(in) :: msg
    write(error_unit, '(a,i0,a,a)') "heat_f: rank ", rank, ": ", msg
    flush(error_unit)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end subroutine die

  subroutine parse_args()
    character(len=4096) :: a, val
    integer :: n, stat
    n = 1
    do while (n <= command_argument_count())
      call get_command_argument(n, a)
      if (n + 1 > command_argument_count()) call die("missing value after " // trim(a))
      call get_command_argument(n + 1, val)
      n = n + 2
      select case (trim(a))
      case ("--store")
        store_dir = val
        cycle
      case ("--steps")
        read(val, *, iostat=stat) steps
      case ("--every")
        read(val, *, iostat=stat) every
      case ("--nx")
        read(val, *, iostat=stat) nx
      case ("--ny")
        read(val, *, iostat=stat) ny
      case ("--sleep-ms")
        read(val, *, iostat=stat) sleep_ms
      case default
        call die("unknown option " // trim(a))
      end select
      if (stat /= 0) call die("bad value for " // trim(a) // ": " // trim(val))
    end do
    if (len_trim(store_dir) == 0) call die("--store DIR is required")
    if (nx < 1 .or. ny < 1 .or. steps < 0 .or. every < 0 .or. sleep_ms < 0) call die("bad sizes")
  end subroutine parse_args

  ! The initial temperature of global cell (gy, gx), as in heat.cc.
  real(real64) function initial(gy, gx)
    integer(int64), intent(in) :: gy, gx
    integer(int64) :: m, cy(3), cx(3), r2(3), dy, dx
    real(real64), parameter :: t(3) = [100.0_real64, 60.0_real64, 150.0_real64]
    integer :: s
    m = max(1_int64, min(nx, ny))
    cy = [ny * 3 / 10, ny * 7 / 10, ny * 2 / 10]
    cx = [nx * 3 / 10, nx * 6 / 10, nx * 8 / 10]
    r2 = [(m / 8) * (m / 8), (m / 6) * (m / 6), (m / 12) * (m / 12)]
    initial = 0
    do s = 1, 3
      dy = gy - cy(s)
      dx = gx - cx(s)
      if (dy * dy + dx * dx <= r2(s)) initial = initial + t(s)
    end do
    if (gy * 10 / ny == 8 .and. gx < nx / 2) initial = initial + 25.0_real64
  end function initial

  ! a * b modulo 2**64 without overflow (b < 2**32): in 32-bit halves.
  integer(int64) function mul64(a, b)
    integer(int64), intent(in) :: a, b
    integer(int64), parameter :: lo32 = 4294967295_int64
    integer(int64) :: al, ah, lo, mid
    al = iand(a, lo32)
    ah = ishft(a, -32)
    lo = al * b
    mid = iand(ah * b + ishft(lo, -32), lo32)
    mul64 = ior(ishft(mid, 32), iand(lo, lo32))
  end function mul64

  ! a + b modulo 2**64 without overflow.
  integer(int64) function add64(a, b)
    integer(int64), intent(in) :: a, b
    integer(int64), parameter :: lo32 = 4294967295_int64
    integer(int64) :: lo, hi
    lo = iand(a, lo32) + iand(b, lo32)
    hi = iand(ishft(a, -32) + ishft(b, -32) + ishft(lo, -32), lo32)
    add64 = ior(ishft(hi, 32), iand(lo, lo32))
  end function add64

  ! FNV-1a 64 of the little-endian bytes of x.
  integer(int64) function fnv1a(x)
    real(real64), intent(in) :: x(:)
    integer(int64), parameter :: basis = -3750763034362895579_int64  ! 0xcbf29ce484222325
    integer(int64) :: bits, h
    integer :: n, b
    h = basis
    do n = 1, size(x)
      bits = transfer(x(n), bits)
      do b = 0, 7
        h = ieor(h, iand(ishft(bits, -8 * b), 255_int64))
        ! h * prime with prime = 2**40 + 435, modulo 2**64.
        h = add64(ishft(h, 40), mul64(h, 435_int64))
      end do
    end do
    fnv1a = h
  end function fnv1a

  function hex16(v) result(s)
    integer(int64), intent(in) :: v
    character(len=16) :: s
    character(len=16), parameter :: digits = "0123456789abcdef"
    integer :: q
    do q = 0, 15
      s(16 - q:16 - q) = digits(iand(ishft(v, -4 * q), 15_int64) + 1:iand(ishft(v, -4 * q), 15_int64) + 1)
    end do
  end function hex16

end program heat_f
