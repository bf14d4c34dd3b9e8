// SPDX-License-Identifier: Apache-2.0
// One GPU-timing job per device across this user's hotkernel processes: an flock(2) on
// hotkernel-gpu<index>.lock in the per-user runtime directory (see process/runtimedir.h;
// HOTKERNEL_LOCK_DIR overrides the directory). Per user, so that no other user can block it
// (issue 18); another user's work on the card shows in the result instead (measure/gpusharing.h).
// Taken without blocking the thread: try, then retry on a timer until it is free, the job is
// cancelled or the patience runs out. Lives on the Session's thread. (The in-process queue is
// GpuLock; this sits on top of it.)
#pragma once

#include "base/json.h"

#include <QCoroTask>
#include <QPointer>
#include <QString>

#include <chrono>
#include <functional>

namespace hotkernel {

class Job;

class DeviceLock
{
public:
    DeviceLock() = default;
    ~DeviceLock();
    DeviceLock(const DeviceLock &) = delete;
    DeviceLock &operator=(const DeviceLock &) = delete;

    // The device hotkernel times on: the first entry of CUDA_VISIBLE_DEVICES when it is a number, else 0.
    static int currentDevice();
    // Empty when the runtime directory is unusable, with *error saying why.
    static QString lockPath(int device, QString *error = nullptr);
    // Whether a target whose worker said ready (its "device", as the contract resolved it) times
    // on the GPU and so needs the lock; an unknown device does, to be safe. CPU targets take none.
    static bool needsLock(const Json &readyLine);

    // True once held; false when the job was cancelled while waiting. onWait is called when the
    // lock is found taken and again whenever its holder changes ("waiting for the GPU, held by pid
    // N"). Throws UserError when the lock file cannot be opened safely, or when it is still taken
    // after patience (zero: no limit), naming the holder.
    QCoro::Task<bool> acquire(int device, Job *job, std::function<void(const QString &)> onWait = {},
                              std::chrono::milliseconds retryEvery = std::chrono::milliseconds(200),
                              std::chrono::milliseconds patience = std::chrono::milliseconds(0));
    // Non-blocking single attempt; throws UserError when the lock file cannot be opened safely.
    bool tryAcquire(int device);
    void release();
    bool isHeld() const { return m_fd >= 0 && m_held; }
    // The pid holding the lock on our file (from /proc/locks), 0 when unknown or free.
    long long holderPid() const;

    // The pid of the FLOCK holder (not a waiter) of the file with that device and inode in text
    // in /proc/locks format; 0 when none. Pure.
    static long long flockHolder(const QByteArray &procLocks, quint64 deviceMajor, quint64 deviceMinor,
                                 quint64 inode);

private:
    bool open(int device);

    int m_fd = -1;
    bool m_held = false;
    QString m_path;
};

} // namespace hotkernel
