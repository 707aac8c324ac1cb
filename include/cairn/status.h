// Status: the result of every cairn operation that can fail.
//
// cairn never aborts the process and never throws across its API: a function
// that can fail returns a Status. A Status is either ok() or carries a code
// and a message that says what went wrong and where (file, rank, key).
#pragma once

#include <string>
#include <string_view>

#include "cairn/export.h"

namespace cairn {
CAIRN_API_BEGIN

class Status {
 public:
  enum class Code : int {
    kOk = 0,
    kNotFound = 1,         // the key, revision or store does not exist
    kCorruption = 2,       // a checksum, magic number or length did not match
    kInvalidArgument = 3,  // the caller asked for something not allowed
    kIOError = 4,          // the operating system refused a read or write
    kNotSupported = 5,     // e.g. a store written by a newer format version
    kAborted = 6,          // a collective call failed on another rank
  };

  // An ok status. Cheap to create and copy.
  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status InvalidArgument(std::string_view msg) { return Status(Code::kInvalidArgument, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  // An I/O error from errno: "<context>: <strerror(err)>".
  static Status FromErrno(std::string_view context, int err);
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status Aborted(std::string_view msg) { return Status(Code::kAborted, msg); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsAborted() const { return code_ == Code::kAborted; }

  Code code() const { return code_; }
  // The message without the code name; empty for an ok status.
  const std::string& message() const { return msg_; }
  // "OK", or "<Code name>: <message>".
  std::string ToString() const;

  // Prefixes the message with "<context>: " (no effect on an ok status).
  Status WithContext(std::string_view context) const;

  Status(Code code, std::string_view msg) : code_(code), msg_(msg) {}

 private:
  Code code_ = Code::kOk;
  std::string msg_;
};

CAIRN_API_END
}  // namespace cairn
