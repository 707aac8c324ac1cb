! cairn: the Fortran module over cairn's C API (include/cairn/cairn.h),
! through ISO_C_BINDING. Link with libcairn_fortran (CMake: cairn::fortran).
!
!   use cairn
!   type(cairn_store) :: st
!   call cairn_open(st, "ckpt", MPI_COMM_WORLD)          ! collective
!   call cairn_put(st, "grid", u)                          ! u: integer or real,
!   call cairn_set_tag(st, "grid", "step", step)           !    any rank
!   call cairn_commit(st, rev)                             ! collective
!   call cairn_get(st, "grid", u, rank=3, ierr=ierr)
!   call cairn_close(st)                                   ! collective
!
! Keys, paths and tag names are character(*) (no trailing blanks are
! removed: "a " and "a" are different keys). Keys, paths, tag names and
! array names holding char(0) are CAIRN_INVALID_ARGUMENT (C reads them up
! to it, which would name another one), and so are such tag names in
! query conditions. Values are arrays of rank 0 to 15 of
! integer(int8/int16/int32/int64) or real(real32/real64),
! contiguous or not (a non-contiguous section is copied). cairn_get reads
! the whole value, which must have exactly the array's size in bytes (else
! CAIRN_INVALID_ARGUMENT, and the array is left untouched); it sees this
! rank's puts not yet committed. Values are bytes: their kind is not
! stored, and a get into another kind of the same size reinterprets the
! bits (no conversion). Assumed-size arrays (x(*), x(n,*)) have no size
! and are refused (CAIRN_INVALID_ARGUMENT): pass x(1:n). Complex, logical
! and character data are not in the generics: pass a real or integer view
! of the same memory (transfer, or c_f_pointer on c_loc(x)).
!
! Errors: every routine takes an optional `integer, intent(out) :: ierr`.
! It is set to CAIRN_OK (0) or a negative code (CAIRN_NOT_FOUND, ...), and
! cairn_last_error() gives the message. Without ierr a failure prints the
! message to stderr and stops the program (error stop; mpiexec then ends
! the other ranks).
!
! Collective: cairn_open, cairn_commit, cairn_commit_async, cairn_get_shared,
! cairn_query_all, cairn_pin, cairn_unpin, cairn_drop, cairn_close (every
! rank, same order). Everything else is local. cairn_open_local(st, path)
! opens a store for one process, MPI initialized or not; on it the
! collective routines are local. The communicator is an
! integer handle (`use mpi`: MPI_COMM_WORLD; mpi_f08: comm%MPI_VAL). A
! store, and its streams and async handles, are used by one thread at a
! time. Lists the module returns (keys, names, revisions) are allocatable
! arrays the caller owns; nothing needs freeing by hand.
!
! Streams, async commits and shared objects take arrays of any rank (or a
! scalar) of integer(int8/int16/int32/int64) or real(real32/real64):
!   call cairn_stream_open_write(st, "log", s); call cairn_stream_write(s, x)
!   call cairn_stream_close(s)
!   call cairn_commit_async(st, h); ...; call cairn_async_wait(h, rev)
!   if (rank == 0) call cairn_put_shared(st, "config", params)
!   call cairn_get_shared(st, "config", params)        ! collective
!
! Tags: tags=[cairn_tag("step", 5), cairn_tag("units", "K")] on cairn_put,
! cairn_put_zero_copy, cairn_stream_open_write and cairn_put_array;
! cairn_set_tag/cairn_set_tags, cairn_tag_type, cairn_get_tag (any kind).
! cairn_get_range(st, key, offset_bytes, part) reads part of a value.
!
! Queries take an array of conditions:
!   call cairn_query(st, [cairn_tag_equals("units", "K"), &
!                         cairn_tag_between("step", 10, 20)], keys, rank=2)
!
! Global arrays (see include/cairn/array.h): every rank puts the blocks it
! has, any rank of any later job reads any box. Arrays of any rank of
! integer(int8 .. int64) or real(real32/real64), in Fortran (column-major)
! order; global_shape and start are integer(int32) or integer(int64) arrays
! in Fortran order, and start is 0-based (as in HDF5 and ADIOS2); the
! block's extent is shape(data):
!   call cairn_put_array(st, "u", [nx, ny], [0, y0], u(:, y0+1:y0+ny), &
!                        tags=[cairn_tag("units", "K")])
!   call cairn_get_array(st, "u", [0, 0], whole)    ! whole(nx, ny)
!   call cairn_array_info(st, "u", dtype=dt, shape=sh, blocks=nb)
!   call cairn_array_blocks(st, "u", start=s0, count=c, minimum=lo, maximum=hi)
! A C program reads what Fortran wrote as u(nx, ny) as u[ny][nx].
! cairn_get_array refuses data of another kind than the array's dtype
! (CAIRN_INVALID_ARGUMENT, nothing read; an integer kind also takes the
! unsigned dtype of its width, bits kept): elements are never reinterpreted.
! A negative start or global_shape is refused naming it (not read as 2^64 - n).
! Options of cairn_put_array: statistics=.true. records each block's minimum
! and maximum; checksum_grain=G (integer(int64)) checksums the block in
! pieces cut at the data file's multiples of G bytes (a multiple of 4096,
! else CAIRN_INVALID_ARGUMENT; 0: the chunk size; default 4096; see
! ArrayPutOptions::checksum_grain in include/cairn/array.h).
module cairn
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, int8, int16, int32, int64, real32, real64
  implicit none
  private

  integer, parameter, public :: CAIRN_OK = 0, CAIRN_NOT_FOUND = -1, CAIRN_CORRUPTION = -2, &
      CAIRN_INVALID_ARGUMENT = -3, CAIRN_IO_ERROR = -4, CAIRN_NOT_SUPPORTED = -5, CAIRN_ABORTED = -6
  integer, parameter, public :: CAIRN_RANK_OWN = -1, CAIRN_RANK_SHARED = -2

  ! An open store (cairn_open or cairn_open_local to cairn_close).
  type, public :: cairn_store
    type(c_ptr) :: ptr = c_null_ptr
  end type cairn_store

  public :: cairn_open, cairn_open_local, cairn_close, cairn_rank, cairn_size, cairn_revision, &
      cairn_put, cairn_get, cairn_get_size, cairn_delete, cairn_commit, cairn_flush, &
      cairn_pin, cairn_unpin, cairn_drop, cairn_set_tag, cairn_get_tag, cairn_delete_tag, cairn_keys, &
      cairn_revisions, cairn_revision_ranks, cairn_last_error, cairn_version, &
      cairn_get_range, cairn_put_zero_copy, cairn_set_tags, cairn_tag_type, cairn_bytes_tag, &
      cairn_multi_get, cairn_read_into, cairn_code_name, cairn_dtype_size, cairn_dtype_name, cairn_stats, &
      cairn_async_revision, cairn_async_committed, cairn_stream_read_at, cairn_array_read_stats

  ! What this handle's array reads did (cairn_array_read_stats;
  ! cairn_array_read_stats_t, cairn::ArrayReadStats).
  type, public, bind(C) :: cairn_array_read_stats_t
    integer(c_int64_t) :: calls = 0, blocks_examined = 0, blocks_read = 0, runs = 0, requests = 0
    integer(c_int64_t) :: bytes_wanted = 0, bytes_read = 0, index_nodes = 0, blocks_decoded = 0
  end type cairn_array_read_stats_t
  ! Readers: reads size(data) elements' bytes at byte `offset` (int64) of
  ! the stream into data (any kind and rank) without moving the position;
  ! past the end is CAIRN_INVALID_ARGUMENT.
  interface cairn_stream_read_at
    module procedure sra_i1, sra_i2, sra_i4, sra_i8, sra_r4, sra_r8
  end interface cairn_stream_read_at

  ! This rank's I/O counters (cairn_stats; cairn_io_stats_t, cairn::IoStats).
  type, public, bind(C) :: cairn_io_stats
    integer(c_int64_t) :: read_requests = 0, read_bytes = 0, write_requests = 0, write_bytes = 0
    integer(c_int64_t) :: opens = 0, creates = 0, mkdirs = 0, stats = 0, fsyncs = 0
    integer(c_int64_t) :: renames = 0, unlinks = 0, truncates = 0
    integer(c_int64_t) :: staging_stalls = 0, staging_stall_ns = 0
    integer(c_int64_t) :: index_bytes_gathered = 0, index_tables_reused = 0, index_tables_streamed = 0
    integer(c_int64_t) :: writeback_requests = 0
    integer(c_int64_t) :: direct_read_bytes = 0
  end type cairn_io_stats

  ! One read of cairn_multi_get, made by cairn_read_into(key, x).
  type, public :: cairn_read
    private
    character(len=:), allocatable :: key
    type(c_ptr) :: data = c_null_ptr
    integer(c_int64_t) :: capacity = 0
    logical :: usable = .false.
  end type cairn_read
  ! cairn_read_into(key, x): read key's value into x, an array of any rank
  ! (or a scalar) of integer(int8 .. int64) or real(real32/64). x is a
  ! pointer dummy: the actual argument must be a variable with TARGET or
  ! POINTER (the compiler refuses an expression), contiguous (else the
  ! cairn_multi_get is refused), and it must exist until cairn_multi_get
  ! returns.
  interface cairn_read_into
    module procedure ri_i1, ri_i2, ri_i4, ri_i8, ri_r4, ri_r8
  end interface cairn_read_into

  ! Tag types (cairn_tag_type's answer; the values of cairn.h's
  ! CAIRN_TAG_*): an array tag is ior(CAIRN_TAG_ARRAY, element type).
  integer, parameter, public :: CAIRN_TAG_INT8 = 1, CAIRN_TAG_INT16 = 2, CAIRN_TAG_INT32 = 3, &
      CAIRN_TAG_INT64 = 4, CAIRN_TAG_UINT8 = 5, CAIRN_TAG_UINT16 = 6, CAIRN_TAG_UINT32 = 7, &
      CAIRN_TAG_UINT64 = 8, CAIRN_TAG_FLOAT32 = 9, CAIRN_TAG_FLOAT64 = 10, CAIRN_TAG_STRING = 11, &
      CAIRN_TAG_BYTES = 12, CAIRN_TAG_ARRAY = 64

  ! Stores an array of any rank (or a scalar) of integer(int8 .. int64) or
  ! real(real32/real64) under key in the caller's namespace (local), with
  ! the optional tags=[cairn_tag(...), ...].
  interface cairn_put
    module procedure put_i1, put_i2, put_i4, put_i8, put_r4, put_r8
  end interface cairn_put
  ! Reads size(value) elements' bytes at byte `offset` (integer(int64),
  ! 0-based) of key's value (namespace `rank`, default own) into an array
  ! of any rank (or a scalar) of any kind: a part of a large value, only
  ! the chunks it touches read and verified (local). Past the value's end
  ! is CAIRN_INVALID_ARGUMENT.
  interface cairn_get_range
    module procedure gr_i1, gr_i2, gr_i4, gr_i8, gr_r4, gr_r8
  end interface cairn_get_range
  ! cairn_put without a copy (local): with staging_bytes > 0 the library
  ! reads the caller's array in the background until the commit that
  ! includes it has finished (cairn_commit, cairn_async_wait, cairn_flush
  ! returned, or cairn_async_test said done). The dummy is a pointer, so
  ! the actual argument must be a variable with the TARGET or POINTER
  ! attribute (the compiler refuses an expression, which would be a
  ! temporary), and it must be contiguous (else CAIRN_INVALID_ARGUMENT,
  ! nothing stored). The caller must not change, deallocate or leave the
  ! scope of it before then; bytes changed earlier read as
  ! CAIRN_CORRUPTION, never as data. Without staging it is cairn_put.
  interface cairn_put_zero_copy
    module procedure zc_i1, zc_i2, zc_i4, zc_i8, zc_r4, zc_r8
  end interface cairn_put_zero_copy
  ! Reads key's whole value (of namespace `rank`, default own) into an
  ! array of any rank (or a scalar) of exactly its size in bytes (local).
  interface cairn_get
    module procedure get_i1, get_i2, get_i4, get_i8, get_r4, get_r8
  end interface cairn_get
  ! Sets one tag of key: cairn_set_tag(st, key, name, value) with value
  ! integer(int8/16/32/64), real(real32/64) or character(*), or
  ! cairn_set_tag(st, key, tag) with any cairn_tag (arrays, bytes).
  interface cairn_set_tag
    module procedure set_tag_i4, set_tag_i8, set_tag_r8, set_tag_str, set_tag_i1, set_tag_i2, set_tag_r4, &
      set_tag_t
  end interface cairn_set_tag
  ! Reads one tag of key (namespace `rank`): integer(int8/16/32/64) for
  ! integer tags (CAIRN_INVALID_ARGUMENT if the value does not fit the
  ! kind), real(real32/64) for any number, character(:), allocatable for
  ! strings; allocatable rank-1 arrays for array tags of exactly their
  ! element type, and integer(int8), allocatable :: b(:) for bytes tags
  ! (and int8/uint8 array tags). cairn_tag_type says which type a tag has.
  ! With array=.true., key names a global array and its tags are read
  ! (cairn_array_info(..., tag_names=) lists them).
  interface cairn_get_tag
    module procedure get_tag_i4, get_tag_i8, get_tag_r8, get_tag_str, get_tag_i1, get_tag_i2, get_tag_r4, &
      get_tag_a_i1, get_tag_a_i2, get_tag_a_i4, get_tag_a_i8, get_tag_a_r4, get_tag_a_r8
  end interface cairn_get_tag

  ! The C structs this module reads (cairn.h).
  type, bind(C) :: c_options
    integer(c_size_t) :: struct_size
    integer(c_int) :: create_if_missing, error_if_exists, read_only
    integer(c_int64_t) :: revision, extent_size, chunk_size
    integer(c_size_t) :: write_buffer_size, inline_value_limit, compact_index_limit
    integer(c_int) :: subfiles, sync
    integer(c_int64_t) :: staging_bytes, keep_revisions
    real(c_double) :: collective_timeout_s
    integer(c_int64_t) :: writeback_bytes
    integer(c_int) :: require_writer_lock
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
  ! cairn_array_put_options_t.
  type, bind(C) :: c_array_put_options
    integer(c_size_t) :: struct_size
    integer(c_int) :: flags
    integer(c_int64_t) :: checksum_grain
  end type c_array_put_options
  type, bind(C) :: c_read
    type(c_ptr) :: key, data
    integer(c_int64_t) :: capacity, size
    integer(c_int) :: code
  end type c_read
  type, bind(C) :: c_read_options
    integer(c_size_t) :: struct_size
    integer(c_int64_t) :: gap_limit, max_block
    real(c_double) :: max_read_amplification
  end type c_read_options
  type, bind(C) :: c_array_read_options
    integer(c_size_t) :: struct_size
    integer(c_int) :: flags
    integer(c_int64_t) :: gap_limit
  end type c_array_read_options
  type, bind(C) :: c_revinfo
    integer(c_int64_t) :: revision, parent, time_ns
    integer(c_int32_t) :: ranks
    integer(c_int64_t) :: objects, value_bytes, index_bytes
    integer(c_int) :: pinned
  end type c_revinfo

  integer(c_int), parameter :: TAG_INT32 = 3, TAG_INT64 = 4, TAG_FLOAT64 = 10, TAG_STRING = 11, &
      TAG_INT8 = 1, TAG_INT16 = 2, TAG_FLOAT32 = 9, TAG_RAW = 12, TAG_ARRAY = 64

  interface
    subroutine c_options_init_sized(o, size) bind(C, name="cairn_options_init_sized")
      import :: c_options, c_size_t
      type(c_options), intent(out) :: o
      integer(c_size_t), value :: size
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
    function c_open_refused_f(path, comm, why, collective_timeout_s) bind(C, name="cairn_open_refused_f")
      import :: c_char, c_int, c_double
      character(kind=c_char), intent(in) :: path(*), why(*)
      integer(c_int), value :: comm
      real(c_double), value :: collective_timeout_s
      integer(c_int) :: c_open_refused_f
    end function
    function c_open_local(path, opts, store) bind(C, name="cairn_open_local")
      import :: c_char, c_int, c_ptr, c_options
      character(kind=c_char), intent(in) :: path(*)
      type(c_options), intent(in) :: opts
      type(c_ptr), intent(out) :: store
      integer(c_int) :: c_open_local
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
    function c_get_range(store, key, rank, offset, buf, len) bind(C, name="cairn_get_range")
      import :: c_ptr, c_char, c_int, c_int64_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      integer(c_int64_t), value :: offset
      type(c_ptr), value :: buf
      integer(c_int64_t), value :: len
      integer(c_int) :: c_get_range
    end function
    function c_put_zero_copy(store, key, value, len, tags, ntags) bind(C, name="cairn_put_zero_copy")
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: value
      integer(c_size_t), value :: len
      type(c_ptr), value :: tags
      integer(c_size_t), value :: ntags
      integer(c_int) :: c_put_zero_copy
    end function
    function c_set_tags(store, key, tags, ntags) bind(C, name="cairn_set_tags")
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: tags
      integer(c_size_t), value :: ntags
      integer(c_int) :: c_set_tags
    end function
    function c_multi_get(store, rank, reads, n) bind(C, name="cairn_multi_get")
      import :: c_ptr, c_int, c_size_t, c_read
      type(c_ptr), value :: store
      integer(c_int), value :: rank
      type(c_read), intent(inout) :: reads(*)
      integer(c_size_t), value :: n
      integer(c_int) :: c_multi_get
    end function
    function c_put_shared_tags(store, key, value, len, tags, ntags) bind(C, name="cairn_put_shared_tags")
      import :: c_ptr, c_char, c_int, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: value
      integer(c_size_t), value :: len
      type(c_ptr), value :: tags
      integer(c_size_t), value :: ntags
      integer(c_int) :: c_put_shared_tags
    end function
    function c_stream_read_at(stream, offset, buf, len) bind(C, name="cairn_stream_read_at")
      import :: c_ptr, c_int, c_int64_t, c_size_t
      type(c_ptr), value :: stream
      integer(c_int64_t), value :: offset
      type(c_ptr), value :: buf
      integer(c_size_t), value :: len
      integer(c_int) :: c_stream_read_at
    end function
    function c_multi_get_opts(store, rank, reads, n, opts) bind(C, name="cairn_multi_get_opts")
      import :: c_ptr, c_int, c_size_t, c_read, c_read_options
      type(c_ptr), value :: store
      integer(c_int), value :: rank
      type(c_read), intent(inout) :: reads(*)
      integer(c_size_t), value :: n
      type(c_read_options), intent(in) :: opts
      integer(c_int) :: c_multi_get_opts
    end function
    subroutine c_read_options_init(o) bind(C, name="cairn_read_options_init")
      import :: c_read_options
      type(c_read_options), intent(out) :: o
    end subroutine
    function c_get_array_opts(store, name, ndims, start, count, out, cap, opts) bind(C, name="cairn_get_array_opts")
      import :: c_ptr, c_char, c_int, c_int64_t, c_size_t, c_array_read_options
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: out
      integer(c_size_t), value :: cap
      type(c_array_read_options), intent(in) :: opts
      integer(c_int) :: c_get_array_opts
    end function
    subroutine c_array_read_options_init(o) bind(C, name="cairn_array_read_options_init")
      import :: c_array_read_options
      type(c_array_read_options), intent(out) :: o
    end subroutine
    function c_array_read_stats(store, stats, size) bind(C, name="cairn_array_read_stats")
      import :: c_ptr, c_int, c_size_t, cairn_array_read_stats_t
      type(c_ptr), value :: store
      type(cairn_array_read_stats_t), intent(inout) :: stats
      integer(c_size_t), value :: size
      integer(c_int) :: c_array_read_stats
    end function
    function c_code_name(code) bind(C, name="cairn_code_name")
      import :: c_ptr, c_int
      integer(c_int), value :: code
      type(c_ptr) :: c_code_name
    end function
    function c_dtype_size(dtype) bind(C, name="cairn_dtype_size")
      import :: c_int, c_size_t
      integer(c_int), value :: dtype
      integer(c_size_t) :: c_dtype_size
    end function
    function c_dtype_name(dtype) bind(C, name="cairn_dtype_name")
      import :: c_ptr, c_int
      integer(c_int), value :: dtype
      type(c_ptr) :: c_dtype_name
    end function
    function c_stats(store, stats, size) bind(C, name="cairn_stats")
      import :: c_ptr, c_int, c_size_t, cairn_io_stats
      type(c_ptr), value :: store
      type(cairn_io_stats), intent(inout) :: stats
      integer(c_size_t), value :: size
      integer(c_int) :: c_stats
    end function
    function c_async_revision(handle) bind(C, name="cairn_async_revision")
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: handle
      integer(c_int64_t) :: c_async_revision
    end function
    function c_async_committed(handle) bind(C, name="cairn_async_committed")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int) :: c_async_committed
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
    function c_delete_tag(store, key, name) bind(C, name="cairn_delete_tag")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*), name(*)
      integer(c_int) :: c_delete_tag
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

  ! --- Added with the C API's streams, async commits, shared objects,
  ! queries and global arrays (see the header of this file) ---
  integer, parameter, public :: CAIRN_SEEK_SET = 0, CAIRN_SEEK_CUR = 1, CAIRN_SEEK_END = 2
  ! Element types of global arrays (cairn_array_info's dtype).
  integer, parameter, public :: CAIRN_INT8 = 1, CAIRN_INT16 = 2, CAIRN_INT32 = 3, CAIRN_INT64 = 4, &
      CAIRN_UINT8 = 5, CAIRN_UINT16 = 6, CAIRN_UINT32 = 7, CAIRN_UINT64 = 8, CAIRN_FLOAT32 = 9, &
      CAIRN_FLOAT64 = 10

  ! A stream (cairn_stream_open_write/read to cairn_stream_close).
  type, public :: cairn_stream
    type(c_ptr) :: ptr = c_null_ptr
  end type cairn_stream
  ! An asynchronous commit in flight (cairn_commit_async to cairn_async_wait).
  type, public :: cairn_async
    type(c_ptr) :: ptr = c_null_ptr
  end type cairn_async
  ! A tag to give an array: cairn_tag(name, value), value integer(4),
  ! integer(8), real(8) or character(*).
  type, public :: cairn_tag
    private
    character(len=:), allocatable :: name, text
    integer(c_int) :: type = 0
    integer(c_int64_t) :: i = 0
    real(c_double) :: d = 0
  end type cairn_tag
  ! One condition of a query: cairn_tag_exists, cairn_tag_equals,
  ! cairn_tag_between, cairn_tag_prefix, cairn_tag_matches make them.
  type, public :: cairn_condition
    private
    character(len=:), allocatable :: name
    integer(c_int) :: op = 0
    type(cairn_tag) :: value, upper
  end type cairn_condition

  public :: cairn_writer_ranks, cairn_tag_names, cairn_query, cairn_query_all, &
      cairn_tag_exists, cairn_tag_equals, cairn_tag_between, cairn_tag_prefix, cairn_tag_matches, &
      cairn_stream_open_write, cairn_stream_open_read, cairn_stream_write, cairn_stream_read, &
      cairn_stream_seek, cairn_stream_tell, cairn_stream_size, cairn_stream_flush, cairn_stream_close, &
      cairn_commit_async, cairn_async_test, cairn_async_wait, cairn_put_shared, cairn_get_shared, &
      cairn_put_array, cairn_get_array, cairn_delete_array, cairn_array_info, cairn_array_blocks, cairn_list_arrays, &
      cairn_query_arrays

  ! cairn_tag(name, value): a tag (of cairn_put, cairn_put_array,
  ! cairn_stream_open_write, cairn_set_tag(s)); value integer(int8 ..
  ! int64), real(real32/64) or character(*), or a rank-1 array of those
  ! numbers (an array tag). cairn_bytes_tag(name, b) makes a bytes tag.
  interface cairn_tag
    module procedure make_tag_i4, &
      make_tag_i8, &
      make_tag_r8, &
      make_tag_str, make_tag_i1, make_tag_i2, make_tag_r4, &
      make_tag_a_i1, make_tag_a_i2, make_tag_a_i4, make_tag_a_i8, make_tag_a_r4, make_tag_a_r8
  end interface cairn_tag
  ! The object's tag `name` equals value (numbers compare by value).
  interface cairn_tag_equals
    module procedure eq_i4, &
      eq_i8, &
      eq_r8, &
      eq_str
  end interface cairn_tag_equals
  ! The object's tag `name` is a number within [lo, hi].
  interface cairn_tag_between
    module procedure between_i4, &
      between_i8, &
      between_r8
  end interface cairn_tag_between
  ! Writes an array (or scalar) of any kind, contiguous or not, at the
  ! stream's position.
  interface cairn_stream_write
    module procedure sw_i1, &
      sw_i2, &
      sw_i4, &
      sw_i8, &
      sw_r4, &
      sw_r8
  end interface cairn_stream_write
  ! Reads size(data) elements from the position; with `got`, a short read
  ! at the end is not an error (got = bytes read).
  interface cairn_stream_read
    module procedure sr_i1, &
      sr_i2, &
      sr_i4, &
      sr_i8, &
      sr_r4, &
      sr_r8
  end interface cairn_stream_read
  ! Rank 0 only: stores a shared object (any kind, any rank of array), with
  ! the optional tags=[...] (read them with rank=CAIRN_RANK_SHARED).
  interface cairn_put_shared
    module procedure ps_i1, &
      ps_i2, &
      ps_i4, &
      ps_i8, &
      ps_r4, &
      ps_r8
  end interface cairn_put_shared
  ! Collective: reads a shared object into an array of exactly its size.
  interface cairn_get_shared
    module procedure gs_i1, &
      gs_i2, &
      gs_i4, &
      gs_i8, &
      gs_r4, &
      gs_r8
  end interface cairn_get_shared
  ! Local: puts one block of a global array (see the header of this file).
  interface cairn_put_array
    module procedure pa_i1_4, &
      pa_i1_8, &
      pa_i2_4, &
      pa_i2_8, &
      pa_i4_4, &
      pa_i4_8, &
      pa_i8_4, &
      pa_i8_8, &
      pa_r4_4, &
      pa_r4_8, &
      pa_r8_4, &
      pa_r8_8
  end interface cairn_put_array
  ! Local: reads the box of size shape(data) at `start` of a global array
  ! (optional gap_limit, integer(int64): ArrayReadOptions::gap_limit).
  interface cairn_get_array
    module procedure ga_i1_4, &
      ga_i1_8, &
      ga_i2_4, &
      ga_i2_8, &
      ga_i4_4, &
      ga_i4_8, &
      ga_i8_4, &
      ga_i8_8, &
      ga_r4_4, &
      ga_r4_8, &
      ga_r8_4, &
      ga_r8_8
  end interface cairn_get_array

  type, bind(C) :: c_query
    type(c_ptr) :: name = c_null_ptr
    integer(c_int) :: op = 0
    type(c_tag) :: value, upper
  end type c_query
  type, bind(C) :: c_hit
    integer(c_int) :: rank
    type(c_ptr) :: key
    integer(c_size_t) :: key_len
  end type c_hit
  type, bind(C) :: c_array_info
    type(c_ptr) :: name
    integer(c_size_t) :: name_len
    integer(c_int) :: dtype, ndims
    type(c_ptr) :: shape
    integer(c_int64_t) :: elements, block_count
    integer(c_int) :: regular
    type(c_ptr) :: tags
    integer(c_size_t) :: ntags
    type(c_ptr) :: blocks
  end type c_array_info
  type, bind(C) :: c_name
    type(c_ptr) :: name
    integer(c_size_t) :: name_len
  end type c_name
  ! cairn_array_block_info_t.
  type, bind(C) :: c_block_info
    integer(c_int) :: rank, ndims
    type(c_ptr) :: start, count
    integer(c_int) :: has_statistics
    real(c_double) :: min, max
  end type c_block_info

  integer(c_int), parameter :: FLAG_COLUMN_MAJOR = 1, FLAG_STATISTICS = 256

  interface
    function c_writer_ranks(store) bind(C, name="cairn_writer_ranks")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      integer(c_int) :: c_writer_ranks
    end function
    function c_get_tags(store, key, rank, tags, n) bind(C, name="cairn_get_tags")
      import :: c_ptr, c_char, c_int, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      type(c_ptr), intent(out) :: tags
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_get_tags
    end function
    function c_query_c(store, conds, nconds, rank, hits, n) bind(C, name="cairn_query")
      import :: c_ptr, c_int, c_size_t, c_query
      type(c_ptr), value :: store
      type(c_query), intent(in) :: conds(*)
      integer(c_size_t), value :: nconds
      integer(c_int), value :: rank
      type(c_ptr), intent(out) :: hits
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_query_c
    end function
    function c_query_all(store, conds, nconds, hits, n) bind(C, name="cairn_query_all")
      import :: c_ptr, c_int, c_size_t, c_query
      type(c_ptr), value :: store
      type(c_query), intent(in) :: conds(*)
      integer(c_size_t), value :: nconds
      type(c_ptr), intent(out) :: hits
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_query_all
    end function
    function c_stream_open_write(store, key, tags, ntags, stream) bind(C, name="cairn_stream_open_write")
      import :: c_ptr, c_char, c_int, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: tags
      integer(c_size_t), value :: ntags
      type(c_ptr), intent(out) :: stream
      integer(c_int) :: c_stream_open_write
    end function
    function c_stream_open_read(store, key, rank, stream) bind(C, name="cairn_stream_open_read")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      integer(c_int), value :: rank
      type(c_ptr), intent(out) :: stream
      integer(c_int) :: c_stream_open_read
    end function
    function c_stream_write(stream, data, len) bind(C, name="cairn_stream_write")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: stream, data
      integer(c_size_t), value :: len
      integer(c_int) :: c_stream_write
    end function
    function c_stream_read(stream, buf, len, got) bind(C, name="cairn_stream_read")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: stream, buf
      integer(c_size_t), value :: len
      integer(c_size_t), intent(out) :: got
      integer(c_int) :: c_stream_read
    end function
    function c_stream_seek(stream, offset, whence) bind(C, name="cairn_stream_seek")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: stream
      integer(c_int64_t), value :: offset
      integer(c_int), value :: whence
      integer(c_int) :: c_stream_seek
    end function
    function c_stream_tell(stream, pos) bind(C, name="cairn_stream_tell")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: stream
      integer(c_int64_t), intent(out) :: pos
      integer(c_int) :: c_stream_tell
    end function
    function c_stream_size(stream, size) bind(C, name="cairn_stream_size")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: stream
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_stream_size
    end function
    function c_stream_flush(stream) bind(C, name="cairn_stream_flush")
      import :: c_ptr, c_int
      type(c_ptr), value :: stream
      integer(c_int) :: c_stream_flush
    end function
    function c_stream_close(stream) bind(C, name="cairn_stream_close")
      import :: c_ptr, c_int
      type(c_ptr), value :: stream
      integer(c_int) :: c_stream_close
    end function
    function c_commit_async(store, handle) bind(C, name="cairn_commit_async")
      import :: c_ptr, c_int
      type(c_ptr), value :: store
      type(c_ptr), intent(out) :: handle
      integer(c_int) :: c_commit_async
    end function
    function c_async_test(handle, done) bind(C, name="cairn_async_test")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: done
      integer(c_int) :: c_async_test
    end function
    function c_async_wait(handle, rev) bind(C, name="cairn_async_wait")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: handle
      integer(c_int64_t), intent(out) :: rev
      integer(c_int) :: c_async_wait
    end function
    subroutine c_async_free(handle) bind(C, name="cairn_async_free")
      import :: c_ptr
      type(c_ptr), value :: handle
    end subroutine
    function c_put_shared(store, key, value, len) bind(C, name="cairn_put_shared")
      import :: c_ptr, c_char, c_int, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: value
      integer(c_size_t), value :: len
      integer(c_int) :: c_put_shared
    end function
    function c_get_shared(store, key, buf, cap, size) bind(C, name="cairn_get_shared")
      import :: c_ptr, c_char, c_int, c_size_t, c_int64_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: key(*)
      type(c_ptr), value :: buf
      integer(c_size_t), value :: cap
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_get_shared
    end function
    subroutine c_array_put_options_init(opts) bind(C, name="cairn_array_put_options_init")
      import :: c_array_put_options
      type(c_array_put_options), intent(out) :: opts
    end subroutine
    function c_put_array_opts(store, name, dtype, ndims, shape, start, count, data, opts, tags, ntags) &
        bind(C, name="cairn_put_array_opts")
      import :: c_ptr, c_char, c_int, c_int64_t, c_size_t, c_tag, c_array_put_options
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype, ndims
      integer(c_int64_t), intent(in) :: shape(*), start(*), count(*)
      type(c_ptr), value :: data
      type(c_array_put_options), intent(in) :: opts
      type(c_tag), intent(in) :: tags(*)
      integer(c_size_t), value :: ntags
      integer(c_int) :: c_put_array_opts
    end function
    function c_get_array(store, name, ndims, start, count, out, cap, flags) bind(C, name="cairn_get_array")
      import :: c_ptr, c_char, c_int, c_int64_t, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: out
      integer(c_size_t), value :: cap
      integer(c_int), value :: flags
      integer(c_int) :: c_get_array
    end function
    function c_delete_array(store, name) bind(C, name="cairn_delete_array")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_delete_array
    end function
    function c_array_info_c(store, name, with_blocks, info) bind(C, name="cairn_array_info")
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: with_blocks
      type(c_ptr), intent(out) :: info
      integer(c_int) :: c_array_info_c
    end function
    function c_array_blocks(store, name, blocks, n) bind(C, name="cairn_array_blocks")
      import :: c_ptr, c_char, c_int, c_size_t
      type(c_ptr), value :: store
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: blocks
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_array_blocks
    end function
    function c_list_arrays(store, arrays, n) bind(C, name="cairn_list_arrays")
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: store
      type(c_ptr), intent(out) :: arrays
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_list_arrays
    end function
    function c_query_arrays(store, conds, nconds, names, n) bind(C, name="cairn_query_arrays")
      import :: c_ptr, c_int, c_size_t, c_query
      type(c_ptr), value :: store
      type(c_query), intent(in) :: conds(*)
      integer(c_size_t), value :: nconds
      type(c_ptr), intent(out) :: names
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: c_query_arrays
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

  ! True, after failing with CAIRN_INVALID_ARGUMENT, when n (a byte count or
  ! an extent) is negative: the size gfortran gives an assumed-size array
  ! (x(*), x(n,*)) passed to an assumed-rank dummy.
  logical function no_size(n, what, ierr) result(bad)
    integer(int64), intent(in) :: n
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    bad = n < 0
    if (bad) call fail(CAIRN_INVALID_ARGUMENT, what // ": an assumed-size array (x(*), x(n,*)) has no size; " // &
                       "pass a section with bounds, such as x(1:n)", ierr)
  end function no_size

  ! True, after failing with CAIRN_INVALID_ARGUMENT naming `what` and the
  ! value, when v (an array's start or global shape) holds a negative
  ! number: C takes it as 2^64 - n, and its error would show that.
  logical function negative_in(v, what, call_name, ierr) result(bad)
    integer(int64), intent(in) :: v(:)
    character(*), intent(in) :: what, call_name
    integer, intent(out), optional :: ierr
    bad = .false.
    if (size(v) == 0) return
    bad = minval(v) < 0
    if (bad) call fail(CAIRN_INVALID_ARGUMENT, call_name // ": InvalidArgument: " // what // &
                       " has a negative value " // itoa(minval(v)) // " (0-based, Fortran order)", ierr)
  end function negative_in

  ! Keys and names travel to the C API as C strings, which end at the
  ! first char(0): one inside would name another object, so it is refused.
  ! kind: what s is ("key" unless given: "tag name", "array name", ...);
  ! C reads it only up to a char(0), so it would name another one.
  logical function nul_in(s, what, ierr, kind) result(bad)
    character(*), intent(in) :: s
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    character(*), intent(in), optional :: kind
    character(len=:), allocatable :: k
    bad = index(s, c_null_char) > 0
    if (.not. bad) return
    k = "key"
    if (present(kind)) k = kind
    call fail(CAIRN_INVALID_ARGUMENT, what // ": InvalidArgument: the " // k // " holds char(0) at position " // &
              itoa(int(index(s, c_null_char), int64)) // "; " // k // "s passed from Fortran cannot hold it", ierr)
  end function nul_in

  ! nul_in for the tag names of query conditions; k: the first bad one (0: none).
  logical function nul_in_conds(conds, what, ierr, k) result(bad)
    type(cairn_condition), intent(in) :: conds(:)
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    integer, intent(out) :: k
    bad = .false.
    do k = 1, size(conds)
      if (allocated(conds(k)%name)) bad = nul_in(conds(k)%name, what, ierr, "tag name")
      if (bad) return
    end do
    k = 0
  end function nul_in_conds

  ! nul_in for the names of the optional tags.
  logical function nul_in_tags(tags, what, ierr) result(bad)
    type(cairn_tag), intent(in), optional :: tags(:)
    character(*), intent(in) :: what
    integer, intent(out), optional :: ierr
    integer :: k
    bad = .false.
    if (.not. present(tags)) return
    do k = 1, size(tags)
      if (allocated(tags(k)%name)) bad = nul_in(tags(k)%name, what, ierr, "tag name")
      if (bad) return
    end do
  end function nul_in_tags

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

  ! zero_copy: cairn_put_zero_copy instead of cairn_put.
  subroutine put_bytes(store, key, p, n, ierr, tags, zero_copy)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    logical, intent(in), optional :: zero_copy
    type(c_tag), allocatable, target :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: nt
    character(len=:), allocatable :: fn
    fn = "cairn_put"
    if (present(zero_copy)) then
      if (zero_copy) fn = "cairn_put_zero_copy"
    end if
    if (no_size(int(n, int64), fn // "('" // key // "')", ierr)) return
    if (nul_in(key, fn, ierr)) return
    if (nul_in_tags(tags, fn, ierr)) return
    call tags_to_c(tags, ct, buf, nt)
    if (fn == "cairn_put") then
      call check(c_put(store%ptr, cstr(key), p, n, c_loc(ct), nt), &
                 fn // "('" // key // "')", ierr)
    else
      call check(c_put_zero_copy(store%ptr, cstr(key), p, n, c_loc(ct), nt), &
                 fn // "('" // key // "')", ierr)
    end if
  end subroutine put_bytes

  ! The optional tags as C sees them: nt (size(tags), 0 when absent) in
  ! ct (never empty, so that c_loc(ct) is valid), their strings in buf;
  ! both must outlive the C call.
  subroutine tags_to_c(tags, ct, buf, nt)
    type(cairn_tag), intent(in), optional :: tags(:)
    type(c_tag), allocatable, intent(out) :: ct(:)
    character(kind=c_char), allocatable, target, intent(inout) :: buf(:)
    integer(c_size_t), intent(out) :: nt
    integer :: k, n, pos
    n = 1
    k = 0
    if (present(tags)) then
      k = size(tags)
      do pos = 1, k
        n = n + tag_bytes(tags(pos))
      end do
    end if
    if (allocated(buf)) deallocate(buf)
    allocate(ct(max(k, 1)), buf(n))
    nt = int(k, c_size_t)
    pos = 1
    do n = 1, k
      call tag_to_c(tags(n), buf, pos, ct(n))
    end do
  end subroutine tags_to_c

  subroutine get_range_bytes(store, key, offset, p, n, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    if (no_size(int(n, int64), "cairn_get_range('" // key // "')", ierr)) return
    if (nul_in(key, "cairn_get_range", ierr)) return
    if (offset < 0) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_range('" // key // "'): InvalidArgument: offset " // &
                itoa(offset) // " is negative", ierr)
      return
    end if
    call check(c_get_range(store%ptr, cstr(key), rank_of(rank), offset, p, int(n, c_int64_t)), &
               "cairn_get_range('" // key // "')", ierr)
  end subroutine get_range_bytes

  subroutine get_bytes(store, key, p, n, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: size
    integer :: rc
    if (no_size(int(n, int64), "cairn_get('" // key // "')", ierr)) return
    ! The size first: C fills any buffer at least as large as the value,
    ! and an array of another size must be left untouched.
    size = 0
    if (nul_in(key, "cairn_get", ierr)) return
    call check(c_get_size(store%ptr, cstr(key), rank_of(rank), size), "cairn_get('" // key // "')", rc)
    if (rc == CAIRN_OK .and. size /= n) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get('" // key // "'): InvalidArgument: the value has " // &
                itoa(size) // " bytes, the array " // itoa(int(n, int64)) // " (nothing was read)", ierr)
      return
    end if
    if (rc == CAIRN_OK) call check(c_get(store%ptr, cstr(key), rank_of(rank), p, n, size), &
                                   "cairn_get('" // key // "')", rc)
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
  ! `path` over the communicator `comm` (an integer handle). Every option
  ! is an optional keyword argument with the meaning and default of its
  ! namesake in include/cairn/options.h (cairn::Options); every rank passes
  ! the same values (the local tuning options chunk_size,
  ! write_buffer_size, inline_value_limit and writeback_bytes may differ).
  !   read_only: open without writing (then create_if_missing defaults to
  !     .false.); revision: open that revision (default newest);
  !     keep_revisions: keep only the newest N (0: all);
  !   require_writer_lock (default .true.): .false. lets a read-write open
  !     on a file system that cannot lock (CAIRN_NOT_SUPPORTED otherwise)
  !     write unprotected, with a warning; no other job may then write it;
  !   create_if_missing (.true.; .false.: a restart that needs the store
  !     gets CAIRN_NOT_FOUND), error_if_exists (.false.), sync (.true.);
  !   integer(int64) sizes in bytes: staging_bytes (0; > 0 lets
  !     cairn_commit_async overlap the writes with compute), extent_size,
  !     chunk_size, write_buffer_size, writeback_bytes, inline_value_limit,
  !     compact_index_limit; integer: subfiles (0: chosen by file system);
  !     real(real64): collective_timeout_s (0: wait forever).
  ! Bad values (a negative size, revision or keep_revisions; a path that
  ! holds char(0); and what the library's options check refuses, a byte
  ! size of 2^63 or more among them) are CAIRN_INVALID_ARGUMENT on every
  ! rank (nothing opened), with a message naming the option, even when
  ! only one rank passes one.
  subroutine cairn_open(store, path, comm, read_only, revision, keep_revisions, ierr, require_writer_lock, &
                        create_if_missing, error_if_exists, sync, staging_bytes, extent_size, chunk_size, &
                        write_buffer_size, writeback_bytes, inline_value_limit, compact_index_limit, subfiles, &
                        collective_timeout_s)
    type(cairn_store), intent(out) :: store
    character(*), intent(in) :: path
    integer, intent(in) :: comm
    logical, intent(in), optional :: read_only
    integer(int64), intent(in), optional :: revision, keep_revisions
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: require_writer_lock, create_if_missing, error_if_exists, sync
    integer(int64), intent(in), optional :: staging_bytes, extent_size, chunk_size, write_buffer_size, &
        writeback_bytes, inline_value_limit, compact_index_limit
    integer, intent(in), optional :: subfiles
    real(real64), intent(in), optional :: collective_timeout_s
    type(c_options) :: o
    character(:), allocatable :: bad
    integer(c_int) :: rc
    call fill_open_options(o, bad, path, read_only, revision, keep_revisions, require_writer_lock, &
                      create_if_missing, error_if_exists, sync, staging_bytes, extent_size, chunk_size, &
                      write_buffer_size, writeback_bytes, inline_value_limit, compact_index_limit, subfiles, &
                      collective_timeout_s)
    if (len(bad) > 0) then
      ! The open is collective, and some of these options may differ per
      ! rank: this rank still takes part, carrying its refusal (every rank
      ! then fails, naming this rank and its cause), and reports its cause.
      rc = c_open_refused_f(cstr(path), int(comm, c_int), cstr(bad), o%collective_timeout_s)
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_open('" // path // "'): InvalidArgument: " // bad, ierr)
      return
    end if
    call check(c_open_f(cstr(path), int(comm, c_int), o, store%ptr), "cairn_open('" // path // "')", ierr)
  end subroutine cairn_open

  ! Local. Opens the store at `path` for this process alone (cairn_rank 0,
  ! cairn_size 1), whether or not MPI is initialized (no MPI call is made
  ! if it is not: a serial program or tool needs no MPI_Init); the
  ! collective routines are then local. The options are cairn_open's, with
  ! the same defaults and errors (C: cairn_open_local). Two processes must
  ! not open one store for writing (the writer lock refuses the second).
  subroutine cairn_open_local(store, path, read_only, revision, keep_revisions, ierr, require_writer_lock, &
                              create_if_missing, error_if_exists, sync, staging_bytes, extent_size, chunk_size, &
                              write_buffer_size, writeback_bytes, inline_value_limit, compact_index_limit, &
                              subfiles, collective_timeout_s)
    type(cairn_store), intent(out) :: store
    character(*), intent(in) :: path
    logical, intent(in), optional :: read_only
    integer(int64), intent(in), optional :: revision, keep_revisions
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: require_writer_lock, create_if_missing, error_if_exists, sync
    integer(int64), intent(in), optional :: staging_bytes, extent_size, chunk_size, write_buffer_size, &
        writeback_bytes, inline_value_limit, compact_index_limit
    integer, intent(in), optional :: subfiles
    real(real64), intent(in), optional :: collective_timeout_s
    type(c_options) :: o
    character(:), allocatable :: bad
    call fill_open_options(o, bad, path, read_only, revision, keep_revisions, require_writer_lock, &
                      create_if_missing, error_if_exists, sync, staging_bytes, extent_size, chunk_size, &
                      write_buffer_size, writeback_bytes, inline_value_limit, compact_index_limit, subfiles, &
                      collective_timeout_s)
    if (len(bad) > 0) then  ! nobody else takes part: refused here
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_open_local('" // path // "'): InvalidArgument: " // bad, ierr)
      return
    end if
    call check(c_open_local(cstr(path), o, store%ptr), "cairn_open_local('" // path // "')", ierr)
  end subroutine cairn_open_local

  ! The C options of cairn_open and cairn_open_local: the defaults, and
  ! each option given. What the library could not tell from the C struct
  ! (a negative revision or keep_revisions, which C reads as 2^64 - n; a
  ! char(0) in the path, where C would cut it) is named in `bad` ("" if
  ! none). Sizes go through as they are (c_size_t and c_int64_t have the
  ! same kind here): a negative one reaches the library as 2^63 or more,
  ! which its options check refuses on every rank, naming the option.
  subroutine fill_open_options(o, bad, path, read_only, revision, keep_revisions, require_writer_lock, &
                          create_if_missing, error_if_exists, sync, staging_bytes, extent_size, chunk_size, &
                          write_buffer_size, writeback_bytes, inline_value_limit, compact_index_limit, subfiles, &
                          collective_timeout_s)
    type(c_options), intent(out) :: o
    character(:), allocatable, intent(out) :: bad
    character(*), intent(in) :: path
    logical, intent(in), optional :: read_only
    integer(int64), intent(in), optional :: revision, keep_revisions
    logical, intent(in), optional :: require_writer_lock, create_if_missing, error_if_exists, sync
    integer(int64), intent(in), optional :: staging_bytes, extent_size, chunk_size, write_buffer_size, &
        writeback_bytes, inline_value_limit, compact_index_limit
    integer, intent(in), optional :: subfiles
    real(real64), intent(in), optional :: collective_timeout_s
    call c_options_init_sized(o, c_sizeof(o))
    if (present(read_only)) then
      if (read_only) then
        o%read_only = 1
        o%create_if_missing = 0
      end if
    end if
    bad = ""
    call count_opt(revision, "revision", o%revision)
    call count_opt(keep_revisions, "keep_revisions", o%keep_revisions)
    if (present(require_writer_lock)) o%require_writer_lock = merge(1_c_int, 0_c_int, require_writer_lock)
    if (present(create_if_missing)) o%create_if_missing = merge(1_c_int, 0_c_int, create_if_missing)
    if (present(error_if_exists)) o%error_if_exists = merge(1_c_int, 0_c_int, error_if_exists)
    if (present(sync)) o%sync = merge(1_c_int, 0_c_int, sync)
    if (present(staging_bytes)) o%staging_bytes = staging_bytes
    if (present(extent_size)) o%extent_size = extent_size
    if (present(chunk_size)) o%chunk_size = chunk_size
    if (present(writeback_bytes)) o%writeback_bytes = writeback_bytes
    if (present(write_buffer_size)) o%write_buffer_size = write_buffer_size
    if (present(inline_value_limit)) o%inline_value_limit = inline_value_limit
    if (present(compact_index_limit)) o%compact_index_limit = compact_index_limit
    if (present(subfiles)) o%subfiles = int(subfiles, c_int)
    if (present(collective_timeout_s)) o%collective_timeout_s = collective_timeout_s
    if (len(bad) == 0 .and. index(path, c_null_char) > 0) &
      bad = "the path holds char(0) at position " // itoa(int(index(path, c_null_char), int64)) // &
            "; paths passed from Fortran cannot hold it"

  contains

    ! revision and keep_revisions: a number >= 0 (0: the newest, keep all);
    ! a negative one is named in `bad` (C would read it as 2^64 - n).
    subroutine count_opt(v, name, dest)
      integer(int64), intent(in), optional :: v
      character(*), intent(in) :: name
      integer(c_int64_t), intent(inout) :: dest
      if (.not. present(v)) return
      if (v >= 0) then
        dest = v
      else if (len(bad) == 0) then
        bad = name // " is " // itoa(v) // ", it must be >= 0"
      end if
    end subroutine count_opt
  end subroutine fill_open_options

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
    if (nul_in(key, "cairn_get_size", ierr)) return
    call check(c_get_size(store%ptr, cstr(key), rank_of(rank), n), "cairn_get_size('" // key // "')", ierr)
    size = n
  end subroutine cairn_get_size

  ! Local. Removes key from the caller's namespace.
  subroutine cairn_delete(store, key, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer, intent(out), optional :: ierr
    if (nul_in(key, "cairn_delete", ierr)) return
    call check(c_delete(store%ptr, cstr(key)), "cairn_delete('" // key // "')", ierr)
  end subroutine cairn_delete

  ! Local. Removes tag `name` of `key` in the caller's namespace (the value
  ! is not rewritten); CAIRN_NOT_FOUND if the object or the tag is absent.
  subroutine cairn_delete_tag(store, key, name, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer, intent(out), optional :: ierr
    if (nul_in(key, "cairn_delete_tag", ierr)) return
    if (nul_in(name, "cairn_delete_tag", ierr, "tag name")) return
    call check(c_delete_tag(store%ptr, cstr(key), cstr(name)), &
        "cairn_delete_tag('" // key // "', '" // name // "')", ierr)
  end subroutine cairn_delete_tag

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
  ! ranks wrote each and the bytes of each one's index tables; parents
  ! (0: none), times_ns (commit time, ns since the Unix epoch), objects
  ! and value_bytes (over all namespaces, the store's own array objects
  ! included) and pinned, as cairn_revision_info_t has them.
  subroutine cairn_revisions(store, revisions, ranks, ierr, index_bytes, parents, times_ns, objects, value_bytes, &
                             pinned)
    type(cairn_store), intent(in) :: store
    integer(int64), allocatable, intent(out) :: revisions(:)
    integer, allocatable, intent(out), optional :: ranks(:)
    integer, intent(out), optional :: ierr
    integer(int64), allocatable, intent(out), optional :: index_bytes(:), parents(:), times_ns(:), objects(:), &
        value_bytes(:)
    logical, allocatable, intent(out), optional :: pinned(:)
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
    if (present(index_bytes)) allocate(index_bytes(n))
    if (present(parents)) allocate(parents(n))
    if (present(times_ns)) allocate(times_ns(n))
    if (present(objects)) allocate(objects(n))
    if (present(value_bytes)) allocate(value_bytes(n))
    if (present(pinned)) allocate(pinned(n))
    if (n > 0) then
      call c_f_pointer(p, r, [n])
      revisions = r%revision
      if (present(ranks)) ranks = int(r%ranks)
      if (present(index_bytes)) index_bytes = r%index_bytes
      if (present(parents)) parents = r%parent
      if (present(times_ns)) times_ns = r%time_ns
      if (present(objects)) objects = r%objects
      if (present(value_bytes)) value_bytes = r%value_bytes
      if (present(pinned)) pinned = r%pinned /= 0
    end if
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_revisions

  ! Local. The keys of namespace `rank` (default own) in key order, padded
  ! to the longest; sizes (optional) gets their value sizes in bytes,
  ! inlined whether each value is stored inline in the index (its tags:
  ! cairn_tag_names).
  subroutine cairn_keys(store, keys, sizes, rank, ierr, inlined)
    type(cairn_store), intent(in) :: store
    character(len=:), allocatable, intent(out) :: keys(:)
    integer(int64), allocatable, intent(out), optional :: sizes(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, allocatable, intent(out), optional :: inlined(:)
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
    nullify(o)
    if (n > 0) then
      call c_f_pointer(p, o, [n])
      longest = maxval(o%key_len)
    end if
    allocate(character(len=longest) :: keys(n))
    if (present(sizes)) allocate(sizes(n))
    if (present(inlined)) allocate(inlined(n))
    do k = 1, int(n)
      keys(k) = fstr(o(k)%key, o(k)%key_len)
      if (present(sizes)) sizes(k) = o(k)%size
      if (present(inlined)) inlined(k) = o(k)%inlined /= 0
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
    if (nul_in(key, "cairn_set_tag", ierr)) return
    if (nul_in(name, "cairn_set_tag", ierr, "tag name")) return
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

  subroutine set_tag_i1(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int8), intent(in) :: value
    integer, intent(out), optional :: ierr
    call set_tag_t(store, key, make_tag_i1(name, value), ierr)
  end subroutine set_tag_i1

  subroutine set_tag_i2(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int16), intent(in) :: value
    integer, intent(out), optional :: ierr
    call set_tag_t(store, key, make_tag_i2(name, value), ierr)
  end subroutine set_tag_i2

  subroutine set_tag_r4(store, key, name, value, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(real32), intent(in) :: value
    integer, intent(out), optional :: ierr
    call set_tag_t(store, key, make_tag_r4(name, value), ierr)
  end subroutine set_tag_r4

  subroutine set_tag_t(store, key, tag, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(cairn_tag), intent(in) :: tag
    integer, intent(out), optional :: ierr
    type(c_tag), allocatable, target :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: nt
    if (nul_in(key, "cairn_set_tag", ierr)) return
    if (nul_in_tags([tag], "cairn_set_tag", ierr)) return
    call tags_to_c([tag], ct, buf, nt)
    call check(c_set_tag(store%ptr, cstr(key), ct(1)), "cairn_set_tag('" // key // "', '" // tag_name(tag) // "')", &
               ierr)
  end subroutine set_tag_t

  function tag_name(t) result(n)
    type(cairn_tag), intent(in) :: t
    character(len=:), allocatable :: n
    n = ""
    if (allocated(t%name)) n = t%name
  end function tag_name

  ! Local. Replaces all tags of key in the caller's namespace by `tags`
  ! (an empty array removes them all); the value is not rewritten. Pending
  ! until the next commit. CAIRN_NOT_FOUND without such an object;
  ! CAIRN_INVALID_ARGUMENT for an empty or repeated tag name.
  subroutine cairn_set_tags(store, key, tags, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(cairn_tag), intent(in) :: tags(:)
    integer, intent(out), optional :: ierr
    type(c_tag), allocatable, target :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: nt
    if (nul_in(key, "cairn_set_tags", ierr)) return
    if (nul_in_tags(tags, "cairn_set_tags", ierr)) return
    call tags_to_c(tags, ct, buf, nt)
    call check(c_set_tags(store%ptr, cstr(key), c_loc(ct), nt), &
               "cairn_set_tags('" // key // "')", ierr)
  end subroutine cairn_set_tags

  ! Local. The type of tag `name` of key (namespace `rank`, default own):
  ! CAIRN_TAG_INT8 .. CAIRN_TAG_BYTES, or ior(CAIRN_TAG_ARRAY, element
  ! type) for an array tag. CAIRN_NOT_FOUND without such a tag (type 0).
  ! With array=.true., key names a global array (its tags).
  subroutine cairn_tag_type(store, key, name, type, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer, intent(out) :: type
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    type(c_tag) :: t
    integer :: rc
    type = 0
    call get_tag(store, key, name, rank, t, rc, array=array)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
      return
    end if
    type = t%type
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_tag_type

  ! Reads tag `name` of key into t (a copy); rc as check() gives it.
  ! array: key names a global array (cairn_array_info's tags), not an object.
  subroutine get_tag(store, key, name, rank, t, rc, s, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer, intent(in), optional :: rank
    type(c_tag), intent(out) :: t
    integer, intent(out) :: rc
    character(len=:), allocatable, intent(out), optional :: s
    logical, intent(in), optional :: array
    type(c_ptr) :: p
    type(c_tag), pointer :: tp, all(:)
    type(c_array_info), pointer :: info
    integer :: k
    if (nul_in(key, "cairn_get_tag", rc)) return
    if (nul_in(name, "cairn_get_tag", rc, "tag name")) return
    if (present(array)) then
      if (array) then
        call check(c_array_info_c(store%ptr, cstr(key), 0_c_int, p), "cairn_get_tag(array '" // key // "', '" // &
                   name // "')", rc)
        if (rc /= CAIRN_OK) return
        call c_f_pointer(p, info)
        nullify(tp)
        if (info%ntags > 0) then
          call c_f_pointer(info%tags, all, [info%ntags])
          do k = 1, int(info%ntags)
            if (fstr(all(k)%name, c_strlen(all(k)%name)) == name) then
              tp => all(k)
              exit
            end if
          end do
        end if
        if (.not. associated(tp)) then
          call c_free(p)
          call fail(CAIRN_NOT_FOUND, "cairn_get_tag(array '" // key // "', '" // name // "'): NotFound: array '" // &
                    key // "' has no tag '" // name // "'", rc)
          return
        end if
        t = tp
        if (present(s)) s = fstr(tp%data, tp%len)
        t%data = c_null_ptr
        t%name = c_null_ptr
        call c_free(p)
        return
      end if
    end if
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

  ! An integer tag's value, refused (value 0) unless it lies in [lo, hi],
  ! the range of the caller's kind.
  subroutine get_tag_int(store, key, name, value, rank, ierr, lo, hi, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int64), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: lo, hi
    logical, intent(in), optional :: array
    type(c_tag) :: t
    integer :: rc
    value = 0
    call get_tag(store, key, name, rank, t, rc, array=array)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (t%type < 1 .or. t%type > 8) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): not an integer tag", ierr)
    else if (t%type == 8 .and. t%i < 0) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): the uint64 value does not fit integer(int64)", ierr)
    else if (out_of(t%i)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // "'): the value " // &
                itoa(t%i) // " does not fit the integer kind given (" // itoa(lo) // " .. " // itoa(hi) // ")", ierr)
    else
      value = t%i
      if (present(ierr)) ierr = CAIRN_OK
    end if
  contains
    ! Whether v passes [lo, hi] when both are given. Its own function:
    ! Fortran's .and. need not stop at a false present(lo), and gfortran
    ! without optimization read the absent lo (SIGSEGV for int64 values).
    logical function out_of(v)
      integer(int64), intent(in) :: v
      out_of = .false.
      if (present(lo) .and. present(hi)) out_of = v < lo .or. v > hi
    end function out_of
  end subroutine get_tag_int

  subroutine get_tag_i1(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int8), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    integer(int64) :: v
    call get_tag_int(store, key, name, v, rank, ierr, int(-huge(value), int64) - 1, int(huge(value), int64), array)
    value = int(v, int8)
  end subroutine get_tag_i1

  subroutine get_tag_i2(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int16), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    integer(int64) :: v
    call get_tag_int(store, key, name, v, rank, ierr, int(-huge(value), int64) - 1, int(huge(value), int64), array)
    value = int(v, int16)
  end subroutine get_tag_i2

  subroutine get_tag_r4(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(real32), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    real(real64) :: v
    value = 0
    call get_tag_r8(store, key, name, v, rank, ierr, array)
    if (present(ierr)) then
      if (ierr /= CAIRN_OK) return
    end if
    ! A finite number beyond real(real32)'s range is refused, as integers
    ! that do not fit their kind are (infinities and NaN convert as they are).
    if (abs(v) <= huge(v) .and. abs(v) > huge(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // &
                "'): the value does not fit real(real32)", ierr)
      return
    end if
    value = real(v, real32)
  end subroutine get_tag_r4

  ! The payload of an array or bytes tag whose type is one of `types`
  ! (rc CAIRN_OK), else rc and the message set.
  subroutine get_tag_payload(store, key, name, rank, types, what, bytes, rc, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer, intent(in), optional :: rank
    integer(c_int), intent(in) :: types(:)
    character(*), intent(in) :: what
    character(len=:), allocatable, intent(out) :: bytes
    integer, intent(out) :: rc
    logical, intent(in), optional :: array
    type(c_tag) :: t
    bytes = ""
    call get_tag(store, key, name, rank, t, rc, bytes, array)
    if (rc /= CAIRN_OK) return
    if (.not. any(types == t%type)) then
      bytes = ""
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_tag('" // key // "', '" // name // "'): not " // what // &
                " (its type is " // itoa(int(t%type, int64)) // "; see cairn_tag_type)", rc)
    end if
  end subroutine get_tag_payload

  subroutine get_tag_i4(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int32_t), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    integer(int64) :: v
    call get_tag_int(store, key, name, v, rank, ierr, int(-huge(value), int64) - 1, int(huge(value), int64), array)
    value = int(v, c_int32_t)
  end subroutine get_tag_i4

  subroutine get_tag_i8(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(c_int64_t), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    call get_tag_int(store, key, name, value, rank, ierr, array=array)
  end subroutine get_tag_i8

  subroutine get_tag_r8(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(c_double), intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    type(c_tag) :: t
    integer :: rc
    value = 0
    call get_tag(store, key, name, rank, t, rc, array=array)
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

  subroutine get_tag_a_i1(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int8), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [TAG_RAW, ior(TAG_ARRAY, TAG_INT8), ior(TAG_ARRAY, 5_c_int)], &
                         "bytes or an int8/uint8 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0_int8], len(b) / (storage_size(0_int8) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_i1

  subroutine get_tag_a_i2(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int16), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [ior(TAG_ARRAY, TAG_INT16)], &
                         "an int16 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0_int16], len(b) / (storage_size(0_int16) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_i2

  subroutine get_tag_a_i4(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int32), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [ior(TAG_ARRAY, TAG_INT32)], &
                         "an int32 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0_int32], len(b) / (storage_size(0_int32) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_i4

  subroutine get_tag_a_i8(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    integer(int64), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [ior(TAG_ARRAY, TAG_INT64)], &
                         "an int64 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0_int64], len(b) / (storage_size(0_int64) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_i8

  subroutine get_tag_a_r4(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(real32), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [ior(TAG_ARRAY, TAG_FLOAT32)], &
                         "a float32 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0.0_real32], len(b) / (storage_size(0.0_real32) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_r4

  subroutine get_tag_a_r8(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    real(real64), allocatable, intent(out) :: value(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    character(len=:), allocatable :: b
    integer :: rc
    call get_tag_payload(store, key, name, rank, [ior(TAG_ARRAY, TAG_FLOAT64)], &
                         "a float64 array tag", b, rc, array)
    if (rc /= CAIRN_OK) then
      allocate(value(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    value = transfer(b, [0.0_real64], len(b) / (storage_size(0.0_real64) / 8))
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine get_tag_a_r8

  subroutine get_tag_str(store, key, name, value, rank, ierr, array)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key, name
    character(len=:), allocatable, intent(out) :: value
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    logical, intent(in), optional :: array
    type(c_tag) :: t
    integer :: rc
    value = ""
    call get_tag(store, key, name, rank, t, rc, value, array)
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

  ! --- put/get of objects: one specific procedure per type; any rank (0 to
  ! 15) through assumed rank, a non-contiguous section copied in or out by
  ! the compiler (the contiguous attribute) ---

  subroutine put_i1(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int8), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_i1

  subroutine gr_i1(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    integer(int8), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_i1

  subroutine zc_i1(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int8), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_i1

  subroutine get_i1(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int8), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i1

  subroutine put_i2(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int16), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_i2

  subroutine gr_i2(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    integer(int16), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_i2

  subroutine zc_i2(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int16), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_i2

  subroutine get_i2(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int16), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i2

  subroutine put_i4(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int32), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_i4

  subroutine gr_i4(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    integer(int32), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_i4

  subroutine zc_i4(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int32), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_i4

  subroutine get_i4(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int32), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i4

  subroutine put_i8(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_i8

  subroutine gr_i8(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    integer(int64), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_i8

  subroutine zc_i8(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_i8

  subroutine get_i8(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_i8

  subroutine put_r4(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real32), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_r4

  subroutine gr_r4(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    real(real32), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_r4

  subroutine zc_r4(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real32), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_r4

  subroutine get_r4(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real32), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r4

  subroutine put_r8(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real64), intent(in), target, contiguous :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags)
  end subroutine put_r8

  subroutine gr_r8(store, key, offset, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in) :: offset
    real(real64), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_range_bytes(store, key, offset, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), &
                         rank, ierr)
  end subroutine gr_r8

  subroutine zc_r8(store, key, value, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real64), pointer, intent(in) :: value(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    if (.not. associated(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the pointer is not associated", ierr)
    else if (.not. is_contiguous(value)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_zero_copy('" // key // "'): InvalidArgument: " // &
                "the array is not contiguous (a strided section); use cairn_put, which copies it", ierr)
    else
      call put_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), ierr, tags, &
                     .true.)
    end if
  end subroutine zc_r8

  subroutine get_r8(store, key, value, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real64), intent(inout), target, contiguous :: value(..)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    call get_bytes(store, key, c_loc(value), int(size(value), c_size_t) * (storage_size(value) / 8), rank, ierr)
  end subroutine get_r8

  ! Local. Reads the values of reads(:) (cairn_read_into(key, x) each) of
  ! namespace `rank` (default own) in one call: their byte ranges are
  ! sorted and merged into few large reads, each value read and verified
  ! straight into its array. A value no larger than its array fills its
  ! first bytes (sizes(k) gives each value's size in bytes); a larger one
  ! is CAIRN_INVALID_ARGUMENT for that read and its array is untouched;
  ! where a read failed (corruption, I/O error) the first sizes(k) bytes
  ! of its array are zeroed. codes(k) gets each read's code; ierr the
  ! first failed one (CAIRN_OK if none). Refused as a whole, nothing
  ! read (every code CAIRN_INVALID_ARGUMENT): a strided array, a key with
  ! char(0), arrays that overlap (the same array twice), a rank that names
  ! no namespace. gap_limit, max_block (bytes; negative counts as 0) and
  ! max_read_amplification tune how the ranges are merged
  ! (cairn::ReadOptions; cairn_multi_get_opts).
  subroutine cairn_multi_get(store, reads, sizes, codes, rank, ierr, gap_limit, max_block, max_read_amplification)
    type(cairn_store), intent(in) :: store
    type(cairn_read), intent(in) :: reads(:)
    integer(int64), allocatable, intent(out), optional :: sizes(:)
    integer, allocatable, intent(out), optional :: codes(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit, max_block
    real(real64), intent(in), optional :: max_read_amplification
    type(c_read_options) :: ro
    type(c_read), allocatable :: cr(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer :: k, n, pos, rc
    n = size(reads)
    if (present(sizes)) then
      allocate(sizes(n))
      sizes = 0
    end if
    if (present(codes)) then
      allocate(codes(n))
      codes = CAIRN_INVALID_ARGUMENT
    end if
    do k = 1, n
      if (.not. reads(k)%usable) then
        call fail(CAIRN_INVALID_ARGUMENT, "cairn_multi_get: InvalidArgument: read " // itoa(int(k, int64)) // &
                  " ('" // reads(k)%key // "') is not a contiguous array (a strided section, or an " // &
                  "unassociated pointer); nothing was read", ierr)
        return
      end if
      if (nul_in(reads(k)%key, "cairn_multi_get", ierr)) return
    end do
    pos = 1
    do k = 1, n
      pos = pos + len(reads(k)%key) + 1
    end do
    allocate(cr(max(n, 1)), buf(pos))
    pos = 1
    do k = 1, n
      call put_str(buf, pos, reads(k)%key, cr(k)%key)
      cr(k)%data = reads(k)%data
      cr(k)%capacity = reads(k)%capacity
      cr(k)%size = 0
      cr(k)%code = 0
    end do
    call c_read_options_init(ro)
    if (present(gap_limit)) ro%gap_limit = max(gap_limit, 0_int64)
    if (present(max_block)) ro%max_block = max(max_block, 0_int64)
    if (present(max_read_amplification)) ro%max_read_amplification = max_read_amplification
    call check(c_multi_get_opts(store%ptr, rank_of(rank), cr, int(n, c_size_t), ro), "cairn_multi_get", rc)
    if (present(sizes)) sizes = cr(1:n)%size
    if (present(codes)) codes = cr(1:n)%code
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (present(ierr)) then
      ierr = CAIRN_OK
    end if
  end subroutine cairn_multi_get

  function ri_i1(key, x) result(r)
    character(*), intent(in) :: key
    integer(int8), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_i1

  function ri_i2(key, x) result(r)
    character(*), intent(in) :: key
    integer(int16), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_i2

  function ri_i4(key, x) result(r)
    character(*), intent(in) :: key
    integer(int32), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_i4

  function ri_i8(key, x) result(r)
    character(*), intent(in) :: key
    integer(int64), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_i8

  function ri_r4(key, x) result(r)
    character(*), intent(in) :: key
    real(real32), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_r4

  function ri_r8(key, x) result(r)
    character(*), intent(in) :: key
    real(real64), pointer, intent(in) :: x(..)
    type(cairn_read) :: r
    r%key = key
    if (.not. associated(x)) return
    if (.not. is_contiguous(x)) return
    r%usable = .true.
    r%data = c_loc(x)
    r%capacity = size(x, kind=c_int64_t) * (storage_size(x) / 8)
  end function ri_r8

  ! The name of a code: "OK", "NotFound", "Corruption", "InvalidArgument",
  ! "IOError", "NotSupported", "Aborted"; "Unknown" for anything else.
  function cairn_code_name(code) result(name)
    integer, intent(in) :: code
    character(len=:), allocatable :: name
    type(c_ptr) :: p
    p = c_code_name(int(code, c_int))
    name = fstr(p, c_strlen(p))
  end function cairn_code_name

  ! Bytes per element of an array dtype (CAIRN_INT8 .. CAIRN_FLOAT64; 0
  ! for any other code).
  integer function cairn_dtype_size(dtype)
    integer, intent(in) :: dtype
    cairn_dtype_size = int(c_dtype_size(int(dtype, c_int)))
  end function cairn_dtype_size

  ! The NumPy name of an array dtype ("int8" ... "float64"; "?" else).
  function cairn_dtype_name(dtype) result(name)
    integer, intent(in) :: dtype
    character(len=:), allocatable :: name
    type(c_ptr) :: p
    p = c_dtype_name(int(dtype, c_int))
    name = fstr(p, c_strlen(p))
  end function cairn_dtype_name

  ! Local. This rank's I/O counters since the store was opened.
  subroutine cairn_stats(store, stats, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_io_stats), intent(out) :: stats
    integer, intent(out), optional :: ierr
    call check(c_stats(store%ptr, stats, int(storage_size(stats) / 8, c_size_t)), "cairn_stats", ierr)
  end subroutine cairn_stats

  ! Local, never blocks: the revision number the asynchronous commit makes
  ! (known as soon as cairn_commit_async returned; 0 for no commit).
  integer(int64) function cairn_async_revision(handle)
    type(cairn_async), intent(in) :: handle
    cairn_async_revision = c_async_revision(handle%ptr)
  end function cairn_async_revision

  ! Local, never blocks: .true. once the commit has finished and its
  ! revision is committed (cairn_async_test moves it on).
  logical function cairn_async_committed(handle)
    type(cairn_async), intent(in) :: handle
    cairn_async_committed = c_async_committed(handle%ptr) /= 0
  end function cairn_async_committed

  ! --- strings for C: tags and conditions ---

  ! Bytes a tag's strings take in a C buffer (NUL-terminated).
  integer function tag_bytes(t)
    type(cairn_tag), intent(in) :: t
    tag_bytes = 2
    if (allocated(t%name)) tag_bytes = tag_bytes + len(t%name)
    if (allocated(t%text)) tag_bytes = tag_bytes + len(t%text)
  end function tag_bytes

  ! Copies s and a NUL into buf at pos (advanced); p gets its address.
  subroutine put_str(buf, pos, s, p)
    character(kind=c_char), intent(inout), target :: buf(:)
    integer, intent(inout) :: pos
    character(*), intent(in) :: s
    type(c_ptr), intent(out) :: p
    integer :: k
    do k = 1, len(s)
      buf(pos + k - 1) = s(k:k)
    end do
    buf(pos + len(s)) = c_null_char
    p = c_loc(buf(pos))
    pos = pos + len(s) + 1
  end subroutine put_str

  ! A tag as C sees it; its strings go into buf (which must outlive ct).
  subroutine tag_to_c(t, buf, pos, ct)
    type(cairn_tag), intent(in) :: t
    character(kind=c_char), intent(inout), target :: buf(:)
    integer, intent(inout) :: pos
    type(c_tag), intent(out) :: ct
    ct%type = t%type
    ct%i = t%i
    ct%u = t%i
    ct%d = t%d
    if (allocated(t%name)) then
      call put_str(buf, pos, t%name, ct%name)
    else
      call put_str(buf, pos, "", ct%name)
    end if
    if (allocated(t%text)) then
      call put_str(buf, pos, t%text, ct%data)
      ct%len = len(t%text, c_size_t)
    end if
  end subroutine tag_to_c

  ! Conditions as C sees them, their strings in buf (allocated here).
  subroutine conds_to_c(conds, cq, buf)
    type(cairn_condition), intent(in) :: conds(:)
    type(c_query), allocatable, intent(out) :: cq(:)
    character(kind=c_char), allocatable, target, intent(inout) :: buf(:)
    integer :: k, n, pos
    n = 1
    do k = 1, size(conds)
      n = n + len(conds(k)%name) + 1 + tag_bytes(conds(k)%value) + tag_bytes(conds(k)%upper)
    end do
    allocate(buf(n), cq(max(size(conds), 1)))
    pos = 1
    do k = 1, size(conds)
      call put_str(buf, pos, conds(k)%name, cq(k)%name)
      cq(k)%op = conds(k)%op
      call tag_to_c(conds(k)%value, buf, pos, cq(k)%value)
      call tag_to_c(conds(k)%upper, buf, pos, cq(k)%upper)
    end do
  end subroutine conds_to_c

  ! n C strings (address, length) as a character array padded to the longest.
  subroutine to_strings(ptrs, lens, out)
    type(c_ptr), intent(in) :: ptrs(:)
    integer(c_size_t), intent(in) :: lens(:)
    character(len=:), allocatable, intent(out) :: out(:)
    integer :: k
    integer(c_size_t) :: longest
    longest = 0
    if (size(lens) > 0) longest = maxval(lens)
    allocate(character(len=longest) :: out(size(ptrs)))
    do k = 1, size(ptrs)
      out(k) = fstr(ptrs(k), lens(k))
    end do
  end subroutine to_strings

  ! --- tags given to arrays, and query conditions ---

  function make_tag_i4(name, value) result(t)
    character(*), intent(in) :: name
    integer(int32), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_INT32
    t%i = value
  end function make_tag_i4

  function make_tag_i8(name, value) result(t)
    character(*), intent(in) :: name
    integer(int64), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_INT64
    t%i = value
  end function make_tag_i8

  function make_tag_r8(name, value) result(t)
    character(*), intent(in) :: name
    real(real64), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_FLOAT64
    t%d = value
  end function make_tag_r8

  function make_tag_str(name, value) result(t)
    character(*), intent(in) :: name, value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_STRING
    t%text = value
  end function make_tag_str

  function make_tag_i1(name, value) result(t)
    character(*), intent(in) :: name
    integer(int8), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_INT8
    t%i = value
  end function make_tag_i1

  function make_tag_i2(name, value) result(t)
    character(*), intent(in) :: name
    integer(int16), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_INT16
    t%i = value
  end function make_tag_i2

  function make_tag_r4(name, value) result(t)
    character(*), intent(in) :: name
    real(real32), intent(in) :: value
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_FLOAT32
    t%d = value
  end function make_tag_r4

  ! A bytes tag (CAIRN_TAG_BYTES) holding b.
  function cairn_bytes_tag(name, b) result(t)
    character(*), intent(in) :: name
    integer(int8), intent(in), target, contiguous :: b(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = TAG_RAW
    t%text = fstr(c_loc(b), size(b, kind=c_size_t))
  end function cairn_bytes_tag

  function make_tag_a_i1(name, value) result(t)
    character(*), intent(in) :: name
    integer(int8), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_INT8)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_i1

  function make_tag_a_i2(name, value) result(t)
    character(*), intent(in) :: name
    integer(int16), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_INT16)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_i2

  function make_tag_a_i4(name, value) result(t)
    character(*), intent(in) :: name
    integer(int32), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_INT32)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_i4

  function make_tag_a_i8(name, value) result(t)
    character(*), intent(in) :: name
    integer(int64), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_INT64)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_i8

  function make_tag_a_r4(name, value) result(t)
    character(*), intent(in) :: name
    real(real32), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_FLOAT32)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_r4

  function make_tag_a_r8(name, value) result(t)
    character(*), intent(in) :: name
    real(real64), intent(in), target, contiguous :: value(:)
    type(cairn_tag) :: t
    t%name = name
    t%type = ior(TAG_ARRAY, TAG_FLOAT64)
    t%text = fstr(c_loc(value), size(value, kind=c_size_t) * (storage_size(value) / 8))
  end function make_tag_a_r8

  ! The object has a tag `name`.
  function cairn_tag_exists(name) result(c)
    character(*), intent(in) :: name
    type(cairn_condition) :: c
    c%name = name
    c%op = 0
  end function cairn_tag_exists

  function eq_i4(name, value) result(c)
    character(*), intent(in) :: name
    integer(int32), intent(in) :: value
    type(cairn_condition) :: c
    c%name = name
    c%op = 1
    c%value = make_tag_i4("", value)
  end function eq_i4

  function eq_i8(name, value) result(c)
    character(*), intent(in) :: name
    integer(int64), intent(in) :: value
    type(cairn_condition) :: c
    c%name = name
    c%op = 1
    c%value = make_tag_i8("", value)
  end function eq_i8

  function eq_r8(name, value) result(c)
    character(*), intent(in) :: name
    real(real64), intent(in) :: value
    type(cairn_condition) :: c
    c%name = name
    c%op = 1
    c%value = make_tag_r8("", value)
  end function eq_r8

  function eq_str(name, value) result(c)
    character(*), intent(in) :: name, value
    type(cairn_condition) :: c
    c%name = name
    c%op = 1
    c%value = make_tag_str("", value)
  end function eq_str

  function between_i4(name, lo, hi) result(c)
    character(*), intent(in) :: name
    integer(int32), intent(in) :: lo, hi
    type(cairn_condition) :: c
    c%name = name
    c%op = 2
    c%value = make_tag_i4("", lo)
    c%upper = make_tag_i4("", hi)
  end function between_i4

  function between_i8(name, lo, hi) result(c)
    character(*), intent(in) :: name
    integer(int64), intent(in) :: lo, hi
    type(cairn_condition) :: c
    c%name = name
    c%op = 2
    c%value = make_tag_i8("", lo)
    c%upper = make_tag_i8("", hi)
  end function between_i8

  function between_r8(name, lo, hi) result(c)
    character(*), intent(in) :: name
    real(real64), intent(in) :: lo, hi
    type(cairn_condition) :: c
    c%name = name
    c%op = 2
    c%value = make_tag_r8("", lo)
    c%upper = make_tag_r8("", hi)
  end function between_r8

  ! The object's tag `name` is a string starting with prefix.
  function cairn_tag_prefix(name, prefix) result(c)
    character(*), intent(in) :: name, prefix
    type(cairn_condition) :: c
    c%name = name
    c%op = 3
    c%value = make_tag_str("", prefix)
  end function cairn_tag_prefix

  ! The object's tag `name` is a string matching pattern (* and ?).
  function cairn_tag_matches(name, pattern) result(c)
    character(*), intent(in) :: name, pattern
    type(cairn_condition) :: c
    c%name = name
    c%op = 4
    c%value = make_tag_str("", pattern)
  end function cairn_tag_matches

  ! --- reading tags back, queries, writer ranks ---

  ! Local. How many ranks wrote the revision the store shows (its
  ! namespaces are 0 .. cairn_writer_ranks - 1); differs from cairn_size
  ! after a restart on another rank count.
  integer function cairn_writer_ranks(store)
    type(cairn_store), intent(in) :: store
    cairn_writer_ranks = c_writer_ranks(store%ptr)
  end function cairn_writer_ranks

  ! Local. The names of key's tags (namespace `rank`, default own), in the
  ! order they were written, padded to the longest.
  subroutine cairn_tag_names(store, key, names, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    character(len=:), allocatable, intent(out) :: names(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    integer(c_size_t) :: n
    type(c_tag), pointer :: t(:)
    integer(c_size_t), allocatable :: lens(:)
    integer :: rc, k
    if (nul_in(key, "cairn_tag_names", ierr)) return
    call check(c_get_tags(store%ptr, cstr(key), rank_of(rank), p, n), "cairn_tag_names('" // key // "')", rc)
    if (rc /= CAIRN_OK) then
      allocate(character(len=0) :: names(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    allocate(lens(n))
    if (n > 0) then
      call c_f_pointer(p, t, [n])
      do k = 1, int(n)
        lens(k) = c_strlen(t(k)%name)
      end do
      call to_strings(t%name, lens, names)
    else
      allocate(character(len=0) :: names(0))
    end if
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_tag_names

  ! Keys of hits, as query results (padded), and their ranks.
  subroutine hits_to_keys(p, n, keys, ranks)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    character(len=:), allocatable, intent(out) :: keys(:)
    integer, allocatable, intent(out), optional :: ranks(:)
    type(c_hit), pointer :: h(:)
    if (present(ranks)) allocate(ranks(n))
    if (n == 0) then
      allocate(character(len=0) :: keys(0))
      return
    end if
    call c_f_pointer(p, h, [n])
    call to_strings(h%key, h%key_len, keys)
    if (present(ranks)) ranks = h%rank
  end subroutine hits_to_keys

  ! Local. The keys (in key order) of namespace `rank` (default own) whose
  ! objects meet every condition (none: every object), padded.
  subroutine cairn_query(store, conds, keys, rank, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_condition), intent(in) :: conds(:)
    character(len=:), allocatable, intent(out) :: keys(:)
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    type(c_query), allocatable :: cq(:)
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_size_t) :: n
    integer :: rc, k
    if (nul_in_conds(conds, "cairn_query", ierr, k)) then
      allocate(character(len=0) :: keys(0))
      return
    end if
    call conds_to_c(conds, cq, buf)
    call check(c_query_c(store%ptr, cq, size(conds, kind=c_size_t), rank_of(rank), p, n), "cairn_query", rc)
    if (rc /= CAIRN_OK) then
      allocate(character(len=0) :: keys(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    call hits_to_keys(p, n, keys)
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_query

  ! Collective. The query over every rank's namespace: every rank gets the
  ! keys of all, ordered by rank then key, and (optional) their ranks.
  subroutine cairn_query_all(store, conds, keys, ranks, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_condition), intent(in) :: conds(:)
    character(len=:), allocatable, intent(out) :: keys(:)
    integer, allocatable, intent(out), optional :: ranks(:)
    integer, intent(out), optional :: ierr
    type(c_query), allocatable :: cq(:)
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_size_t) :: n
    integer :: rc, k
    logical :: bad_name
    character(len=:), allocatable :: why
    bad_name = nul_in_conds(conds, "cairn_query_all", rc, k)
    if (bad_name) why = last_msg
    call conds_to_c(conds, cq, buf)
    ! Collective: with a bad name this rank still takes part (a NULL name,
    ! which C refuses after the exchange), then reports its own cause.
    if (bad_name) cq(k)%name = c_null_ptr
    call check(c_query_all(store%ptr, cq, size(conds, kind=c_size_t), p, n), "cairn_query_all", rc)
    if (bad_name) then
      rc = CAIRN_INVALID_ARGUMENT
      last_msg = why
    end if
    if (rc /= CAIRN_OK) then
      allocate(character(len=0) :: keys(0))
      if (present(ranks)) allocate(ranks(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    call hits_to_keys(p, n, keys, ranks)
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_query_all

  ! --- streams ---

  ! Local. Opens a stream that becomes object `key` of the caller's
  ! namespace, with the optional tags, when closed (pending for the next
  ! commit).
  subroutine cairn_stream_open_write(store, key, stream, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(cairn_stream), intent(out) :: stream
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    type(c_tag), allocatable, target :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: nt
    if (nul_in(key, "cairn_stream_open_write", ierr)) return
    if (nul_in_tags(tags, "cairn_stream_open_write", ierr)) return
    call tags_to_c(tags, ct, buf, nt)
    call check(c_stream_open_write(store%ptr, cstr(key), c_loc(ct), nt, stream%ptr), &
               "cairn_stream_open_write('" // key // "')", ierr)
  end subroutine cairn_stream_open_write

  ! Local. Opens object `key` of namespace `rank` (default own) for reading.
  subroutine cairn_stream_open_read(store, key, stream, rank, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(cairn_stream), intent(out) :: stream
    integer, intent(in), optional :: rank
    integer, intent(out), optional :: ierr
    if (nul_in(key, "cairn_stream_open_read", ierr)) return
    call check(c_stream_open_read(store%ptr, cstr(key), rank_of(rank), stream%ptr), &
               "cairn_stream_open_read('" // key // "')", ierr)
  end subroutine cairn_stream_open_read

  subroutine stream_write_bytes(stream, p, n, ierr)
    type(cairn_stream), intent(in) :: stream
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    if (no_size(int(n, int64), "cairn_stream_write", ierr)) return
    call check(c_stream_write(stream%ptr, p, n), "cairn_stream_write", ierr)
  end subroutine stream_write_bytes

  subroutine stream_read_bytes(stream, p, n, got, ierr)
    type(cairn_stream), intent(in) :: stream
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    integer(c_size_t) :: g
    integer :: rc
    g = 0
    if (present(got)) got = 0
    if (no_size(int(n, int64), "cairn_stream_read", ierr)) return
    call check(c_stream_read(stream%ptr, p, n, g), "cairn_stream_read", rc)
    if (present(got)) got = int(g, int64)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (g /= n .and. .not. present(got)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_stream_read: the stream ended after " // &
                itoa(int(g, int64)) // " of " // itoa(int(n, int64)) // " bytes", ierr)
    else if (present(ierr)) then
      ierr = CAIRN_OK
    end if
  end subroutine stream_read_bytes

  ! Local. Moves the position to offset (bytes) from whence: CAIRN_SEEK_SET
  ! (default), CAIRN_SEEK_CUR or CAIRN_SEEK_END.
  subroutine cairn_stream_seek(stream, offset, whence, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    integer, intent(in), optional :: whence
    integer, intent(out), optional :: ierr
    integer(c_int) :: w
    w = CAIRN_SEEK_SET
    if (present(whence)) w = int(whence, c_int)
    call check(c_stream_seek(stream%ptr, offset, w), "cairn_stream_seek", ierr)
  end subroutine cairn_stream_seek

  ! The position in bytes (-1 for a stream not open).
  integer(int64) function cairn_stream_tell(stream)
    type(cairn_stream), intent(in) :: stream
    integer(c_int64_t) :: v
    cairn_stream_tell = -1
    if (c_stream_tell(stream%ptr, v) == CAIRN_OK) cairn_stream_tell = v
  end function cairn_stream_tell

  ! The size in bytes (-1 for a stream not open).
  integer(int64) function cairn_stream_size(stream)
    type(cairn_stream), intent(in) :: stream
    integer(c_int64_t) :: v
    cairn_stream_size = -1
    if (c_stream_size(stream%ptr, v) == CAIRN_OK) cairn_stream_size = v
  end function cairn_stream_size

  ! Writers: hands the gathered bytes to the store (not durable).
  subroutine cairn_stream_flush(stream, ierr)
    type(cairn_stream), intent(in) :: stream
    integer, intent(out), optional :: ierr
    call check(c_stream_flush(stream%ptr), "cairn_stream_flush", ierr)
  end subroutine cairn_stream_flush

  ! Ends the stream (a writer's object is then pending for the next commit).
  subroutine cairn_stream_close(stream, ierr)
    type(cairn_stream), intent(inout) :: stream
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_stream_close(stream%ptr)
    stream%ptr = c_null_ptr
    call check(rc, "cairn_stream_close", ierr)
  end subroutine cairn_stream_close

  ! --- asynchronous commits ---

  ! Collective. Starts a commit of every rank's changes; returns once the
  ! values put so far are captured. Finish it with cairn_async_wait.
  subroutine cairn_commit_async(store, handle, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_async), intent(out) :: handle
    integer, intent(out), optional :: ierr
    call check(c_commit_async(store%ptr, handle%ptr), "cairn_commit_async", ierr)
  end subroutine cairn_commit_async

  ! Local, never blocks: done = .true. once the commit finished (ierr then
  ! gives its outcome).
  subroutine cairn_async_test(handle, done, ierr)
    type(cairn_async), intent(in) :: handle
    logical, intent(out) :: done
    integer, intent(out), optional :: ierr
    integer(c_int) :: d
    d = 0
    call check(c_async_test(handle%ptr, d), "cairn_async_test", ierr)
    done = d /= 0
  end subroutine cairn_async_test

  ! Waits for the commit, gives its revision, and frees the handle.
  subroutine cairn_async_wait(handle, revision, ierr)
    type(cairn_async), intent(inout) :: handle
    integer(int64), intent(out), optional :: revision
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: rev
    integer(c_int) :: rc
    rev = 0
    rc = c_async_wait(handle%ptr, rev)
    call c_async_free(handle%ptr)
    handle%ptr = c_null_ptr
    if (present(revision)) revision = rev
    call check(rc, "cairn_async_wait", ierr)
  end subroutine cairn_async_wait

  ! --- shared objects ---

  subroutine put_shared_bytes(store, key, p, n, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    type(c_tag), allocatable, target :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: nt
    if (no_size(int(n, int64), "cairn_put_shared('" // key // "')", ierr)) return
    if (nul_in(key, "cairn_put_shared", ierr)) return
    if (nul_in_tags(tags, "cairn_put_shared", ierr)) return
    call tags_to_c(tags, ct, buf, nt)
    call check(c_put_shared_tags(store%ptr, cstr(key), p, n, c_loc(ct), nt), "cairn_put_shared('" // key // "')", ierr)
  end subroutine put_shared_bytes

  subroutine stream_read_at_bytes(stream, offset, p, n, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    if (no_size(int(n, int64), "cairn_stream_read_at", ierr)) return
    if (offset < 0) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_stream_read_at: InvalidArgument: offset " // itoa(offset) // &
                " is negative", ierr)
      return
    end if
    call check(c_stream_read_at(stream%ptr, offset, p, n), "cairn_stream_read_at", ierr)
  end subroutine stream_read_at_bytes

  ! Local. This handle's array read counters since the store was opened.
  subroutine cairn_array_read_stats(store, stats, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_array_read_stats_t), intent(out) :: stats
    integer, intent(out), optional :: ierr
    call check(c_array_read_stats(store%ptr, stats, int(storage_size(stats) / 8, c_size_t)), &
               "cairn_array_read_stats", ierr)
  end subroutine cairn_array_read_stats

  subroutine get_shared_bytes(store, key, p, n, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: n
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: size, want
    integer(c_size_t) :: cap
    integer :: rc
    ! Collective: every rank takes part. The buffer is offered only when the
    ! value has exactly its size (C fills any larger buffer), so an array
    ! of another size is left untouched.
    cap = 0
    want = -1
    if (n >= 0 .and. index(key, c_null_char) == 0) then
      if (c_get_size(store%ptr, cstr(key), rank_of(CAIRN_RANK_SHARED), want) == CAIRN_OK) then
        if (want == n) cap = n
      end if
    end if
    size = 0
    call check(c_get_shared(store%ptr, cstr(key), p, cap, size), "cairn_get_shared('" // key // "')", rc)
    if (nul_in(key, "cairn_get_shared", ierr)) return  ! after the collective, which it joined offering no buffer
    if (no_size(int(n, int64), "cairn_get_shared('" // key // "')", ierr)) return
    ! The size message below, for a buffer refused as too small (C then
    ! reports the size); not for another refusal (a key that differs from
    ! rank 0's leaves size 0 and its own message).
    if (rc == CAIRN_INVALID_ARGUMENT .and. cap == 0 .and. size > 0 .and. size /= n) rc = CAIRN_OK
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (size /= n) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_shared('" // key // "'): the value has " // &
                itoa(size) // " bytes, the array " // itoa(int(n, int64)), ierr)
    else if (present(ierr)) then
      ierr = CAIRN_OK
    end if
  end subroutine get_shared_bytes

  ! --- global arrays ---

  subroutine put_array_c(store, name, dtype, gshape, start, count, p, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer(int64), intent(in) :: gshape(:), start(:), count(:)
    type(c_ptr), intent(in) :: p
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    type(c_tag), allocatable :: ct(:)
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_array_put_options) :: opts
    integer(c_int) :: flags
    integer :: k, n, pos
    if (size(gshape) /= size(count) .or. size(start) /= size(count)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_put_array('" // name // "'): global_shape has " // &
                itoa(size(gshape, kind=int64)) // " dimensions, start " // itoa(size(start, kind=int64)) // &
                ", the data " // itoa(size(count, kind=int64)), ierr)
      return
    end if
    if (no_size(minval([count, 0_int64]), "cairn_put_array('" // name // "')", ierr)) return
    if (negative_in(gshape, "global_shape", "cairn_put_array('" // name // "')", ierr)) return
    if (negative_in(start, "start", "cairn_put_array('" // name // "')", ierr)) return
    if (nul_in(name, "cairn_put_array", ierr, "array name")) return
    if (nul_in_tags(tags, "cairn_put_array('" // name // "')", ierr)) return
    flags = FLAG_COLUMN_MAJOR
    if (present(statistics)) then
      if (statistics) flags = ior(flags, FLAG_STATISTICS)
    end if
    n = 1
    k = 0
    if (present(tags)) then
      k = size(tags)
      do pos = 1, k
        n = n + tag_bytes(tags(pos))
      end do
    end if
    allocate(ct(max(k, 1)), buf(n))
    pos = 1
    do n = 1, k
      call tag_to_c(tags(n), buf, pos, ct(n))
    end do
    call c_array_put_options_init(opts)
    opts%flags = flags
    if (present(checksum_grain)) opts%checksum_grain = checksum_grain
    call check(c_put_array_opts(store%ptr, cstr(name), dtype, size(count, kind=c_int), gshape, start, count, &
                                p, opts, ct, int(k, c_size_t)), "cairn_put_array('" // name // "')", ierr)
  end subroutine put_array_c

  ! dtype: the CAIRN_* code of the data's kind (integers as signed).
  subroutine get_array_c(store, name, start, count, p, cap, dtype, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:), count(:)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: cap
    integer(c_int), intent(in) :: dtype
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    type(c_array_read_options) :: ro
    if (size(start) /= size(count)) then
      call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_array('" // name // "'): start has " // &
                itoa(size(start, kind=int64)) // " dimensions, the data " // itoa(size(count, kind=int64)), ierr)
      return
    end if
    if (no_size(minval([count, int(cap, int64), 0_int64]), "cairn_get_array('" // name // "')", ierr)) return
    if (negative_in(start, "start", "cairn_get_array('" // name // "')", ierr)) return
    if (nul_in(name, "cairn_get_array", ierr, "array name")) return
    if (.not. kind_fits(store, name, dtype, ierr)) return
    call c_array_read_options_init(ro)
    ro%flags = FLAG_COLUMN_MAJOR
    if (present(gap_limit)) then
      if (gap_limit < 0) then
        call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_array('" // name // "'): InvalidArgument: gap_limit " // &
                  itoa(gap_limit) // " is negative", ierr)
        return
      end if
      ro%gap_limit = gap_limit
    end if
    call check(c_get_array_opts(store%ptr, cstr(name), size(count, kind=c_int), start, count, p, cap, ro), &
               "cairn_get_array('" // name // "')", ierr)
  end subroutine get_array_c

  ! True if data of kind `dtype` (a CAIRN_* code; Fortran integers are
  ! signed) may take array `name`'s elements: the same dtype, or for an
  ! integer kind the unsigned dtype of its width (Fortran has no unsigned
  ! kinds; the bits are kept). Otherwise fails (InvalidArgument naming both,
  ! or the array's NotFound): the elements are never reinterpreted.
  logical function kind_fits(store, name, dtype, ierr) result(fits)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    type(c_array_info), pointer :: info
    integer :: rc, have
    fits = .false.
    call check(c_array_info_c(store%ptr, cstr(name), 0_c_int, p), "cairn_get_array('" // name // "')", rc)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
      return
    end if
    call c_f_pointer(p, info)
    have = info%dtype
    call c_free(p)
    fits = have == dtype .or. (dtype >= CAIRN_INT8 .and. dtype <= CAIRN_INT64 .and. have == dtype + (CAIRN_UINT8 - CAIRN_INT8))
    if (.not. fits) call fail(CAIRN_INVALID_ARGUMENT, "cairn_get_array('" // name // "'): InvalidArgument: " // &
                              "the array is " // cairn_dtype_name(have) // ", the data " // &
                              cairn_dtype_name(int(dtype)) // " (another kind: nothing read)", ierr)
  end function kind_fits

  ! Local. The array's element type (CAIRN_INT8 ... CAIRN_FLOAT64), its
  ! global shape in Fortran order, how many blocks it has, whether they
  ! form a regular grid (stored in O(1)), and the names of its tags.
  subroutine cairn_array_info(store, name, dtype, shape, blocks, ierr, regular, tag_names)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer, intent(out), optional :: dtype
    integer(int64), allocatable, intent(out), optional :: shape(:)
    integer(int64), intent(out), optional :: blocks
    integer, intent(out), optional :: ierr
    logical, intent(out), optional :: regular
    character(len=:), allocatable, intent(out), optional :: tag_names(:)
    type(c_tag), pointer :: t(:)
    integer(c_size_t), allocatable :: lens(:)
    integer :: k
    type(c_ptr) :: p
    type(c_array_info), pointer :: info
    integer(c_int64_t), pointer :: sh(:)
    integer :: rc
    if (.not. nul_in(name, "cairn_array_info", rc, "array name")) &
        call check(c_array_info_c(store%ptr, cstr(name), 0_c_int, p), "cairn_array_info('" // name // "')", rc)
    if (rc /= CAIRN_OK) then
      if (present(shape)) allocate(shape(0))
      if (present(tag_names)) allocate(character(len=0) :: tag_names(0))
      call fail(rc, last_msg, ierr)
      return
    end if
    call c_f_pointer(p, info)
    call c_f_pointer(info%shape, sh, [info%ndims])
    if (present(dtype)) dtype = info%dtype
    if (present(shape)) shape = sh(info%ndims:1:-1)
    if (present(blocks)) blocks = info%block_count
    if (present(regular)) regular = info%regular /= 0
    if (present(tag_names)) then
      if (info%ntags == 0) then
        allocate(character(len=0) :: tag_names(0))
      else
        call c_f_pointer(info%tags, t, [info%ntags])
        allocate(lens(info%ntags))
        do k = 1, int(info%ntags)
          lens(k) = c_strlen(t(k)%name)
        end do
        call to_strings(t%name, lens, tag_names)
      end if
    end if
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_array_info

  ! Local. Every block of the array as the store's revision holds it
  ! (O(blocks) memory), each argument optional: start and count
  ! (ndims x nblocks, Fortran order, start 0-based as cairn_put_array's),
  ! ranks (the namespace, writer rank, holding each), and for blocks put
  ! with statistics=.true. has_statistics = .true. and their smallest and
  ! largest element in minimum and maximum (NaNs skipped; 64-bit integers
  ! rounded to real64; 0 without statistics). CAIRN_NOT_FOUND without
  ! such an array (the arrays are then allocated with no blocks).
  subroutine cairn_array_blocks(store, name, start, count, ranks, has_statistics, minimum, maximum, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), allocatable, intent(out), optional :: start(:, :), count(:, :)
    integer, allocatable, intent(out), optional :: ranks(:)
    logical, allocatable, intent(out), optional :: has_statistics(:)
    real(real64), allocatable, intent(out), optional :: minimum(:), maximum(:)
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    integer(c_size_t) :: n
    type(c_block_info), pointer :: b(:)
    integer(c_int64_t), pointer :: v(:)
    integer :: rc, k, nd
    n = 0
    p = c_null_ptr
    if (.not. nul_in(name, "cairn_array_blocks", rc, "array name")) &
        call check(c_array_blocks(store%ptr, cstr(name), p, n), "cairn_array_blocks('" // name // "')", rc)
    nd = 0
    if (rc == CAIRN_OK .and. n > 0) then
      call c_f_pointer(p, b, [n])
      nd = b(1)%ndims
    end if
    if (present(start)) allocate(start(nd, n))
    if (present(count)) allocate(count(nd, n))
    if (present(ranks)) allocate(ranks(n))
    if (present(has_statistics)) allocate(has_statistics(n))
    if (present(minimum)) allocate(minimum(n))
    if (present(maximum)) allocate(maximum(n))
    do k = 1, int(n)
      if (present(start)) then
        call c_f_pointer(b(k)%start, v, [nd])
        start(:, k) = v(nd:1:-1)
      end if
      if (present(count)) then
        call c_f_pointer(b(k)%count, v, [nd])
        count(:, k) = v(nd:1:-1)
      end if
      if (present(ranks)) ranks(k) = b(k)%rank
      if (present(has_statistics)) has_statistics(k) = b(k)%has_statistics /= 0
      if (present(minimum)) minimum(k) = b(k)%min
      if (present(maximum)) maximum(k) = b(k)%max
    end do
    call c_free(p)
    if (rc /= CAIRN_OK) then
      call fail(rc, last_msg, ierr)
    else if (present(ierr)) then
      ierr = CAIRN_OK
    end if
  end subroutine cairn_array_blocks

  ! Local. The names of the arrays of the store's revision, in name order
  ! (padded to the longest).
  subroutine cairn_list_arrays(store, names, ierr)
    type(cairn_store), intent(in) :: store
    character(len=:), allocatable, intent(out) :: names(:)
    integer, intent(out), optional :: ierr
    type(c_ptr) :: p
    integer(c_size_t) :: n
    type(c_array_info), pointer :: a(:)
    integer :: rc
    call check(c_list_arrays(store%ptr, p, n), "cairn_list_arrays", rc)
    if (rc /= CAIRN_OK .or. n == 0) then
      allocate(character(len=0) :: names(0))
      if (rc /= CAIRN_OK) then
        call fail(rc, last_msg, ierr)
      else if (present(ierr)) then
        ierr = CAIRN_OK
      end if
      return
    end if
    call c_f_pointer(p, a, [n])
    call to_strings(a%name, a%name_len, names)
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_list_arrays

  ! Local. The names of the arrays whose tags meet every condition.
  subroutine cairn_query_arrays(store, conds, names, ierr)
    type(cairn_store), intent(in) :: store
    type(cairn_condition), intent(in) :: conds(:)
    character(len=:), allocatable, intent(out) :: names(:)
    integer, intent(out), optional :: ierr
    type(c_query), allocatable :: cq(:)
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr) :: p
    integer(c_size_t) :: n
    type(c_name), pointer :: nm(:)
    integer :: rc, k
    if (nul_in_conds(conds, "cairn_query_arrays", ierr, k)) then
      allocate(character(len=0) :: names(0))
      return
    end if
    call conds_to_c(conds, cq, buf)
    call check(c_query_arrays(store%ptr, cq, size(conds, kind=c_size_t), p, n), "cairn_query_arrays", rc)
    if (rc /= CAIRN_OK .or. n == 0) then
      allocate(character(len=0) :: names(0))
      if (rc /= CAIRN_OK) then
        call fail(rc, last_msg, ierr)
      else if (present(ierr)) then
        ierr = CAIRN_OK
      end if
      return
    end if
    call c_f_pointer(p, nm, [n])
    call to_strings(nm%name, nm%name_len, names)
    call c_free(p)
    if (present(ierr)) ierr = CAIRN_OK
  end subroutine cairn_query_arrays

  ! Local. The array is absent from the next revision.
  subroutine cairn_delete_array(store, name, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer, intent(out), optional :: ierr
    if (nul_in(name, "cairn_delete_array", ierr, "array name")) return
    call check(c_delete_array(store%ptr, cstr(name)), "cairn_delete_array('" // name // "')", ierr)
  end subroutine cairn_delete_array

  ! --- one specific procedure per kind (any rank of array: assumed rank) ---


  subroutine sw_i1(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int8), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_i1

  subroutine sr_i1(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int8), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_i1

  subroutine ps_i1(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int8), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_i1

  subroutine sra_i1(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    integer(int8), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_i1

  subroutine gs_i1(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int8), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_i1

  subroutine pa_i1_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    integer(int8), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 1_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i1_4

  subroutine ga_i1_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    integer(int8), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT8, c_int), ierr, gap_limit)
  end subroutine ga_i1_4

  subroutine pa_i1_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    integer(int8), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 1_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i1_8

  subroutine ga_i1_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    integer(int8), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT8, c_int), ierr, gap_limit)
  end subroutine ga_i1_8

  subroutine sw_i2(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int16), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_i2

  subroutine sr_i2(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int16), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_i2

  subroutine ps_i2(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int16), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_i2

  subroutine sra_i2(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    integer(int16), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_i2

  subroutine gs_i2(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int16), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_i2

  subroutine pa_i2_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    integer(int16), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 2_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i2_4

  subroutine ga_i2_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    integer(int16), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT16, c_int), ierr, gap_limit)
  end subroutine ga_i2_4

  subroutine pa_i2_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    integer(int16), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 2_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i2_8

  subroutine ga_i2_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    integer(int16), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT16, c_int), ierr, gap_limit)
  end subroutine ga_i2_8

  subroutine sw_i4(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int32), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_i4

  subroutine sr_i4(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int32), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_i4

  subroutine ps_i4(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int32), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_i4

  subroutine sra_i4(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    integer(int32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_i4

  subroutine gs_i4(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_i4

  subroutine pa_i4_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    integer(int32), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 3_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i4_4

  subroutine ga_i4_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    integer(int32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT32, c_int), ierr, gap_limit)
  end subroutine ga_i4_4

  subroutine pa_i4_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    integer(int32), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 3_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i4_8

  subroutine ga_i4_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    integer(int32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT32, c_int), ierr, gap_limit)
  end subroutine ga_i4_8

  subroutine sw_i8(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_i8

  subroutine sr_i8(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_i8

  subroutine ps_i8(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_i8

  subroutine sra_i8(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    integer(int64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_i8

  subroutine gs_i8(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    integer(int64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_i8

  subroutine pa_i8_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    integer(int64), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 4_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i8_4

  subroutine ga_i8_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    integer(int64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT64, c_int), ierr, gap_limit)
  end subroutine ga_i8_4

  subroutine pa_i8_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    integer(int64), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 4_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_i8_8

  subroutine ga_i8_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    integer(int64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_INT64, c_int), ierr, gap_limit)
  end subroutine ga_i8_8

  subroutine sw_r4(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    real(real32), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_r4

  subroutine sr_r4(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    real(real32), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_r4

  subroutine ps_r4(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real32), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_r4

  subroutine sra_r4(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    real(real32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_r4

  subroutine gs_r4(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_r4

  subroutine pa_r4_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    real(real32), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 9_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_r4_4

  subroutine ga_r4_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    real(real32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_FLOAT32, c_int), ierr, gap_limit)
  end subroutine ga_r4_4

  subroutine pa_r4_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    real(real32), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 9_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_r4_8

  subroutine ga_r4_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    real(real32), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_FLOAT32, c_int), ierr, gap_limit)
  end subroutine ga_r4_8

  subroutine sw_r8(stream, data, ierr)
    type(cairn_stream), intent(in) :: stream
    real(real64), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_write_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sw_r8

  subroutine sr_r8(stream, data, got, ierr)
    type(cairn_stream), intent(in) :: stream
    real(real64), intent(inout), target, contiguous :: data(..)
    integer(int64), intent(out), optional :: got
    integer, intent(out), optional :: ierr
    call stream_read_bytes(stream, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), got, ierr)
  end subroutine sr_r8

  subroutine ps_r8(store, key, data, ierr, tags)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real64), intent(in), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    type(cairn_tag), intent(in), optional :: tags(:)
    call put_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr, tags)
  end subroutine ps_r8

  subroutine sra_r8(stream, offset, data, ierr)
    type(cairn_stream), intent(in) :: stream
    integer(int64), intent(in) :: offset
    real(real64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call stream_read_at_bytes(stream, offset, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine sra_r8

  subroutine gs_r8(store, key, data, ierr)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: key
    real(real64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    call get_shared_bytes(store, key, c_loc(data), int(size(data), c_size_t) * (storage_size(data) / 8), ierr)
  end subroutine gs_r8

  subroutine pa_r8_4(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: global_shape(:), start(:)
    real(real64), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 10_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_r8_4

  subroutine ga_r8_4(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int32), intent(in) :: start(:)
    real(real64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_FLOAT64, c_int), ierr, gap_limit)
  end subroutine ga_r8_4

  subroutine pa_r8_8(store, name, global_shape, start, data, statistics, tags, ierr, checksum_grain)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: global_shape(:), start(:)
    real(real64), intent(in), target, contiguous :: data(..)
    logical, intent(in), optional :: statistics
    type(cairn_tag), intent(in), optional :: tags(:)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: checksum_grain
    call put_array_c(store, name, 10_c_int, int(global_shape, int64), int(start, int64), &
                     int(shape(data), int64), c_loc(data), statistics, tags, ierr, checksum_grain)
  end subroutine pa_r8_8

  subroutine ga_r8_8(store, name, start, data, ierr, gap_limit)
    type(cairn_store), intent(in) :: store
    character(*), intent(in) :: name
    integer(int64), intent(in) :: start(:)
    real(real64), intent(inout), target, contiguous :: data(..)
    integer, intent(out), optional :: ierr
    integer(int64), intent(in), optional :: gap_limit
    call get_array_c(store, name, int(start, int64), int(shape(data), int64), c_loc(data), &
                     int(size(data), c_size_t) * (storage_size(data) / 8), int(CAIRN_FLOAT64, c_int), ierr, gap_limit)
  end subroutine ga_r8_8

end module cairn
