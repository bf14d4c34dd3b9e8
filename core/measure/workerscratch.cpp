// SPDX-License-Identifier: Apache-2.0
#include "measure/workerscratch.h"

#include "process/runtimedir.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <utility>

namespace hotkernel {

namespace {
// Variable and the folder inside the scratch it names. Each tool writes its cache there instead of
// ~/.triton, /tmp/torchinductor_USER, ~/.cache/torch_extensions, ~/.nv/ComputeCache or beside
// the script (__pycache__), all of which a confined worker may not write.
const std::pair<const char *, const char *> kFolders[] = {
    {"TMPDIR", "tmp"},
    {"TRITON_CACHE_DIR", "triton"},
    {"TRITON_HOME", "triton-home"},
    {"TORCHINDUCTOR_CACHE_DIR", "inductor"},
    {"TORCH_EXTENSIONS_DIR", "torch-extensions"},
    {"CUDA_CACHE_PATH", "cuda"},
    {"XDG_CACHE_HOME", "cache"},
    {"HOTKERNEL_CUBIN_CACHE", "cubin"}, // the examples' nvcc builds (examples/cuda_launch.py)
    {"PYTHONPYCACHEPREFIX", "pycache"},
    {"MPLCONFIGDIR", "matplotlib"},
};
} // namespace

WorkerScratch::WorkerScratch()
{
    QString runtime = RuntimeDir::path();
    if (runtime.isEmpty())
        runtime = QDir::tempPath();
    m_dir = std::make_unique<QTemporaryDir>(QDir(runtime).filePath(QStringLiteral("worker-XXXXXX")));
    if (!m_dir->isValid()) {
        m_error = QStringLiteral("cannot create a scratch directory in %1 (%2)")
                      .arg(QDir::toNativeSeparators(runtime), m_dir->errorString());
        return;
    }
    QFile::setPermissions(m_dir->path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const QDir dir(m_dir->path());
    for (const auto &[variable, folder] : kFolders) {
        if (!dir.mkdir(QString::fromLatin1(folder))) {
            m_error = QStringLiteral("cannot create %1 in the scratch directory %2")
                          .arg(QString::fromLatin1(folder), m_dir->path());
            m_dir.reset();
            return;
        }
    }
}

WorkerScratch::~WorkerScratch() = default;

bool WorkerScratch::isValid() const
{
    return m_dir && m_dir->isValid();
}

QString WorkerScratch::path() const
{
    return isValid() ? m_dir->path() : QString();
}

QProcessEnvironment WorkerScratch::environment() const
{
    QProcessEnvironment env;
    if (!isValid())
        return env;
    const QDir dir(m_dir->path());
    for (const auto &[variable, folder] : kFolders)
        env.insert(QString::fromLatin1(variable), dir.filePath(QString::fromLatin1(folder)));
    return env;
}

QStringList WorkerScratch::variables()
{
    QStringList names;
    for (const auto &[variable, folder] : kFolders)
        names << QString::fromLatin1(variable);
    return names;
}

QStringList WorkerScratch::variableFolders()
{
    QStringList pairs;
    for (const auto &[variable, folder] : kFolders)
        pairs << QString::fromLatin1(variable) + QLatin1Char('=') + QString::fromLatin1(folder);
    return pairs;
}

} // namespace hotkernel
