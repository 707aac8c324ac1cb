#include "io/streaming_copy.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define CAIRN_STREAMING_STORES 1
#endif

namespace cairn {

#if CAIRN_STREAMING_STORES

void StreamingCopy(char* dest, const char* src, size_t n) {
  // Up to the first 16-byte boundary of dest with memcpy, then 64 bytes a
  // step with aligned non-temporal stores (loads unaligned), the tail with
  // memcpy.
  size_t head = (16 - (reinterpret_cast<uintptr_t>(dest) & 15)) & 15;
  if (head > n) head = n;
  std::memcpy(dest, src, head);
  dest += head;
  src += head;
  n -= head;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dest + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dest + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dest + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dest + i + 48), d);
  }
  std::memcpy(dest + i, src + i, n - i);
}

void StreamingCopyFence() { _mm_sfence(); }

#else

void StreamingCopy(char* dest, const char* src, size_t n) { std::memcpy(dest, src, n); }
void StreamingCopyFence() {}

#endif

}  // namespace cairn
