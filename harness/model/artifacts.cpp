#include "harness/model/artifacts.h"

#include "harness/base/dtype.h"
#include "harness/base/error.h"
#include "harness/base/npy.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <filesystem>

namespace devparity {
namespace {

std::string file_name_of(const std::string& id) {
  std::string out;
  for (char c : id) {
    if (c == '/') out += "__";
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '=' || c == ',') out += c;
    else out += '_';
  }
  return out;
}

}  // namespace

ArtifactStore::ArtifactStore(std::string root, std::string folder, int64_t budget_bytes)
    : root_(std::move(root)), folder_(std::move(folder)), budget_(budget_bytes) {}

nlohmann::json ArtifactStore::save(const std::string& trial_id,
                                   const std::vector<std::pair<std::string, at::Tensor>>& tensors) {
  int64_t bytes = 0;
  for (const auto& [kind, t] : tensors) bytes += static_cast<int64_t>(t.numel() * t.element_size()) + 128;
  std::lock_guard<std::mutex> lock(mutex_);
  if (written_ + bytes > budget_) {
    skipped_ += bytes;
    return nlohmann::json::array();
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(root_) / folder_;
  std::error_code ec;
  if (!prepared_) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".npy") fs::remove(entry.path(), ec);
    }
    prepared_ = true;
  }
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the artifact folder: {}", dir.string(), ec.message()));
  auto out = nlohmann::json::array();
  const auto stem = file_name_of(trial_id);
  for (const auto& [kind, t] : tensors) {
    const auto name = stem + "." + kind + ".npy";
    write_npy((dir / name).string(), t.contiguous());
    out.push_back({{"kind", kind},
                   {"path", (fs::path(folder_) / name).string()},
                   {"bytes", static_cast<int64_t>(t.numel() * t.element_size())},
                   {"shape", t.sizes().vec()},
                   {"dtype", dtype_name(t.scalar_type())}});
  }
  written_ += bytes;
  return out;
}

void ArtifactStore::clear_stale() {
  namespace fs = std::filesystem;
  std::lock_guard<std::mutex> lock(mutex_);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(root_) / folder_, ec)) {
    if (entry.path().extension() == ".npy") fs::remove(entry.path(), ec);
  }
  prepared_ = true;
}

int64_t ArtifactStore::written_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

int64_t ArtifactStore::skipped_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_;
}

at::Tensor abs_difference(const at::Tensor& output, const at::Tensor& reference) {
  const auto o = output.to(at::kDouble), r = reference.to(at::kDouble);
  // NaN against NaN and an infinity against itself are no difference; NaN or
  // Inf against a number stays NaN or Inf, for the heatmap to draw.
  const auto same = (o == r).logical_or(o.isnan().logical_and(r.isnan()));
  return at::where(same, at::zeros_like(o), (o - r).abs()).to(at::kFloat);
}

}  // namespace devparity
