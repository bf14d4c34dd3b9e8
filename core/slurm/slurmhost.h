// SPDX-License-Identifier: Apache-2.0
// A Slurm host as the user writes it, `slurm://[partition][?gres=gpu:1&time=60&account=...]`, parsed
// into a plain value with the salloc options it stands for, and where hotkernel works on its node
// (python=, workdir=, tools=). Pure; any thread.
#pragma once

#include <QString>
#include <QStringList>

namespace hotkernel {

struct SlurmHost
{
    // How long one allocation lives: the whole session (the default: the queue is waited for once,
    // workers stay warm) or one verify (each verify queues again; nothing idles between them).
    enum class Lifetime { Session, Verify };

    QString partition; // empty: the cluster's default partition
    QString gres;      // e.g. "gpu:1", "gpu:a100:1"
    QString time;      // Slurm's time syntax: minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]]
    QString account;
    QString qos;
    int cpus = 0; // CPUs for the workers (salloc --cpus-per-task); 0: the partition's default
    Lifetime lifetime = Lifetime::Session;
    QString python;       // the interpreter on the node; empty: python3 on the PATH srun passes on
    QString workdir;      // absolute, or relative to the home there; empty: this directory when the node
                          // sees it (a shared file system), else one hotkernel picks below the home
    QStringList toolDirs; // folders on the node searched first for ncu, cuobjdump, nvdisasm, cmake

    // Throws UserError naming what is wrong in text and how to write it instead.
    static SlurmHost parse(const QString &text);
    static bool looksLikeSlurm(const QString &text); // starts with "slurm:"

    QString toUrl() const; // canonical form, parse(toUrl()) == *this
    // "partition 'gpu'" or "the default partition", for messages.
    QString describePartition() const;
    // What salloc is given for this host (the allocation's own options, not hotkernel's).
    QStringList allocationArguments() const;

    bool operator==(const SlurmHost &) const = default;
};

} // namespace hotkernel
