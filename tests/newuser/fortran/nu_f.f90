! A new user's tour of cairn's Fortran module, on any number of ranks.
!   nu_f all STORE      every feature the module offers (fresh STORE)
!   nu_f write STORE    restart test, first job (the script runs it at 4 ranks)
!   nu_f resume STORE   restart test, later jobs (3, then 2 ranks)
! Prints "nu_f <mode>: passed" (exit 0) or each failed check (exit 1).
module nu_util
  use cairn
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64, error_unit
  implicit none
  integer :: fails = 0, me = 0, np = 1
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      write(error_unit, '(a,i0,a,a,a,a)') '[rank ', me, '] FAIL: ', what, ' (last error: ', &
          cairn_last_error() // ')'
      fails = fails + 1
    end if
  end subroutine check

  subroutine expect(ierr, code, what)
    integer, intent(in) :: ierr, code
    character(*), intent(in) :: what
    character(len=12) :: a, b
    write(a, '(i0)') ierr
    write(b, '(i0)') code
    call check(ierr == code, what // ': got ' // trim(a) // ', expected ' // trim(b))
    if (ierr /= CAIRN_OK) call check(len(cairn_last_error()) > 0, what // ': no message')
  end subroutine expect

  ! The global arrays' element (i, j) of a (11, 13) array: x = i fastest.
  pure real(real64) function elem(i, j)
    integer, intent(in) :: i, j   ! 0-based
    elem = real(mod(j * 11 + i, 100), real64)
  end function elem
end module nu_util

program nu_f
  use mpi
  use nu_util
  implicit none
  character(len=16) :: mode
  character(len=512) :: dir
  integer :: ierr, worst

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, mode)
  call get_command_argument(2, dir)
  select case (trim(mode))
  case ("all")
    call run_all(trim(dir))
  case ("write")
    call run_write(trim(dir))
  case ("resume")
    call run_resume(trim(dir))
  case default
    call check(.false., "usage: nu_f all|write|resume STORE")
  end select
  call MPI_Allreduce(fails, worst, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (worst == 0) then
      print '(a)', "nu_f " // trim(mode) // ": passed"
    else
      print '(a)', "nu_f " // trim(mode) // ": FAILED"
    end if
  end if
  call MPI_Finalize(ierr)
  if (worst /= 0) stop 1

contains

  ! Blocks of the (11, 13) arrays: columns j cut into irregular bands; rank 1
  ! puts none (when there is more than one rank); rank 0 puts two.
  subroutine my_blocks(nb, j0, nj)
    integer, intent(out) :: nb, j0(4), nj(4)
    integer :: owner(4), k
    integer, parameter :: bj0(4) = [0, 2, 3, 8], bnj(4) = [2, 1, 5, 5]
    nb = 0
    do k = 1, 4
      if (np == 1) then
        owner(k) = 0
      else if (np == 2) then
        owner(k) = 0
      else
        owner(k) = mod(k - 1, np - 1)
        if (owner(k) >= 1) owner(k) = owner(k) + 1   ! skip rank 1
      end if
      if (k == 4 .and. np > 1) owner(k) = 0          ! rank 0 gets two
      if (owner(k) == me) then
        nb = nb + 1
        j0(nb) = bj0(k)
        nj(nb) = bnj(k)
      end if
    end do
  end subroutine my_blocks

  subroutine run_all(dir)
    character(*), intent(in) :: dir
    type(cairn_store) :: st, old
    type(cairn_stream) :: s
    type(cairn_async) :: h
    integer :: ierr, k, i, j, nb, j0(4), nj(4), dt, ranks
    integer(int64) :: rev, sz, got, nbl, arev
    integer(int64), allocatable :: revs(:), rranks_dummy(:), shp(:), sizes(:), ib(:)
    integer, allocatable :: rranks(:), hitranks(:)
    real(real64) :: u(1000), v(1000), r8, box8(4, 6), whole8(11, 13)
    real(real32) :: r4(3, 4), r4b(3, 4)
    integer(int8) :: i1(7), i1b(7)
    integer(int16) :: i2(2, 2, 2), i2b(2, 2, 2)
    integer(int32) :: i4, tagi4
    integer(int64) :: i8(5), i8b(5), tagi8
    character(len=:), allocatable :: keys(:), tstr, names(:), ver
    real(real64), allocatable :: blk8(:, :)
    real(real32), allocatable :: blk4(:, :), box4(:, :)
    integer(int32), allocatable :: blki4(:, :), boxi4(:, :)
    integer(int8) :: bytes(300), bback(300)
    integer :: maj, mnr, pat
    logical :: done
    real(real64) :: cfg(3), cfgb(3)

    ! a missing store, read-only: not found, with a message
    call cairn_open(old, dir, MPI_COMM_WORLD, read_only=.true., ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "open missing read-only")

    call cairn_open(st, dir, MPI_COMM_WORLD, ierr=ierr)
    call expect(ierr, CAIRN_OK, "open")
    if (ierr /= CAIRN_OK) return
    call check(cairn_rank(st) == me .and. cairn_size(st) == np, "rank/size")
    call check(cairn_revision(st) == 0, "fresh revision")
    call check(cairn_writer_ranks(st) == np, "writer_ranks fresh")
    ver = cairn_version(maj, mnr, pat)
    call check(len(ver) > 0 .and. maj == 0, "version " // ver)

    ! put/get of every kind, any rank of array
    do k = 1, 1000
      u(k) = me * 1d6 + k
    end do
    call cairn_put(st, "u", u, ierr=ierr)
    call expect(ierr, CAIRN_OK, "put u")
    r4 = reshape([(real(k, real32) / 2, k = 1, 12)], [3, 4])
    call cairn_put(st, "r4", r4)
    i1 = int([(k - 4, k = 1, 7)], int8)
    call cairn_put(st, "i1", i1)
    i2 = reshape(int([(k * 1000, k = 1, 8)], int16), [2, 2, 2])
    call cairn_put(st, "i2", i2)
    i4 = 123456 + me
    call cairn_put(st, "i4", i4)
    i8 = [(int(k, int64) * 10000000000_int64, k = 1, 5)]
    call cairn_put(st, "i8", i8(2:5:2))            ! a non-contiguous section
    call cairn_put(st, "gone", u(1:3))
    call cairn_delete(st, "gone")
    call cairn_delete(st, "gone", ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "delete twice")

    v = 0
    call cairn_get(st, "u", v)
    call check(all(v == u), "get u")
    call cairn_get(st, "r4", r4b)
    call check(all(r4b == r4), "get r4")
    call cairn_get(st, "i1", i1b)
    call check(all(i1b == i1), "get i1")
    call cairn_get(st, "i2", i2b)
    call check(all(i2b == i2), "get i2")
    call cairn_get(st, "i8", i8b(1:2))
    call check(i8b(1) == i8(2) .and. i8b(2) == i8(4), "get section i8")
    call cairn_get_size(st, "u", sz)
    call check(sz == 8000, "get_size")
    call cairn_get(st, "u", v(1:999), ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get into a smaller array")
    call cairn_get(st, "nope", v, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "get missing")
    call cairn_get(st, "u", v, rank=np + 3, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get from a rank that is not")
    call cairn_put(st, "", u, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "put empty key")

    ! tags: the types the module has (int32, int64, real64, string)
    call cairn_set_tag(st, "u", "step", 42_int32)
    call cairn_set_tag(st, "u", "big", 2_int64**40)
    call cairn_set_tag(st, "u", "dt", 0.25_real64)
    call cairn_set_tag(st, "u", "units", "K")
    call cairn_set_tag(st, "u", "rank", int(me, int32))
    call cairn_set_tag(st, "r4", "units", "m/s")
    call cairn_set_tag(st, "r4", "step", 42_int64)
    call cairn_get_tag(st, "u", "step", tagi4)
    call check(tagi4 == 42, "get_tag i4")
    call cairn_get_tag(st, "u", "big", tagi8)
    call check(tagi8 == 2_int64**40, "get_tag i8")
    call cairn_get_tag(st, "u", "dt", r8)
    call check(r8 == 0.25d0, "get_tag r8")
    call cairn_get_tag(st, "u", "step", r8)
    call check(r8 == 42d0, "get_tag r8 of an integer tag")
    call cairn_get_tag(st, "u", "units", tstr)
    call check(tstr == "K", "get_tag str")
    call cairn_get_tag(st, "u", "units", tagi4, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get_tag string as integer")
    call cairn_get_tag(st, "u", "nosuch", tagi4, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "get_tag missing")
    call cairn_set_tag(st, "u", "tmp", 1_int32)
    call cairn_delete_tag(st, "u", "tmp")
    call cairn_delete_tag(st, "u", "tmp", ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "delete_tag twice")
    call cairn_tag_names(st, "u", names)
    call check(size(names) == 5, "tag_names count")
    if (size(names) == 5) call check(trim(names(1)) == "step" .and. trim(names(4)) == "units", "tag_names order")
    call cairn_set_tag(st, "nope", "x", 1_int32, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "set_tag on a missing key")

    ! keys
    call cairn_keys(st, keys, sizes)
    call check(size(keys) == 6, "keys count")
    if (size(keys) == 6) then
      call check(trim(keys(1)) == "i1" .and. trim(keys(6)) == "u", "keys order")
      call check(sizes(6) == 8000, "keys sizes")
    end if

    ! queries
    call cairn_query(st, [cairn_tag_exists("units")], keys)
    call check(size(keys) == 2, "query exists")
    call cairn_query(st, [cairn_tag_equals("step", 42_int32)], keys)
    call check(size(keys) == 2, "query equals across int32/int64")
    call cairn_query(st, [cairn_tag_equals("step", 42.0_real64)], keys)
    call check(size(keys) == 2, "query equals real")
    call cairn_query(st, [cairn_tag_between("dt", 0.0_real64, 1.0_real64), cairn_tag_prefix("units", "K")], keys)
    call check(size(keys) == 1, "query between and prefix")
    call cairn_query(st, [cairn_tag_matches("units", "m/?")], keys)
    call check(size(keys) == 1, "query wildcard")
    if (size(keys) == 1) call check(trim(keys(1)) == "r4", "query wildcard key")
    call cairn_query(st, [cairn_tag_equals("units", "K")], keys, rank=np + 1, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "query of a rank that is not")

    ! streams
    do k = 1, 300
      bytes(k) = int(mod(k * 7 + me, 128), int8)
    end do
    call cairn_stream_open_write(st, "log", s)
    call cairn_stream_write(s, bytes(1:100))
    call cairn_stream_write(s, u)                  ! 8000 bytes of real64
    call cairn_stream_write(s, bytes(101:300))
    call check(cairn_stream_tell(s) == 8300 .and. cairn_stream_size(s) == 8300, "writer tell/size")
    call cairn_stream_seek(s, 0_int64)
    call cairn_stream_write(s, [-1_int8, -2_int8])
    call cairn_stream_flush(s)
    call cairn_stream_seek(s, 10_int64, CAIRN_SEEK_END)
    call cairn_stream_write(s, 7_int32)            ! a scalar, after a gap of zeros
    call check(cairn_stream_size(s) == 8314, "writer size after gap")
    call cairn_stream_close(s)

    call cairn_commit(st, rev)
    call check(rev == 1 .and. cairn_revision(st) == 1, "first commit")

    ! reading another rank's namespace
    call cairn_get(st, "u", v, rank=mod(me + 1, np))
    call check(v(1) == mod(me + 1, np) * 1d6 + 1, "get of another rank")
    call cairn_query_all(st, [cairn_tag_equals("units", "K")], keys, hitranks)
    call check(size(keys) == np, "query_all count")
    if (size(keys) == np) call check(all(hitranks == [(k, k = 0, np - 1)]), "query_all ranks")
    call cairn_keys(st, keys, rank=mod(me + 1, np))
    call check(size(keys) == 7, "keys of another rank")

    ! read the stream back (own and another rank's)
    do k = 0, 1
      call cairn_stream_open_read(st, "log", s, rank=mod(me + k, np))
      call check(cairn_stream_size(s) == 8314, "reader size")
      bback = 0
      call cairn_stream_read(s, bback(1:100))
      call check(bback(1) == -1 .and. bback(2) == -2 .and. all(bback(3:100) == &
          int([(mod(i * 7 + mod(me + k, np), 128), i = 3, 100)], int8)), "stream head")
      call cairn_stream_read(s, v)
      call check(v(1000) == mod(me + k, np) * 1d6 + 1000, "stream body")
      call cairn_stream_seek(s, -15_int64, CAIRN_SEEK_END)
      call cairn_stream_read(s, bback(1:15))
      call check(bback(1) == int(mod(300 * 7 + mod(me + k, np), 128), int8) .and. all(bback(2:11) == 0), "stream tail")
      call cairn_stream_seek(s, -4_int64, CAIRN_SEEK_CUR)
      call cairn_stream_read(s, i4)
      call check(i4 == 7, "stream scalar")
      call cairn_stream_read(s, bback(1:5), got=got)
      call check(got == 0, "short read at end")
      call cairn_stream_read(s, bback(1:5), ierr=ierr)
      call expect(ierr, CAIRN_INVALID_ARGUMENT, "read past end without got")
      call cairn_stream_seek(s, 1_int64, CAIRN_SEEK_END, ierr=ierr)
      call expect(ierr, CAIRN_INVALID_ARGUMENT, "reader seek past end")
      call cairn_stream_close(s)
    end do
    call cairn_stream_open_read(st, "nope", s, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "open_read missing")

    ! shared objects
    cfg = [1d0, 2d0, 3d0]
    if (me == 0) then
      call cairn_put_shared(st, "cfg", cfg)
    else
      call cairn_put_shared(st, "cfg", cfg, ierr=ierr)
      call expect(ierr, CAIRN_INVALID_ARGUMENT, "put_shared off rank 0")
    end if

    ! global arrays, Fortran order: u(11, 13), blocks of columns
    call my_blocks(nb, j0, nj)
    do k = 1, nb
      allocate(blk8(11, nj(k)), blk4(11, nj(k)), blki4(11, nj(k)))
      do j = 1, nj(k)
        do i = 1, 11
          blk8(i, j) = elem(i - 1, j0(k) + j - 1)
        end do
      end do
      blk4 = real(blk8, real32)
      blki4 = int(blk8, int32)
      call cairn_put_array(st, "fu", [11, 13], [0, j0(k)], blk8, statistics=.true., &
                           tags=[cairn_tag("units", "K"), cairn_tag("step", 5_int32)], ierr=ierr)
      call expect(ierr, CAIRN_OK, "put_array fu")
      call cairn_put_array(st, "fu4", [11_int64, 13_int64], [0_int64, int(j0(k), int64)], blk4, &
                           checksum_grain=8192_int64)
      call cairn_put_array(st, "fi4", [11, 13], [0, j0(k)], blki4, tags=[cairn_tag("dt", 0.5_real64)])
      call cairn_put_array(st, "fi8", [11, 13], [0, j0(k)], int(blk8, int64))
      call cairn_put_array(st, "fi2", [11, 13], [0, j0(k)], int(blk8, int16))
      call cairn_put_array(st, "fi1", [11, 13], [0, j0(k)], int(blk8, int8))
      deallocate(blk8, blk4, blki4)
    end do
    ! a block outside the shape, a bad grain
    call cairn_put_array(st, "bad", [4, 4], [2, 2], box8, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "put_array outside the shape")
    call cairn_put_array(st, "bad", [4, 4], [0], box8, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "put_array start of another rank")
    call cairn_put_array(st, "bad", [11, 13], [0, 0], box8, checksum_grain=1000_int64, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "put_array bad grain")

    call cairn_commit(st, rev)
    call check(rev == 2, "second commit")
    cfgb = 0
    call cairn_get_shared(st, "cfg", cfgb)
    call check(all(cfgb == cfg), "get_shared")
    call cairn_get_shared(st, "cfg", cfgb(1:2), ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get_shared of another size")

    ! sub-boxes crossing block edges, and the whole array
    box8 = -1
    call cairn_get_array(st, "fu", [3, 1], box8)      ! i = 3..6, j = 1..6
    call check(all(box8 == reshape([((elem(i, j), i = 3, 6), j = 1, 6)], [4, 6])), "get_array box fu")
    call cairn_get_array(st, "fu", [0_int64, 0_int64], whole8)
    call check(all(whole8 == reshape([((elem(i, j), i = 0, 10), j = 0, 12)], [11, 13])), "get_array whole fu")
    allocate(box4(2, 9), boxi4(11, 3))
    call cairn_get_array(st, "fu4", [9, 2], box4)
    call check(all(box4 == real(reshape([((elem(i, j), i = 9, 10), j = 2, 10)], [2, 9]), real32)), "fu4 box")
    call cairn_get_array(st, "fi4", [0, 7], boxi4)
    call check(all(boxi4 == int(reshape([((elem(i, j), i = 0, 10), j = 7, 9)], [11, 3]), int32)), "fi4 box")
    call cairn_get_array(st, "fu", [10, 12], box8, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get_array past the shape")
    call cairn_get_array(st, "fu", [0, 0, 0], box8, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "get_array wrong rank of start")
    call cairn_get_array(st, "nope", [0, 0], box8, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "get_array missing")
    call cairn_array_info(st, "fu", dtype=dt, shape=shp, blocks=nbl)
    call check(dt == CAIRN_FLOAT64, "array_info dtype")
    call check(size(shp) == 2, "array_info ndims")
    if (size(shp) == 2) call check(shp(1) == 11 .and. shp(2) == 13, "array_info shape in Fortran order")
    call check(nbl == 4, "array_info blocks")
    call cairn_array_info(st, "fi1", dtype=dt)
    call check(dt == CAIRN_INT8, "fi1 dtype")
    call cairn_array_info(st, "fi2", dtype=dt)
    call check(dt == CAIRN_INT16, "fi2 dtype")
    call cairn_list_arrays(st, names)
    call check(size(names) == 6, "list_arrays")
    call cairn_query_arrays(st, [cairn_tag_between("step", 1, 10)], names)
    call check(size(names) == 1, "query_arrays")
    call cairn_query_arrays(st, [cairn_tag_exists("dt")], names)
    call check(size(names) == 1, "query_arrays exists")
    if (size(names) == 1) call check(trim(names(1)) == "fi4", "query_arrays name")
    call cairn_delete_array(st, "fi1")
    call cairn_delete_array(st, "nope", ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "delete_array missing")

    ! asynchronous commit
    u = u + 1
    call cairn_put(st, "u", u)
    call cairn_commit_async(st, h)
    done = .false.
    do k = 1, 1000000
      call cairn_async_test(h, done)
      if (done) exit
    end do
    call cairn_async_wait(h, arev)
    call check(arev == 3, "async revision")
    call cairn_get(st, "u", v)
    call check(all(v == u), "after async")
    call cairn_array_info(st, "fi1", ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "deleted array")

    ! flush, then commit
    call cairn_put(st, "later", u(1:10))
    call cairn_flush(st)
    call cairn_commit(st, rev)
    call check(rev == 4, "commit after flush")

    ! revisions
    call cairn_revisions(st, revs, rranks, index_bytes=ib)
    call check(size(revs) == 4, "revisions count")
    if (size(revs) == 4) then
      call check(all(revs == [1, 2, 3, 4]) .and. all(rranks == np) .and. all(ib > 0), "revisions")
    end if
    call cairn_revision_ranks(st, 0_int64, ranks)
    call check(ranks == np, "revision_ranks")
    call cairn_revision_ranks(st, 77_int64, ranks, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "revision_ranks of a missing revision")

    ! an older revision, read-only
    call cairn_open(old, dir, MPI_COMM_WORLD, read_only=.true., revision=1_int64)
    call check(cairn_revision(old) == 1, "old revision")
    call cairn_get(old, "u", v)
    call check(v(1) == me * 1d6 + 1, "old value")
    call cairn_put(old, "x", u, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "put on read-only")
    call cairn_close(old)

    ! pin / unpin / drop
    call cairn_pin(st, 1_int64)
    call cairn_drop(st, 1_int64, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "drop pinned")
    call cairn_unpin(st, 1_int64)
    call cairn_drop(st, 1_int64)
    call cairn_drop(st, 1_int64, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "drop twice")
    call cairn_pin(st, 2_int64)
    call cairn_close(st)

    ! keep_revisions
    call cairn_open(st, dir, MPI_COMM_WORLD, keep_revisions=2_int64)
    do k = 1, 3
      call cairn_put(st, "u", u + k)
      call cairn_commit(st, rev)
    end do
    call cairn_revisions(st, revs)
    call check(size(revs) == 3, "kept revisions")
    if (size(revs) == 3) call check(all(revs == [2, 6, 7]), "kept 2 (pinned), 6, 7")
    call cairn_close(st)
    call cairn_open(st, dir, MPI_COMM_WORLD, revision=99_int64, ierr=ierr)
    call expect(ierr, CAIRN_NOT_FOUND, "open a revision that is not")
  end subroutine run_all

  ! --- restart on other rank counts ---

  ! Rows ("o<k>" objects) written by the first job: one per rank, k*31+i.
  subroutine ofill(v, k)
    integer(int8), intent(out) :: v(:)
    integer, intent(in) :: k
    integer :: i
    do i = 1, size(v)
      v(i) = int(mod(k * 31 + i, 128), int8)
    end do
  end subroutine ofill

  ! Column band of the (7, 20) array "R" for rank r of n: irregular, rank 0 empty (n > 1).
  subroutine band(n, r, j0, nj)
    integer, intent(in) :: n, r
    integer, intent(out) :: j0, nj
    integer :: a, k, tot, rr
    a = max(n - 1, 1)
    rr = r
    if (n > 1) rr = r - 1
    j0 = 0
    nj = 0
    if (rr < 0) return
    tot = a * (a + 1) / 2
    do k = 0, rr - 1
      j0 = j0 + 20 * (k + 1) / tot
    end do
    nj = 20 * (rr + 1) / tot
    if (rr == a - 1) nj = 20 - j0
  end subroutine band

  subroutine put_R(st, n)
    type(cairn_store), intent(in) :: st
    integer, intent(in) :: n
    integer :: j0, nj, i, j
    real(real64), allocatable :: b(:, :)
    call band(n, me, j0, nj)
    if (nj == 0) return
    allocate(b(7, nj))
    do j = 1, nj
      do i = 1, 7
        b(i, j) = 100d0 * (j0 + j - 1) + (i - 1)
      end do
    end do
    call cairn_put_array(st, "R", [7, 20], [0, j0], b, tags=[cairn_tag("writers", int(n, int32))])
  end subroutine put_R

  subroutine check_R(st)
    type(cairn_store), intent(in) :: st
    real(real64) :: b(5, 18)
    integer :: i, j
    call cairn_get_array(st, "R", [1, 1], b)
    call check(all(b == reshape([((100d0 * j + i, i = 1, 5), j = 1, 18)], [5, 18])), "R box")
  end subroutine check_R

  subroutine check_objects(st, norig)
    type(cairn_store), intent(in) :: st
    integer, intent(in) :: norig
    character(len=:), allocatable :: keys(:)
    integer, allocatable :: ranks(:)
    integer :: h, k, seen(0:63), tag
    integer(int8), allocatable :: got(:), want(:)
    call cairn_query_all(st, [cairn_tag_exists("origin")], keys, ranks)
    call check(size(keys) == norig, "query_all origin")
    seen = 0
    do h = 1, size(keys)
      read(keys(h)(2:), *) k
      seen(k) = seen(k) + 1
      allocate(got(100 + k), want(100 + k))
      call ofill(want, k)
      call cairn_get(st, trim(keys(h)), got, rank=ranks(h))
      call check(all(got == want), "object " // trim(keys(h)))
      call cairn_get_tag(st, trim(keys(h)), "origin", tag, rank=ranks(h))
      call check(tag == k, "origin tag")
      deallocate(got, want)
    end do
    call check(all(seen(0:norig - 1) == 1), "every object once")
  end subroutine check_objects

  subroutine run_write(dir)
    character(*), intent(in) :: dir
    type(cairn_store) :: st
    integer(int8), allocatable :: v(:)
    character(len=8) :: key
    integer(int64) :: rev
    call cairn_open(st, dir, MPI_COMM_WORLD)
    allocate(v(100 + me))
    call ofill(v, me)
    write(key, '(a,i0)') "o", me
    call cairn_put(st, trim(key), v)
    call cairn_set_tag(st, trim(key), "origin", int(me, int32))
    call put_R(st, np)
    call cairn_commit(st, rev)
    call check(rev == 1, "write: rev 1")
    call check_objects(st, np)
    call check_R(st)
    call cairn_close(st)
  end subroutine run_write

  subroutine run_resume(dir)
    character(*), intent(in) :: dir
    type(cairn_store) :: st, old
    integer :: w, ns, k, ierr, tag
    integer(int64) :: rev0, rev, sz
    character(len=:), allocatable :: keys(:)
    integer(int64), allocatable :: sizes(:)
    integer(int8), allocatable :: buf(:)
    integer(int8) :: v3(103), want3(103)
    call cairn_open(st, dir, MPI_COMM_WORLD)
    w = cairn_writer_ranks(st)
    rev0 = cairn_revision(st)
    if (me == 0) print '(a,i0,a,i0)', "resume on ", np, " ranks, written by ", w
    call check(w /= np, "another rank count")
    call check_objects(st, 4)
    call check_R(st)
    ! adopt namespaces me + np, me + 2 np, ...
    do ns = me + np, w - 1, np
      call cairn_keys(st, keys, sizes, rank=ns)
      do k = 1, size(keys)
        allocate(buf(sizes(k)))
        call cairn_get(st, trim(keys(k)), buf, rank=ns)
        call cairn_get_tag(st, trim(keys(k)), "origin", tag, rank=ns)
        call cairn_put(st, trim(keys(k)), buf)
        call cairn_set_tag(st, trim(keys(k)), "origin", tag)
        deallocate(buf)
      end do
    end do
    ! R has blocks in namespaces no rank owns now: the commit refuses it
    call cairn_commit(st, rev, ierr=ierr)
    call expect(ierr, CAIRN_INVALID_ARGUMENT, "commit without putting R again")
    call put_R(st, np)
    call cairn_commit(st, rev)
    call check(rev == rev0 + 1, "resume commit")
    call check(cairn_writer_ranks(st) == np, "writer_ranks after commit")
    call check_objects(st, 4)
    call check_R(st)
    call cairn_close(st)
    ! the first job's revision, read-only: its 4 namespaces
    call cairn_open(old, dir, MPI_COMM_WORLD, read_only=.true., revision=1_int64)
    call check(cairn_writer_ranks(old) == 4, "revision 1 writers")
    call cairn_get_size(old, "o3", sz, rank=3)
    call check(sz == 103, "o3 size")
    call cairn_get(old, "o3", v3, rank=3)
    call ofill(want3, 3)
    call check(all(v3 == want3), "o3 of revision 1")
    call check_objects(old, 4)
    call check_R(old)
    call cairn_close(old)
  end subroutine run_resume
end program nu_f
