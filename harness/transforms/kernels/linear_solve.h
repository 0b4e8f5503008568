#pragma once
/// Small dense linear systems solved on the host in float64 (internal to
/// harness/transforms): the coefficients of perspective and thin-plate-spline
/// warps are parameters, computed once from a few points, as torchvision and
/// Kornia compute them before anything touches the image.

#include <optional>
#include <vector>

namespace devparity {

/// Solves A X = B for X by Gaussian elimination with partial pivoting. `a` is
/// n x n and `b` is n x m, both row-major. nullopt when A is singular (a
/// pivot below 1e-12 times the largest entry of A).
std::optional<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b, int n, int m);

}  // namespace devparity
