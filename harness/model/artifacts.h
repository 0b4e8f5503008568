#pragma once
/// Evidence files for failing trials: the reference output, the device's
/// output and |diff| as .npy (numpy loads them), in a folder next to the
/// report, within a size budget so that a run with thousands of failures does
/// not fill the disk.

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace devparity {

class ArtifactStore {
 public:
  /// Files go to `root`/`folder` (created on the first save; .npy files a
  /// previous run left there are removed then); reports name them
  /// `folder`/file, relative to `root` (the report's folder). At most
  /// `budget_bytes` are written in all.
  ArtifactStore(std::string root, std::string folder, int64_t budget_bytes);

  /// Removes the .npy files a previous run left in the folder, if it exists;
  /// later saves leave the folder's files alone (isolated runs: the parent
  /// clears once, its workers only add).
  void clear_stale();
  /// Workers: the parent cleared the folder; never clear it again.
  void keep_existing() { prepared_ = true; }

  /// Saves the named tensors of one trial, all or none: entries
  /// {"kind", "path", "bytes", "shape", "dtype"} for the report, or an empty
  /// array when they would exceed the budget (skipped_bytes() grows).
  nlohmann::json save(const std::string& trial_id,
                      const std::vector<std::pair<std::string, at::Tensor>>& tensors);

  int64_t written_bytes() const;
  int64_t skipped_bytes() const;
  int64_t budget_bytes() const { return budget_; }
  /// The folder as reports name it.
  const std::string& folder() const { return folder_; }

 private:
  std::string root_, folder_;
  int64_t budget_;
  mutable std::mutex mutex_;
  int64_t written_ = 0, skipped_ = 0;
  bool prepared_ = false;
};

/// |output - reference| as float32 (float64 arithmetic, so uint8 and integer
/// outputs do not wrap), for artifacts and heatmaps.
at::Tensor abs_difference(const at::Tensor& output, const at::Tensor& reference);

}  // namespace devparity
