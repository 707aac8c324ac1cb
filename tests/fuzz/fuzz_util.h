// Shared by the fuzz targets. Every input starts with a mode byte: when its
// low bit is set, the target first recomputes the checksums the decoder
// checks, so that the fuzzer reaches the structure behind them (a checksum
// it cannot guess would otherwise stop nearly every input at the door).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/checksum.h"
#include "format/coding.h"

// An invariant of the decoders; a violation stops the fuzzer with a crash.
#define FUZZ_CHECK(cond)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                             \
    }                                                                      \
  } while (0)

namespace cairn::fuzz {

// Splits the mode byte off; false for an empty input.
inline bool Split(const uint8_t* data, size_t size, bool* fix, std::string* rest) {
  if (size == 0) return false;
  *fix = data[0] & 1;
  rest->assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  return true;
}

// Checksum of bytes [0, at) stored at `at`, if the input is long enough.
inline void FixChecksumAt(std::string* s, size_t at) {
  if (s->size() >= at + 8) EncodeFixed64(s->data() + at, Checksum(s->data(), at));
}

}  // namespace cairn::fuzz
