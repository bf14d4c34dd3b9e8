// SPDX-License-Identifier: Apache-2.0
// Finds the native helpers built from core/native (hotkernel-supervise, libhotkernel_tracer.so,
// hotkernel-calibrate), the one list of places for the build tree and every install:
// HOTKERNEL_NATIVE_DIR, beside the hotkernel binary (the build tree), the install's lib/hotkernel/
// (HOTKERNEL_PRIVATE_LIBDIR, relative to bin/), then the build tree it came from. Any thread.
#pragma once

#include <QString>
#include <QStringList>

namespace hotkernel {

class NativeHelpers
{
public:
    static QString tracerFileName();    // libhotkernel_tracer.so
    static QString calibrateFileName(); // hotkernel-calibrate
    // Absolute path of the helper, or empty when it is in none of searchDirectories().
    static QString locate(const QString &fileName);
    static QStringList searchDirectories();
    // One line per helper: its name and path, or "not found"; then the folders looked in.
    // `hotkernel helpers` prints it (the install test reads it).
    static QString report();
    // The shared library the dynamic loader could not load, from a child's stderr
    // ("error while loading shared libraries: NAME: cannot open..."); empty when there is none.
    static QString missingLibrary(const QByteArray &standardError);
    // What to tell the user when `helper` cannot start without `library` (a CUDA 13 runtime
    // library, which no Debian 12 package ships): which one, and where to get it.
    static QString missingLibraryAdvice(const QString &helper, const QString &library);
};

} // namespace hotkernel
