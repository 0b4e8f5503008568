#include "harness/transforms/kernels/modes.h"

namespace devparity {

const char* name_of(Interpolation mode) {
  switch (mode) {
    case Interpolation::kNearest: return "nearest";
    case Interpolation::kBilinear: return "bilinear";
    case Interpolation::kBicubic: return "bicubic";
    case Interpolation::kArea: return "area";
  }
  return "?";
}

const char* name_of(Padding mode) {
  switch (mode) {
    case Padding::kZeros: return "zeros";
    case Padding::kBorder: return "border";
    case Padding::kReflection: return "reflection";
  }
  return "?";
}

const char* name_of(Border mode) {
  switch (mode) {
    case Border::kReflect: return "reflect";
    case Border::kReplicate: return "replicate";
    case Border::kConstant: return "constant";
    case Border::kCircular: return "circular";
    case Border::kSymmetric: return "symmetric";
  }
  return "?";
}

}  // namespace devparity
