// SPDX-License-Identifier: Apache-2.0
#include "process/treefreeze.h"

#include "base/boundedfile.h"
#include "process/processancestry.h"
#include "process/supervisor.h"

#include <QElapsedTimer>

#include <cerrno>
#include <csignal>
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <set>
#include <thread>

namespace hotkernel {

namespace {

// A stop is asynchronous: a process running on another core stops at its next return to user
// space, one inside a system call when the call returns. Two seconds covers a loaded machine; a
// process still running after that is counted (unconfirmed()), and the next walk looks again.
constexpr qint64 StopWaitMs = 2000;
// Each walk stops everything it finds and stopped processes cannot fork, so the tree can only grow
// by what was forked before the stops landed: a handful of walks in practice.
constexpr int MaxWalks = 64;

// The pid's process, by a descriptor that cannot come to name another process (pid reuse); -1
// where the kernel lacks pidfd_open (the pid itself is used then), -2 when the process is gone.
int openPidfd(long long pid)
{
#ifdef SYS_pidfd_open
    const long fd = ::syscall(SYS_pidfd_open, pid_t(pid), 0);
    if (fd >= 0)
        return int(fd);
    return errno == ENOSYS ? -1 : -2;
#else
    Q_UNUSED(pid);
    return -1;
#endif
}

bool sendSignal(long long pid, int pidfd, int signal)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0)
        return ::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0;
#endif
    return ::kill(pid_t(pid), signal) == 0;
}

// Every process on the machine with its parent, in one pass over /proc.
std::map<long long, long long> listProcesses()
{
    std::map<long long, long long> all;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return all;
    while (const dirent *e = ::readdir(proc)) {
        char *end = nullptr;
        const long long pid = std::strtoll(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        const std::optional<QList<QByteArray>> fields = ProcessAncestry::statFields(pid);
        if (fields && fields->size() > 1)
            all.emplace(pid, fields->at(1).toLongLong());
    }
    ::closedir(proc);
    return all;
}

// Every descendant of root, from a full pass over /proc: for kernels without the children files.
std::vector<long long> treeFromAllProcesses(long long root)
{
    std::multimap<long long, long long> children;
    for (const auto &[pid, parent] : listProcesses())
        if (pid != root)
            children.emplace(parent, pid);
    std::vector<long long> tree;
    std::vector<long long> frontier{root};
    std::set<long long> seen{root};
    while (!frontier.empty()) {
        const long long parent = frontier.back();
        frontier.pop_back();
        const auto [from, to] = children.equal_range(parent);
        for (auto it = from; it != to; ++it)
            if (seen.insert(it->second).second) {
                frontier.push_back(it->second);
                tree.push_back(it->second);
            }
    }
    return tree;
}

// The children of each of pid's threads (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN).
std::vector<long long> childrenOf(long long pid)
{
    std::vector<long long> children;
    const QByteArray tasks = QByteArray("/proc/") + QByteArray::number(pid) + "/task";
    DIR *dir = ::opendir(tasks.constData());
    if (!dir)
        return children; // gone
    while (const dirent *e = ::readdir(dir)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        const BoundedFile::Read read =
            BoundedFile::read(QString::fromLatin1(tasks + '/' + e->d_name + "/children"), 1024 * 1024);
        for (const QByteArray &child : read.bytes.simplified().split(' '))
            if (const long long c = child.toLongLong(); c > 0)
                children.push_back(c);
    }
    ::closedir(dir);
    return children;
}

bool haveChildrenFiles()
{
    static const bool have =
        BoundedFile::read(QStringLiteral("/proc/%1/task/%1/children").arg(::getpid()), 1024 * 1024).ok();
    return have;
}

// root's descendants. The children files cost a read per process of the tree, where a full pass
// reads every process on the machine (hundreds: milliseconds per walk, and a freeze walks at least
// twice). Their kernel documentation warns that a list read while the tree changes can miss a
// child: the walks repeat until one finds nothing new, and by then everything found is stopped.
std::vector<long long> treeBelow(long long root, bool everyProcess)
{
    if (everyProcess || !haveChildrenFiles())
        return treeFromAllProcesses(root);
    std::vector<long long> tree;
    std::vector<long long> frontier{root};
    std::set<long long> seen{root};
    while (!frontier.empty()) {
        const long long parent = frontier.back();
        frontier.pop_back();
        for (long long child : childrenOf(parent))
            if (seen.insert(child).second) {
                frontier.push_back(child);
                tree.push_back(child);
            }
    }
    return tree;
}

bool hasStopped(long long pid)
{
    const std::optional<QList<QByteArray>> fields = ProcessAncestry::statFields(pid);
    if (!fields || fields->isEmpty() || fields->at(0).isEmpty())
        return true; // gone: it runs nothing
    const char state = fields->at(0).at(0);
    return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

} // namespace

TreeFreeze::TreeFreeze(long long root)
{
    const QList<long long> self = ProcessAncestry::lineOf(::getpid());
    if (root <= 1 || self.contains(root)) {
        m_error =
            QStringLiteral("process %1 is hotkernel itself or one of its ancestors, not a worker's tree")
                .arg(root);
        return;
    }
    if (!ProcessAncestry::statField(root, 0)) {
        m_error = QStringLiteral("process %1 has exited").arg(root);
        return;
    }
    const bool rootToo = !Supervisor::isSupervisor(root);
    std::set<long long> tried;
    while (m_walks < MaxWalks) {
        ++m_walks;
        const size_t before = m_held.size();
        std::vector<long long> tree = treeBelow(root, false);
        if (rootToo)
            tree.insert(tree.begin(), root);
        for (long long pid : tree)
            if (tried.insert(pid).second)
                stopOne(pid, root);
        if (m_held.size() == before)
            return;
        // Only stopped processes have finished every fork they began: their children are in /proc
        // for the next walk.
        waitStopped(before);
    }
    m_error = QStringLiteral("new processes kept appearing below %1 after %2 walks").arg(root).arg(MaxWalks);
}

QList<long long> TreeFreeze::below(long long root, bool everyProcess)
{
    const std::vector<long long> tree = treeBelow(root, everyProcess);
    return QList<long long>(tree.begin(), tree.end());
}

TreeFreeze::~TreeFreeze()
{
    thaw();
}

bool TreeFreeze::stopOne(long long pid, long long root)
{
    // A zombie runs nothing and cannot be stopped.
    const std::optional<QList<QByteArray>> fields = ProcessAncestry::statFields(pid);
    if (!fields || fields->isEmpty() || fields->at(0).startsWith('Z'))
        return false;
    const int pidfd = openPidfd(pid);
    if (pidfd == -2)
        return false;
    // Asked again now that the descriptor pins the process: a pid freed and reused by a process
    // outside the tree since the walk would fail here (its line lacks root) or at the signal (the
    // descriptor's process is gone).
    const QList<long long> line = ProcessAncestry::lineOf(pid);
    if (line.isEmpty() || !line.contains(root) || pid == ::getpid() || !sendSignal(pid, pidfd, SIGSTOP)) {
        if (pidfd >= 0)
            ::close(pidfd);
        return false;
    }
    m_held.push_back({pid, pidfd});
    m_pids << pid;
    return true;
}

void TreeFreeze::waitStopped(size_t from)
{
    QElapsedTimer waited;
    waited.start();
    std::vector<long long> pending;
    for (size_t k = from; k < m_held.size(); ++k)
        pending.push_back(m_held[k].pid);
    while (!pending.empty()) {
        std::erase_if(pending, hasStopped);
        if (pending.empty() || waited.elapsed() >= StopWaitMs)
            break;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    m_unconfirmed += int(pending.size());
}

void TreeFreeze::thaw()
{
    for (const Held &h : m_held) {
        sendSignal(h.pid, h.pidfd, SIGCONT);
        if (h.pidfd >= 0)
            ::close(h.pidfd);
    }
    m_held.clear();
}

} // namespace hotkernel
