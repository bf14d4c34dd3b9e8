// SPDX-License-Identifier: Apache-2.0
#include "measure/gpusharing.h"

#include "base/boundedfile.h"

#include <QFile>

#include <unistd.h>

namespace hotkernel::GpuSharing {

namespace {
// The parent pid from /proc/PID/stat; 0 when the process is gone.
long long parentOf(long long pid)
{
    const BoundedFile::Read stat = BoundedFile::read(QStringLiteral("/proc/%1/stat").arg(pid), 64 * 1024);
    if (!stat.ok())
        return 0;
    const QByteArray &text = stat.bytes;
    // The command name is in parentheses and may hold spaces or ')': read after the last one.
    const qsizetype close = text.lastIndexOf(')');
    if (close < 0)
        return 0;
    const QList<QByteArray> fields = text.mid(close + 2).split(' ');
    return fields.size() > 1 ? fields.at(1).toLongLong() : 0;
}
} // namespace

bool isVisibleProcess(long long pid)
{
    return pid > 0 && QFile::exists(QStringLiteral("/proc/%1").arg(pid));
}

bool isOwnProcess(long long pid)
{
    const long long self = ::getpid();
    // Bounded: a chain of parents is short, and a race with exiting processes must not loop.
    for (int depth = 0; pid > 1 && depth < 256; ++depth) {
        if (pid == self)
            return true;
        pid = parentOf(pid);
    }
    return false;
}

std::vector<Other> others(const Json &gpu, const std::function<bool(long long)> &isOurs,
                          const std::function<bool(long long)> &isVisible)
{
    std::vector<Other> found;
    if (!gpu.is_object() || !gpu.contains("busy_processes") || !gpu["busy_processes"].is_array())
        return found;
    for (const Json &p : gpu["busy_processes"]) {
        Other o;
        if (p.is_number_integer()) {
            o.pid = p.get<long long>();
        } else if (p.is_object()) {
            if (p.contains("pid") && p["pid"].is_number_integer())
                o.pid = p["pid"].get<long long>();
            o.name = stringField(p, "process_name", stringField(p, "name"));
            if (p.contains("used_memory_mib") && p["used_memory_mib"].is_number())
                o.memoryMib = p["used_memory_mib"].get<double>();
        }
        if (o.pid <= 0 || !isVisible(o.pid) || isOurs(o.pid))
            continue;
        found.push_back(o);
    }
    return found;
}

QString describe(const std::vector<Other> &others)
{
    QStringList parts;
    for (const Other &o : others) {
        QString text = QStringLiteral("pid %1").arg(o.pid);
        if (!o.name.isEmpty())
            text += QLatin1Char(' ') + o.name;
        if (o.memoryMib >= 0)
            text += QStringLiteral(" (%1 MiB)").arg(o.memoryMib);
        parts.append(text);
    }
    return parts.join(QStringLiteral(", "));
}

void merge(std::vector<Other> &a, const std::vector<Other> &b)
{
    for (const Other &o : b) {
        bool known = false;
        for (const Other &x : a)
            known = known || x.pid == o.pid;
        if (!known)
            a.push_back(o);
    }
}

} // namespace hotkernel::GpuSharing
