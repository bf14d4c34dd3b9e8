// SPDX-License-Identifier: Apache-2.0
// The worker's mid-run question for the judge seed (issue 19, docs/contract.md "Running a
// script"): {"event": "judge_seed", "run": I} on the protocol stream, answered on stdin with
// {"op": "judge_seed", "judge_seed": N}. Pure; the runner does the I/O.
#pragma once

#include <QByteArray>

namespace hotkernel::JudgeSeedRequest {

// True when `line` is the contract asking for run `run`'s judge seed.
bool matches(const QByteArray &line, int run);
// The answer line, newline included.
QByteArray answer(quint64 seed);

} // namespace hotkernel::JudgeSeedRequest
