// SPDX-License-Identifier: Apache-2.0
// Stops every process below one supervisor and resumes them when destroyed (issue 41: while one
// side of a verify runs, the other side's whole tree stands still). The constructor blocks (walks
// of /proc and a short wait until each process has stopped): run it on the thread pool. thaw()
// and the destructor only send signals and may run on any thread.
#pragma once

#include <QList>
#include <QString>

#include <vector>

namespace hotkernel {

class TreeFreeze
{
public:
    // Stops every descendant of root. A hotkernel-supervise root itself keeps running (it must stay
    // able to end the tree if hotkernel dies); any other root (a worker started without the helper)
    // is stopped too. Refuses (error()) a root that is hotkernel itself, one of its ancestors, or
    // pid 1 or below: nothing outside the given tree is ever signalled.
    explicit TreeFreeze(long long root);
    ~TreeFreeze();
    TreeFreeze(const TreeFreeze &) = delete;
    TreeFreeze &operator=(const TreeFreeze &) = delete;

    // Resumes every process this object stopped; idempotent.
    void thaw();
    // The processes this object stopped (those that exited meanwhile included).
    int stopped() const { return int(m_pids.size()); }
    const QList<long long> &pids() const { return m_pids; }
    // Of those, how many were not seen stopped within the wait (a process inside a long system
    // call, such as a driver's, stops when the call returns).
    int unconfirmed() const { return m_unconfirmed; }
    // How many walks of /proc it took until one found nothing new to stop.
    int walks() const { return m_walks; }
    // root's descendants now (zombies included), from the children files where the kernel has them
    // (a read per process of the tree), else or when everyProcess from every process's parent.
    static QList<long long> below(long long root, bool everyProcess = false);
    // Why nothing was stopped (a refused root, a root already gone), else empty.
    const QString &error() const { return m_error; }

private:
    struct Held
    {
        long long pid;
        int pidfd; // -1 where the kernel has no pidfd_open (before 5.3): signalled by pid then
    };
    bool stopOne(long long pid, long long root);
    void waitStopped(size_t from);

    std::vector<Held> m_held; // until thawed
    QList<long long> m_pids;  // kept after the thaw, for the report
    int m_unconfirmed = 0;
    int m_walks = 0;
    QString m_error;
};

} // namespace hotkernel
