// SPDX-License-Identifier: Apache-2.0
// Where a session runs its workers: `local`, `ssh://[user@]host[:port][/workdir][?python=PATH&tools=DIRS]`,
// or a Slurm allocation, `slurm://[partition][?gres=...&time=...&python=...&workdir=...]` (issue 24). A plain
// value; parse() is pure. Any thread.
#pragma once

#include "slurm/slurmhost.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace hotkernel {

struct HostUrl
{
    enum class Kind { Local, Ssh, Slurm };
    Kind kind = Kind::Local;
    QString user;    // empty: ssh's own choice (~/.ssh/config, then the local user name)
    QString host;    // a name ~/.ssh/config may alias, or an address
    int port = 0;    // 0: ssh's own choice
    QString workdir; // absolute, or relative to the remote home; empty: hotkernel picks one
    QString python;  // the remote interpreter; empty: python3 on the remote PATH
    // ssh: folders on the host searched first for ncu, cuobjdump, nvdisasm, cmake and nvcc (a
    // non-interactive ssh command's PATH often lacks what a module system adds at login).
    QStringList toolDirs;
    SlurmHost slurm; // Kind::Slurm: the allocation asked for (workdir and python copied above)

    bool isLocal() const { return kind == Kind::Local; }
    // The URL as the user would write it (for messages and records).
    QString toString() const;

    // "local", "", "ssh://..." and "slurm://..."; nullopt with *error saying what is wrong and how to write
    // it.
    static std::optional<HostUrl> parse(const QString &text, QString *error);
};

} // namespace hotkernel
