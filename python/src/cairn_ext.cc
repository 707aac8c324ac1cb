// _cairn: the C++ half of the Python package `cairn` (python/cairn/).
//
// It binds cairn::Store and its streams and asynchronous commits with
// nanobind. The Python half (python/cairn/_store.py) gives them their
// Pythonic form: keyword options, tag dictionaries with NumPy types,
// NumPy arrays out of get(), io.RawIOBase streams. Here:
//   - values are taken through the buffer protocol (bytes, bytearray,
//     memoryview, NumPy arrays, ...) and handed to the store as they lie in
//     memory, and values are read straight into a buffer the caller
//     provides (or into a new bytes object): no extra copy either way;
//   - every call runs with the GIL released, serialized with the other
//     calls on the same store by the store's mutex (see "Bound classes");
//   - buffers must be C-contiguous and not hold Python objects;
//   - a failed Status raises the exception of its code (cairn.NotFound, ...,
//     defined in python/cairn/_errors.py) with the library's message;
//   - tags cross as (name, type code, payload) tuples, the type codes of
//     include/cairn/tags.h, so that widths survive the trip.
#include <Python.h>
#include <mpi.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cairn/array.h"
#include "cairn/options.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "cairn/stream.h"
#include "cairn/tags.h"
#include "store/inspect.h"  // the refused forms of the collective calls (Inspector)

namespace nb = nanobind;

namespace {

// A failed cairn::Status on its way to Python.
struct StatusError {
  cairn::Status status;
};

void Check(const cairn::Status& s) {
  if (!s.ok()) throw StatusError{s};
}

[[noreturn]] void Invalid(const std::string& msg) {
  throw StatusError{cairn::Status::InvalidArgument(msg)};
}

const char* ClassOf(cairn::Status::Code c) {
  switch (c) {
    case cairn::Status::Code::kNotFound: return "NotFound";
    case cairn::Status::Code::kCorruption: return "Corruption";
    case cairn::Status::Code::kInvalidArgument: return "InvalidArgument";
    case cairn::Status::Code::kIOError: return "IOError";
    case cairn::Status::Code::kNotSupported: return "NotSupported";
    case cairn::Status::Code::kAborted: return "Aborted";
    default: return "Error";
  }
}

void Translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const StatusError& e) {
    // The classes live in cairn._errors so that they exist without the
    // extension too (and pickle by a stable name).
    nb::object mod = nb::module_::import_("cairn._errors");
    nb::object cls = mod.attr(ClassOf(e.status.code()));
    PyErr_SetString(cls.ptr(), e.status.message().c_str());
  }
}

// Whether a struct-module format string (PEP 3118) has an object item 'O'
// (field names, between colons, are skipped).
bool HoldsObjects(const char* f) {
  if (f == nullptr) return false;
  for (; *f; ++f) {
    if (*f == ':') {
      while (f[1] && f[1] != ':') ++f;
      if (f[1]) ++f;
    } else if (*f == 'O') {
      return true;
    }
  }
  return false;
}

// A C-contiguous buffer of a Python object (any contiguous one with
// `any_order`), held for the lifetime of this. Values are bytes in C order:
// a Fortran-ordered multi-dimensional buffer would be stored, or filled, in
// its memory order, which is not its index order, so it is refused.
class Buffer {
 public:
  Buffer(nb::handle obj, bool writable, bool any_order = false) {
    const int flags = (any_order ? PyBUF_ANY_CONTIGUOUS : PyBUF_C_CONTIGUOUS) | PyBUF_FORMAT |
                      (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) {
      PyErr_Clear();
      // A buffer refused only for being read-only says so: the advice
      // below (a contiguous copy) would give back the same read-only one.
      if (writable && PyObject_GetBuffer(obj.ptr(), &view_, flags & ~PyBUF_WRITABLE) == 0) {
        PyBuffer_Release(&view_);
        Invalid(std::string("a writable buffer is required, got a read-only ") + Py_TYPE(obj.ptr())->tp_name +
                " (bytes, or a NumPy array or memoryview of read-only memory: read into a writable one, "
                "e.g. bytearray(n) or numpy.empty(...))");
      }
      PyErr_Clear();
      Invalid(std::string(writable ? "a writable C-contiguous buffer is required, got "
                                   : "a C-contiguous buffer (bytes, bytearray, memoryview, "
                                     "numpy.ndarray) is required, got ") +
              Py_TYPE(obj.ptr())->tp_name +
              " (a Fortran-ordered or strided array: pass numpy.ascontiguousarray(x))");
    }
    // A buffer of Python objects (NumPy's object dtype, format 'O' anywhere
    // in it) holds pointers: storing them, or reading bytes over them, is
    // refused.
    if (HoldsObjects(view_.format)) {
      PyBuffer_Release(&view_);
      Invalid(std::string("a buffer of Python objects (object dtype) cannot be ") +
              (writable ? "read into" : "stored") + ", got " + Py_TYPE(obj.ptr())->tp_name);
    }
    held_ = true;
  }
  ~Buffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* data() const { return static_cast<char*>(view_.buf); }
  size_t size() const { return static_cast<size_t>(view_.len); }
  std::string_view view() const { return {data(), size()}; }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

// ---- Tags: (name, code, payload) <-> cairn::Tag ----

size_t ElemSize(cairn::TagType t) {
  switch (t) {
    case cairn::TagType::kInt8: case cairn::TagType::kUInt8: return 1;
    case cairn::TagType::kInt16: case cairn::TagType::kUInt16: return 2;
    case cairn::TagType::kInt32: case cairn::TagType::kUInt32: case cairn::TagType::kFloat32: return 4;
    case cairn::TagType::kInt64: case cairn::TagType::kUInt64: case cairn::TagType::kFloat64: return 8;
    default: return 0;
  }
}

std::string BytesOf(nb::handle h) {
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  Buffer b(h, false);
  return std::string(b.view());
}

cairn::TagValue ToTagValue(const std::string& name, int code, nb::handle payload) {
  if (code & cairn::kTagArrayFlag) {
    const auto elem = static_cast<cairn::TagType>(code & ~cairn::kTagArrayFlag);
    const size_t es = ElemSize(elem);
    if (es == 0) Invalid("tag '" + name + "': bad array type code " + std::to_string(code));
    const std::string bytes = BytesOf(payload);
    if (bytes.size() % es != 0) Invalid("tag '" + name + "': array payload is not whole elements");
    return cairn::TagValue::Array(elem, bytes.data(), bytes.size() / es);
  }
  const auto t = static_cast<cairn::TagType>(code);
  switch (t) {
    case cairn::TagType::kInt8: case cairn::TagType::kInt16:
    case cairn::TagType::kInt32: case cairn::TagType::kInt64:
      return cairn::TagValue::Int(nb::cast<int64_t>(payload), t);
    case cairn::TagType::kUInt8: case cairn::TagType::kUInt16:
    case cairn::TagType::kUInt32: case cairn::TagType::kUInt64:
      return cairn::TagValue::UInt(nb::cast<uint64_t>(payload), t);
    case cairn::TagType::kFloat32: return cairn::TagValue::Float32(nb::cast<float>(payload));
    case cairn::TagType::kFloat64: return cairn::TagValue::Float64(nb::cast<double>(payload));
    case cairn::TagType::kString: return cairn::TagValue::String(BytesOf(payload));
    case cairn::TagType::kBytes: return cairn::TagValue::Bytes(BytesOf(payload));
  }
  Invalid("tag '" + name + "': bad type code " + std::to_string(code));
}

cairn::TagList ToTags(nb::handle list) {
  cairn::TagList tags;
  if (list.is_none()) return tags;
  for (nb::handle item : list) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 3) Invalid("a tag must be a (name, type code, payload) tuple");
    cairn::Tag tag;
    tag.name = BytesOf(t[0]);
    tag.value = ToTagValue(tag.name, nb::cast<int>(t[1]), t[2]);
    tags.push_back(std::move(tag));
  }
  return tags;
}

nb::object FromTagValue(const cairn::TagValue& v) {
  if (v.is_array()) return nb::bytes(v.bytes().data(), v.bytes().size());
  if (v.is_signed()) return nb::int_(v.as_int());
  if (v.is_unsigned()) return nb::steal(PyLong_FromUnsignedLongLong(v.as_uint()));
  if (v.is_float()) return nb::float_(v.as_double());
  if (v.type() == cairn::TagType::kString) {
    // Strings are UTF-8 by convention; undecodable ones come back as bytes.
    PyObject* s = PyUnicode_DecodeUTF8(v.bytes().data(), v.bytes().size(), nullptr);
    if (s) return nb::steal(s);
    PyErr_Clear();
  }
  return nb::bytes(v.bytes().data(), v.bytes().size());
}

nb::object FromName(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), s.size(), "surrogateescape");
  if (!o) throw nb::python_error();
  return nb::steal(o);
}

nb::list FromTags(const cairn::TagList& tags) {
  nb::list out;
  for (const cairn::Tag& t : tags)
    out.append(nb::make_tuple(FromName(t.name), int(t.value.type_code()), FromTagValue(t.value)));
  return out;
}

// Conditions: (name, op, value tag tuple or None, upper tag tuple or None).
std::vector<cairn::TagQuery> ToQuery(nb::handle conds) {
  std::vector<cairn::TagQuery> out;
  for (nb::handle item : conds) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 4) Invalid("a query condition must be (name, op, value, upper)");
    const std::string name = BytesOf(t[0]);
    const int op = nb::cast<int>(t[1]);
    auto value = [&](nb::handle h) {
      nb::tuple v = nb::cast<nb::tuple>(h);
      return ToTagValue(name, nb::cast<int>(v[0]), v[1]);
    };
    switch (op) {
      case 0: out.push_back(cairn::TagQuery::Exists(name)); break;
      case 1: out.push_back(cairn::TagQuery::Equal(name, value(t[2]))); break;
      case 2: out.push_back(cairn::TagQuery::Range(name, value(t[2]), value(t[3]))); break;
      case 3: out.push_back(cairn::TagQuery::Prefix(name, BytesOf(t[2]))); break;
      case 4: out.push_back(cairn::TagQuery::Wildcard(name, BytesOf(t[2]))); break;
      default: Invalid("query condition on '" + name + "': bad op " + std::to_string(op));
    }
  }
  return out;
}

// ---- Global arrays ----

std::vector<uint64_t> Dims(nb::handle seq, const char* what, const std::string& name) {
  std::vector<uint64_t> out;
  for (nb::handle h : seq) {
    if (PyBool_Check(h.ptr()) || !PyLong_Check(h.ptr()))
      Invalid("array '" + name + "': " + what + " must be ints");
    const long long v = PyLong_AsLongLong(h.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      Invalid("array '" + name + "': " + what + " has a value out of range");
    }
    if (v < 0) Invalid("array '" + name + "': " + what + " has a negative value " + std::to_string(v));
    out.push_back(static_cast<uint64_t>(v));
  }
  return out;
}

std::string ShapeText(const std::vector<uint64_t>& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}

nb::tuple FromDims(const std::vector<uint64_t>& d) {
  nb::list l;
  for (uint64_t v : d) l.append(v);
  return nb::tuple(l);
}

// (name, dtype code, shape, tags, block_count, regular,
//  [(rank, start, count, has_statistics, min, max)]); min and max are None
// without statistics.
nb::tuple FromArrayInfo(const cairn::ArrayInfo& a) {
  nb::list blocks;
  for (const cairn::ArrayBlock& b : a.blocks) {
    nb::object lo = nb::none(), hi = nb::none();
    if (b.has_statistics) {
      lo = nb::float_(b.min);
      hi = nb::float_(b.max);
    }
    blocks.append(nb::make_tuple(b.rank, FromDims(b.start), FromDims(b.count), b.has_statistics, lo, hi));
  }
  return nb::make_tuple(FromName(a.name), int(a.dtype), FromDims(a.shape), FromTags(a.tags),
                        a.block_count, a.regular, blocks);
}

// ---- Options ----

void SetOption(cairn::Options* o, const std::string& k, nb::handle v) {
  auto repr = [&] { return nb::cast<std::string>(nb::repr(v)); };
  auto u64 = [&](uint64_t* f) {
    if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr()))
      Invalid("option " + k + " must be an int, got " + repr());
    if (!nb::try_cast<uint64_t>(v, *f))
      Invalid("option " + k + " must be an int from 0 to 2**64-1, got " + repr());
  };
  auto flag = [&](bool* f) {
    if (!PyBool_Check(v.ptr())) Invalid("option " + k + " must be True or False");
    *f = nb::cast<bool>(v);
  };
  uint64_t tmp = 0;
  if (k == "create_if_missing") flag(&o->create_if_missing);
  else if (k == "error_if_exists") flag(&o->error_if_exists);
  else if (k == "sync") flag(&o->sync);
  else if (k == "require_writer_lock") flag(&o->require_writer_lock);
  else if (k == "extent_size") u64(&o->extent_size);
  else if (k == "chunk_size") u64(&o->chunk_size);
  else if (k == "staging_bytes") u64(&o->staging_bytes);
  else if (k == "keep_revisions") u64(&o->keep_revisions);
  else if (k == "writeback_bytes") u64(&o->writeback_bytes);
  else if (k == "write_buffer_size") { u64(&tmp); o->write_buffer_size = tmp; }
  else if (k == "inline_value_limit") { u64(&tmp); o->inline_value_limit = tmp; }
  else if (k == "compact_index_limit") { u64(&tmp); o->compact_index_limit = tmp; }
  else if (k == "subfiles") {
    if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr()) || !nb::try_cast<int>(v, o->subfiles))
      Invalid("option subfiles must be an int (of C int range), got " + repr());
  } else if (k == "collective_timeout_s") {
    if (PyBool_Check(v.ptr()) || !(PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())) ||
        !nb::try_cast<double>(v, o->collective_timeout_s))
      Invalid("option collective_timeout_s must be a number of seconds, got " + repr());
  } else {
    Invalid("unknown option '" + k + "'");
  }
}

// "int 5", "mpi4py.MPI.Group <mpi4py.MPI.Group object at 0x...>": the
// type (with its module unless a builtin) and the repr (cut at 100
// characters) of a value given where another kind was expected.
std::string TypeAndRepr(nb::handle v) {
  nb::handle t = nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(v.ptr())));
  std::string type = nb::cast<std::string>(nb::str(t.attr("__qualname__")));
  std::string module = nb::hasattr(t, "__module__") ? nb::cast<std::string>(nb::str(t.attr("__module__"))) : "";
  if (!module.empty() && module != "builtins") type = module + "." + type;
  std::string repr = nb::cast<std::string>(nb::repr(v));
  if (repr.size() > 100) repr = repr.substr(0, 97) + "...";
  return type + " " + repr;
}

// The MPI_Comm of an mpi4py communicator, through mpi4py's own
// PyMPIComm_Get, which its module exports as a capsule in __pyx_capi__
// (mpi4py 3 and 4 alike). The extension is built without mpi4py's C header:
// a header from another mpi4py than the one imported at run time (pip's
// isolated build fetched mpi4py 4 for a user with Debian's 3.1) made every
// import of the C API fail. Without the capsule, the Fortran handle is as
// good (comm.py2f()). Anything but an mpi4py.MPI.Comm (an instance of it or
// of a subclass, such as MPI.COMM_WORLD, an Intracomm) is a TypeError
// saying what was expected (that, or None for a single process) and what
// was given: mpi4py's own ("Cannot convert int to mpi4py.MPI.Comm") named
// neither None nor the value, and an object with a py2f would have been
// taken for one.
MPI_Comm CommOf(nb::handle comm) {
  using GetFn = MPI_Comm* (*)(PyObject*);
  // Looked up once, with the GIL held (no C++ static-init guard around an
  // import). The capsule's name is the function's C signature: another one
  // (a future mpi4py) is not called; the Fortran handle serves instead.
  static GetFn get = nullptr;
  static bool looked = false;
  static PyObject* comm_type = nullptr;  // mpi4py.MPI.Comm, kept for good
  if (!looked) {
    nb::object mpi = nb::module_::import_("mpi4py.MPI");
    comm_type = nb::object(mpi.attr("Comm")).release().ptr();
    if (nb::hasattr(mpi, "__pyx_capi__")) {
      PyObject* cap = PyDict_GetItemString(mpi.attr("__pyx_capi__").ptr(), "PyMPIComm_Get");
      const char* sig = cap && PyCapsule_CheckExact(cap) ? PyCapsule_GetName(cap) : nullptr;
      if (sig && std::strcmp(sig, "MPI_Comm *(PyObject *)") == 0) {
        get = reinterpret_cast<GetFn>(PyCapsule_GetPointer(cap, sig));
        if (get == nullptr) throw nb::python_error();
      }
    }
    looked = true;
  }
  int is_comm = PyObject_IsInstance(comm.ptr(), comm_type);
  if (is_comm < 0) throw nb::python_error();
  if (is_comm == 0)
    throw nb::type_error(("cairn.Store: comm must be an mpi4py communicator (mpi4py.MPI.Comm, such as "
                          "MPI.COMM_WORLD), or None for a single process; got " +
                          TypeAndRepr(comm))
                             .c_str());
  if (get != nullptr) {
    MPI_Comm* c = get(comm.ptr());
    if (c == nullptr) throw nb::python_error();
    return *c;
  }
  nb::object f = comm.attr("py2f")();
  return MPI_Comm_f2c(static_cast<MPI_Fint>(nb::cast<long>(f)));
}

// ---- Bound classes ----
//
// One Store may be used from several Python threads: every call releases
// the GIL while the library works, so two calls could otherwise run inside
// one cairn::Store at once (it is not thread-safe: that crashed). Every
// call that touches the C++ store, or a stream or an asynchronous commit
// of it (they reach into the store), is serialized by one mutex per store,
// shared by all of them. The mutex is taken after the GIL is released and
// given back before the GIL is taken again, so that no thread ever waits
// for one while holding the other (a thread waiting for the mutex with the
// GIL held would deadlock against the one in the store that wants the GIL
// back).

// What a store and its streams and commit handles share.
struct Shared {
  std::mutex mu;
  std::unique_ptr<cairn::Store> store;  // null once closed
};

// f() with the GIL released and the mutex held.
template <class F>
auto Serialized(std::mutex& mu, F&& f) -> decltype(f()) {
  nb::gil_scoped_release r;
  std::lock_guard<std::mutex> l(mu);
  return f();
}

cairn::Status Closed() { return cairn::Status::InvalidArgument("the store is closed"); }

class PyWriter {
 public:
  PyWriter(std::shared_ptr<Shared> sh, std::unique_ptr<cairn::StreamWriter> w)
      : sh_(std::move(sh)), w_(std::move(w)) {}
  ~PyWriter() {
    if (w_) Serialized(sh_->mu, [&] { w_.reset(); });
  }
  PyWriter(PyWriter&&) = default;
  size_t write(nb::handle data) {
    Buffer b(data, false);
    Check(Serialized(sh_->mu, [&] { return w_->Write(b.data(), b.size()); }));
    return b.size();
  }
  void seek(uint64_t pos) { Check(Serialized(sh_->mu, [&] { return w_->Seek(pos); })); }
  uint64_t tell() const { return Serialized(sh_->mu, [&] { return w_->Tell(); }); }
  uint64_t size() const { return Serialized(sh_->mu, [&] { return w_->Size(); }); }
  void flush() { Check(Serialized(sh_->mu, [&] { return w_->Flush(); })); }
  void close() { Check(Serialized(sh_->mu, [&] { return w_->Close(); })); }

 private:
  std::shared_ptr<Shared> sh_;
  std::unique_ptr<cairn::StreamWriter> w_;
};

class PyReader {
 public:
  PyReader(std::shared_ptr<Shared> sh, std::unique_ptr<cairn::StreamReader> r)
      : sh_(std::move(sh)), r_(std::move(r)) {}
  ~PyReader() {
    if (r_) Serialized(sh_->mu, [&] { r_.reset(); });
  }
  PyReader(PyReader&&) = default;
  size_t readinto(nb::handle out) {
    Buffer b(out, true);
    size_t got = 0;
    Check(Serialized(sh_->mu, [&] { return r_->Read(b.data(), b.size(), &got); }));
    return got;
  }
  void seek(uint64_t pos) { Check(Serialized(sh_->mu, [&] { return r_->Seek(pos); })); }
  uint64_t tell() const { return Serialized(sh_->mu, [&] { return r_->Tell(); }); }
  uint64_t size() const { return Serialized(sh_->mu, [&] { return r_->Size(); }); }

 private:
  std::shared_ptr<Shared> sh_;
  std::unique_ptr<cairn::StreamReader> r_;
};

class PyAsync {
 public:
  PyAsync(std::shared_ptr<Shared> sh, cairn::AsyncCommit h) : sh_(std::move(sh)), h_(std::move(h)) {}
  ~PyAsync() {
    if (sh_) Serialized(sh_->mu, [&] { h_ = cairn::AsyncCommit(); });
  }
  PyAsync(PyAsync&&) = default;
  bool test() { return Serialized(sh_->mu, [&] { return h_.Test(); }); }
  uint64_t wait() {
    uint64_t rev = 0;
    Check(Serialized(sh_->mu, [&] { return h_.Wait(&rev); }));
    return rev;
  }
  uint64_t revision() const { return Serialized(sh_->mu, [&] { return h_.revision(); }); }
  bool committed() const { return Serialized(sh_->mu, [&] { return h_.committed(); }); }

 private:
  std::shared_ptr<Shared> sh_;
  cairn::AsyncCommit h_;
};

cairn::ReadOptions RO(int rank) {
  cairn::ReadOptions ro;
  ro.rank = rank;
  return ro;
}

// Store::RefuseOpen over an mpi4py communicator, the GIL released. A
// `comm` that is not one has no collective to take part in: nothing is
// done (the caller raises its own error).
void RefuseOpen(const std::string& path, nb::handle comm, const cairn::Status& why, double timeout_s) {
  MPI_Comm c;
  try {
    c = CommOf(comm);
  } catch (const std::exception&) {
    PyErr_Clear();
    return;
  }
  nb::gil_scoped_release r;
  cairn::Store::RefuseOpen(path, c, why, timeout_s);
}

class PyStore {
 public:
  PyStore(const std::string& path, nb::handle comm, bool read_only, uint64_t revision,
          nb::dict options)
      : sh_(std::make_shared<Shared>()) {
    cairn::Options o;
    o.read_only = read_only;
    o.revision = revision;
    try {
      for (auto [k, v] : options) SetOption(&o, nb::cast<std::string>(k), v);
    } catch (const StatusError& e) {
      // The open is collective: a rank whose options are refused still
      // takes part, carrying its refusal (every rank then fails naming this
      // rank and its cause, none waits for it), and raises its own error.
      if (!comm.is_none()) RefuseOpen(path, comm, e.status, o.collective_timeout_s);
      throw;
    } catch (nb::python_error& e) {
      // The same for an option whose conversion raised in Python (a value
      // whose repr() or __index__ raises).
      if (!comm.is_none()) RefuseOpen(path, comm, cairn::Status::InvalidArgument(e.what()), o.collective_timeout_s);
      throw;
    }
    cairn::Status s;
    if (comm.is_none()) {
      nb::gil_scoped_release r;
      s = cairn::Store::Open(o, path, &sh_->store);
    } else {
      MPI_Comm c = CommOf(comm);
      nb::gil_scoped_release r;
      s = cairn::Store::Open(o, path, c, &sh_->store);
    }
    Check(s);
  }
  ~PyStore() {
    // A stream or commit handle may still be at work in another thread.
    if (sh_) Serialized(sh_->mu, [&] { sh_->store.reset(); });
  }
  PyStore(const PyStore&) = delete;
  PyStore& operator=(const PyStore&) = delete;

  // Runs f(store) -> Status serialized (see above); a closed store is
  // InvalidArgument. f must not touch Python objects.
  template <class F>
  void Run(F&& f) {
    Check(Serialized(sh_->mu, [&] { return sh_->store ? f(sh_->store.get()) : Closed(); }));
  }
  // The same for the accessors that return a value, not a Status.
  template <class T, class F>
  T Get(F&& f) {
    T out{};
    Run([&](cairn::Store* s) {
      out = f(s);
      return cairn::Status::OK();
    });
    return out;
  }

  // Waits for the calls of other threads (and a commit in flight), then
  // closes; later calls raise InvalidArgument.
  void close() {
    Check(Serialized(sh_->mu, [&] {
      if (!sh_->store) return cairn::Status::OK();
      cairn::Status s = sh_->store->Close();
      sh_->store.reset();
      return s;
    }));
  }
  bool closed() const { return Serialized(sh_->mu, [&] { return !sh_->store; }); }

  void put(const std::string& key, nb::handle value, nb::handle tags) {
    cairn::TagList tl = ToTags(tags);
    Buffer b(value, false);
    Run([&](cairn::Store* s) { return s->Put(key, b.view(), tl); });
  }

  void put_shared(const std::string& key, nb::handle value, nb::handle tags) {
    cairn::TagList tl = ToTags(tags);
    Buffer b(value, false);
    Run([&](cairn::Store* s) { return s->PutShared(key, b.view(), tl); });
  }

  uint64_t size_of(const std::string& key, int rank) {
    uint64_t n = 0;
    Run([&](cairn::Store* s) { return s->GetSize(key, &n, RO(rank)); });
    return n;
  }

  // Reads the whole value into `out`, whose size must be the value's.
  void read_into(const std::string& key, nb::handle out, int rank) {
    Buffer b(out, true);
    Run([&](cairn::Store* s) {
      uint64_t n = 0;
      cairn::Status status = s->GetSize(key, &n, RO(rank));
      if (status.ok() && n != b.size())
        status = cairn::Status::InvalidArgument(
            "get('" + key + "'): the value has " + std::to_string(n) + " bytes, the buffer " +
            std::to_string(b.size()));
      if (status.ok() && n > 0) status = s->GetRange(key, 0, b.data(), n, RO(rank));
      return status;
    });
  }

  // Reads the whole values of `keys` into `outs` (outs[i] exactly the size
  // of value i) with one Store::MultiGet: the reads of all values are planned
  // together (merged, in file order) and land straight in the buffers. Every
  // key and size is checked before anything is read, so a missing key
  // (NotFound) or a buffer of the wrong size (InvalidArgument) leaves every
  // buffer untouched; a read that fails later (IOError, Corruption) raises,
  // and the value it failed on is zeroed, never left as damaged data.
  void read_many_into(const std::vector<std::string>& keys, nb::handle outs, int rank) {
    const size_t n = keys.size();
    if (static_cast<size_t>(nb::len(outs)) != n)
      Invalid("get_many: " + std::to_string(n) + " keys but " +
              std::to_string(nb::len(outs)) + " outs");
    std::vector<std::unique_ptr<Buffer>> held;
    held.reserve(n);
    std::vector<cairn::Store::ValueBuffer> bufs(n);
    size_t i = 0;
    for (nb::handle o : outs) {
      held.push_back(std::make_unique<Buffer>(o, true));
      bufs[i].data = held.back()->data();
      bufs[i].capacity = held.back()->size();
      ++i;
    }
    Run([&](cairn::Store* s) {
      const cairn::ReadOptions ro = RO(rank);
      cairn::Status status;
      for (size_t k = 0; k < n && status.ok(); ++k) {
        uint64_t size = 0;
        status = s->GetSize(keys[k], &size, ro);
        if (status.ok() && size != bufs[k].capacity)
          status = cairn::Status::InvalidArgument(
              "get_many('" + keys[k] + "'): the value has " + std::to_string(size) +
              " bytes, its out buffer " + std::to_string(bufs[k].capacity));
      }
      if (status.ok() && n > 0) {
        std::vector<cairn::Status> statuses;
        status = s->MultiGet(keys, &bufs, &statuses, ro);
      }
      return status;
    });
  }

  void read_range(const std::string& key, uint64_t offset, nb::handle out, int rank) {
    Buffer b(out, true);
    Run([&](cairn::Store* s) {
      return b.size() > 0 ? s->GetRange(key, offset, b.data(), b.size(), RO(rank))
                          : cairn::Status::OK();
    });
  }

  // The value as a new bytes object, read straight into it. The size is
  // asked first (the bytes object is made with the GIL held); if another
  // thread replaced the value in between, the read is made again.
  nb::object get_bytes(const std::string& key, int rank) {
    uint64_t n = size_of(key, rank);
    for (;;) {
      PyObject* obj = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n));
      if (!obj) throw nb::python_error();
      nb::object result = nb::steal(obj);
      char* dst = PyBytes_AS_STRING(obj);
      uint64_t now = 0;
      Run([&](cairn::Store* s) {
        cairn::Status status = s->GetSize(key, &now, RO(rank));
        if (status.ok() && now == n && n > 0) status = s->GetRange(key, 0, dst, n, RO(rank));
        return status;
      });
      if (now == n) return result;
      n = now;
    }
  }

  nb::object get_shared(const std::string& key) {
    std::string v;
    Run([&](cairn::Store* s) { return s->GetShared(key, &v); });
    return nb::bytes(v.data(), v.size());
  }

  nb::list tags(const std::string& key, int rank) {
    cairn::TagList tl;
    Run([&](cairn::Store* s) { return s->GetTags(key, &tl, RO(rank)); });
    return FromTags(tl);
  }

  void set_tags(const std::string& key, nb::handle tags) {
    cairn::TagList tl = ToTags(tags);
    Run([&](cairn::Store* s) { return s->SetTags(key, tl); });
  }
  void set_tag(const std::string& key, nb::handle tag) {
    cairn::TagList tl = ToTags(nb::make_tuple(tag));
    Run([&](cairn::Store* s) { return s->SetTag(key, tl[0]); });
  }
  void delete_tag(const std::string& key, const std::string& name) {
    Run([&](cairn::Store* s) { return s->DeleteTag(key, name); });
  }
  void remove(const std::string& key) {
    Run([&](cairn::Store* s) { return s->Delete(key); });
  }

  // [(key, size, tags)] of a namespace, in key order.
  nb::list list(int rank) {
    std::vector<cairn::ObjectInfo> objs;
    Run([&](cairn::Store* s) { return s->List(&objs, RO(rank)); });
    nb::list out;
    for (const auto& o : objs) out.append(nb::make_tuple(FromName(o.key), o.size, FromTags(o.tags)));
    return out;
  }

  nb::list keys(int rank) {
    std::vector<cairn::ObjectInfo> objs;
    Run([&](cairn::Store* s) { return s->List(&objs, RO(rank)); });
    nb::list out;
    for (const auto& o : objs) out.append(FromName(o.key));
    return out;
  }

  nb::list query(nb::handle conds, int rank) {
    std::vector<cairn::TagQuery> q = ToQuery(conds);
    std::vector<std::string> keys;
    Run([&](cairn::Store* s) { return s->Query(q, &keys, RO(rank)); });
    nb::list out;
    for (const auto& k : keys) out.append(FromName(k));
    return out;
  }

  nb::list query_all(nb::handle conds) {
    std::vector<cairn::TagQuery> q;
    try {
      q = ToQuery(conds);
    } catch (const StatusError& e) {
      query_all_refused(e.status.message());  // raises "rank R: " + the cause
    }
    std::vector<cairn::QueryHit> hits;
    Run([&](cairn::Store* s) { return s->QueryAll(q, &hits); });
    nb::list out;
    for (const auto& h : hits) out.append(nb::make_tuple(h.rank, FromName(h.key)));
    return out;
  }

  uint64_t commit() {
    uint64_t rev = 0;
    Run([&](cairn::Store* s) { return s->Commit(&rev); });
    return rev;
  }

  PyAsync commit_async() {
    cairn::AsyncCommit h;
    Run([&](cairn::Store* s) { return s->CommitAsync(&h); });
    return PyAsync(sh_, std::move(h));
  }

  void flush() {
    Run([&](cairn::Store* s) { return s->Flush(); });
  }

  // [(revision, parent, time_ns, ranks, objects, value_bytes, index_bytes, pinned)]
  nb::list revisions() {
    std::vector<cairn::RevisionInfo> revs;
    Run([&](cairn::Store* s) { return s->ListRevisions(&revs); });
    nb::list out;
    for (const auto& r : revs)
      out.append(nb::make_tuple(r.revision, r.parent, r.time_ns, r.ranks, r.objects, r.value_bytes,
                                r.index_bytes, r.pinned));
    return out;
  }

  template <cairn::Status (cairn::Store::*F)(uint64_t)>
  void collective(uint64_t rev) {
    Run([&](cairn::Store* s) { return (s->*F)(rev); });
  }

  // The collective calls for a rank whose argument was refused before them
  // (by the Python layer, or by ToQuery): it takes part, carrying `why`, and
  // every rank raises InvalidArgument "rank R: " + the lowest such rank's
  // cause, so none waits for it.
  void query_all_refused(const std::string& why) {
    std::vector<cairn::QueryHit> hits;
    Run([&](cairn::Store* s) {
      return cairn::Inspector::QueryAllRefused(s, cairn::Status::InvalidArgument(why), &hits);
    });
  }
  // kind: "pin", "unpin" or "drop".
  void mark_refused(const std::string& kind, const std::string& why) {
    cairn::RecordType t = kind == "pin"     ? cairn::RecordType::kPin
                          : kind == "unpin" ? cairn::RecordType::kUnpin
                                            : cairn::RecordType::kDrop;
    Run([&](cairn::Store* s) {
      return cairn::Inspector::MarkRevisionRefused(s, t, cairn::Status::InvalidArgument(why));
    });
  }

  PyWriter open_write(const std::string& key, nb::handle tags) {
    cairn::TagList tl = ToTags(tags);
    std::unique_ptr<cairn::StreamWriter> w;
    Run([&](cairn::Store* s) { return s->OpenWriteStream(key, tl, &w); });
    return PyWriter(sh_, std::move(w));
  }
  PyReader open_read(const std::string& key, int rank) {
    std::unique_ptr<cairn::StreamReader> rd;
    Run([&](cairn::Store* s) { return s->OpenReadStream(key, &rd, RO(rank)); });
    return PyReader(sh_, std::move(rd));
  }

  nb::dict stats() {
    const cairn::IoStats io = Get<cairn::IoStats>([](cairn::Store* s) { return s->stats(); });
    nb::dict d;
    d["read_requests"] = io.read_requests;
    d["read_bytes"] = io.read_bytes;
    d["write_requests"] = io.write_requests;
    d["write_bytes"] = io.write_bytes;
    d["opens"] = io.opens;
    d["creates"] = io.creates;
    d["mkdirs"] = io.mkdirs;
    d["stats"] = io.stats;
    d["fsyncs"] = io.fsyncs;
    d["renames"] = io.renames;
    d["unlinks"] = io.unlinks;
    d["truncates"] = io.truncates;
    d["staging_stalls"] = io.staging_stalls;
    d["staging_stall_ns"] = io.staging_stall_ns;
    d["index_bytes_gathered"] = io.index_bytes_gathered;
    d["index_tables_reused"] = io.index_tables_reused;
    d["index_tables_streamed"] = io.index_tables_streamed;
    d["writeback_requests"] = io.writeback_requests;
    d["direct_read_bytes"] = io.direct_read_bytes;
    d["metadata_ops"] = io.metadata_ops();
    return d;
  }

  // One block of array `name` from `data`'s own memory (no copy here: the
  // buffer is held, and the GIL released, while the library writes it).
  void put_array(const std::string& name, nb::handle data, int dtype, nb::handle global_shape,
                 nb::handle start, nb::handle count, bool column_major, nb::handle tags,
                 bool statistics, nb::handle checksum_grain) {
    const auto dt = static_cast<cairn::DType>(dtype);
    const size_t es = cairn::DTypeSize(dt);
    if (es == 0) Invalid("array '" + name + "': bad dtype code " + std::to_string(dtype));
    const std::vector<uint64_t> shape = Dims(global_shape, "global_shape", name);
    const std::vector<uint64_t> st0 = Dims(start, "start", name);
    const std::vector<uint64_t> cnt = Dims(count, "count", name);
    cairn::ArrayPutOptions o;
    o.order = column_major ? cairn::ArrayOrder::kColumnMajor : cairn::ArrayOrder::kRowMajor;
    o.tags = ToTags(tags);
    o.statistics = statistics;
    if (!checksum_grain.is_none()) {  // None: ArrayPutOptions' default; PutArray checks the value
      uint64_t g = 0;
      if (!nb::try_cast<uint64_t>(checksum_grain, g))
        Invalid("array '" + name + "': checksum_grain must be a non-negative int, got " +
                nb::cast<std::string>(nb::repr(checksum_grain)));
      o.checksum_grain = g;
    }
    Buffer b(data, false, column_major);
    uint64_t n = es;
    for (uint64_t c : cnt) n *= c;
    if (n != b.size())
      Invalid("array '" + name + "': the block has " + std::to_string(b.size()) + " bytes, count " +
              "needs " + std::to_string(n));
    Run([&](cairn::Store* s) {
      return s->PutArray(name, dt, shape, st0, cnt, b.size() ? b.data() : nullptr, o);
    });
  }

  // Reads the box (start, count) of array `name` into `out` (a writable
  // contiguous buffer of exactly the box's bytes), with the GIL released.
  // `dtype` and `shape` are what the caller's handle knows of the array: if
  // the array is no longer that (put again, with another dtype or shape,
  // and committed), nothing is read and InvalidArgument says so.
  void get_array(const std::string& name, nb::handle start, nb::handle count, nb::handle out,
                 int dtype, nb::handle shape) {
    const auto dt = static_cast<cairn::DType>(dtype);
    const size_t es = cairn::DTypeSize(dt);
    if (es == 0) Invalid("array '" + name + "': bad dtype code " + std::to_string(dtype));
    const std::vector<uint64_t> sh = Dims(shape, "shape", name);
    const std::vector<uint64_t> st0 = Dims(start, "start", name);
    const std::vector<uint64_t> cnt = Dims(count, "count", name);
    Buffer b(out, true);
    uint64_t n = es;
    for (uint64_t c : cnt) n *= c;
    if (n != b.size())
      Invalid("array '" + name + "': the output buffer has " + std::to_string(b.size()) +
              " bytes, the box " + std::to_string(n));
    Run([&](cairn::Store* s) {
      cairn::ArrayInfo info;
      cairn::Status status = s->GetArrayInfo(name, &info, false);
      if (!status.ok()) return status;
      if (info.dtype != dt || info.shape != sh)
        return cairn::Status::InvalidArgument(
            "array '" + name + "' changed since this cairn.Array was made (it was " +
            cairn::DTypeName(dt) + " of shape " + ShapeText(sh) + ", it is now " +
            cairn::DTypeName(info.dtype) + " of shape " + ShapeText(info.shape) +
            "): get a new handle with Store.array('" + name + "')");
      return s->GetArray(name, st0, cnt, b.data());
    });
  }

  nb::tuple array_info(const std::string& name, bool with_blocks) {
    cairn::ArrayInfo info;
    Run([&](cairn::Store* s) { return s->GetArrayInfo(name, &info, with_blocks); });
    return FromArrayInfo(info);
  }

  nb::list list_arrays() {
    std::vector<cairn::ArrayInfo> arrays;
    Run([&](cairn::Store* s) { return s->ListArrays(&arrays); });
    nb::list out;
    for (const auto& a : arrays) out.append(FromArrayInfo(a));
    return out;
  }

  nb::list query_arrays(nb::handle conds) {
    std::vector<cairn::TagQuery> q = ToQuery(conds);
    std::vector<std::string> names;
    Run([&](cairn::Store* s) { return s->QueryArrays(q, &names); });
    nb::list out;
    for (const auto& n : names) out.append(FromName(n));
    return out;
  }

  void delete_array(const std::string& name) {
    Run([&](cairn::Store* s) { return s->DeleteArray(name); });
  }
  int writer_ranks() { return Get<int>([](cairn::Store* s) { return s->writer_ranks(); }); }
  int rank() { return Get<int>([](cairn::Store* s) { return s->rank(); }); }
  int size() { return Get<int>([](cairn::Store* s) { return s->size(); }); }
  uint64_t revision() { return Get<uint64_t>([](cairn::Store* s) { return s->revision(); }); }

 private:
  std::shared_ptr<Shared> sh_;
};

}  // namespace

NB_MODULE(_cairn, m) {
  m.doc() = "The compiled core of the cairn package (use the `cairn` module).";
  nb::register_exception_translator(Translate);
  // A rank whose arguments Python refused takes part in the others' open.
  m.def("refuse_open", [](const std::string& path, nb::handle comm, const std::string& why, double timeout_s) {
    RefuseOpen(path, comm, cairn::Status::InvalidArgument(why), timeout_s);
  });
  m.def("mpi_initialized", [] {
    int f = 0;
    MPI_Initialized(&f);
    return f != 0;
  });

  nb::class_<PyWriter>(m, "StreamWriter")
      .def("write", &PyWriter::write)
      .def("seek", &PyWriter::seek)
      .def("tell", &PyWriter::tell)
      .def("size", &PyWriter::size)
      .def("flush", &PyWriter::flush)
      .def("close", &PyWriter::close);
  nb::class_<PyReader>(m, "StreamReader")
      .def("readinto", &PyReader::readinto)
      .def("seek", &PyReader::seek)
      .def("tell", &PyReader::tell)
      .def("size", &PyReader::size);
  nb::class_<PyAsync>(m, "AsyncCommit")
      .def("test", &PyAsync::test)
      .def("wait", &PyAsync::wait)
      .def_prop_ro("revision", &PyAsync::revision)
      .def_prop_ro("committed", &PyAsync::committed);

  nb::class_<PyStore>(m, "Store")
      .def(nb::init<const std::string&, nb::handle, bool, uint64_t, nb::dict>(), nb::arg("path"),
           nb::arg("comm").none(), nb::arg("read_only"), nb::arg("revision"), nb::arg("options"))
      .def("close", &PyStore::close)
      .def_prop_ro("closed", &PyStore::closed)
      .def("put", &PyStore::put, nb::arg("key"), nb::arg("value"), nb::arg("tags").none())
      .def("put_shared", &PyStore::put_shared, nb::arg("key"), nb::arg("value"), nb::arg("tags").none())
      .def("size_of", &PyStore::size_of)
      .def("read_into", &PyStore::read_into)
      .def("read_many_into", &PyStore::read_many_into)
      .def("read_range", &PyStore::read_range)
      .def("get_bytes", &PyStore::get_bytes)
      .def("get_shared", &PyStore::get_shared)
      .def("tags", &PyStore::tags)
      .def("set_tags", &PyStore::set_tags)
      .def("set_tag", &PyStore::set_tag)
      .def("delete_tag", &PyStore::delete_tag)
      .def("delete", &PyStore::remove)
      .def("list", &PyStore::list)
      .def("keys", &PyStore::keys)
      .def("query", &PyStore::query)
      .def("query_all", &PyStore::query_all)
      .def("commit", &PyStore::commit)
      .def("commit_async", &PyStore::commit_async)
      .def("flush", &PyStore::flush)
      .def("revisions", &PyStore::revisions)
      .def("query_all_refused", &PyStore::query_all_refused)
      .def("mark_refused", &PyStore::mark_refused)
      .def("pin", &PyStore::collective<&cairn::Store::Pin>)
      .def("unpin", &PyStore::collective<&cairn::Store::Unpin>)
      .def("drop", &PyStore::collective<&cairn::Store::Drop>)
      .def("open_write", &PyStore::open_write)
      .def("open_read", &PyStore::open_read)
      .def("stats", &PyStore::stats)
      .def("put_array", &PyStore::put_array, nb::arg("name"), nb::arg("data"), nb::arg("dtype"),
           nb::arg("global_shape"), nb::arg("start"), nb::arg("count"), nb::arg("column_major"),
           nb::arg("tags").none(), nb::arg("statistics"), nb::arg("checksum_grain").none())
      .def("get_array", &PyStore::get_array)
      .def("array_info", &PyStore::array_info)
      .def("list_arrays", &PyStore::list_arrays)
      .def("query_arrays", &PyStore::query_arrays)
      .def("delete_array", &PyStore::delete_array)
      .def_prop_ro("writer_ranks", &PyStore::writer_ranks)
      .def_prop_ro("rank", &PyStore::rank)
      .def_prop_ro("size", &PyStore::size)
      .def_prop_ro("revision", &PyStore::revision);
}
