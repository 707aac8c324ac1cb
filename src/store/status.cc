#include "cairn/status.h"

#include <cstring>

namespace cairn {

Status Status::FromErrno(std::string_view context, int err) {
  std::string m(context);
  m += ": ";
  m += std::strerror(err);
  return Status(Code::kIOError, m);
}

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kInvalidArgument: name = "InvalidArgument"; break;
    case Code::kIOError: name = "IOError"; break;
    case Code::kNotSupported: name = "NotSupported"; break;
    case Code::kAborted: name = "Aborted"; break;
  }
  return std::string(name) + ": " + msg_;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + msg_);
}

}  // namespace cairn
