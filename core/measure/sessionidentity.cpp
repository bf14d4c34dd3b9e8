// SPDX-License-Identifier: Apache-2.0
#include "measure/sessionidentity.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace hotkernel::SessionIdentity {

namespace {
// The variables that decide what a verify measures.
const char *const Variables[] = {"HOTKERNEL_PYTHON", "CUDA_VISIBLE_DEVICES", "PYTHONPATH"};

// The binary this process runs. On Linux through /proc, so that a binary rebuilt since the
// session started reads "... (deleted)" there and a CLI of the new build does not join the old.
QString executable()
{
    const QString running = QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget();
    return running.isEmpty() ? QCoreApplication::applicationFilePath() : running;
}

QString shown(const std::string &value)
{
    return value.empty() ? QStringLiteral("(unset)") : toQt(value);
}
} // namespace

Json of(const QString &hostDisplay, const QString &servedBy)
{
    Json environment = Json::object();
    for (const char *name : Variables)
        environment[name] = toStd(qEnvironmentVariable(name));
    return Json{{"served_by", toStd(servedBy)},
                {"pid", QCoreApplication::applicationPid()},
                {"host", toStd(hostDisplay)},
                {"executable", toStd(executable())},
                {"environment", std::move(environment)}};
}

namespace {
// A field of a peer's identity; a value of the wrong type reads as absent (the peer is the user's
// own process, but a message of the wrong shape must not end this one).
std::string field(const Json &identity, const char *key)
{
    const auto it = identity.find(key);
    return it != identity.end() && it->is_string() ? it->get<std::string>() : std::string();
}

qint64 pidOf(const Json &identity)
{
    const auto it = identity.find("pid");
    return it != identity.end() && it->is_number_integer() ? it->get<qint64>() : 0;
}

} // namespace

QString howToEnd(const Json &identity)
{
    const QString by = toQt(field(identity, "served_by"));
    if (by == QLatin1String("hotkernel serve") && pidOf(identity) > 0)
        return QStringLiteral("end that session (kill %1)").arg(pidOf(identity));
    if (by == QLatin1String("the workbench window"))
        return QStringLiteral("close that window");
    return QStringLiteral("end that session");
}

QString describe(const Json &identity)
{
    if (!identity.is_object())
        return QStringLiteral("a session of an older hotkernel");
    const std::string by = field(identity, "served_by");
    const QString name = by.empty() ? QStringLiteral("a session") : toQt(by);
    const qint64 pid = pidOf(identity);
    return pid > 0 ? QStringLiteral("%1 (pid %2)").arg(name).arg(pid) : name;
}

QString mismatch(const Json &identity, const QString &host)
{
    if (!identity.is_object() || !identity.contains("environment") || !identity["environment"].is_object()) {
        return QStringLiteral("the session serving this directory does not say which interpreter it measures "
                              "with (a hotkernel older than this one); end it, or call with --no-session");
    }
    const std::string theirExecutable = field(identity, "executable");
    if (theirExecutable != toStd(executable())) {
        return QStringLiteral(
                   "the session serving this directory, %1, runs %2 and this call is %3 (a rebuilt or "
                   "another hotkernel); %4, or call with --no-session")
            .arg(describe(identity), shown(theirExecutable), executable(), howToEnd(identity));
    }
    const std::string theirHost = field(identity, "host");
    if (theirHost != toStd(host)) {
        return QStringLiteral("the session serving this directory, %1, runs its workers on %2 and this call "
                              "on %3; pick the host in that session, %4, or call with --no-session")
            .arg(describe(identity), shown(theirHost), host, howToEnd(identity));
    }
    const Json &theirs = identity["environment"];
    for (const char *name : Variables) {
        const std::string mine = toStd(qEnvironmentVariable(name));
        const std::string its = field(theirs, name);
        if (mine != its) {
            return QStringLiteral("the session serving this directory, %1, runs with %2=%3 and this call has "
                                  "%2=%4; call with its environment, %5, or call with --no-session")
                .arg(describe(identity), QString::fromLatin1(name), shown(its), shown(mine),
                     howToEnd(identity));
        }
    }
    return {};
}

} // namespace hotkernel::SessionIdentity
