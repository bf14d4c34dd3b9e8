// SPDX-License-Identifier: Apache-2.0
// `hotkernel --demo`: copies the bundled demo working directory (resources/demo, real recorded data
// and its manifest) to a temporary directory the session then opens. GUI thread, before the Session.
#pragma once

#include "session/sessionstore.h"

#include <QString>

namespace hotkernel {
class ToolRegistry;
}

namespace hotkernel::DemoSession {

// The directory to open, or empty with the reason in *error. The directory lives until exit.
QString extract(QString *error = nullptr);
// How many files the demo bundles besides its manifest (0 until real data is recorded).
int dataFileCount();
// The calls recorded on the GPU machine that calls/calls.json in dir lists (bench, gpu-info), as
// the agent feed shows them, oldest first; empty with the reason in *error when one is unreadable.
QList<RunSummary> recordedRuns(const QString &dir, const ToolRegistry &tools, QString *error = nullptr);

} // namespace hotkernel::DemoSession
