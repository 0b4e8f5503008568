#pragma once
/// TorchScript subjects: a scripted module from a .pt archive, audited like
/// any transform, declared in a case file as
///   "subject": {"torchscript": "m.pt", "method": "forward",
///               "arguments": ["image", {"param": "quality"}], ...}
/// (cases/README.md has every field).
///
/// Note [TorchScript state]
/// The archive is loaded on the CPU: `torch::jit::load(path, device)` would
/// move every tensor, unregistered attributes included, and hide the very
/// bug to find. Each trial works on a deep copy whose parameters and buffers
/// are registered state, moved one by one with setattr (Module::to(meta)
/// throws in 1.13). Tensor attributes that are neither stay where they were
/// made, as Module.to() leaves them, and are reported as
/// unregistered_tensor_state.

namespace devparity {

class SubjectKindRegistry;

/// Adds the "torchscript" subject kind and installs the tracer's TorchScript
/// source locator. Its calls, as every subject's, run with the graph
/// executor's optimisations off (execute(), Note [Unoptimised subject
/// calls]); the process's setting is left as it is.
void register_torchscript_subjects(SubjectKindRegistry& registry);

}  // namespace devparity
