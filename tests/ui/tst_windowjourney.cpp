// SPDX-License-Identifier: Apache-2.0
// Issue 21's journey through the window's own code path, on the GPU machine (offscreen, with the
// carried build): torch_trace from the toolbar's dialog, the gelu kernel picked in the kernel
// table, "New target from this kernel", "Profile this kernel" (ncu by the kernel's own words, the
// source page exported), its hot SASS in the SASS pane from that export alone, a verify started
// from the window and recorded from its Record dialog. The journey skips where there is no GPU or
// ncu; the dialog check before it runs anywhere.
#include "base/job.h"
#include "inspect/cudatools.h"
#include "inspect/ncukernelfilter.h"
#include "kernelrowrequests.h"
#include "kerneltablemodel.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "sassmodel.h"
#include "sassview.h"
#include "schemaformdialog.h"
#include "session/session.h"
#include "testlimits.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace hotkernel;

namespace {

// A model a user might bring: bf16 layer_norm and tanh gelu, nothing tuned.
const char *const kModel = "import torch\n"
                           "import torch.nn.functional as F\n"
                           "x = torch.randn(8, 1024, 1024, device='cuda', dtype=torch.bfloat16)\n"
                           "w = torch.ones(1024, device='cuda', dtype=torch.bfloat16)\n"
                           "b = torch.zeros(1024, device='cuda', dtype=torch.bfloat16)\n"
                           "for _ in range(3):\n"
                           "    h = F.layer_norm(x, (1024,), w, b, eps=1e-5)\n"
                           "    y = F.gelu(h, approximate='tanh')\n"
                           "torch.cuda.synchronize()\n";

// Profiling and verifying real programs: far beyond any event wait. The window's own updates after
// a job (a reload of the working directory) take a second; a minute says they never came.
constexpr int kRunLimitMs = 10 * 60 * 1000;
constexpr int kUpdateLimitMs = 60 * 1000;

bool haveGpu()
{
    return QFile::exists(QStringLiteral("/dev/nvidia0")) || QFile::exists(QStringLiteral("/dev/nvidiactl"));
}

QAction *actionNamed(QWidget *window, const QString &text)
{
    for (QAction *a : window->findChildren<QAction *>()) {
        if (a->text() == text)
            return a;
    }
    return nullptr;
}

// The dialog an action opened (modeless, a child of the window).
SchemaFormDialog *openedDialog(QWidget *window)
{
    const auto dialogs = window->findChildren<SchemaFormDialog *>();
    for (SchemaFormDialog *d : dialogs) {
        if (d->isVisible())
            return d;
    }
    return nullptr;
}

// Accepts the dialog and waits for the job it started; the job, or null on a timeout.
Job *acceptAndWait(Session &session, SchemaFormDialog *dialog)
{
    QSignalSpy started(&session, &Session::jobStarted);
    QSignalSpy finished(&session, &Session::jobFinished);
    dialog->accept();
    if (started.isEmpty() && !started.wait(test::kEventLimitMs))
        return nullptr;
    auto *job = started.first().first().value<Job *>();
    QElapsedTimer clock;
    clock.start();
    while (job->state() == Job::State::Running && clock.elapsed() < kRunLimitMs)
        finished.wait(1000);
    return job;
}

} // namespace

class TestWindowJourney : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true);
        QFile model(m_dir.filePath(QStringLiteral("model.py")));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(kModel);
    }

    void profileActionAsksForThisKernel()
    {
        // Runs anywhere: the kernel table over a real torch_trace report, the gelu row picked, and
        // the dialog "Profile this kernel" opens asks ncu for that kernel alone, source page on.
        const QString fixture =
            QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/inspect/journey.torch-trace.json");
        if (!QFile::exists(fixture))
            QSKIP(
                "the source tree is not here (a carried test binary on the GPU machine); CI runs this check");
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("profiles")));
        QVERIFY(QFile::copy(fixture,
                            dir.filePath(QStringLiteral("profiles/model-20261204-120000.torch-trace.json"))));
        SessionOptions options;
        options.workDir = dir.path();
        Session session(builtinTools(), options);
        MainWindow window(&session);
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(test::kEventLimitMs));
        QString gelu;
        for (const KernelStat &k : window.kernelView()->model()->table().kernels) {
            if (k.name.contains(QLatin1String("GeluCUDAKernelImpl")))
                gelu = k.name;
        }
        QVERIFY(window.kernelView()->selectKernel(gelu));
        QAction *profile = actionNamed(&window, QStringLiteral("Profile this kernel (ncu --set full)..."));
        QVERIFY(profile);
        profile->trigger();
        SchemaFormDialog *dialog = openedDialog(&window);
        QVERIFY(dialog);
        const Json arguments = dialog->arguments();
        QCOMPARE(toQt(arguments.value("kernel_regex", std::string())), NcuKernelFilter::regexFor(gelu));
        QCOMPARE(toQt(arguments.value("set", std::string())), QStringLiteral("full"));
        QCOMPARE(arguments.value("launch_count", 0), 1);
        dialog->reject();
    }

    void kernelRowRequests()
    {
        // What the row's actions prefill, for torch's spelling of the gelu kernel.
        const QString gelu = QStringLiteral(
            "void at::native::vectorized_elementwise_kernel<8, "
            "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
            "at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
            "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, T2, T3)");
        QCOMPARE(KernelRowRequests::targetName(gelu), QStringLiteral("vectorized_elementwise_kernel"));
        QVERIFY(KernelRowRequests::disasm(gelu)["function"] == Json("vectorized_elementwise_kernel"));
        QVERIFY(KernelRowRequests::profile(gelu, QStringLiteral("gelu"))["command"][1] ==
                Json("gelu_candidate.py"));
        QVERIFY(!KernelRowRequests::profile(gelu, {}).contains("command"));
        QVERIFY(KernelRowRequests::torchTrace(QStringLiteral("gelu"))["script"] == Json("gelu_baseline.py"));

        QTemporaryDir dir;
        const QString report =
            dir.filePath(QStringLiteral("profiles/model-20261204-120000.torch-trace.json"));
        // A table that is a torch_trace report names itself as the trace to rebuild from.
        const Json fromTrace = KernelRowRequests::newTarget(gelu, report, dir.path());
        QVERIFY(fromTrace["from_trace"] == Json("profiles/model-20261204-120000.torch-trace.json"));
        QVERIFY(fromTrace["kernel"] == Json(toStd(gelu)));
        // Any other table with no trace under profiles/: only a name, new_target asks for the rest.
        const Json plain =
            KernelRowRequests::newTarget(gelu, dir.filePath(QStringLiteral("x.details.csv")), dir.path());
        QVERIFY(!plain.contains("from_trace"));
        QVERIFY(plain["target"] == Json("vectorized_elementwise_kernel"));
    }

    void journeyThroughTheWindow()
    {
        if (!haveGpu())
            QSKIP("no NVIDIA GPU on this machine (/dev/nvidia0 missing): this test runs on the GPU machine");
        if (CudaTools::find(QStringLiteral("ncu"), QStringLiteral("HOTKERNEL_NCU")).isEmpty())
            QSKIP("ncu is not installed");
        SessionOptions options;
        options.workDir = m_dir.path();
        Session session(builtinTools(), options);
        MainWindow window(&session);
        window.resize(1600, 1000);
        window.show();
        QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
        QVERIFY(loaded.wait(test::kEventLimitMs));
        QElapsedTimer clock;
        clock.start();

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "torch_trace");
        // 1. torch_trace from the toolbar, as a person fills its dialog.
        QAction *trace = actionNamed(&window, QStringLiteral("torch_trace..."));
        QVERIFY(trace);
        trace->trigger();
        SchemaFormDialog *dialog = openedDialog(&window);
        QVERIFY(dialog);
        QVERIFY(dialog->setValue(QStringLiteral("script"), "model.py"));
        Job *job = acceptAndWait(session, dialog);
        QVERIFY(job);
        QVERIFY2(job->state() == Job::State::Finished, qPrintable(job->result().text));
        QVERIFY2(!job->result().isError, qPrintable(job->result().text));

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "The kernel table");
        // 2. The kernel table shows the trace; the gelu kernel is picked by its row.
        QTRY_VERIFY_WITH_TIMEOUT(
            window.kernelView()->model()->table().path.endsWith(QLatin1String(".torch-trace.json")),
            kUpdateLimitMs);
        QString gelu;
        for (const KernelStat &k : window.kernelView()->model()->table().kernels) {
            if (k.name.contains(QLatin1String("GeluCUDAKernelImpl")))
                gelu = k.name;
        }
        QVERIFY2(!gelu.isEmpty(), "the trace's table has no gelu kernel");
        QVERIFY(window.kernelView()->selectKernel(gelu));
        QCOMPARE(window.kernelView()->selectedKernel(), gelu);

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "New target");
        // 3. New target from this kernel: the dialog comes prefilled from the trace row.
        QAction *newTarget = actionNamed(&window, QStringLiteral("New target from this kernel..."));
        QVERIFY(newTarget);
        newTarget->trigger();
        dialog = openedDialog(&window);
        QVERIFY(dialog);
        const Json newArguments = dialog->arguments();
        QVERIFY(newArguments.contains("from_trace"));
        job = acceptAndWait(session, dialog);
        QVERIFY(job);
        QVERIFY2(!job->result().isError, qPrintable(job->result().text));
        const QString target = toQt(newArguments["target"].get<std::string>());
        QFile op(m_dir.filePath(target + QStringLiteral("_op.py")));
        QVERIFY2(op.open(QIODevice::ReadOnly), qPrintable(op.fileName()));
        const QByteArray opSource = op.readAll();
        QVERIFY2(opSource.contains("gelu") && opSource.contains("tanh"), opSource.constData());
        QVERIFY(QFile::exists(m_dir.filePath(target + QStringLiteral("_candidate.py"))));

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "Profile this kernel");
        // 4. Profile this kernel: ncu picks the gelu kernel by its own words and exports the source page.
        QTRY_VERIFY_WITH_TIMEOUT(window.kernelView()->selectKernel(gelu), kUpdateLimitMs);
        QAction *profile = actionNamed(&window, QStringLiteral("Profile this kernel (ncu --set full)..."));
        QVERIFY(profile);
        profile->trigger();
        dialog = openedDialog(&window);
        QVERIFY(dialog);
        QVERIFY(dialog->setValue(QStringLiteral("command"), Json::array({"model.py"})));
        QVERIFY(dialog->setValue(QStringLiteral("name"), "gelu-window"));
        job = acceptAndWait(session, dialog);
        QVERIFY(job);
        QVERIFY2(!job->result().isError, qPrintable(job->result().text));
        const Json &profiled = job->result().structured;
        QVERIFY2(profiled.contains("source_csv"), profiled.dump().c_str());
        QCOMPARE(profiled["kernels"].size(), size_t(1));
        QVERIFY(toQt(profiled["kernels"][0]["name"].get<std::string>()).contains(QLatin1String("Gelu")));

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "The window reads");
        // 5. The window reads its hot SASS from that export alone (no binary here).
        QTRY_VERIFY_WITH_TIMEOUT(
            window.kernelView()->model()->table().path.contains(QLatin1String("gelu-window")),
            kUpdateLimitMs);
        const QString profiledName = window.kernelView()->model()->table().kernels.front().name;
        QVERIFY(window.kernelView()->selectKernel(profiledName));
        QTRY_VERIFY_WITH_TIMEOUT(window.sassView()->model()->rowCount() > 0, kUpdateLimitMs);
        qint64 samples = 0;
        for (const auto &instruction : window.sassView()->model()->function().instructions)
            samples += instruction.stallSamples.value_or(0);
        QVERIFY2(samples > 0, "the SASS pane shows no stall samples from the source page");

        qInfo("%.1f s: %s", clock.elapsed() / 1000.0, "Verify from");
        // 6. Verify from the window, then Record from its dialog (prefilled who and note).
        window.historyModel()->setTarget(target);
        job = window.startVerify(target, 5, 1);
        QVERIFY(job);
        QElapsedTimer verifyClock;
        verifyClock.start();
        while (job->state() == Job::State::Running && verifyClock.elapsed() < kRunLimitMs)
            QTest::qWait(200);
        QVERIFY2(!job->result().isError, qPrintable(job->result().text));
        QTRY_COMPARE_WITH_TIMEOUT(window.historyModel()->rowCount(), 1, kUpdateLimitMs);
        auto *record = qobject_cast<SchemaFormDialog *>(window.recordDialog());
        QVERIFY(record);
        QVERIFY(!record->arguments().value("who", std::string()).empty());
        job = acceptAndWait(session, record);
        QVERIFY(job);
        QVERIFY2(!job->result().isError, qPrintable(job->result().text));
        QVERIFY(!QDir(m_dir.filePath(QStringLiteral("results/") + target))
                     .entryList({QStringLiteral("*.json")}, QDir::Files)
                     .isEmpty());
        qInfo("%.1f s: recorded", clock.elapsed() / 1000.0);
    }
};

QTEST_MAIN(TestWindowJourney)
#include "tst_windowjourney.moc"
