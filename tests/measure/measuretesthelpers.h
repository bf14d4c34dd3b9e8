// SPDX-License-Identifier: Apache-2.0
// Test helpers for the measure tests: await a coroutine from a test function (the event loop
// keeps turning through QTRY_*), capturing a UserError instead of losing it.
#pragma once

#include "base/usererror.h"

#include <QCoroTask>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTest>

#include <memory>
#include <optional>

namespace hotkernel::test {

// Issue 41: a worker may write only its scratch and /dev, so a fake worker that tells the test
// something through a file (its pid, the order of events) writes it under /dev/shm. A template for
// QTemporaryDir; elsewhere (no /dev/shm) the temp folder, where confined workers cannot write.
inline QString workerWritableTemplate()
{
    return QFileInfo(QStringLiteral("/dev/shm")).isDir()
               ? QStringLiteral("/dev/shm/hotkernel-test-XXXXXX")
               : QDir::tempPath() + QStringLiteral("/hotkernel-test-XXXXXX");
}

template <typename T> struct Captured
{
    std::optional<T> value;
    QString error;
    bool done = false;
};

template <typename T> QCoro::Task<void> captureInto(QCoro::Task<T> task, std::shared_ptr<Captured<T>> out)
{
    try {
        out->value = co_await std::move(task);
    } catch (const UserError &e) {
        out->error = e.message();
    } catch (const std::exception &e) {
        out->error = QStringLiteral("unexpected exception: ") + QString::fromUtf8(e.what());
    }
    out->done = true;
}

// Starts task and returns its (later) outcome; wait with QTRY_VERIFY_WITH_TIMEOUT(c->done, ms).
template <typename T> std::shared_ptr<Captured<T>> capture(QCoro::Task<T> task)
{
    auto out = std::make_shared<Captured<T>>();
    captureInto(std::move(task), out);
    return out;
}

inline long long readPid(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return f.readAll().trimmed().toLongLong();
}

} // namespace hotkernel::test
