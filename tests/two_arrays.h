// Two 1-d float64 global arrays, "a" and "b", of `n` elements, for the MPI
// tests that write them at one rank count and read them at others
// (pin_array_resize_test, repair_array_resize_test). Element i of array
// `array` (0: "a", 1: "b") in generation `gen` is Elem(gen, i, array), so a
// reader knows every value from the generation alone.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "cairn/array.h"
#include "cairn/store.h"

namespace cairn::test {

inline double Elem(int gen, uint64_t i, int array) { return double(gen) * 1e6 + double(i) + 0.25 * array; }

// Puts array "a" (and "b" when `with_b`) of generation `gen`, `n` elements
// split over the ranks of `s`; `skew` moves every inner split point down by
// that many elements, so that decompositions differ.
inline void PutArrays(Store* s, uint64_t n, int gen, bool with_b, uint64_t skew = 0) {
  uint64_t r = uint64_t(s->rank()), size = uint64_t(s->size());
  uint64_t lo = r == 0 ? 0 : n * r / size - skew, hi = r + 1 == size ? n : n * (r + 1) / size - skew;
  for (int array = 0; array < (with_b ? 2 : 1); array++) {
    std::vector<double> d(hi - lo);
    for (uint64_t i = lo; i < hi; i++) d[i - lo] = Elem(gen, i, array);
    Status st = s->PutArray(array == 0 ? "a" : "b", DType::kFloat64, {n}, {lo}, {hi - lo}, d.data());
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
}

// Reads both arrays of `n` elements whole, then one box across block
// boundaries, on every rank of `s`: "a" of generation a_gen, "b" of
// generation b_gen.
inline void ExpectArrays(Store* s, uint64_t n, int a_gen, int b_gen) {
  for (int array = 0; array < 2; array++) {
    int gen = array == 0 ? a_gen : b_gen;
    for (auto [start, count] : {std::pair<uint64_t, uint64_t>{0, n}, {n / 3 - 77, n / 3 + 500}}) {
      std::vector<double> got(count, -1);
      Status st = s->GetArray(array == 0 ? "a" : "b", {start}, {count}, got.data());
      ASSERT_TRUE(st.ok()) << st.ToString();
      uint64_t bad = 0;
      for (uint64_t i = 0; i < count; i++) bad += got[i] != Elem(gen, start + i, array);
      EXPECT_EQ(bad, 0u) << "array " << (array == 0 ? "a" : "b") << " of generation " << gen << ", revision "
                         << s->revision() << " read on " << s->size() << " ranks, box " << start << "+" << count
                         << ": " << bad << " elements differ";
    }
  }
}

}  // namespace cairn::test
