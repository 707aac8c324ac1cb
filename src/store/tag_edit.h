// SetTag and DeleteTag of one tag, edited into the encoded entry: the tag
// list is scanned once in place (or not at all, for a tag the entry's
// tag-id set says it lacks) and the entry re-encoded once, with no tag
// list built (the old way decoded every tag into a TagList, then encoded
// them all again, for every call).
#pragma once

#include <string_view>

#include "cairn/status.h"
#include "cairn/tags.h"
#include "store/namespace_state.h"

namespace cairn {

// Sets tag `name` of `key` in `ns` to *value (replacing it in place, or
// appending it), or removes it when value is null (NotFound if the object
// has no such tag). NotFound if the key does not exist.
Status EditTag(NamespaceState* ns, std::string_view key, std::string_view name, const TagValue* value);

}  // namespace cairn
