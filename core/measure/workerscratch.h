// SPDX-License-Identifier: Apache-2.0
// A worker's private scratch (issue 41): the one directory a confined worker may write, with its
// temp folder and its compiler caches (Triton, Inductor, torch extensions, CUDA's JIT cache,
// Python's bytecode) inside, so that neither side of a verify can reach the other's caches, the
// target's folder, results/ or hotkernel's own files. Removed with the object. Any thread.
#pragma once

#include <QProcessEnvironment>
#include <QString>

#include <memory>

class QTemporaryDir;

namespace hotkernel {

class WorkerScratch
{
public:
    // A fresh 0700 directory under the runtime directory (else the temp folder); isValid() false
    // when it cannot be made (error() says why).
    WorkerScratch();
    ~WorkerScratch();
    WorkerScratch(const WorkerScratch &) = delete;
    WorkerScratch &operator=(const WorkerScratch &) = delete;

    bool isValid() const;
    QString error() const { return m_error; }
    QString path() const;
    // TMPDIR, the cache variables and PYTHONPYCACHEPREFIX, each naming a folder inside path().
    QProcessEnvironment environment() const;
    // The variables environment() sets (docs/contract.md lists them).
    static QStringList variables();
    // "VARIABLE=FOLDER" for each of them, FOLDER inside path(): what the remote supervisor makes in
    // a worker's scratch on a host (RemoteSandbox), so that both name the same folders.
    static QStringList variableFolders();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_error;
};

} // namespace hotkernel
