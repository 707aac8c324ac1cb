// Agreeing QueryAll's conditions: see query_agree.h.
#include "store/query_agree.h"

#include "cairn/array.h"
#include "format/coding.h"
#include "format/tag_codec.h"
#include "store/key_text.h"
#include "store/crash_point.h"
#include "store/out_of_memory.h"

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

Status CheckConditionsMatchRank0(Comm* comm, const std::vector<TagQuery>& all_of, const std::string& path) {
  if (comm->size() == 1) return Status::OK();
  // Out of memory on any rank, every rank still takes the broadcast (rank
  // 0 sends one byte, kNoRoom, if it could not make its message; a
  // receiver that cannot hold the message takes it in pieces and throws
  // after: Comm::Bcast) and returns the failure, which the caller's
  // agreement makes every rank's.
  constexpr char kNoRoom = 0;
  auto guarded = [&](auto&& f) { return UnlessOutOfMemoryThen("QueryAll of", path, kNothingChanged, f); };
  std::string mine;
  std::string bytes;  // rank 0's encoding, then its text, plain and typed
  Status room = guarded([&] {
    TestBadAllocPoint("query_conditions_encode", comm->rank());  // tests: as if the encoding ran out
    mine = Encode(all_of);
    if (comm->rank() == 0) {
      PutLengthPrefixed(&bytes, mine);
      PutLengthPrefixed(&bytes, Text(all_of));
      PutLengthPrefixed(&bytes, Text(all_of, true));
    }
    return Status::OK();
  });
  if (!room.ok() && comm->rank() == 0) bytes = std::string(1, kNoRoom);  // (short: no allocation)
  Status got = guarded([&] {
    comm->Bcast(&bytes, 0, "query_conditions");
    return Status::OK();
  });
  if (room.ok()) room = got;
  // (Rank 0's own failure reaches the others as the one byte; the
  // caller's agreement names the lowest failing rank.)
  if (room.ok() && bytes.size() == 1 && bytes[0] == kNoRoom)
    room = OutOfMemoryError("QueryAll of", path, kNothingChanged);
  if (!room.ok()) return room;
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
