// SPDX-License-Identifier: Apache-2.0
// The window's whole loop on a remote host (issue 24), shared by tst_remotessh and tst_remoteslurm:
// a MainWindow over a session whose host is the test's sshd or Slurm, doing what its toolbar does
// once a dialog is accepted (new target, bench, verify) and recording through its own Record
// dialog. Needs a QApplication (QTEST_MAIN) and hotkernel_ui.
#pragma once

#include "base/job.h"
#include "mainwindow.h"
#include "remotetesthelpers.h"
#include "schemaformdialog.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"

#include <QCoreApplication>
#include <QDialog>
#include <QSignalSpy>
#include <QStandardPaths>

#include <memory>

namespace hotkernel::test {

// Waits for job to end; QVERIFY fails unless it finished without an error.
inline void waitForSuccess(Job *job)
{
    QVERIFY(job);
    QTRY_VERIFY_WITH_TIMEOUT(job->state() != Job::State::Running, kEventLimitMs);
    QVERIFY2(job->state() == Job::State::Finished && !job->result().isError, qPrintable(job->result().text));
}

// The window's loop for a CPU gelu target named target, made in project/window/ on url's host:
// every job ran there (its result's host is url), the history shows the verify, the host's
// supervisor confined the candidate (issue 41), and the Record dialog's accept writes a log here
// that names the host. A void function (QVERIFY returns).
inline void checkWindowLoop(const QString &project, const QString &url, const QString &target)
{
    QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
    QStandardPaths::setTestModeEnabled(true); // the window's settings stay out of the user's
    SessionOptions options;
    options.workDir = project;
    options.host = url;
    auto session = std::make_unique<Session>(builtinTools(), options);
    auto window = std::make_unique<MainWindow>(session.get());
    QSignalSpy loaded(window.get(), &MainWindow::workspaceLoaded);
    QVERIFY(loaded.wait(kEventLimitMs));

    Job *made = window->startTool(QStringLiteral("new_target"), Json{{"target", toStd(target)},
                                                                     {"from", "torch.nn.functional:gelu"},
                                                                     {"shape", "256x512"},
                                                                     {"dtype", "fp32"},
                                                                     {"device", "cpu"},
                                                                     {"iters", 10},
                                                                     {"out_dir", "window"}});
    waitForSuccess(made);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(toQt(made->result().structured["python"]["source"].get<std::string>()), url);

    const QString stem = QStringLiteral("window/") + target;
    Job *bench = window->startBench(stem + QStringLiteral("_baseline.py"));
    waitForSuccess(bench);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(toQt(bench->result().structured["host"]["url"].get<std::string>()), url);

    window->historyModel()->setTarget(target);
    Job *verify = window->startVerify(stem, 3, 1);
    waitForSuccess(verify);
    if (QTest::currentTestFailed())
        return;
    const Json &verdict = verify->result().structured;
    QCOMPARE(toQt(verdict["host"]["url"].get<std::string>()), url);
    QTRY_COMPARE_WITH_TIMEOUT(window->historyModel()->rowCount(), 1, kEventLimitMs);
    QCOMPARE(window->historyModel()
                 ->index(0, VerifyHistoryModel::VerdictColumn)
                 .data(VerifyHistoryModel::VerdictRole)
                 .toString(),
             toQt(verdict["verdict"].get<std::string>()));

    // Record, as a person does: the dialog comes filled in from the verify; accepting it records.
    QDialog *record = window->recordDialog();
    QVERIFY(record);
    // By the verify's id (issue 44): the result stays in the session, not in the dialog.
    auto *form = qobject_cast<SchemaFormDialog *>(record);
    QVERIFY(form && form->arguments().contains("verify_id") && !form->arguments().contains("verify_result"));
    record->accept();
    // Issue 41: the remote supervisor confined the candidate, so the verify can be recorded.
    QVERIFY2(toQt(verdict["confinement"]["candidate"].get<std::string>())
                 .startsWith(QLatin1String("landlock ABI ")),
             verdict["confinement"].dump().c_str());
    const QDir results(project + QStringLiteral("/results/") + target);
    QTRY_VERIFY_WITH_TIMEOUT(!results.entryList({QStringLiteral("*.json")}, QDir::Files).isEmpty(),
                             kEventLimitMs);
    const QString log = results.filePath(results.entryList({QStringLiteral("*.json")}, QDir::Files).first());
    const QJsonObject recorded =
        QJsonDocument::fromJson(readFile(log)).object()[QStringLiteral("verify")].toObject();
    QCOMPARE(recorded[QStringLiteral("host")].toObject()[QStringLiteral("url")].toString(), url);
    QCOMPARE(recorded[QStringLiteral("verdict")].toString(), toQt(verdict["verdict"].get<std::string>()));

    // Closing the window's session ends its workers and its connection or allocation there.
    window.reset();
    session.reset();
}

} // namespace hotkernel::test
