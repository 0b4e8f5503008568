// Clean twin of long_function.cpp: the same work in functions under 80 lines.

#include <cstdint>

int64_t sum_of_squares(const int64_t* v, int n) {
  int64_t total = 0;
  for (int i = 0; i < n; ++i) total += v[i] * v[i];
  return total;
}

int64_t sum_of_squares(const int64_t* v) { return sum_of_squares(v, 86); }
