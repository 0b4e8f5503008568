#include "harness/subject/layout.h"

#include <ATen/ATen.h>

namespace devparity {

const std::vector<std::string>& input_layouts() {
  static const std::vector<std::string> names = {"contiguous", "channels_last", "strided"};
  return names;
}

at::Tensor apply_layout(const at::Tensor& x, const std::string& layout) {
  if (layout == "channels_last" && x.dim() == 4) return x.contiguous(at::MemoryFormat::ChannelsLast);
  if (layout == "strided" && x.dim() >= 1) {
    // Every other column of a tensor twice as wide: strides no kernel can
    // assume away, on the device itself.
    auto sizes = x.sizes().vec();
    const auto width = sizes.back();
    sizes.back() = 2 * width;
    auto wide = at::zeros(sizes, x.options());
    auto view = wide.slice(x.dim() - 1, 0, 2 * width, 2);
    view.copy_(x);
    return view;
  }
  return x;
}

}  // namespace devparity
