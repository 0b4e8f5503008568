#include "harness/subject/configured.h"

#include "harness/base/error.h"
#include "harness/base/text.h"

#include <fmt/format.h>

namespace devparity {

void require_nchw(c10::IntArrayRef shape, const std::string& subject) {
  // An empty batch (N = 0) is a valid input: pipelines meet it.
  bool ok = shape.size() == 4 && shape[0] >= 0;
  for (size_t i = 1; i < shape.size(); ++i) ok = ok && shape[i] > 0;
  if (!ok) {
    throw InputError(fmt::format("{} takes NCHW images with positive sizes, got shape {}", subject,
                                 join_shape(shape.vec())));
  }
}

void require_rgb(c10::IntArrayRef shape, const std::string& subject) {
  require_nchw(shape, subject);
  if (shape[1] != 3) {
    throw InputError(fmt::format("{} needs 3 channels (RGB), got {}", subject, shape[1]));
  }
}

}  // namespace devparity
