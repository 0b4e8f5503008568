#pragma once
// ../shared/cuda-goldens/cuda_sweep1.txz (DEVPARITY_SHARED elsewhere): 800
// vectors of torchvision's transforms made on a real CUDA GPU, unpacked once
// under the build tree with `cmake -E tar` (both platforms have it; xz may be
// missing); DEVPARITY_CUDA_GOLDENS_DIR names another set.

#include <filesystem>
#include <string>

namespace devparity::testing {

/// The unpacked set's folder with a trailing '/', or empty when the archive
/// is not there.
std::string cuda_goldens_dir();

/// `archive` unpacked once under the build tree, and its `folder` there
/// (trailing '/'); empty when the archive is not there.
std::string unpacked(const std::filesystem::path& archive, const std::string& folder);

}  // namespace devparity::testing
