// SPDX-License-Identifier: Apache-2.0
// A folder named in a host URL must mean one folder: no whitespace and no control or format
// characters, which a shell, a line-based reply or a trim would read differently (issue 39: a
// trailing %20 or %0A made hotkernel fill another folder). Pure; any thread.
#pragma once

#include <QString>

namespace hotkernel::ExactPath {

// Empty when path is fine; else what is wrong with it, e.g. "holds a line feed (U+000A) at
// character 12", to follow the path in a message.
QString problem(const QString &path);

} // namespace hotkernel::ExactPath
