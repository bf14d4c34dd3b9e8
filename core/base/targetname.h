// SPDX-License-Identifier: Apache-2.0
// The one rule for target names, shared by new, record and profile's report name: a name that
// becomes a folder or file name under the working directory. Pure; any thread.
#pragma once

#include <QString>

namespace hotkernel::TargetName {

inline constexpr int MaxLength = 128;

// The rule in words, for messages.
QString rule();
// Empty when name follows the rule; else what is wrong with it.
QString problem(const QString &name);
// Throws UserError saying what (e.g. "target name"), what is wrong, the rule and what to do.
void require(const QString &name, const QString &what);

} // namespace hotkernel::TargetName
