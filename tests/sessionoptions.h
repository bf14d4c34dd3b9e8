// SPDX-License-Identifier: Apache-2.0
// Options for a test's Session on a directory, everything else as a front-end would leave it.
// (A designated initializer would do, but -Wextra warns of every member it leaves out.)
#pragma once

#include "session/session.h"

namespace hotkernel::test {

inline SessionOptions optionsFor(const QString &workDir)
{
    SessionOptions options;
    options.workDir = workDir;
    return options;
}

} // namespace hotkernel::test
