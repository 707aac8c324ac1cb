// Agreeing QueryAll's conditions: see query_agree.h.
#include "store/query_agree.h"

#include "cairn/array.h"
#include "format/coding.h"
#include "format/tag_codec.h"
#include "store/key_text.h"

namespace cairn {
namespace {

const char* OpName(TagQuery::Op op) {
  switch (op) {
    case TagQuery::Op::kExists: return "exists";
    case TagQuery::Op::kEqual: return "==";
    case TagQuery::Op::kRange: return "in";
    case TagQuery::Op::kPrefix: return "prefix";
    case TagQuery::Op::kWildcard: return "matches";
  }
  return "?";
}

// Exact bytes of the conditions: names, ops, value types and payloads.
std::string Encode(const std::vector<TagQuery>& all_of) {
  std::string out;
  for (const TagQuery& q : all_of) {
    PutLengthPrefixed(&out, q.name);
    out.push_back(char(q.op));
    for (const TagValue* v : {&q.value, &q.upper}) {
      std::string payload;
      out.push_back(char(v->type_code()));
      EncodeTagPayload(*v, &payload);
      PutLengthPrefixed(&out, payload);
    }
  }
  return out;
}

// "int64", "float64[]", "string", ... of a tag value.
std::string TypeName(const TagValue& v) {
  const uint8_t c = uint8_t(v.type_code() & ~kTagArrayFlag);
  std::string n = c == uint8_t(TagType::kString) ? "string"
                  : c == uint8_t(TagType::kBytes) ? "bytes"
                                                  : DTypeName(DType(c));
  return v.is_array() ? n + "[]" : n;
}

// The conditions as a person reads them; `typed` puts each value's type
// before it (for conditions that read the same but differ in type, as
// int64 42 and float64 42).
std::string Text(const std::vector<TagQuery>& all_of, bool typed = false) {
  if (all_of.empty()) return "(no conditions)";
  auto value = [&](const TagValue& v) { return (typed ? TypeName(v) + " " : std::string()) + v.ToString(); };
  std::string out;
  for (const TagQuery& q : all_of) {
    if (!out.empty()) out += " and ";
    out += "'" + KeyText(q.name) + "' " + OpName(q.op);
    if (q.op != TagQuery::Op::kExists) out += " " + value(q.value);
    if (q.op == TagQuery::Op::kRange) out += ".." + value(q.upper);
  }
  return out;
}

}  // namespace

Status CheckConditionsMatchRank0(Comm* comm, const std::vector<TagQuery>& all_of) {
  if (comm->size() == 1) return Status::OK();
  std::string mine = Encode(all_of);
  std::string bytes;  // rank 0's encoding, then its text, plain and typed
  if (comm->rank() == 0) {
    PutLengthPrefixed(&bytes, mine);
    PutLengthPrefixed(&bytes, Text(all_of));
    PutLengthPrefixed(&bytes, Text(all_of, true));
  }
  comm->Bcast(&bytes, 0);
  Decoder d(bytes);
  std::string_view theirs = d.LengthPrefixed();
  std::string_view text = d.LengthPrefixed();
  std::string_view typed = d.LengthPrefixed();
  if (d.failed()) return Status::Corruption("QueryAll: malformed conditions from rank 0 (internal error)");
  if (theirs == mine) return Status::OK();
  // Conditions that differ only in a value's type read the same: name the types.
  const bool same_text = text == Text(all_of);
  return Status::InvalidArgument("QueryAll: this rank's conditions differ from rank 0's (a collective call takes the same "
                                 "conditions on every rank): rank 0 has " + std::string(same_text ? typed : text) +
                                 "; this rank has " + Text(all_of, same_text));
}

}  // namespace cairn
