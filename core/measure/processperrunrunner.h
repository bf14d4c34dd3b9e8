// SPDX-License-Identifier: Apache-2.0
// What the two process-per-run runners share: each run is `python SCRIPT ARGS...` through
// ProcessRunner (its group dies on timeout or cancel), and its end (a start failure, a timeout, a
// crash, a non-zero exit) is turned into the same messages. Subclasses say which arguments a run
// gets, how its stdout is read and how their messages word two hints. Session thread.
#pragma once

#include "measure/scriptrunner.h"

#include <QProcessEnvironment>

#include <functional>
#include <memory>
#include <optional>

namespace hotkernel {

class RemoteSandbox;
class WorkerScratch;

class ProcessPerRunRunner : public ScriptRunner
{
public:
    QString mode() const override { return QStringLiteral("fresh"); }
    void start() override {}
    QCoro::Task<bool> waitReady() override;
    QCoro::Task<RunOutcome> run(int runIndex) override;
    QCoro::Task<JudgeOutcome> judge(int runIndex, QString file) override;
    void stop() override {}
    void setJob(QPointer<Job> job) override { m_job = job; }
    ~ProcessPerRunRunner() override;
    // Issue 41: every run's process is confined to one scratch of this runner (here, or on the
    // remote host: remoteScratchDir()).
    QString scratchDir() const override;
    QString remoteScratchDir() const override;
    // "landlock ABI N" when every run so far was confined; else the first run's "none: REASON".
    QString confinement() override;
    // Nothing: each run's process tree ends with the run (its supervisor waits for the last one).
    FreezableTree freezableTree() const override
    {
        return {0, QStringLiteral("no process between runs: each run's whole tree ends with it"), true};
    }

protected:
    // Picks the result line out of one run's whole stdout, or sets *error naming script and run.
    using OutputParser = std::optional<RunLine> (*)(const QByteArray &standardOutput, const QString &script,
                                                    int run, QString *error);
    struct Wording
    {
        QString timeoutAdvice; // follows "Raise " in the timeout message
        QString exitNote;      // follows "exited with code N" in the non-zero exit message
    };

    // Fills in the working directory (the script's) and display name (its file name) when unset.
    ProcessPerRunRunner(ScriptRunnerOptions options, OutputParser parser, Wording wording);

    // The arguments after the script for run runIndex.
    virtual QStringList runArguments(int runIndex) const = 0;
    // The arguments after the script that judge file for run runIndex; empty: this runner's
    // scripts cannot judge.
    virtual QStringList judgeArguments(int runIndex, const QString &file) const;
    // What answers the run's questions on stdout mid-run (ProcessSpec::answerLine); none by default.
    using LineAnswer = std::function<QByteArray(const QByteArray &line)>;
    virtual LineAnswer runAnswers(int runIndex) const;

private:
    struct Finished
    {
        bool cancelled = false;
        QByteArray standardOutput;
        QString stderrText; // "\nLast lines of its stderr:\n..." or empty
        double wallSeconds = 0;
        QString confinement;
    };
    // What a run's process starts with: its environment (the scratch's variables, the witness
    // pipe's), what it may write, what it inherits.
    struct Sandbox
    {
        QProcessEnvironment environment;
        QStringList confineWrites;
        QList<int> inherited;
        // On a remote host: the supervisor's options for the runner's scratch there, and the token
        // its report is marked with (RemoteSandbox).
        QStringList supervisorOptions;
        QByteArray token;
    };
    // Runs `python SCRIPT arguments` to its end, with `environment` added to hotkernel's; throws
    // UserError on anything but exit code 0.
    static QCoro::Task<Finished> execute(ScriptRunnerOptions options, QStringList arguments, Sandbox sandbox,
                                         LineAnswer answers, int runIndex, Wording wording,
                                         QPointer<Job> job);
    // The sandbox of one run (witness: its pipe, or null).
    Sandbox sandbox(const WitnessTrace *witness) const;

    // Shared so a run that outlives its runner (see run()) still reads its own file.
    std::shared_ptr<WitnessTrace> m_witness;
    std::shared_ptr<WorkerScratch> m_scratch;       // null on a remote host
    std::unique_ptr<RemoteSandbox> m_remoteSandbox; // null here
    // Shared for the same reason: written after a run's co_await.
    std::shared_ptr<QString> m_confinement = std::make_shared<QString>();
    OutputParser m_parser;
    Wording m_wording;
    QPointer<Job> m_job;
};

} // namespace hotkernel
