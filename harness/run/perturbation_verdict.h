#pragma once
/// What other arithmetic than the CPU's did to a trial on vdev: which
/// perturbation switches moved values, and which of them fail the trial on
/// their own (Note [Perturbed numerics] in vdev/perturb.h); which models of
/// CUDA's arithmetic moved them (Note [CUDA's arithmetic on vdev]).

#include "harness/run/check_dispatch.h"

namespace devparity {

/// Fills row.perturbed from `mine`; when one of the trial's value checks
/// failed, names the switches that fail it alone (with several moving
/// values, by running the trial again under each), in row.perturbed and in
/// the failed checks' messages.
void judge_perturbation(GroupRun& group, const Trial& trial, const Execution& mine, bool on_reference_device,
                        const CheckDispatch& dispatch, TrialResult& row);

/// Fills row.cuda_arithmetic from `mine` (Note [CUDA's arithmetic on vdev]);
/// a failed value check's message names the models that moved values and
/// the settings that turned them on, as what a GPU would compute too.
void judge_cuda_arithmetic(const Execution& mine, TrialResult& row);

}  // namespace devparity
