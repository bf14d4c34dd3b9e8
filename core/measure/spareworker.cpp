// SPDX-License-Identifier: Apache-2.0
#include "measure/spareworker.h"

#include "base/logging.h"
#include "measure/measuresetup.h"
#include "measure/witnesstrace.h"
#include "measure/workersandbox.h"
#include "process/processgroup.h"
#include "process/supervisor.h"

#include <QFileInfo>
#include <QProcess>

namespace hotkernel {

namespace {
constexpr qsizetype kStderrKeep = 16 * 1024;
constexpr qsizetype kMaxReadyLine = 1024 * 1024;
} // namespace

SpareWorker::SpareWorker(SpareRecipe recipe, QString script, QObject *parent)
    : QObject(parent), m_recipe(std::move(recipe)), m_script(std::move(script))
{}

SpareWorker::~SpareWorker()
{
    if (!m_process)
        return;
    m_process->disconnect(this);
    killProcessGroup(m_group);
    if (m_process->state() != QProcess::NotRunning) {
        QProcess *process = m_process.release(); // reaped later: never wait on the Session's thread
        QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
    }
}

void SpareWorker::start()
{
    if (m_process)
        return;
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(m_recipe.python);
    m_process->setArguments({m_script});
    // Its own directory: nothing of the user's is importable before the hand-off.
    m_process->setWorkingDirectory(QFileInfo(m_script).absolutePath());
    // Confined from its start (issue 41): its role is not known yet, so it gets a scratch and
    // caches of its own, like every worker; what it compiles is not shared with another worker.
    m_sandbox = std::make_unique<WorkerSandbox>(*m_process, m_recipe.witnessTracer, &m_witness);
    connect(m_process.get(), &QProcess::readyReadStandardOutput, this, &SpareWorker::readStandardOutput);
    connect(m_process.get(), &QProcess::readyReadStandardError, this, [this] {
        m_stderrTail += m_process->readAllStandardError();
        if (m_stderrTail.size() > kStderrKeep)
            m_stderrTail = m_stderrTail.right(kStderrKeep);
    });
    connect(m_process.get(), &QProcess::finished, this, [this] {
        killProcessGroup(m_group);
        qCDebug(lcMeasure).noquote() << "spare worker ended:" << QString::fromUtf8(m_stderrTail.right(400));
    });
    m_process->start();
    m_sandbox->started();
    m_group = m_process->processId();
}

void SpareWorker::readStandardOutput()
{
    m_stdout += m_process->readAllStandardOutput();
    // After its one line the spare says nothing until it is handed over; anything is the runner's.
    if (!m_ready.is_null() || m_badReady)
        return;
    const qsizetype newline = m_stdout.indexOf('\n');
    if (newline < 0) {
        if (m_stdout.size() > kMaxReadyLine) {
            m_badReady = true;
            killProcessGroup(m_group);
        }
        return;
    }
    const QByteArray line = m_stdout.left(newline);
    m_stdout.remove(0, newline + 1);
    Json ready = Json::parse(line.toStdString(), nullptr, false);
    if (!ready.is_object() || ready.value("event", std::string()) != "spare-ready") {
        m_badReady = true;
        killProcessGroup(m_group);
        return;
    }
    if (const Json &imported = ready["imported"]; imported.is_object()) {
        for (auto it = imported.begin(); it != imported.end(); ++it)
            m_imported.emplace(toQt(it.key()), it.value().is_string()
                                                   ? QByteArray::fromStdString(it.value().get<std::string>())
                                                   : QByteArray());
    } else {
        m_imported.emplace(QStringLiteral("(the spare's ready line)"), QByteArray());
    }
    m_ready = std::move(ready);
}

bool SpareWorker::isAlive() const
{
    return m_process && m_process->state() != QProcess::NotRunning && !m_badReady;
}

bool SpareWorker::isReady() const
{
    return isAlive() && !m_ready.is_null();
}

QString SpareWorker::staleImport(const std::map<QString, QByteArray> &imported)
{
    return MeasureSetup::changedSource(imported, QStringLiteral(" changed while the spare started"));
}

SpareHandOff SpareWorker::handOff()
{
    SpareHandOff h;
    if (m_process)
        m_process->disconnect(this);
    h.process = std::move(m_process);
    h.group = m_group;
    h.witness = std::move(m_witness);
    h.sandbox = std::move(m_sandbox);
    h.pendingStdout = std::exchange(m_stdout, {});
    h.stderrTail = std::exchange(m_stderrTail, {});
    return h;
}

} // namespace hotkernel
