// SPDX-License-Identifier: Apache-2.0
// A "remote" host that is this machine, for the tests of what runs under the remote supervisor
// (tst_tracestream, tst_remoteconfine): commands run through `sh -c`, in root as the host's working
// directory; the transport is tst_remotessh's business.
#pragma once

#include "remote/remoteshell.h"

namespace hotkernel::test {

class ThisMachineShell : public RemoteShell
{
public:
    ThisMachineShell(const QString &root, const QString &python) : RemoteShell(root, python)
    {
        setRemoteWorkdir(root);
        setRemotePython(python);
    }
    QString display() const override { return QStringLiteral("sh://this-machine"); }
    QString program() const override { return QStringLiteral("/bin/sh"); }
    QStringList commandArguments(const QString &shellCommand) const override
    {
        return {QStringLiteral("-c"), shellCommand};
    }
    bool isTransportFailure(int, const QByteArray &) const override { return false; }
    QString describeFailure(const QByteArray &text) const override { return QString::fromUtf8(text); }
};

} // namespace hotkernel::test
