// Agreeing QueryAll's conditions: see query_agree.h.
#include "store/query_agree.h"

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

// The conditions as a person reads them.
std::string Text(const std::vector<TagQuery>& all_of) {
  if (all_of.empty()) return "(no conditions)";
  std::string out;
  for (const TagQuery& q : all_of) {
    if (!out.empty()) out += " and ";
    out += "'" + KeyText(q.name) + "' " + OpName(q.op);
    if (q.op != TagQuery::Op::kExists) out += " " + q.value.ToString();
    if (q.op == TagQuery::Op::kRange) out += ".." + q.upper.ToString();
  }
  return out;
}

}  // namespace

Status CheckConditionsMatchRank0(Comm* comm, const std::vector<TagQuery>& all_of) {
  if (comm->size() == 1) return Status::OK();
  std::string mine = Encode(all_of);
  std::string bytes;  // rank 0's encoding, then its text
  if (comm->rank() == 0) {
    PutLengthPrefixed(&bytes, mine);
    PutLengthPrefixed(&bytes, Text(all_of));
  }
  comm->Bcast(&bytes, 0);
  Decoder d(bytes);
  std::string_view theirs = d.LengthPrefixed();
  std::string_view text = d.LengthPrefixed();
  if (d.failed()) return Status::Corruption("QueryAll: malformed conditions from rank 0 (internal error)");
  if (theirs == mine) return Status::OK();
  return Status::InvalidArgument("QueryAll: this rank's conditions differ from rank 0's (a collective call takes the same "
                                 "conditions on every rank): rank 0 has " + std::string(text) + "; this rank has " +
                                 Text(all_of));
}

}  // namespace cairn
