// SPDX-License-Identifier: Apache-2.0
// The arguments a window action asks a tool for, cut to what the tool's input schema knows (a
// fake or older tool may name them differently: warmup as warm_up, script as path). Pure.
#pragma once

#include "base/json.h"

#include <QString>

namespace hotkernel {

class ToolRegistry;

namespace ToolArguments {

// Keeps the wanted arguments tool's schema knows (all when the schema lists none).
Json known(const ToolRegistry &tools, const QString &tool, const Json &wanted);

// "<target>_baseline.py" and "<target>_candidate.py": the scripts new_target writes.
std::string baselineScript(const QString &target);
std::string candidateScript(const QString &target);

} // namespace ToolArguments
} // namespace hotkernel
