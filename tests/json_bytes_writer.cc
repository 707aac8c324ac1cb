// Writes a one-process store whose keys, tag names and string tags are not
// all UTF-8, for cli_json_bytes_test.sh (found by an outside test pass:
// `cairn keys --json` printed those bytes raw, which is not JSON text).
//   object "\xff\xfekey" (value "v"), tags "na\xe9me" = String("caf\xe9"),
//     "ok" = String("\xc3\xa9t\xc3\xa9 \"q\"\\")
//   object "cut\xe2\x82" (value ""), no tags
//   array "arr\x80" int8 (2), tag "units" = String("\xed\xa0\x80")
//     (an encoded surrogate: not UTF-8 either)
//   usage: json_bytes_writer STORE
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cairn/store.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: json_bytes_writer STORE\n");
    return 2;
  }
  using cairn::TagValue;
  cairn::Options options;
  std::unique_ptr<cairn::Store> st;
  cairn::Status s = cairn::Store::Open(options, argv[1], &st);
  auto check = [&](const cairn::Status& st_, const char* what) {
    if (!st_.ok()) {
      std::fprintf(stderr, "%s: %s\n", what, st_.ToString().c_str());
      std::exit(1);
    }
  };
  check(s, "open");
  check(st->Put("\xff\xfekey", "v",
                {{"na\xe9me", TagValue::String("caf\xe9")},
                 {"ok", TagValue::String("\xc3\xa9t\xc3\xa9 \"q\"\\")}}),
        "put");
  check(st->Put(std::string("cut\xe2\x82"), ""), "put cut");
  // Float tags that are not finite, scalars and array elements (JSON has no
  // literal for them: the tool writes them as the strings "nan", "inf", "-inf").
  const double nf[4] = {std::nan(""), INFINITY, -INFINITY, 1.5};
  const float nf32[2] = {NAN, 2.5f};
  check(st->Put("nonfinite", "v",
                {{"nan", TagValue::Float64(std::nan(""))},
                 {"a64", TagValue::Array(cairn::TagType::kFloat64, nf, 4)},
                 {"a32", TagValue::Array(cairn::TagType::kFloat32, nf32, 2)}}),
        "put nonfinite");
  int8_t a[2] = {1, 2};
  cairn::ArrayPutOptions po;
  po.tags = {{"units", TagValue::String("\xed\xa0\x80")},
             {"range", TagValue::Array(cairn::TagType::kFloat64, nf, 4)}};
  check(st->PutArray("arr\x80", cairn::DType::kInt8, {2}, {0}, {2}, a, po), "put array");
  check(st->Commit(), "commit");
  check(st->Close(), "close");
  return 0;
}
