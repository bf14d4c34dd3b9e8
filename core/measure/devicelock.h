// SPDX-License-Identifier: Apache-2.0
// One GPU-timing job per device across every hotkernel process on the machine: an flock(2) on
// /tmp/hotkernel-gpu<index>.lock (HOTKERNEL_LOCK_DIR overrides the directory). Taken without
// blocking the thread: try, then retry on a timer until it is free or the job is cancelled.
// Lives on the Session's thread. (The in-process queue is GpuLock; this sits on top of it.)
#pragma once

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
    static QString lockPath(int device);

    // True once held; false when the job was cancelled while waiting. onWait is called once, the
    // first time the lock is found taken (to tell the user why nothing happens). Throws UserError
    // when the lock file cannot be opened at all.
    QCoro::Task<bool> acquire(int device, Job *job, std::function<void(const QString &)> onWait = {},
                              std::chrono::milliseconds retryEvery = std::chrono::milliseconds(200));
    // Non-blocking single attempt.
    bool tryAcquire(int device);
    void release();
    bool isHeld() const { return m_fd >= 0 && m_held; }

private:
    bool open(int device);

    int m_fd = -1;
    bool m_held = false;
    QString m_path;
};

} // namespace hotkernel
