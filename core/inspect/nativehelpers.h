// SPDX-License-Identifier: Apache-2.0
// Finds the native helpers built from core/native (libhotkernel_tracer.so, hotkernel-calibrate):
// HOTKERNEL_NATIVE_DIR, then beside the hotkernel binary, then the build tree. Any thread.
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
};

} // namespace hotkernel
