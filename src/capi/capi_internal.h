// What the C API's translation units share: the handle types and the
// Status -> code/message conversion (the message is per thread).
#pragma once

#include <memory>

#include "cairn/cairn.h"
#include "cairn/status.h"
#include "cairn/store.h"
#include "cairn/tags.h"

struct cairn_store {
  std::unique_ptr<cairn::Store> store;
};

namespace cairn_capi {

// CAIRN_OK for ok, else records s.ToString() as the last error and returns
// the negative code.
int Code(const cairn::Status& s);
// Records "InvalidArgument: msg" and returns CAIRN_INVALID_ARGUMENT.
int Invalid(const char* msg);
// Converts C tags; false for a NULL name or an unknown type.
bool ToTags(const cairn_tag_t* tags, size_t n, cairn::TagList* out);

}  // namespace cairn_capi
