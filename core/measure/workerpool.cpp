// SPDX-License-Identifier: Apache-2.0
#include "measure/workerpool.h"

#include "base/boundedfile.h"
#include "base/logging.h"
#include "measure/workerscriptrunner.h"

#include <QCoroFuture>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <set>

namespace hotkernel {

namespace {

// Copies of what judgeReuse() reads files for, so that the thread pool touches no QObject.
struct ReuseInput
{
    std::vector<WorkerPool::ReuseRequest> requests;
    std::vector<std::pair<std::map<QString, QByteArray>, QString>> workers; // sources, broken
    std::vector<std::map<QString, QByteArray>> spares;                      // imported
};

struct ReuseJudgement
{
    std::vector<QByteArray> keys;
    std::vector<QString> workers;
    std::vector<QString> spares;
};

ReuseJudgement judgeReuseNow(const ReuseInput &input)
{
    ReuseJudgement out;
    for (const WorkerPool::ReuseRequest &r : input.requests)
        out.keys.push_back(WorkerPool::contentKey(r.script, r.python, r.pythonIdentity));
    for (const auto &[sources, broken] : input.workers)
        out.workers.push_back(WorkerScriptRunner::staleSource(sources, broken));
    for (const auto &imported : input.spares)
        out.spares.push_back(SpareWorker::staleImport(imported));
    return out;
}

} // namespace

WorkerPool::WorkerPool(QObject *parent) : QObject(parent)
{
    // Idle workers hold GPU memory and a CUDA context: let them go after a while.
    m_idleTimer.setInterval(std::chrono::minutes(1));
    connect(&m_idleTimer, &QTimer::timeout, this, &WorkerPool::evictIdle);
}

WorkerPool::~WorkerPool()
{
    clear();
}

QByteArray WorkerPool::contentKey(const QString &script, const QString &python, const QString &pythonIdentity)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const auto addText = [&hash](const QString &text) {
        hash.addData(text.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
    };
    const auto addFile = [&](const QString &path) {
        addText(QFileInfo(path).fileName());
        if (const QString sha = BoundedFile::sha256Hex(path, BoundedFile::kScriptLimit); !sha.isEmpty())
            hash.addData(sha.toLatin1());
        else
            addText(QStringLiteral("<missing>"));
        hash.addData(QByteArrayView("\0", 1));
    };
    addText(python);
    addText(pythonIdentity);
    addText(qEnvironmentVariable("CUDA_VISIBLE_DEVICES"));
    addFile(script);

    const QDir dir = QFileInfo(script).absoluteDir();
    std::set<QString> siblings{QStringLiteral("_hotkernel_contract")};
    if (const BoundedFile::Read f = BoundedFile::read(script, BoundedFile::kScriptLimit); f.ok()) {
        static const QRegularExpression importLine(
            QStringLiteral(R"(^\s*(?:from\s+([A-Za-z_][A-Za-z0-9_]*)|import\s+([A-Za-z_][A-Za-z0-9_]*)))"),
            QRegularExpression::MultilineOption);
        const QString text = QString::fromUtf8(f.bytes);
        for (auto it = importLine.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            siblings.insert(m.captured(1).isEmpty() ? m.captured(2) : m.captured(1));
        }
    }
    for (const QString &module : siblings) {
        const QString path = dir.filePath(module + QStringLiteral(".py"));
        if (QFileInfo(path).isFile() &&
            QFileInfo(path).absoluteFilePath() != QFileInfo(script).absoluteFilePath())
            addFile(path);
    }
    return hash.result().toHex();
}

QCoro::Task<std::vector<QByteArray>> WorkerPool::judgeReuse(std::vector<ReuseRequest> requests)
{
    ReuseInput input;
    std::vector<std::weak_ptr<WorkerScriptRunner>> workers;
    for (Entry &e : m_entries) {
        e.judged = false;
        const bool asked = std::any_of(requests.begin(), requests.end(), [&](const ReuseRequest &r) {
            return r.role == e.role && QFileInfo(r.script).absoluteFilePath() == e.script;
        });
        if (!asked)
            continue;
        workers.push_back(e.runner);
        input.workers.emplace_back(e.runner->sources(), e.runner->sourcesBroken());
    }
    std::vector<quint64> spares;
    for (Spare &s : m_spares) {
        s.judged = false;
        if (!s.worker->isReady())
            continue;
        spares.push_back(s.serial);
        input.spares.push_back(s.worker->imported());
    }
    input.requests = std::move(requests);
    QPointer<WorkerPool> self(this);
    // A named function, not a lambda, in the co_await (see docs/hacking.md).
    const ReuseJudgement judgement = co_await QtConcurrent::run(&judgeReuseNow, std::move(input));
    if (!self)
        co_return judgement.keys;
    for (size_t i = 0; i < workers.size(); ++i) {
        const std::shared_ptr<WorkerScriptRunner> runner = workers[i].lock();
        auto it = std::find_if(m_entries.begin(), m_entries.end(),
                               [&](const Entry &e) { return runner && e.runner == runner; });
        if (it != m_entries.end()) {
            it->judged = true;
            it->stale = judgement.workers[i];
        }
    }
    for (size_t i = 0; i < spares.size(); ++i) {
        auto it = std::find_if(m_spares.begin(), m_spares.end(),
                               [&](const Spare &s) { return s.serial == spares[i]; });
        if (it != m_spares.end()) {
            it->judged = true;
            it->stale = judgement.spares[i];
        }
    }
    co_return judgement.keys;
}

WorkerLease WorkerPool::acquire(const QString &role, const ScriptRunnerOptions &options,
                                const QByteArray &key)
{
    const QString script = QFileInfo(options.script).absoluteFilePath();
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&](const Entry &e) { return e.role == role && e.script == script; });
    if (it != m_entries.end()) {
        // A busy worker (a concurrent call on the same script) is not taken either.
        // The key covers the script, its direct sibling imports and the interpreter; the files the
        // worker itself says it imported (transitively, from packages, lazily, via sys.path)
        // are checked here, so that an edit anywhere in them never meets a stale worker.
        QString stale;
        const bool reusable = it->key == key && it->runner->isAlive() && it->runner.use_count() == 1;
        if (reusable)
            stale = it->judged ? it->stale
                               : QStringLiteral("its sources were not judged for this call (judgeReuse)");
        it->judged = false;
        if (reusable && !stale.isEmpty())
            qCDebug(lcMeasure).noquote()
                << "not reusing the" << role << "worker for" << script << "because" << stale;
        if (reusable && stale.isEmpty()) {
            it->lastUsed = QDateTime::currentDateTimeUtc();
            it->runner->setTimeout(options.timeout);
            it->runner->setDisplayName(options.displayName);
            qCDebug(lcMeasure) << "reusing" << role << "worker for" << script;
            return WorkerLease{it->runner, true};
        }
        it->runner->stop();
        m_entries.erase(it);
    }
    while (int(m_entries.size()) >= kMaxWorkers) {
        auto oldest =
            std::min_element(m_entries.begin(), m_entries.end(),
                             [](const Entry &a, const Entry &b) { return a.lastUsed < b.lastUsed; });
        oldest->runner->stop();
        m_entries.erase(oldest);
    }
    auto runner = std::make_shared<WorkerScriptRunner>(options);
    bool fromSpare = false;
    if (std::unique_ptr<SpareWorker> spare = takeSpare(options)) {
        runner->adopt(spare->handOff());
        fromSpare = true;
    } else {
        runner->start();
    }
    m_entries.push_back(Entry{role, script, key, runner, QDateTime::currentDateTimeUtc(), false, {}});
    if (!m_idleTimer.isActive())
        m_idleTimer.start();
    return WorkerLease{runner, false, fromSpare};
}

void WorkerPool::setSpareCount(int count)
{
    m_spareCount = std::clamp(count, 0, kMaxSpares);
    while (int(m_spares.size()) > m_spareCount)
        m_spares.erase(m_spares.begin());
}

int WorkerPool::sparesAlive() const
{
    return int(
        std::count_if(m_spares.begin(), m_spares.end(), [](const Spare &s) { return s.worker->isAlive(); }));
}

int WorkerPool::sparesReady() const
{
    return int(
        std::count_if(m_spares.begin(), m_spares.end(), [](const Spare &s) { return s.worker->isReady(); }));
}

QString WorkerPool::spareScript()
{
    if (!m_spareDir) {
        auto dir = std::make_unique<QTemporaryDir>();
        const QString path = dir->filePath(QStringLiteral("spare_worker.py"));
        // not a named file: a resource compiled into the binary
        if (!dir->isValid() || !QFile::copy(QStringLiteral(":/hotkernel/scripts/spare_worker.py"), path)) {
            qCWarning(lcMeasure) << "no spare workers: cannot write spare_worker.py to" << dir->path();
            return {};
        }
        m_spareDir = std::move(dir);
    }
    return m_spareDir->filePath(QStringLiteral("spare_worker.py"));
}

void WorkerPool::refillSpares(const SpareRecipe &recipe)
{
    std::erase_if(m_spares,
                  [&](const Spare &s) { return !s.worker->isAlive() || !(s.worker->recipe() == recipe); });
    if (recipe.python.isEmpty() || int(m_spares.size()) >= m_spareCount)
        return;
    const QString script = spareScript();
    if (script.isEmpty())
        return;
    while (int(m_spares.size()) < m_spareCount) {
        auto spare = std::make_unique<SpareWorker>(recipe, script);
        spare->start();
        qCDebug(lcMeasure) << "started a spare worker for" << recipe.python;
        m_spares.push_back(
            Spare{std::move(spare), QDateTime::currentDateTimeUtc(), m_nextSpareSerial++, false, {}});
    }
    if (!m_idleTimer.isActive())
        m_idleTimer.start();
}

std::unique_ptr<SpareWorker> WorkerPool::takeSpare(const ScriptRunnerOptions &options)
{
    if (options.remote)
        return nullptr;
    const SpareRecipe wanted{options.python, options.witnessTracer};
    for (auto it = m_spares.begin(); it != m_spares.end(); ++it) {
        // Said, because a spare that never serves costs a CUDA context for nothing.
        if (!(it->worker->recipe() == wanted)) {
            qCDebug(lcMeasure).noquote() << "spare worker of" << it->worker->recipe().python << "tracer"
                                         << it->worker->recipe().witnessTracer << "does not serve"
                                         << wanted.python << "tracer" << wanted.witnessTracer;
            continue;
        }
        if (!it->worker->isReady()) {
            qCDebug(lcMeasure) << "spare worker not ready yet";
            continue;
        }
        if (!it->judged) {
            qCDebug(lcMeasure) << "spare worker not judged for this call";
            continue;
        }
        if (const QString stale = it->stale; !stale.isEmpty()) {
            qCDebug(lcMeasure).noquote() << "not using a spare worker because" << stale;
            m_spares.erase(it);
            return nullptr;
        }
        std::unique_ptr<SpareWorker> spare = std::move(it->worker);
        m_spares.erase(it);
        return spare;
    }
    return nullptr;
}

void WorkerPool::discard(const std::shared_ptr<WorkerScriptRunner> &runner)
{
    if (!runner)
        return;
    runner->stop();
    std::erase_if(m_entries, [&](const Entry &e) { return e.runner == runner; });
}

void WorkerPool::clear()
{
    for (Entry &e : m_entries)
        e.runner->stop();
    m_entries.clear();
    m_spares.clear();
}

std::vector<std::pair<long long, QString>> WorkerPool::processes() const
{
    std::vector<std::pair<long long, QString>> found;
    for (const Entry &e : m_entries) {
        if (e.runner->processGroup() > 0)
            found.emplace_back(e.runner->processGroup(), e.role);
    }
    for (const Spare &s : m_spares) {
        if (s.worker->isAlive() && s.worker->processGroup() > 0)
            found.emplace_back(s.worker->processGroup(), QStringLiteral("spare"));
    }
    return found;
}

QList<long long> WorkerPool::releaseSpares()
{
    QList<long long> groups;
    for (const Spare &s : m_spares) {
        if (s.worker->processGroup() > 0)
            groups.append(s.worker->processGroup());
    }
    m_spares.clear(); // each SpareWorker ends its process
    return groups;
}

QList<long long> WorkerPool::processGroups() const
{
    QList<long long> groups;
    for (const Entry &e : m_entries) {
        if (e.runner->processGroup() > 0)
            groups.append(e.runner->processGroup());
    }
    for (const Spare &s : m_spares) {
        if (s.worker->processGroup() > 0)
            groups.append(s.worker->processGroup());
    }
    return groups;
}

void WorkerPool::evictIdle()
{
    const QDateTime limit =
        QDateTime::currentDateTimeUtc().addSecs(-std::chrono::seconds(kIdleLimit).count());
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        const bool idle = it->runner.use_count() == 1 && it->lastUsed < limit;
        if (idle || !it->runner->isAlive()) {
            it->runner->stop();
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
    // A spare holds a CUDA context (GPU memory) for a verify that may not come.
    std::erase_if(m_spares, [&](const Spare &s) { return s.started < limit || !s.worker->isAlive(); });
    if (m_entries.empty() && m_spares.empty())
        m_idleTimer.stop();
}

} // namespace hotkernel
