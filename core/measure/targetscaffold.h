// SPDX-License-Identifier: Apache-2.0
// Makes a target's scripts (NAME_baseline.py, NAME_candidate.py and the vendored contract) from a
// request, after validating it. Parsing and generation are pure; write() is a coroutine on the caller's
// thread.
#pragma once

#include "base/json.h"
#include "base/workdir.h"

#include <QCoroTask>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace hotkernel {

class RemoteHost;

class Job;

struct TargetInputSpec
{
    QString name;
    QList<qint64> shape;
    QString dtype; // empty: the target's dtype
};

// What `new` was asked for, as the new_target tool's arguments name it.
struct TargetRequest
{
    QString name;
    QString from;      // module:function or ./file.py:function
    QString shape;     // [NAME=]DIMS, e.g. 4096x8192 or w=8192x8192
    QStringList extra; // NAME:DIMS[:DTYPE]
    QStringList rotate;
    std::optional<double> flops;
    QString reference;
    QString derive;
    QStringList inputs; // call inputs made by derive, in call order
    std::optional<qint64> minBytes;
    QString dtype = QStringLiteral("bf16");
    qint64 seed = 0;
    std::optional<double> atol;
    std::optional<double> rtol;
    int iters = 50;
    QString device; // empty: decided at run time
    bool force = false;
    QString outDir = QStringLiteral(".");

    static TargetRequest fromJson(const Json &arguments);
};

// A validated request, with its inputs parsed.
struct TargetPlan
{
    TargetRequest request;
    QList<TargetInputSpec> rawInputs; // the primary input first, then the extras
    QStringList callInputs;           // fn's parameters, in call order
};

struct ScaffoldResult
{
    QString outDir;      // absolute
    QStringList files;   // absolute paths written
    QString python;      // interpreter used for the import check
    QString checkOutput; // the import check's JSON line
    // --force over an existing target keeps its candidate (issue 41's migration: re-vendoring the
    // contract for a new protocol must not cost the user their work); files still lists it.
    bool keptCandidate = false;
};

class TargetScaffold
{
public:
    static const QStringList &dtypes();
    // Throws UserError naming what is wrong and what to do.
    static TargetPlan plan(const TargetRequest &request);
    static QList<qint64> parseDims(const QString &text, const QString &what);
    static void requireIdentifier(const QString &name, const QString &what);

    static QString baselineFileName(const QString &target);
    static QString candidateFileName(const QString &target);
    static QString contractFileName();
    static QString baselineSource(const TargetPlan &plan);
    static QString candidateSource(const TargetPlan &plan);
    // The contract hotkernel ships (the Qt resource :/hotkernel/contract/_hotkernel_contract.py).
    static QByteArray contractSource();

    // Everything write() decides before it touches the disk: throws UserError for a bad request, an
    // out dir outside the working directory, or files that exist (without force).
    struct Prepared
    {
        TargetPlan plan;
        QString outDir;                              // absolute
        QList<std::pair<QString, QByteArray>> files; // file name in outDir, content
        bool keepCandidate = false;                  // an existing candidate stays as it is (--force)
    };
    static Prepared prepare(const TargetRequest &request, const WorkDir &workDir);

    // Validates (prepare), writes into a temporary folder inside the out dir, runs `python NAME_baseline.py
    // --check-import` there with python, and only then moves the files into place. Throws UserError
    // (and leaves nothing behind) when anything fails.
    // remote: the session's SSH host (issue 24): the staged scripts are copied there and checked
    // with its interpreter (python is then the host's).
    static QCoro::Task<ScaffoldResult> write(TargetRequest request, WorkDir workDir, QString python,
                                             Job *job = nullptr, RemoteHost *remote = nullptr);
};

} // namespace hotkernel
