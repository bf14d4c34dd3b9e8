// SPDX-License-Identifier: Apache-2.0
// Renames the original's argument names to ours (ToolSpec::argumentAliases) before the schema
// check, so a call written for the Python hotkernel runs unchanged. Pure; any thread.
#pragma once

#include "base/json.h"
#include "session/toolspec.h"

namespace hotkernel {

class WorkDir;

class ArgumentAliases
{
public:
    // arguments with every alias replaced by our name. Sets *problem (and returns arguments as
    // given) when an alias and our name are both present, or a WorkDirOnly alias names another
    // directory than the working directory.
    static Json apply(const ToolSpec &spec, const Json &arguments, const WorkDir &workDir, QString *problem);
};

} // namespace hotkernel
