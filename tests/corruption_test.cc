// Random byte flips in every kind of file of a small store, in process: the
// manifest header and records, the data file header, index tables, value
// chunks, and the data file's unused bytes. Each trial copies a pristine
// store, flips one byte, and reads it every way (damage_check.h). Every flip
// in bytes something reads must be reported, naming the object or record;
// no wrong data is ever returned; flips in bytes nothing reads may go
// unnoticed and are counted apart. 2,100 trials; CAIRN_LONG_TESTS=1: 50,000.
#include <gtest/gtest.h>

#include <cstdio>

#include "damage_check.h"

namespace cairn {
namespace {

using namespace cairn::test;

TEST(Corruption, RandomByteFlipsAreReportedAndNeverReturnWrongData) {
  TempDir dir;
  std::string ref = dir.sub("ref"), work = dir.sub("work");
  std::vector<RevisionModel> revs = BuildReferenceStore(ref);
  std::vector<std::vector<Range>> kinds = ClassifyStore(ref);
  // Sanity: the undamaged copy reads back whole and verifies clean.
  {
    CopyStore(ref, work);
    Outcome o;
    CheckStore(work, revs, true, &o);
    ASSERT_TRUE(o.wrong.empty()) << o.wrong[0];
    ASSERT_FALSE(o.reads_reported || o.verify_reported || o.writer_reported) << o.first_report;
    ASSERT_EQ(o.newest_seen, 3u);
  }
  const int trials = LongTests() ? 50000 : 2100;
  uint64_t seed = std::random_device()();
  if (const char* e = std::getenv("CAIRN_SEED")) seed = std::strtoull(e, nullptr, 10);
  std::printf("seed %lu (set CAIRN_SEED to repeat)\n", seed);
  std::mt19937_64 g(seed);
  int count[kKinds] = {}, by_reads[kKinds] = {}, by_verify_only[kKinds] = {}, unnoticed[kKinds] = {};
  int failures = 0;
  for (int t = 0; t < trials; t++) {
    int kind = t % kKinds;
    auto [file, off] = PickByte(kinds[kind], g);
    uint8_t mask = uint8_t(std::uniform_int_distribution<int>(1, 255)(g));
    CopyStore(ref, work);
    FlipByte(work + "/" + file, off, mask);
    Outcome o;
    CheckStore(work, revs, true, &o);
    count[kind]++;
    std::string what = std::string(KindName(kind)) + " " + file + "+" + std::to_string(off) + " ^" +
                       std::to_string(mask);
    bool reported = o.reads_reported || o.verify_reported || o.writer_reported;
    if (o.reads_reported) by_reads[kind]++;
    else if (reported) by_verify_only[kind]++;
    else unnoticed[kind]++;
    std::vector<std::string> bad = o.wrong;
    if (!o.missing.empty())
      bad.push_back("revision " + std::to_string(o.missing[0]) + " vanished without a Corruption error");
    switch (kind) {
      case kDataUnused:
        break;  // nothing reads these bytes: unnoticed is allowed (never wrong data: checked above)
      case kManifestLastRecord:
        // The newest record damaged: indistinguishable from an append that
        // never completed for a reader, which shows the revision before it;
        // verify and writers must not take it for a torn append.
        if (!o.verify_reported) bad.push_back("verify did not report the damaged newest record");
        if (!o.writer_reported) bad.push_back("a writer accepted (and would cut) the damaged newest record");
        break;
      case kDataHeader:
        // Readers do not need the data file header; verify and writers check it.
        if (!o.verify_reported) bad.push_back("verify did not report the damaged data file header");
        if (!o.writer_reported) bad.push_back("a writer accepted the damaged data file header");
        break;
      default:
        if (!o.reads_reported) bad.push_back("reads did not report the damage");
        if (!o.verify_reported) bad.push_back("verify did not report the damage");
    }
    if (!bad.empty()) {
      failures++;
      ADD_FAILURE() << "trial " << t << " (" << what << "): " << bad[0] << " [" << bad.size() << " problems]";
      if (failures > 20) break;
    }
  }
  std::printf("%-24s %7s %9s %12s %10s\n", "flipped byte in", "trials", "by reads", "verify only", "unnoticed");
  for (int k = 0; k < kKinds; k++)
    std::printf("%-24s %7d %9d %12d %10d\n", KindName(k), count[k], by_reads[k], by_verify_only[k], unnoticed[k]);
  std::printf("failures: %d\n", failures);
}

// The case the random flips first found: the newest record's length field
// damaged, upwards or downwards, is a damaged record, never a torn append.
TEST(Corruption, DamagedLengthOfTheNewestRecordIsNeverATornTail) {
  TempDir dir;
  BuildReferenceStore(dir.sub("ref"));
  std::string man = ReadWhole(dir.sub("ref") + "/MANIFEST");
  uint64_t last = ClassifyStore(dir.sub("ref"))[kManifestLastRecord][0].begin;
  for (uint64_t i = 0; i < 4; i++) {
    for (uint8_t mask : {0x01, 0x02, 0x80}) {
      std::string m = man;
      m[last + i] ^= char(mask);
      ParsedManifest pm;
      ASSERT_TRUE(ParseManifest(m, &pm).ok());
      EXPECT_TRUE(pm.damaged_tail) << "length byte " << i << " ^" << int(mask);
      EXPECT_EQ(pm.revisions.size(), 2u);
    }
  }
}

}  // namespace
}  // namespace cairn
