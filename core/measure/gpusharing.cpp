// SPDX-License-Identifier: Apache-2.0
#include "measure/gpusharing.h"

#include "process/processancestry.h"

#include <QFile>

#include <algorithm>
#include <map>

#include <unistd.h>

namespace hotkernel::GpuSharing {

long long processGroupOf(long long pid)
{
    return ProcessAncestry::statField(pid, 2).value_or(0);
}

void attribute(std::vector<Other> &others, const std::vector<PeerProcess> &peers,
               const std::function<long long(long long)> &groupOf)
{
    for (Other &o : others) {
        const long long group = groupOf(o.pid);
        if (group <= 0)
            continue;
        o.group = group;
        for (const PeerProcess &p : peers) {
            if (p.group != group)
                continue;
            o.session = p.session;
            o.role = p.role;
            o.howToEnd = p.howToEnd;
            o.socket = p.socket;
            break;
        }
    }
}

QStringList socketsWithSpares(const std::vector<Other> &others)
{
    QStringList sockets;
    for (const Other &o : others) {
        if (o.role == QLatin1String("spare") && !o.socket.isEmpty() && !sockets.contains(o.socket))
            sockets.append(o.socket);
    }
    return sockets;
}

QString releasedSpares(const std::vector<Other> &others, const std::vector<Json> &answers)
{
    QStringList parts;
    for (const Other &o : others) {
        if (o.role != QLatin1String("spare"))
            continue;
        bool ended = false;
        for (const Json &a : answers) {
            if (stringField(a, "socket") != o.socket || !a.contains("released") || !a["released"].is_array())
                continue;
            for (const Json &g : a["released"])
                ended = ended || (g.is_number_integer() && g.get<long long>() == o.group);
        }
        parts.append(QStringLiteral("pid %1 of %2%3")
                         .arg(o.pid)
                         .arg(o.session, ended ? QString() : QStringLiteral(" (not confirmed ended)")));
    }
    return QStringLiteral(
               "idle spare workers of other hotkernel sessions held this GPU (%1); they were asked "
               "to end for the timed runs and start again after their session's next bench or "
               "verify")
        .arg(parts.join(QStringLiteral(", ")));
}

QString howToFree(const std::vector<Other> &others)
{
    QStringList parts;
    for (const Other &o : others) {
        if (o.session.isEmpty())
            continue;
        const QString part = QStringLiteral("%1: %2").arg(o.session, o.howToEnd);
        if (!parts.contains(part))
            parts.append(part);
    }
    return parts.join(QStringLiteral("; "));
}

bool allOfSessions(const std::vector<Other> &others)
{
    if (others.empty())
        return false;
    for (const Other &o : others) {
        if (o.session.isEmpty())
            return false;
    }
    return true;
}

bool isVisibleProcess(long long pid)
{
    return pid > 0 && QFile::exists(QStringLiteral("/proc/%1").arg(pid));
}

bool isOwnProcess(long long pid)
{
    return ProcessAncestry::descendsFrom(pid, {static_cast<long long>(::getpid())}) >= 0;
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

void addActivity(std::vector<Other> &others, const Json &utilization)
{
    if (!utilization.is_object() || !utilization.value("known", false))
        return;
    std::map<long long, double> busiest;
    for (const Json &p : utilization.value("processes", Json::array())) {
        if (!p.is_object() || !p.contains("pid") || !p["pid"].is_number_integer())
            continue;
        const double sm = p.contains("sm_percent_max") && p["sm_percent_max"].is_number()
                              ? p["sm_percent_max"].get<double>()
                              : 0;
        const double memory = p.contains("mem_percent_max") && p["mem_percent_max"].is_number()
                                  ? p["mem_percent_max"].get<double>()
                                  : 0;
        // Memory traffic with no SM time (a copy engine) is still work on the card.
        double &entry = busiest[p["pid"].get<long long>()];
        entry = std::max({entry, sm, memory});
    }
    for (Other &o : others) {
        const auto it = busiest.find(o.pid);
        o.busyPercentMax = it == busiest.end() ? 0 : it->second;
    }
}

std::vector<Other> computing(const std::vector<Other> &others, std::vector<Other> *idle)
{
    std::vector<Other> busy;
    for (const Other &o : others) {
        if (o.busyPercentMax == 0) {
            if (idle)
                idle->push_back(o);
        } else {
            busy.push_back(o);
        }
    }
    return busy;
}

QString describe(const std::vector<Other> &others)
{
    QStringList parts;
    for (const Other &o : others) {
        QString text = QStringLiteral("pid %1").arg(o.pid);
        if (!o.name.isEmpty())
            text += QLatin1Char(' ') + o.name;
        QStringList details;
        if (o.memoryMib >= 0)
            details.append(QStringLiteral("%1 MiB").arg(o.memoryMib));
        if (o.busyPercentMax == 0)
            details.append(QStringLiteral("idle"));
        else if (o.busyPercentMax > 0)
            details.append(QStringLiteral("busy up to %1%").arg(o.busyPercentMax));
        if (!o.session.isEmpty())
            details.append(QStringLiteral("%1 worker of %2").arg(o.role, o.session));
        if (!details.isEmpty())
            text += QStringLiteral(" (%1)").arg(details.join(QStringLiteral(", ")));
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
