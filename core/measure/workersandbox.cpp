// SPDX-License-Identifier: Apache-2.0
#include "measure/workersandbox.h"

#include "measure/witnesstrace.h"
#include "measure/workerscratch.h"
#include "process/supervisor.h"
#include "process/writeconfinement.h"

#include <QProcess>

namespace hotkernel {

WorkerSandbox::WorkerSandbox(QProcess &process, const QString &witnessTracer,
                             std::unique_ptr<WitnessTrace> *witness)
    : m_scratch(std::make_unique<WorkerScratch>())
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QProcessEnvironment scratch = m_scratch->environment();
    for (const QString &key : scratch.keys())
        env.insert(key, scratch.value(key));
    QList<int> inherited;
    if (!witnessTracer.isEmpty()) {
        *witness = WitnessTrace::piped();
        if (*witness) {
            m_witness = witness->get();
            const QProcessEnvironment traced = (*witness)->pipeEnvironment(witnessTracer);
            for (const QString &key : traced.keys())
                env.insert(key, traced.value(key));
            inherited << (*witness)->pipeWriteEnd();
        }
    }
    process.setProcessEnvironment(env);
    if (m_scratch->isValid()) {
        m_confinement = std::make_unique<WriteConfinement>(QStringList{m_scratch->path()});
        Supervisor::wrap(process, m_confinement.get(), inherited);
    } else {
        // Unconfined, and said so: without a scratch there is nowhere the worker may write.
        m_failure = QStringLiteral("none: ") + m_scratch->error();
        Supervisor::wrap(process, nullptr, inherited);
    }
}

WorkerSandbox::~WorkerSandbox() = default;

void WorkerSandbox::started()
{
    if (m_confinement)
        m_confinement->started();
    if (m_witness)
        m_witness->closeWriteEnd();
}

QString WorkerSandbox::scratch() const
{
    return m_scratch->path();
}

QString WorkerSandbox::confinement()
{
    if (!m_failure.isEmpty())
        return m_failure;
    return m_confinement ? m_confinement->result() : QStringLiteral("none: not started");
}

} // namespace hotkernel
