! cairn: the Fortran module over cairn's C API (include/cairn/cairn.h),
! through ISO_C_BINDING. Link with libcairn_fortran (CMake: cairn::fortran).
!
!   use cairn
!   type(cairn_store) :: st
!   call cairn_open(st, "ckpt", MPI_COMM_WORLD)          ! collective
!   call cairn_put(st, "grid", u)                          ! u: any real/integer
!   call cairn_set_tag(st, "grid", "step", step)           !    array of kind 4/8
!   call cairn_commit(st, rev)                             ! collective
!   call cairn_get(st, "grid", u, rank=3, ierr=ierr)
!   call cairn_close(st)                                   ! collective
!
! Keys, paths and tag names are character(*) (no trailing blanks are
! removed: "a " and "a" are different keys). Values are arrays of rank 0
! to 3 of real(4), real(8), integer(4) or integer(8), contiguous or not
! (a non-contiguous section is copied). cairn_get reads the whole value,
! which must have exactly the array's size in bytes.
!
! Errors: every routine takes an optional `integer, intent(out) :: ierr`.
! It is set to CAIRN_OK (0) or a negative code (CAIRN_NOT_FOUND, ...), and
! cairn_last_error() gives the message. Without ierr a failure prints the
! message to stderr and stops the program (error stop; mpiexec then ends
! the other ranks).
!
! Collective: cairn_open, cairn_commit, cairn_pin, cairn_unpin, cairn_drop,
! cairn_close (every rank, same order). Everything else is local. The
! communicator is an integer handle (`use mpi`: MPI_COMM_WORLD; mpi_f08:
! comm%MPI_VAL). A store is used by one thread at a time.
!
! Not covered here yet (use the C API through your own interfaces): tag
! queries, streams, asynchronous commits, shared objects; global arrays do
! not exist yet in any API.
module cairn
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, int64
  implicit none
  private

  integer, parameter, public :: CAIRN_OK = 0, CAIRN_NOT_FOUND = -1, CAIRN_CORRUPTION = -2, &
      CAIRN_INVALID_ARGUMENT = -3, CAIRN_IO_ERROR = -4, CAIRN_NOT_SUPPORTED = -5, CAIRN_ABORTED = -6
  integer, parameter, public :: CAIRN_RANK_OWN = -1, CAIRN_RANK_SHARED = -2

  ! An open store (cairn_open to cairn_close).
  type, public :: cairn_store
    type(c_ptr) :: ptr = c_null_ptr
  end type cairn_store

  public :: cairn_open, cairn_close, cairn_rank, cairn_size, cairn_revision, &
      cairn_put, cairn_get, cairn_get_size, cairn_delete, cairn_commit, cairn_flush, &
      cairn_pin, cairn_unpin, cairn_drop, cairn_set_tag, cairn_get_tag, cairn_keys, &
      cairn_revisions, cairn_revision_ranks, cairn_last_error, cairn_version

  ! Stores an array (or scalar) under key in the caller's namespace (local).
  interface cairn_put
    module procedure put_r4_0, &
      put_r4_1, &
      put_r4_2, &
      put_r4_3, &
      put_r8_0, &
      put_r8_1, &
      put_r8_2, &
      put_r8_3, &
      put_i4_0, &
      put_i4_1, &
      put_i4_2, &
      put_i4_3, &
      put_i8_0, &
      put_i8_1, &
      put_i8_2, &
      put_i8_3
  end interface cairn_put
  ! Reads key's whole value (of namespace `rank`, default own) into an
  ! array (or scalar) of exactly its size (local).
  interface cairn_get
    module procedure get_r4_0, &
      get_r4_1, &
      get_r4_2, &
      get_r4_3, &
      get_r8_0, &
      get_r8_1, &
      get_r8_2, &
      get_r8_3, &
      get_i4_0, &
      get_i4_1, &
      get_i4_2, &
      get_i4_3, &
      get_i8_0, &
      get_i8_1, &
      get_i8_2, &
      get_i8_3
  end interface cairn_get
  ! Sets one tag of key: integer(4), integer(8), real(8) or character(*).
  interface cairn_set_tag
    module procedure set_tag_i4, set_tag_i8, set_tag_r8, set_tag_str
  end interface cairn_set_tag
  ! Reads one tag of key (namespace `rank`): integer(4)/(8) for integer
  ! tags, real(8) for any number, character(:), allocatable for strings.
  interface cairn_get_tag
    module procedure get_tag_i4, get_tag_i8, get_tag_r8, get_tag_str
  end interface cairn_get_tag

  ! The C structs this module reads (cairn.h).
  type, bind(C) :: c_options
    integer(c_int) :: create_if_missing, error_if_exists, read_only
    integer(c_int64_t) :: revision, extent_size, chunk_size
    integer(c_size_t) :: write_buffer_size, inline_value_limit, compact_index_limit
    integer(c_int) :: subfiles, sync
    integer(c_int64_t) :: staging_bytes, keep_revisions
    real(c_double) :: collective_timeout_s
  end type c_options
  type, bind(C) :: c_tag
    type(c_ptr) :: name = c_null_ptr
    integer(c_int) :: type = 0
    integer(c_int64_t) :: i = 0, u = 0
    real(c_double) :: d = 0
    type(c_ptr) :: data = c_null_ptr
    integer(c_size_t) :: len = 0
  end type c_tag
  type, bind(C) :: c_object
    type(c_ptr) :: key
    integer(c_size_t) :: key_len
    integer(c_int64_t) :: size
    integer(c_int) :: inlined
    type(c_ptr) :: tags
    integer(c_size_t) :: ntags
  end type c_object
  type, bind(C) :: c_revinfo
    integer(c_int64_t) :: revision, parent, time_ns
    integer(c_int32_t) :: ranks
    integer(c_int64_t) :: objects, value_bytes, index_bytes
    integer(c_int) :: pinned
  end type c_revinfo

  integer(c_int), parameter :: TAG_INT32 = 3, TAG_INT64 = 4, TAG_FLOAT64 = 10, TAG_STRING = 11

  interface
    subroutine c_options_init(o) bind(C, name="cairn_options_init")
      import :: c_options
      type(c_options), intent(out) :: o
    end subroutine
    function c_last_error() bind(C, name="cairn_last_error")
      import :: c_ptr
      type(c_ptr) :: c_last_error
    end function
    function c_version(major, minor, patch) bind(C, name="cairn_version")
      import :: c_ptr, c_int
      integer(c_int), intent(out) :: major, minor, patch
      type(c_ptr) :: c_version
    end function
    function c_open_f(path, comm, opts, store) bind(C, name="cairn_open_f")
      import :: c_char, c_int, c_ptr, c_options
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: comm
      type(c_options), intent(in) :: opts
      type(c_ptr), intent(out) :: store
      integer(c_int) :: c_open_f
    end function
    function c_close(store) bind(C, name="cairn_close")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      integer(c_int) :: c_close
    end function
    function c_rank(store) bind(C, name="cairn_rank")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      integer(c_int) :: c_rank
    end function
    function c_size(store) bind(C, name="cairn_size")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      integer(c_int) :: c_size
    end function
    function c_revision(store) bind(C, name="cairn_revision")
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: store
      integer(c_int64_t) :: c_revision
    end function
    function c_put(store, key, value, len, tags, ntags) bind(C, name="cairn_put")
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: value
      integer(c_size_t), value :: len
      type(c_ptr), value :: tags
      integer(c_size_t), value :: ntags
      integer(c_int) :: c_put
    end function
    function c_get(store, key, rank, buf, cap, size) bind(C, name="cairn_get")
      import :: c_ptr, c_char, c_size_t, c_int, c_int64_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      type(c_ptr), value :: buf
      integer(c_size_t), value :: cap
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_get
    end function
    function c_get_size(store, key, rank, size) bind(C, name="cairn_get_size")
      import :: c_ptr, c_char, c_int, c_int64_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_get_size
    end function
    function c_delete(store, key) bind(C, name="cairn_delete")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int) :: c_delete
    end function
    function c_commit(store, rev) bind(C, name="cairn_commit")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: store
      integer(c_int64_t), intent(out) :: rev
      integer(c_int) :: c_commit
    end function
    function c_flush(store) bind(C, name="cairn_flush")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      integer(c_int) :: c_flush
    end function
    function c_pin(store, rev) bind(C, name="cairn_pin")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: store
      integer(c_int64_t), value :: rev
      integer(c_int) :: c_pin
    end function
    function c_unpin(store, rev) bind(C, name="cairn_unpin")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: store
      integer(c_int64_t), value :: rev
      integer(c_int) :: c_unpin
    end function
    function c_drop(store, rev) bind(C, name="cairn_drop")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: store
      integer(c_int64_t), value :: rev
      integer(c_int) :: c_drop
    end function
    function c_set_tag(store, key, tag) bind(C, name="cairn_set_tag")
      import :: c_ptr, c_char, c_int, c_tag
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_tag), intent(in) :: tag
      integer(c_int) :: c_set_tag
    end function
    function c_get_tag(store, key, rank, name, tag) bind(C, name="cairn_get_tag")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: tag
      integer(c_int) :: c_get_tag
    end function
    function c_list(store, rank, objects, n) bind(C, name="cairn_list")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: store
      integer(c_int), value :: rank
      type(c_ptr), intent(out) :: objects
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_list
    end function
    function c_list_revisions(store, revs, n) bind(C, name="cairn_list_revisions")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: store
      type(c_ptr), intent(out) :: revs
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_list_revisions
    end function
    function c_revision_ranks(store, rev, ranks) bind(C, name="cairn_revision_ranks")
      import :: c_ptr, c_int, c_int64_t, c_int32_t
      type(c_ptr), value :: store
      integer(c_int64_t), value :: rev
      integer(c_int32_t), intent(out) :: ranks
      integer(c_int) :: c_revision_ranks
    end function
    subroutine c_free(block) bind(C, name="cairn_free")
      import :: c_ptr
      type(c_ptr), value :: block
    end subroutine
    function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
  end interface

  ! The message of the last failure of a call through this module.
  character(len=:), allocatable :: last_msg

contains

  ! --- helpers ---

  function cstr(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=len(s) + 1) :: c
    c = s // c_null_char
  end function cstr

  ! n bytes at p as a Fortran string.
  function fstr(p, n) result(s)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: k
    allocate(character(len=n) :: s)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do k = 1, int(n)
      s(k:k) = chars(k)
    end do
  end function fstr

  ! Records and reports a failure: sets ierr if present, else stops.
  subroutine fail(rc, msg, ierr)
    integer, intent(in) :: rc
    character(*), intent(in) :: msg
    integer, intent(out), optional :: ierr
    last_msg = msg
    if (present(ierr)) then
      ierr = rc
      return
    end if
    write(error_unit, '(a)') "cairn: " // msg
    flush(error_unit)
    error stop 1
  end subroutine fail

  ! Turns a C return code into ierr (or a stop), with `what` and the C message.
  subroutine check(rc, what, ierr)
    integer(c_int), intent(in) :: rc
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    if (rc == CAIRN_OK) then
      if (present(ierr)) ierr = CAIRN_OK
      return
    end if
    p = c_last_error()
    call fail(int(rc), what // ": " // fstr(p, c_strlen(p)), ierr)
  end subroutine check

  integer(c_int) function rank_of(rank)
    integer, intent(in), optional :: rank
    rank_of = CAIRN_RANK_OWN
    if (present(rank)) rank_of = int(rank, c_int)
  end function rank_of

  subroutine put_bytes(store, key, p, n, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    call check(c_put(store%ptr, cstr(key), p, n, c_null_ptr, 0_c_size_t), &
               "cairn_put('" // key // "')", ierr)
  end subroutine put_bytes

  subroutine get_bytes(store, key, p, n, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: size
    integer :: rc
    call check(c_get(store%ptr, cstr(key), rank_of(rank), p, n, size), &
               "cairn_get('" // key // "')", rc)
    if (rc == CAIRN_OK .and. size /= n) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get('" // key // "'): the value has " // &
                itoa(size) // " bytes, the array " // itoa(int(n, int64)), ierr)
      return
    end if
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
      return
    end if
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_bytes

  function itoa(v) result(s)
    integer(int64), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write(buf, '(i0)') v
    s = trim(buf)
  end function itoa

  ! --- the store ---

  ! The message of the last failed call through this module ("" if none).
  function cairn_last_error() result(msg)
    character(len=:), allocatable :: msg
    if (allocated(last_msg)) then
      msg = last_msg
    else
      msg = ""
    end if
  end function cairn_last_error

  ! The library's version, e.g. "0.1.0" (major, minor, patch optional).
  function cairn_version(major, minor, patch) result(v)
    integer, intent(out), optional :: major, minor, patch
    character(len=:), allocatable :: v
    integer(c_int) :: a, b, c
    type(c_ptr) :: p
    p = c_version(a, b, c)
    v = fstr(p, c_strlen(p))
    if (present(major)) major = a
    if (present(minor)) minor = b
    if (present(patch)) patch = c
  end function cairn_version

  ! Collective. Opens (creating if missing, unless read_only) the store at
  ! `path` over the communicator `comm` (an integer handle). read_only:
  ! open without writing; revision: open that revision (default newest);
  ! keep_revisions: keep only the newest N (0: all).
  subroutine cairn_open(store, path, comm, read_only, revision, keep_revisions, ierr)
    type(cairn_store), intent(out) :: store
    character(*), intent(in) :: path
    integer, intent(in) :: comm
    logical, intent(in), optional :: read_only
    integer(int64), intent(in), optional :: revision, keep_revisions
    integer, intent(out), optional :: ierr
    type(c_options) :: o
    call c_options_init(o)
    if (present(read_only)) then
      if (read_only) then
        o%read_only = 1
        o%create_if_missing = 0
      end if
    end if
    if (present(revision)) o%revision = revision
    if (present(keep_revisions)) o%keep_revisions = keep_revisions
    call check(c_open_f(cstr(path), int(comm, c_int), o, store%ptr), "cairn_open('" // path // "')", ierr)
  end subroutine cairn_open

  ! Collective. Closes the store (pending changes are discarded).
  subroutine cairn_close(store, ierr)
    type(cairn_store), intent(inout) :: store
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_close(store%ptr)
    store%ptr = c_null_ptr
    call check(rc, "cairn_close", ierr)
  end subroutine cairn_close

  integer function cairn_rank(store)
    type(cairn_store), intent(in) :: store
    cairn_rank = c_rank(store%ptr)
  end function cairn_rank

  integer function cairn_size(store)
    type(cairn_store), intent(in) :: store
    cairn_size = c_size(store%ptr)
  end function cairn_size

  ! The revision the store shows (0: none yet).
  integer(int64) function cairn_revision(store)
    type(cairn_store), intent(in) :: store
    cairn_revision = c_revision(store%ptr)
  end function cairn_revision

  ! Local. The value size in bytes of key (namespace `rank`, default own).
  subroutine cairn_get_size(store, key, size, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(out) :: size
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: n
    n = 0
    call check(c_get_size(store%ptr, cstr(key), rank_of(rank), n), "cairn_get_size('" // key // "')", ierr)
    size = n
  end subroutine cairn_get_size

  ! Local. Removes key from the caller's namespace.
  subroutine cairn_delete(store, key, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer, intent(out), optional :: ierr
    call check(c_delete(store%ptr, cstr(key)), "cairn_delete('" // key // "')", ierr)
  end subroutine cairn_delete

  ! Collective. Commits every rank's changes as one revision.
  subroutine cairn_commit(store, revision, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), intent(out), optional :: revision
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: rev
    rev = 0
    call check(c_commit(store%ptr, rev), "cairn_commit", ierr)
    if (present(revision)) revision = rev
  end subroutine cairn_commit

  ! Local. Writes and syncs what this rank put, without a revision.
  subroutine cairn_flush(store, ierr)
    type(cairn_store), intent(in) :: store
    integer, intent(out), optional :: ierr
    call check(c_flush(store%ptr), "cairn_flush", ierr)
  end subroutine cairn_flush

  ! Collective. Protects revision rev from keep_revisions and drop.
  subroutine cairn_pin(store, rev, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), intent(in) :: rev
    integer, intent(out), optional :: ierr
    call check(c_pin(store%ptr, rev), "cairn_pin", ierr)
  end subroutine cairn_pin

  ! Collective. Removes the pin of rev.
  subroutine cairn_unpin(store, rev, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), intent(in) :: rev
    integer, intent(out), optional :: ierr
    call check(c_unpin(store%ptr, rev), "cairn_unpin", ierr)
  end subroutine cairn_unpin

  ! Collective. Removes revision rev for good.
  subroutine cairn_drop(store, rev, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), intent(in) :: rev
    integer, intent(out), optional :: ierr
    call check(c_drop(store%ptr, rev), "cairn_drop", ierr)
  end subroutine cairn_drop

  ! Local. How many ranks wrote revision rev (0: the one open).
  subroutine cairn_revision_ranks(store, rev, ranks, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), intent(in) :: rev
    integer, intent(out) :: ranks
    integer, intent(out), optional :: ierr
    integer(c_int32_t) :: n
    n = 0
    call check(c_revision_ranks(store%ptr, rev, n), "cairn_revision_ranks", ierr)
    ranks = n
  end subroutine cairn_revision_ranks

  ! Local. The retained revisions, oldest first, and (optional) how many
  ! ranks wrote each.
  subroutine cairn_revisions(store, revisions, ranks, ierr)
    type(cairn_store), intent(in) :: store
    integer(int64), allocatable, intent(out) :: revisions(:)
    integer, allocatable, intent(out), optional :: ranks(:)
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    integer(c_size_t) :: n
    type(c_revinfo), pointer :: r(:)
    integer :: rc
    call check(c_list_revisions(store%ptr, p, n), "cairn_revisions", rc)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
      return
    end if
    allocate(revisions(n))
    if (present(ranks)) allocate(ranks(n))
    if (n > 0) then
      call c_f_pointer(p, r, [n])
      revisions = r%revision
      if (present(ranks)) ranks = int(r%ranks)
    end if
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_revisions

  ! Local. The keys of namespace `rank` (default own) in key order, padded
  ! to the longest; sizes (optional) gets their value sizes in bytes.
  subroutine cairn_keys(store, keys, sizes, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(len=:), allocatable, intent(out) :: keys(:)
    integer(int64), allocatable, intent(out), optional :: sizes(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    integer(c_size_t) :: n, longest
    type(c_object), pointer :: o(:)
    integer :: rc, k
    call check(c_list(store%ptr, rank_of(rank), p, n), "cairn_keys", rc)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
      return
    end if
    longest = 0
    if (n > 0) then
      call c_f_pointer(p, o, [n])
      longest = maxval(o%key_len)
    end if
    allocate(character(len=longest) :: keys(n))
    if (present(sizes)) allocate(sizes(n))
    do k = 1, int(n)
      keys(k) = fstr(o(k)%key, o(k)%key_len)
      if (present(sizes)) sizes(k) = o(k)%size
    end do
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_keys

  ! --- tags ---

  subroutine set_tag(store, key, name, t, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    type(c_tag), intent(inout) :: t
    integer, intent(out), optional :: ierr
    character(kind=c_char, len=len(name) + 1), target :: cname
    cname = cstr(name)
    t%name = c_loc(cname)
    call check(c_set_tag(store%ptr, cstr(key), t), "cairn_set_tag('" // key // "', '" // name // "')", ierr)
  end subroutine set_tag

  subroutine set_tag_i4(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int32_t), intent(in) :: value
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    t%type = TAG_INT32
    t%i = value
    call set_tag(store, key, name, t, ierr)
  end subroutine set_tag_i4

  subroutine set_tag_i8(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int64_t), intent(in) :: value
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    t%type = TAG_INT64
    t%i = value
    call set_tag(store, key, name, t, ierr)
  end subroutine set_tag_i8

  subroutine set_tag_r8(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    t%type = TAG_FLOAT64
    t%d = value
    call set_tag(store, key, name, t, ierr)
  end subroutine set_tag_r8

  subroutine set_tag_str(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name, value
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    character(kind=c_char, len=len(value) + 1), target :: v
    v = cstr(value)
    t%type = TAG_STRING
    t%data = c_loc(v)
    t%len = len(value)
    call set_tag(store, key, name, t, ierr)
  end subroutine set_tag_str

  ! Reads tag `name` of key into t (a copy); rc as check() gives it.
  subroutine get_tag(store, key, name, rank, t, rc, s)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer, intent(in), optional :: rank
    type(c_tag), intent(out) :: t
    integer, intent(out) :: rc
    character(len=:), allocatable, intent(out), optional :: s
    type(c_ptr) :: p
    type(c_tag), pointer :: tp
    call check(c_get_tag(store%ptr, cstr(key), rank_of(rank), cstr(name), p), &
               "cairn_get_tag('" // key // "', '" // name // "')", rc)
    if (rc /= CAIRN_OK) return
    call c_f_pointer(p, tp)
    t = tp
    if (present(s)) s = fstr(tp%data, tp%len)
    t%data = c_null_ptr
    t%name = c_null_ptr
    call c_free(p)
  end subroutine get_tag

  subroutine get_tag_int(store, key, name, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int64), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    integer :: rc
    value = 0
    call get_tag(store, key, name, rank, t, rc)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (t%type < 1 .or. t%type > 8) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): not an integer tag", ierr)
    else
      value = t%i
      if (present(ierr)) ierr = CAIRN_OK
    end if
  end subroutine get_tag_int

  subroutine get_tag_i4(store, key, name, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int32_t), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(int64) :: v
    call get_tag_int(store, key, name, v, rank, ierr)
    value = int(v, c_int32_t)
  end subroutine get_tag_i4

  subroutine get_tag_i8(store, key, name, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int64_t), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_tag_int(store, key, name, value, rank, ierr)
  end subroutine get_tag_i8

  subroutine get_tag_r8(store, key, name, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(c_double), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    integer :: rc
    value = 0
    call get_tag(store, key, name, rank, t, rc)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (t%type < 1 .or. t%type > 10) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): not a number", ierr)
    else
      value = t%d
      if (present(ierr)) ierr = CAIRN_OK
    end if
  end subroutine get_tag_r8

  subroutine get_tag_str(store, key, name, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    character(len=:), allocatable, intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_tag) :: t
    integer :: rc
    value = ""
    call get_tag(store, key, name, rank, t, rc, value)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (t%type /= TAG_STRING) then
      value = ""
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): not a string tag", ierr)
    else if (present(ierr)) then
      ierr = CAIRN_OK
    end if
  end subroutine get_tag_str

  ! --- put/get of arrays: one specific procedure per type and rank ---

  subroutine put_r4_0(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(in), target :: value
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), ierr)
  end subroutine put_r4_0

  subroutine get_r4_0(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(inout), target :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), rank, ierr)
  end subroutine get_r4_0

  subroutine put_r4_1(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r4_1

  subroutine get_r4_1(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(inout), target, contiguous :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r4_1

  subroutine put_r4_2(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(in), target, contiguous :: value(:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r4_2

  subroutine get_r4_2(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(inout), target, contiguous :: value(:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r4_2

  subroutine put_r4_3(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(in), target, contiguous :: value(:,:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r4_3

  subroutine get_r4_3(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_float), intent(inout), target, contiguous :: value(:,:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r4_3

  subroutine put_r8_0(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(in), target :: value
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), ierr)
  end subroutine put_r8_0

  subroutine get_r8_0(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(inout), target :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), rank, ierr)
  end subroutine get_r8_0

  subroutine put_r8_1(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r8_1

  subroutine get_r8_1(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(inout), target, contiguous :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r8_1

  subroutine put_r8_2(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(in), target, contiguous :: value(:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r8_2

  subroutine get_r8_2(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(inout), target, contiguous :: value(:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r8_2

  subroutine put_r8_3(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(in), target, contiguous :: value(:,:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_r8_3

  subroutine get_r8_3(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(c_double), intent(inout), target, contiguous :: value(:,:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r8_3

  subroutine put_i4_0(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(in), target :: value
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), ierr)
  end subroutine put_i4_0

  subroutine get_i4_0(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(inout), target :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), rank, ierr)
  end subroutine get_i4_0

  subroutine put_i4_1(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i4_1

  subroutine get_i4_1(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(inout), target, contiguous :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i4_1

  subroutine put_i4_2(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(in), target, contiguous :: value(:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i4_2

  subroutine get_i4_2(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(inout), target, contiguous :: value(:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i4_2

  subroutine put_i4_3(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(in), target, contiguous :: value(:,:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i4_3

  subroutine get_i4_3(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int32_t), intent(inout), target, contiguous :: value(:,:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i4_3

  subroutine put_i8_0(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(in), target :: value
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), ierr)
  end subroutine put_i8_0

  subroutine get_i8_0(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(inout), target :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(storage_size(value) / 8, c_size_t), rank, ierr)
  end subroutine get_i8_0

  subroutine put_i8_1(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i8_1

  subroutine get_i8_1(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(inout), target, contiguous :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i8_1

  subroutine put_i8_2(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(in), target, contiguous :: value(:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i8_2

  subroutine get_i8_2(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(inout), target, contiguous :: value(:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i8_2

  subroutine put_i8_3(store, key, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(in), target, contiguous :: value(:,:,:)
    integer, intent(out), optional :: ierr
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr)
  end subroutine put_i8_3

  subroutine get_i8_3(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(c_int64_t), intent(inout), target, contiguous :: value(:,:,:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i8_3

end module cairn
