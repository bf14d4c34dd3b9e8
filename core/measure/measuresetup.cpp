// SPDX-License-Identifier: Apache-2.0
#include "measure/measuresetup.h"

#include "base/boundedfile.h"
#include "base/job.h"
#include "base/usererror.h"
#include "inspect/calibrationstore.h"
#include "inspect/cudatools.h"
#include "inspect/gpuprobe.h"
#include "measure/devicelock.h"
#include "measure/freshscriptrunner.h"
#include "measure/gpusharing.h"
#include "measure/measuresession.h"
#include "measure/workerpool.h"
#include "measure/workerscriptrunner.h"
#include "process/nativehelpers.h"
#include "remote/remotehost.h"
#include "remote/remotetoolbox.h"
#include "remote/syncset.h"

#include <QCoroFuture>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <unistd.h>

namespace hotkernel::MeasureSetup {

ScriptFile script(MeasureSession &session, const Json &arguments, const char *key)
{
    ScriptFile s;
    s.given = stringField(arguments, key);
    if (s.given.isEmpty())
        throw UserError(
            QStringLiteral("%1 is empty: give the path of a target script made by `hotkernel new`.")
                .arg(QLatin1String(key)));
    s.path = session.workDir().absolute(s.given);
    const QFileInfo info(s.path);
    if (!info.exists())
        throw UserError(
            QStringLiteral("%1 %2 does not exist (looked for %3). Give the path of a script made by "
                           "`hotkernel new`, relative to %4 or absolute.")
                .arg(QLatin1String(key), s.given, s.path, session.workDir().root()));
    if (!info.isFile())
        throw UserError(
            QStringLiteral("%1 %2 is not a file; give the path of a NAME_baseline.py or NAME_candidate.py.")
                .arg(QLatin1String(key), s.given));
    if (!info.isReadable())
        throw UserError(
            QStringLiteral("%1 %2 is not readable; check its permissions.").arg(QLatin1String(key), s.given));
    if (info.suffix() != QLatin1String("py"))
        throw UserError(
            QStringLiteral(
                "%1 %2 is not a Python script (.py); give a target script made by `hotkernel new`.")
                .arg(QLatin1String(key), s.given));
    s.path = info.absoluteFilePath();
    return s;
}

QString sha256OfFile(const QString &path)
{
    return BoundedFile::sha256Hex(path, BoundedFile::kScriptLimit);
}

QStringList sha256OfFilesNow(const QStringList &paths)
{
    QStringList hashes;
    for (const QString &path : paths)
        hashes.append(sha256OfFile(path));
    return hashes;
}

QCoro::Task<QStringList> sha256OfFiles(QStringList paths)
{
    // A named function, not a lambda, in the co_await (see docs/hacking.md).
    QStringList hashes = co_await QtConcurrent::run(&sha256OfFilesNow, paths);
    co_return hashes;
}

QString changedSource(const std::map<QString, QByteArray> &sources, const QString &unvouched)
{
    for (const auto &[path, reported] : sources) {
        if (reported.isEmpty())
            return path + unvouched;
        const QString now = sha256OfFile(path);
        if (now.isEmpty())
            return path + (QFileInfo::exists(path) ? QStringLiteral(" cannot be read")
                                                   : QStringLiteral(" vanished"));
        if (now.toLatin1() != reported)
            return path + QStringLiteral(" changed");
    }
    return {};
}

QString shippedContractSha256()
{
    // A resource compiled into the binary, not a file anyone names: read as such.
    QFile f(QStringLiteral(":/hotkernel/contract/_hotkernel_contract.py")); // not a named file: a resource
                                                                            // compiled into the binary
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLatin1(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex());
}

QCoro::Task<bool> prepareHost(MeasureSession &session, QStringList scripts, Job *job)
{
    if (!session.hostError().isEmpty())
        throw UserError(session.hostError());
    RemoteHost *remote = session.remote();
    if (!remote)
        co_return true;
    QStringList outside;
    const QStringList files = SyncSet::collect(session.workDir().root(), scripts, &outside);
    for (const QString &script : scripts) {
        if (QDir::cleanPath(script) != QDir::cleanPath(session.workDir().root()) &&
            !QDir::cleanPath(script).startsWith(QDir::cleanPath(session.workDir().root()) + QLatin1Char('/')))
            throw UserError(
                QStringLiteral("%1 lies outside the session's directory %2, which is what hotkernel "
                               "mirrors on %3: move the target below it, or start hotkernel in a "
                               "directory that holds it.")
                    .arg(script, session.workDir().root(), remote->display()));
    }
    if (!outside.isEmpty())
        job->log(QStringLiteral("not copied to %1 (outside %2): %3")
                     .arg(remote->display(), session.workDir().root(), outside.join(QStringLiteral(", "))));
    const QPointer<RemoteHost> alive(remote);
    const std::shared_ptr<const RemoteShell> shell = co_await remote->connect(job);
    if (!shell || !alive)
        co_return false;
    co_return co_await remote->sync(files, job);
}

Json hostJson(MeasureSession &session)
{
    return session.remote() ? session.remote()->hostJson() : Json();
}

QCoro::Task<PythonInfo> startingInterpreter(MeasureSession &session, Job *job)
{
    if (RemoteHost *remote = session.remote())
        co_return remote->python(); // probed when it connected (prepareHost)
    // Starting the workers at once saves the 2-3 s a torch import takes before them.
    if (const std::optional<PythonInfo> known = session.python().explicitInterpreter())
        co_return PythonInfo(*known); // a copy: QCoro 0.8 moves from lvalues (docs/hacking.md)
    job->setProgress(0, std::nullopt, QStringLiteral("looking for the Python interpreter"));
    co_return co_await session.python().locate(job);
}

QCoro::Task<PythonInfo> confirmedInterpreter(MeasureSession &session, const PythonInfo &python, Job *job)
{
    if (!python.torchVersion.isEmpty() || session.remote())
        co_return PythonInfo(python);
    co_return co_await session.python().locate(job);
}

QString witnessTracer(const MeasureSession &session)
{
    if (RemoteHost *remote = session.remote())
        return remote->toolCache().value(QStringLiteral("native:") + NativeHelpers::tracerFileName());
    return CudaTools::tracerLibrary();
}

QCoro::Task<void> prepareRemoteWitness(MeasureSession &session, Job *job)
{
    RemoteHost *remote = session.remote();
    if (!remote || remote->gpu().empty() || !witnessTracer(session).isEmpty())
        co_return;
    // A build that failed is not tried again on every verify of the connection (each try is a
    // CMake run there); the reason is logged each time.
    const QString failedKey = QStringLiteral("witness-unavailable");
    QString why = remote->toolCache().value(failedKey);
    if (why.isEmpty()) {
        const QPointer<RemoteHost> alive(remote);
        const QString tracerFile = NativeHelpers::tracerFileName();
        try {
            co_await RemoteToolbox::nativeHelper(remote, tracerFile, job);
        } catch (const UserError &e) {
            why = e.message();
            if (alive)
                alive->toolCache().insert(failedKey, why);
        }
        if (!alive)
            co_return;
    }
    // The runs go unwitnessed; verify's and bench's warning says so, this says why.
    if (!why.isEmpty() && job)
        job->log(QStringLiteral("no GPU witness on %1: %2").arg(remote->display(), why));
}

QCoro::Task<std::vector<QByteArray>>
judgeWorkers(MeasureSession &session, std::vector<std::pair<QString, QString>> roleScripts, PythonInfo python)
{
    // The interpreter's identity is its file (target, size, time), not the probed torch version,
    // so the key is known before the probe ends. A torch upgraded under a kept worker still
    // shows: each run line carries its versions, and verify calls differing versions invalid.
    const QFileInfo interpreter(python.path);
    const QString identity = session.remote()
                                 ? QString(python.source + QLatin1Char(' ') + python.torchVersion)
                                 : QString(interpreter.canonicalFilePath() + QLatin1Char(' ') +
                                           QString::number(interpreter.size()) + QLatin1Char(' ') +
                                           interpreter.lastModified().toString(Qt::ISODateWithMs));
    std::vector<WorkerPool::ReuseRequest> requests;
    for (const auto &[role, script] : roleScripts)
        requests.push_back({role, script, python.path, identity});
    co_return co_await session.workers().judgeReuse(std::move(requests));
}

PreparedRunner prepare(MeasureSession &session, const QString &role, const ScriptFile &script,
                       const PythonInfo &python, bool fresh, std::chrono::milliseconds timeout,
                       QPointer<Job> job, const QByteArray &workerKey)
{
    ScriptRunnerOptions options;
    options.python = python.path;
    options.script = script.path;
    options.displayName = script.given;
    options.timeout = timeout;
    // It records nothing until the contract's untimed witness replays.
    options.witnessTracer = witnessTracer(session);
    if (RemoteHost *remote = session.remote()) {
        options.remote = remote->shell();
        // A fresh process per run on a host is not witnessed: only a worker's supervisor streams
        // the tracer's file back.
        if (fresh)
            options.witnessTracer.clear();
    }
    PreparedRunner prepared;
    if (fresh) {
        prepared.runner = std::make_shared<FreshScriptRunner>(options);
    } else {
        WorkerLease lease = session.workers().acquire(role, options, workerKey);
        prepared.worker = lease.runner;
        prepared.runner = lease.runner;
        prepared.reused = lease.reused;
        prepared.fromSpare = lease.fromSpare;
    }
    prepared.runner->setJob(job);
    prepared.runner->start();
    return prepared;
}

WorkerRelease::WorkerRelease(MeasureSession &session, std::vector<PreparedRunner *> runners)
    : m_session(&session), m_alive(session.lifetime()), m_runners(std::move(runners))
{}

WorkerRelease::~WorkerRelease()
{
    // A slurm:// host with lifetime=verify gives its allocation back now, and its workers with it.
    if (m_alive && m_session->remote() && m_session->remote()->endOfRun())
        m_dropAll = true;
    std::optional<SpareRecipe> recipe;
    for (PreparedRunner *p : m_runners) {
        if (!p || !p->worker)
            continue;
        p->worker->setJob({});
        if (m_alive && (m_dropAll || !p->worker->isAlive()))
            m_session->workers().discard(p->worker);
        if (!p->worker->options().remote)
            recipe = SpareRecipe{p->worker->options().python, p->worker->options().witnessTracer};
    }
    // The next edit's worker should not pay for Python, torch and CUDA again (issue 23). Started
    // after the measurements, so that their start-up never competes with a timed run.
    if (m_alive && recipe && !m_dropAll)
        m_session->workers().refillSpares(*recipe);
}

QCoro::Task<PythonInfo> confirmedInterpreter(MeasureSession &session, const PythonInfo &python, Job *job,
                                             WorkerRelease &release)
{
    try {
        co_return co_await confirmedInterpreter(session, python, job);
    } catch (...) {
        release.dropAll();
        throw;
    }
}

QCoro::Task<bool> takeGpuLock(DeviceLock &deviceLock, std::shared_ptr<QProcess> &remoteLock,
                              QPointer<RemoteHost> remote, QPointer<Job> job,
                              std::chrono::milliseconds timeout)
{
    const std::function<void(const QString &)> onWait = [job](const QString &message) {
        if (job)
            job->setProgress(0, std::nullopt, message);
    };
    if (remote) {
        remoteLock = co_await remote->holdGpuLock(job, onWait, timeout);
        const bool held = remoteLock != nullptr;
        const bool taken = held && job && !job->isCancelled();
        co_return taken;
    }
    // Named arguments, no temporaries (docs/hacking.md, "Compiler rules").
    const int device = DeviceLock::currentDevice();
    const bool locked =
        co_await deviceLock.acquire(device, job, onWait, std::chrono::milliseconds(200), timeout);
    const bool taken = locked && job && !job->isCancelled();
    co_return taken;
}

QCoro::Task<Json> gpuSnapshot(MeasureSession &session, Job *job, QStringList *warnings)
{
    const QPointer<QObject> alive(session.lifetime());
    if (RemoteHost *remote = session.remote())
        // The host's card and its clocks now; its other users are not looked for from here.
        co_return co_await remote->gpuSnapshot(job);
    Json gpu = co_await GpuProbe::snapshot(job);
    if (!alive || !gpu.is_object())
        co_return Json::object();
    // Our kept workers run under their supervisors, below this process: not "another process".
    const std::vector<GpuSharing::Other> others = GpuSharing::others(gpu);
    if (warnings && !others.empty())
        warnings->append(QStringLiteral("another process is using the GPU: %1; its work can slow either side "
                                        "and blur the timings")
                             .arg(GpuSharing::describe(others)));
    co_return gpu;
}

QCoro::Task<CalibrationSnapshot> calibrations(QString workDir)
{
    // A named future, no lambda temporary in the co_await (docs/hacking.md, "Compiler rules").
    QFuture<CalibrationSnapshot> loading = QtConcurrent::run(&CalibrationStore::snapshot, workDir);
    co_await loading;
    co_return loading.result();
}

FloorCeilings floorCeilings(const Json &gpu, const Json &line, const CalibrationSnapshot &calibrations)
{
    QString name = stringField(gpu, "name");
    if (name.isEmpty())
        name = stringField(line, "device_name");
    const std::optional<MeasuredCeilings> measured =
        CalibrationStore::forDevice(calibrations, name, stringField(gpu, "uuid"));
    return PhysicalFloor::ceilings(CardTable::builtin().find(name), measured, stringField(line, "dtype"));
}

Json benchResultHead(const ScriptFile &script)
{
    Json r = Json::object();
    r["tool"] = "bench";
    r["hotkernel_version"] = HOTKERNEL_VERSION;
    r["script"] = toStd(script.given);
    r["script_path"] = toStd(script.path);
    r["script_sha256"] = toStd(script.sha256);
    return r;
}

Json verifyResultHead(const ScriptFile &baseline, const ScriptFile &candidate)
{
    Json r = Json::object();
    r["tool"] = "verify";
    r["hotkernel_version"] = HOTKERNEL_VERSION;
    r["baseline"] = toStd(baseline.given);
    r["candidate"] = toStd(candidate.given);
    r["baseline_path"] = toStd(baseline.path);
    r["candidate_path"] = toStd(candidate.path);
    r["baseline_sha256"] = toStd(baseline.sha256);
    r["candidate_sha256"] = toStd(candidate.sha256);
    return r;
}

Json interpreterJson(const PythonInfo &python)
{
    return Json{{"path", toStd(python.path)},
                {"source", toStd(python.source)},
                {"torch", toStd(python.torchVersion)}};
}

Json contractJson(const RunLine &line)
{
    Json c = Json::object();
    for (const char *key : {"protocol", "target", "shape", "dtype", "seed", "iters", "calls", "rotate",
                            "rotate_k", "flops", "bytes", "device", "device_name", "l2_bytes", "timer",
                            "timer_note", "target_sha256", "contract_sha256"}) {
        c[key] = line.json.contains(key) ? line.json[key] : Json();
    }
    return c;
}

Json versionsJson(const RunLine &line)
{
    Json v = Json::object();
    for (const char *key : {"python", "torch", "triton", "cuda"})
        v[key] = line.json.contains(key) ? line.json[key] : Json();
    return v;
}

QString utcNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
}

} // namespace hotkernel::MeasureSetup
