// SPDX-License-Identifier: Apache-2.0
// What measure's runs (bench, verify and their setup) need of the session that starts them: its
// directory, its interpreter, its worker pool and where its workers run. Session implements it, so
// measure/ needs nothing of session/ (docs/hacking.md, "Layers"; issue 40). Session's thread.
#pragma once

#include "base/workdir.h"

class QObject;
class QString;

namespace hotkernel {

class PythonLocator;
class RemoteHost;
class WorkerPool;

class MeasureSession
{
public:
    virtual const WorkDir &workDir() const = 0;
    virtual PythonLocator &python() = 0;
    virtual WorkerPool &workers() = 0;
    // Null when the workers run here; hostError() says why the host it was given cannot be used.
    virtual RemoteHost *remote() const = 0;
    virtual const QString &hostError() const = 0;
    // The object whose deletion ends the session and everything above: what may outlive it across
    // a co_await (WorkerRelease, a snapshot's caller) holds a QPointer to this.
    virtual QObject *lifetime() = 0;

protected:
    // Never deleted through this interface: the Session is a QObject with its own owner.
    ~MeasureSession() = default;
};

} // namespace hotkernel
