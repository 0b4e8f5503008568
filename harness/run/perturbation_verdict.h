#pragma once
/// What perturbed numerics did to a trial on vdev (Note [Perturbed numerics]
/// in vdev/perturb.h): which switches moved values, and which of them fail
/// the trial on their own.

#include "harness/run/check_dispatch.h"

namespace devparity {

/// Fills row.perturbed from `mine`; when one of the trial's value checks
/// failed, names the switches that fail it alone (with several moving
/// values, by running the trial again under each), in row.perturbed and in
/// the failed checks' messages.
void judge_perturbation(GroupRun& group, const Trial& trial, const Execution& mine, bool on_reference_device,
                        const CheckDispatch& dispatch, TrialResult& row);

}  // namespace devparity
