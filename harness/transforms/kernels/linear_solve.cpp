#include "harness/transforms/kernels/linear_solve.h"

#include <algorithm>
#include <cmath>

namespace devparity {

std::optional<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b, int n, int m) {
  double scale = 0.0;
  for (double v : a) scale = std::max(scale, std::fabs(v));
  if (scale == 0.0) return std::nullopt;
  auto at = [&](int r, int c) -> double& { return a[static_cast<size_t>(r * n + c)]; };
  auto rhs = [&](int r, int c) -> double& { return b[static_cast<size_t>(r * m + c)]; };
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (std::fabs(at(r, col)) > std::fabs(at(pivot, col))) pivot = r;
    }
    if (std::fabs(at(pivot, col)) < 1e-12 * scale) return std::nullopt;
    if (pivot != col) {
      for (int k = 0; k < n; ++k) std::swap(at(col, k), at(pivot, k));
      for (int k = 0; k < m; ++k) std::swap(rhs(col, k), rhs(pivot, k));
    }
    for (int r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = at(r, col) / at(col, col);
      if (f == 0.0) continue;
      for (int k = col; k < n; ++k) at(r, k) -= f * at(col, k);
      for (int k = 0; k < m; ++k) rhs(r, k) -= f * rhs(col, k);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < m; ++k) rhs(r, k) /= at(r, r);
  }
  return b;
}

}  // namespace devparity
