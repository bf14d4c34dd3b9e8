// SPDX-License-Identifier: Apache-2.0
#include "session/session.h"

#include "base/logging.h"
#include "base/usererror.h"
#include "inspect/localhost.h"
#include "measure/measuresetup.h"
#include "measure/workerpool.h"
#include "remote/remotehost.h"
#include "session/argumentaliases.h"
#include "session/schemavalidator.h"

#include <QCoroSignal>
#include <QCoroTimer>
#include <QCryptographicHash>
#include <QDir>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {
// The same result must have the same digest after a trip through any JSON client: keys sorted
// (a JavaScript object puts integer-like keys first), every number a double (JSON.stringify
// writes 2.0 as 2), no negative zero (JSON.stringify writes -0 as 0).
nlohmann::json canonical(const Json &value)
{
    if (value.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto &[key, item] : value.items())
            out[key] = canonical(item);
        return out;
    }
    if (value.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &item : value)
            out.push_back(canonical(item));
        return out;
    }
    if (value.is_number()) {
        const double d = value.get<double>();
        return d == 0 ? 0.0 : d;
    }
    return nlohmann::json(value);
}
} // namespace

Session::Session(ToolRegistry tools, SessionOptions options, QObject *parent)
    : QObject(parent), m_options(std::move(options)),
      m_workDir(m_options.workDir.isEmpty() ? QDir::currentPath() : m_options.workDir),
      m_tools(std::move(tools)), m_python(m_options.python), m_workers(std::make_unique<WorkerPool>(this)),
      m_localHost(std::make_unique<LocalHost>(m_python))
{
    useHost(m_options.host.isEmpty() ? qEnvironmentVariable("HOTKERNEL_HOST") : m_options.host);
    bool given = false;
    const int spares = qEnvironmentVariableIntValue("HOTKERNEL_SPARES", &given);
    m_workers->setSpareCount(given ? spares : m_options.spares);
}

void Session::useHost(const QString &host)
{
    m_hostText = host.trimmed();
    m_hostError.clear();
    if (const std::optional<HostUrl> url = HostUrl::parse(m_hostText, &m_hostError); url && !url->isLocal())
        m_remote = new RemoteHost(*url, m_workDir.root(), this);
}

QString Session::hostDisplay() const
{
    if (m_remote)
        return m_remote->display();
    return m_hostText.isEmpty() ? QStringLiteral("local") : m_hostText;
}

namespace {
bool holdsTargets(const QString &root)
{
    const QStringList pattern{QStringLiteral("*_baseline.py")};
    if (!QDir(root).entryList(pattern, QDir::Files).isEmpty())
        return true;
    const QStringList folders = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    return std::any_of(folders.begin(), folders.end(), [&](const QString &folder) {
        return !folder.startsWith(QLatin1Char('.')) &&
               !QDir(root + QLatin1Char('/') + folder).entryList(pattern, QDir::Files).isEmpty();
    });
}

} // namespace

QCoro::Task<void> Session::warmSpares()
{
    if (m_remote || m_workers->spareCount() == 0 || !holdsTargets(m_workDir.root()))
        co_return;
    const QPointer<Session> self(this);
    PythonInfo python;
    try {
        python = co_await m_python.locate();
    } catch (const std::exception &e) {
        qCDebug(lcSession) << "no spare workers at the session's start:" << e.what();
        co_return;
    }
    // A job that started meanwhile refills the spares when it ends; starting them now would compete.
    if (!self || m_remote || !runningJobs().isEmpty())
        co_return;
    m_workers->refillSpares(SpareRecipe{python.path, MeasureSetup::witnessTracer(*this)});
}

bool Session::setHost(const QString &host, QString *error)
{
    QString problem;
    if (!HostUrl::parse(host, &problem)) {
        *error = problem;
        return false;
    }
    if (const QList<Job *> running = runningJobs(); !running.isEmpty()) {
        QStringList names;
        for (const Job *j : running)
            names.append(QStringLiteral("%1 (%2)").arg(j->tool(), j->client()));
        *error = QStringLiteral("The host stays %1 while %2 runs there: wait for it or cancel it, then "
                                "change the host.")
                     .arg(hostDisplay(), names.join(QStringLiteral(", ")));
        return false;
    }
    m_workers->clear();
    if (m_remote) {
        m_remote->disconnect();
        m_remote->deleteLater();
        m_remote = nullptr;
    }
    useHost(host);
    Q_EMIT hostChanged();
    return true;
}

Session::~Session()
{
    cancelAll();
}

Host &Session::host()
{
    // The one place that chooses (issue 40): the runners take the Host and never ask which.
    if (m_remote)
        return *m_remote;
    return *m_localHost;
}

WorkerPool &Session::workers()
{
    return *m_workers;
}

Job *Session::start(const QString &tool, Json arguments, const QString &client)
{
    auto *job = new Job(m_nextJobId++, tool, arguments, client, this);
    m_jobs.emplace(job->id(), job);
    Q_EMIT jobStarted(job);
    runJob(job, m_tools.find(tool));
    return job;
}

QCoro::Task<ToolResult> Session::call(const QString &tool, Json arguments, const QString &client)
{
    QPointer<Job> job = start(tool, std::move(arguments), client);
    if (job && job->state() == Job::State::Running)
        co_await qCoro(job.data(), &Job::finished);
    co_return job ? job->result()
                  : ToolResult::error(QStringLiteral("the session ended before the job finished"));
}

QCoro::Task<void> Session::runJob(Job *jobPointer, const ToolSpec *spec)
{
    // The Session may be deleted during any co_await below (the window closes, the MCP server
    // stops); its jobs and its tool registry go with it. See docs/hacking.md, "Coroutines".
    const QPointer<Session> self(this);
    const QPointer<Job> job(jobPointer);
    // Let the caller connect to the job before anything can finish it.
    co_await QCoro::sleepFor(std::chrono::milliseconds(0));
    if (!self || !job)
        co_return;

    ToolResult result;
    // The original hotkernel's argument names become ours before the schema sees them.
    QString problem;
    const Json given = spec ? ArgumentAliases::apply(*spec, job->arguments(), m_workDir, &problem) : Json();
    if (isShuttingDown()) {
        result = ToolResult::error(m_shutdownReason);
    } else if (!spec) {
        result =
            ToolResult::error(QStringLiteral("There is no tool '%1'. Tools: %2.").arg(job->tool(), [this] {
                QStringList names;
                for (const auto &s : m_tools.all())
                    names.append(s.name);
                return names.join(QStringLiteral(", "));
            }()));
    } else if (!problem.isEmpty() ||
               !(problem = SchemaValidator::validate(spec->inputSchema, given)).isEmpty()) {
        result = ToolResult::error(
            QStringLiteral("%1: invalid arguments: %2. See the tool's input schema (tools/list) "
                           "or `hotkernel %3 --help`.")
                .arg(spec->name, problem, spec->cliVerb));
    } else {
        const Json arguments = SchemaValidator::withDefaults(spec->inputSchema, given);
        bool holdsGpu = false;
        if (spec->timesGpu) {
            if (m_gpuLock.isHeld())
                job->setProgress(0, std::nullopt,
                                 QStringLiteral("waiting for the GPU (another timing job runs)"));
            holdsGpu = co_await m_gpuLock.acquire(job);
        }
        if (!self || !job)
            co_return;
        // spec points into m_tools: copied, so that a handler that throws after the Session is
        // gone can still be named.
        const QString toolName = spec->name;
        if (job->isCancelled()) {
            result = ToolResult::cancelledResult();
        } else {
            QString userError;
            UserError::Kind errorKind = UserError::Kind::General;
            try {
                result = co_await spec->handler(*this, arguments, *job);
            } catch (const UserError &e) {
                userError = e.message();
                errorKind = e.kind();
            } catch (const std::exception &e) {
                qCWarning(lcSession) << toolName << "failed:" << e.what();
                result = ToolResult::error(
                    QStringLiteral("%1 failed unexpectedly: %2. This is a bug in hotkernel; "
                                   "please report it with the arguments you used.")
                        .arg(toolName, QString::fromUtf8(e.what())));
            }
            if (!userError.isEmpty()) {
                // A worker that died with its Slurm allocation says only that it died; the
                // allocation knows why (a time limit, scancel, preemption) and what to do.
                // No ?: around a co_await (docs/hacking.md).
                QString ended;
                if (self && m_remote && errorKind != UserError::Kind::HostEnded)
                    ended = co_await m_remote->whyEnded(userError);
                result = ToolResult::error(
                    ended.isEmpty() ? userError : ended + QStringLiteral(" What failed: ") + userError);
            }
        }
        if (!self)
            co_return;
        if (holdsGpu)
            m_gpuLock.release();
    }
    if (!self || !job)
        co_return;
    // Here, not in the verify tool, so that a swapped-in verify (tests) is vouched for the same way.
    if (spec && spec->resultKind == ToolSpec::ResultKind::Verify && !result.isError && !result.cancelled &&
        result.structured.is_object()) {
        // The id is part of the result before its digest is taken: the whole result, id included,
        // stays recordable as before.
        const QString id = m_resultIds.issue(QStringLiteral("verify"), result.structured);
        result.text +=
            QStringLiteral("\nverify_id: %1 (record(target, verify_id) records this verify once)\n").arg(id);
        vouchForVerify(result.structured);
    }
    // After the id: a verify's typed value carries it.
    if (spec)
        spec->attachValue(result);
    job->finish(std::move(result));
    Q_EMIT jobFinished(job);
    pruneFinished();
}

QByteArray Session::verifyDigest(const Json &verifyResult)
{
    // replace: the MCP server writes invalid UTF-8 the same way, so such a result still matches.
    const std::string text = canonical(verifyResult).dump(-1, ' ', false, Json::error_handler_t::replace);
    return QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Sha256).toHex();
}

void Session::vouchForVerify(const Json &verifyResult)
{
    m_verifyVouchers.insert(verifyDigest(verifyResult));
}

bool Session::vouchesForVerify(const Json &verifyResult) const
{
    return m_verifyVouchers.count(verifyDigest(verifyResult)) > 0;
}

bool Session::takeVerifyVoucher(const QByteArray &digest)
{
    if (m_verifyVouchers.erase(digest) == 0)
        return false;
    m_recordedVerifies.insert(digest);
    return true;
}

void Session::returnVerifyVoucher(const QByteArray &digest)
{
    m_recordedVerifies.erase(digest);
    m_verifyVouchers.insert(digest);
}

void Session::cancel(quint64 jobId)
{
    if (Job *j = job(jobId)) {
        j->cancel();
        m_gpuLock.poke();
    }
}

void Session::beginShutdown(const QString &why)
{
    if (m_shutdownReason.isEmpty())
        m_shutdownReason = why;
    cancelAll();
}

void Session::cancelAll(const QString &client)
{
    for (Job *j : runningJobs()) {
        if (client.isEmpty() || j->client() == client)
            j->cancel();
    }
    m_gpuLock.poke();
}

Job *Session::job(quint64 id) const
{
    const auto it = m_jobs.find(id);
    return it == m_jobs.end() ? nullptr : it->second.data();
}

QList<Job *> Session::runningJobs() const
{
    QList<Job *> list;
    for (const auto &[id, j] : m_jobs) {
        if (j && j->state() == Job::State::Running)
            list.append(j);
    }
    return list;
}

QList<Job *> Session::jobs() const
{
    QList<Job *> list;
    for (const auto &[id, j] : m_jobs) {
        if (j)
            list.append(j);
    }
    return list;
}

void Session::pruneFinished()
{
    qsizetype finished = 0;
    for (const auto &[id, j] : m_jobs)
        finished += (j && j->state() != Job::State::Running) ? 1 : 0;
    for (auto it = m_jobs.begin(); it != m_jobs.end() && finished > m_options.keepFinishedJobs;) {
        if (!it->second) {
            it = m_jobs.erase(it);
        } else if (it->second->state() != Job::State::Running) {
            it->second->deleteLater();
            it = m_jobs.erase(it);
            --finished;
        } else {
            ++it;
        }
    }
}

} // namespace hotkernel
