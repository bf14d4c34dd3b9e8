// SPDX-License-Identifier: Apache-2.0
#include "mcp/sessionidentity.h"

#include "session/session.h"

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

Json of(const Session &session, const QString &servedBy)
{
    Json environment = Json::object();
    for (const char *name : Variables)
        environment[name] = toStd(qEnvironmentVariable(name));
    return Json{{"served_by", toStd(servedBy)},
                {"pid", QCoreApplication::applicationPid()},
                {"host", toStd(session.hostDisplay())},
                {"executable", toStd(executable())},
                {"environment", std::move(environment)}};
}

QString describe(const Json &identity)
{
    if (!identity.is_object())
        return QStringLiteral("a session of an older hotkernel");
    const QString by = toQt(identity.value("served_by", std::string("a session")));
    const qint64 pid = identity.value("pid", qint64(0));
    return pid > 0 ? QStringLiteral("%1 (pid %2)").arg(by).arg(pid) : by;
}

QString mismatch(const Json &identity, const QString &host)
{
    if (!identity.is_object() || !identity.contains("environment") || !identity["environment"].is_object()) {
        return QStringLiteral("the session serving this directory does not say which interpreter it measures "
                              "with (a hotkernel older than this one); end it, or call with --no-session");
    }
    const std::string theirExecutable = identity.value("executable", std::string());
    if (theirExecutable != toStd(executable())) {
        return QStringLiteral(
                   "the session serving this directory, %1, runs %2 and this call is %3 (a rebuilt or "
                   "another hotkernel); end that session, or call with --no-session")
            .arg(describe(identity), shown(theirExecutable), executable());
    }
    const std::string theirHost = identity.value("host", std::string());
    if (theirHost != toStd(host)) {
        return QStringLiteral("the session serving this directory, %1, runs its workers on %2 and this call "
                              "on %3; pick the host in that session, or call with --no-session")
            .arg(describe(identity), shown(theirHost), host);
    }
    const Json &theirs = identity["environment"];
    for (const char *name : Variables) {
        const std::string mine = toStd(qEnvironmentVariable(name));
        const std::string its = theirs.value(name, std::string());
        if (mine != its) {
            return QStringLiteral(
                       "the session serving this directory, %1, runs with %2=%3 and this call has %2=%4; "
                       "call with its environment, end that session, or call with --no-session")
                .arg(describe(identity), QString::fromLatin1(name), shown(its), shown(mine));
        }
    }
    return {};
}

} // namespace hotkernel::SessionIdentity
