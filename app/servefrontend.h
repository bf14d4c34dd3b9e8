// SPDX-License-Identifier: Apache-2.0
// `hotkernel serve`: a headless session for the current directory that CLI calls and agents join
// through the directory's socket, so their workers (and spares) are reused from call to call
// (issue 23; Gradle's and Bazel's daemons are the model). The first CLI call starts one on demand;
// it exits after some idle minutes, on a signal, or at once when a window already serves the
// directory.
#pragma once

#include <QStringList>

class QCoreApplication;

namespace hotkernel {

class ServeFrontend
{
public:
    static QString help();
    // Runs the event loop; returns the process's exit status. host: --host, or empty.
    static int run(QCoreApplication &app, const QStringList &arguments, const QString &host);
    // Minutes without a client or a running job after which a served session exits.
    static constexpr int DefaultIdleMinutes = 10;
};

} // namespace hotkernel
