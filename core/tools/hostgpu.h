// SPDX-License-Identifier: Apache-2.0
// The card of the session's host, for the tools that describe it (gpu_info, roofline's default
// card): Host::probeGpu, this machine's through NVML, a remote host's through nvidia-smi there
// (issue 24), so a session on a GPU box never reports the laptop's missing GPU.
#pragma once

#include "base/json.h"

#include <QCoroTask>

namespace hotkernel {

class Job;
class Session;

// GpuProbe::snapshot()'s form; null when the job was cancelled while connecting. Throws UserError
// when the session's host cannot be used (its hostError) or ssh fails.
QCoro::Task<Json> hostGpuSnapshot(Session &session, Job &job);

} // namespace hotkernel
