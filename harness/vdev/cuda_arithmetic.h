#pragma once
/// CUDA's arithmetic on vdev: models of what CUDA computes where it differs
/// from the CPU's kernel, run on vdev rows by default in place of the CPU's.
///
/// Note [CUDA's arithmetic on vdev]
/// vdev runs the CPU's kernels, so a test whose result depends on how the
/// GPU computes (TF32 matmuls once code allows them, a library's own CUDA
/// kernel) passes on vdev and fails on the GPU. A model is the CUDA
/// computation of a set of ops, written from CUDA's sources or
/// documentation and checked against a real GPU's outputs where one was at
/// hand; with `when`, it holds only while a LibTorch setting the process
/// reads makes CUDA compute so (torch.backends.cuda.matmul.allow_tf32), read
/// at each call, as CUDA reads it. Unlike a perturbation switch (other legal
/// arithmetic, asked for), a model is what the GPU does, so it is on for
/// every vdev row unless the run turns CUDA's arithmetic off
/// (--vdev-arithmetic cpu). A perturbation switch asked for the same op
/// wins. Each model's call also runs the CPU's kernel, so a trial knows
/// which models moved its values and a failing check names them with the
/// setting that turned them on. Where CUDA's choice cannot be known without
/// the GPU (cuDNN's algorithm per shape), there is no model: vdev keeps the
/// CPU's arithmetic there, a miss rather than a false alarm (docs/cuda-arithmetic.md).
/// vdev's own models are registered in builtins.cpp; a library registers
/// models of its custom ops' CUDA kernels with DEVPARITY_REGISTER_CUDA_MODEL (C++) or
/// devparity.register_cuda_model (Python).

#include "harness/base/registration.h"
#include "harness/vdev/kernel_replacement.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace devparity::vdev::cuda_arithmetic {

struct Model {
  std::string name;              ///< "tf32_matmul": named where it moved values
  std::string doc;               ///< what CUDA computes and the evidence, for `devparity list` and the docs
  std::vector<std::string> ops;  ///< "aten::mm", "mylib::resize.default" ...: schema names with overload
  /// The setting that makes CUDA compute so, as code sets it
  /// ("torch.backends.cuda.matmul.allow_tf32"); empty: CUDA always does.
  std::string setting;
  std::function<bool()> when;  ///< whether `setting` is on now; null: always
  ReplacementKernel kernel;
  /// Whether the model computes this call (dtype, shapes); null: every call.
  /// The calls it leaves run the op's next model, or the CPU's kernel.
  std::function<bool(const c10::FunctionSchema&, c10::ArrayRef<c10::IValue> args)> covers;
};

/// vdev's own models (cuda_models.cpp): tf32_matmul, sgemm_fma, cuda_grid_sample,
/// cuda_interpolate, cuda_sort, cuda_nms.
std::vector<Model> builtin_models();

/// Registers `model` after the op's models so far: a call runs the first
/// whose setting is on and that covers it. An op whose earlier model
/// computes every call (no `when`, no `covers`) throws std::logic_error
/// naming both, unless `replace`: then this is the op's only model from the
/// next call on (a library registering its model again).
void add(Model model, bool replace = false);

/// add() for user code: never throws; a problem is recorded
/// (base/registration.h) for whoever loads the plugin to report.
bool register_model(Model model) noexcept;

/// The registered models, in registration order (replaced ones left out).
std::vector<Model> models();

/// Whether vdev computes CUDA's arithmetic (vdev's mode: vdev/mode.h; on
/// unless the run says --vdev-arithmetic cpu).
bool enabled();

/// The model that computes this call of `op` now (registered, enabled, its
/// setting on, covering the arguments on top of `stack`), or null: the
/// CPU's kernel. Called on every vdev op: a lookup per thread without a lock.
const Model* model_for(const c10::OperatorHandle& op, const torch::jit::Stack& stack);

/// Counts a call whose values `model` moved.
void count_moved(const Model& model);

/// Per model, how many op calls it moved since the last take (process-wide;
/// one trial or test at a time), and the count starts again.
std::map<std::string, int64_t> take_moved();

/// "tf32_matmul in 3 op calls (torch.backends.cuda.matmul.allow_tf32 is on)", joined by "; ".
std::string moved_words(const std::map<std::string, int64_t>& moved);

}  // namespace devparity::vdev::cuda_arithmetic

/// Registers a model of a custom op's CUDA kernel from user code (a library
/// linked into the runner or a plugin) at static initialisation:
/// DEVPARITY_REGISTER_CUDA_MODEL(Model{...}). Built-ins are registered in
/// builtins.cpp instead.
#define DEVPARITY_REGISTER_CUDA_MODEL(...) \
  DEVPARITY_REGISTER_AT_STARTUP(::devparity::vdev::cuda_arithmetic::register_model(__VA_ARGS__))
