// SPDX-License-Identifier: Apache-2.0
// This machine as a Host (docs/hosts.md): the tools run as children here, found by CudaTools, and
// files are read where they are. The Session's thread; never blocks it.
#pragma once

#include "inspect/host.h"

namespace hotkernel {

class LocalHost final : public Host
{
public:
    // python: the session's locator, which outlives this host (both are the Session's).
    explicit LocalHost(PythonLocator &python) : m_python(python) {}

    QString name() const override;
    QString where() const override;
    Json record() const override;
    QString pathThere(const QString &path) const override;
    QString commandLine(const ProcessSpec &spec) const override;
    QStringList tritonCacheRoots() const override;
    QCoro::Task<bool> prepareFiles(QStringList relativeFiles, Job *job) override;
    QCoro::Task<QString> findTool(QString tool, QString variable, Job *job) override;
    QString lookForTool(const QString &tool, const QString &variable) const override;
    QCoro::Task<QString> nativeHelper(QString fileName, Job *job) override;
    QCoro::Task<ProcessResult> runTool(ProcessSpec spec, Job *job) override;
    QCoro::Task<std::optional<QByteArray>> readBack(QString path, Job *job) override;
    QCoro::Task<bool> fetch(QString there, QString here, Job *job) override;
    QCoro::Task<PythonInfo> interpreter(Job *job) override;
    QCoro::Task<Json> probeGpu(Job *job) override;

private:
    PythonLocator &m_python;
};

} // namespace hotkernel
