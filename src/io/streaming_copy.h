// Copies that bypass the CPU cache, for reads much larger than it.
//
// A read through the bounce buffer (coalescing_reader.h) copies each piece
// from the bounce, still in the cache, to the caller's buffer. When the
// read is large, the caller's bytes cannot stay in the cache anyway; an
// ordinary copy first loads every destination line from memory to write
// it (64 MiB: 12.6 ms here) where non-temporal stores only write it (4-8
// ms; bench/HISTORY.md, "Copying out of the bounce past the cache").
#pragma once

#include <cstddef>

namespace cairn {

// Copies n bytes from src to dest (not overlapping) with non-temporal
// stores where the CPU has them (x86-64: SSE2, always there), else
// memcpy. Any alignment and length. The stores may still be in flight:
// call StreamingCopyFence before another thread or device may read dest.
// The copying thread itself always sees the bytes.
void StreamingCopy(char* dest, const char* src, size_t n);

// Orders every StreamingCopy of this thread before the stores that follow.
void StreamingCopyFence();

}  // namespace cairn
