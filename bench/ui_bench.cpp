// SPDX-License-Identifier: Apache-2.0
// Window responsiveness (printed table, not a timed test). Run under QT_QPA_PLATFORM=offscreen:
//   build/<dir>/bench/hotkernel_ui_bench
// 1. open and highlight a 50k-line SASS listing (the real rmsnorm listing of tests/data/ui repeated
//    with fresh addresses): parse, highlight every line, show and paint the view; goal < 1 s.
// 2. sort a 100k-row kernel table by a number and by name; goal < 200 ms.
// 3. worst event-loop stall while a verify runs in the window's session (a 1 ms timer's largest
//    gap); goal < 50 ms. The verify is the test double of tests/ui (no GPU here); the window, its
//    feed, progress bars and history update exactly as for a real one.
#include "../tests/ui/faketools.h"
#include "inspect/sassparser.h"
#include "kernelfilterproxy.h"
#include "kerneltablemodel.h"
#include "mainwindow.h"
#include "sassmodel.h"
#include "sassview.h"
#include "tools/builtintools.h"
#include "verifyhistorymodel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace hotkernel;

namespace {

struct Row
{
    const char *what;
    double ms;
    double goalMs;
};

QByteArray bigListing(int minLines)
{
    QFile f(QStringLiteral(HOTKERNEL_SOURCE_DIR "/tests/data/ui/rmsnorm.cuobjdump.sass"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QList<QByteArray> lines = f.readAll().split('\n');
    QList<QByteArray> body;
    QByteArray head;
    bool inBody = false;
    for (const QByteArray &line : lines) {
        if (line.trimmed().startsWith("/*0000*/"))
            inBody = true;
        if (!inBody)
            head += line + '\n';
        else if (line.trimmed().startsWith("/*") && !line.trimmed().startsWith("/* 0x"))
            body.append(line);
        else if (line.trimmed().startsWith("/* 0x"))
            body.last() += '\n' + line;
    }
    QByteArray out = head;
    quint64 address = 0;
    int count = 0;
    while (count < minLines && !body.isEmpty()) {
        for (const QByteArray &instruction : std::as_const(body)) {
            const int close = instruction.indexOf("*/");
            out += "        /*" + QByteArray::number(address, 16).rightJustified(4, '0') +
                   instruction.mid(close) + '\n';
            address += 16;
            count += 2;
        }
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("hotkernel-bench"));
    std::vector<Row> rows;
    QElapsedTimer t;

    // 1. SASS listing.
    const QByteArray listing = bigListing(50000);
    t.start();
    auto functions = SassParser::parseSass(listing);
    const double parseMs = double(t.nsecsElapsed()) / 1e6;
    if (functions.empty()) {
        std::fprintf(stderr, "ui_bench: the SASS listing did not parse\n");
        return 1;
    }
    const int listingLines = int(listing.count('\n'));
    SassView view;
    view.resize(1200, 900);
    view.show();
    t.restart();
    view.setFunction(functions.front());
    const double highlightMs = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    (void)view.grab(); // paints the visible rows from their cached layouts
    const double paintMs = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    view.findNext(QStringLiteral("BAR.SYNC"));
    view.jumpToAddress(quint64(functions.front().instructions.size() / 2) * 16);
    (void)view.grab();
    const double scrollMs = double(t.nsecsElapsed()) / 1e6;
    rows.push_back({"parse 50k-line SASS listing", parseMs, 0});
    rows.push_back({"highlight every instruction (model)", highlightMs, 0});
    rows.push_back({"first paint of the view", paintMs, 0});
    rows.push_back({"open SASS total (parse+highlight+paint)", parseMs + highlightMs + paintMs, 1000});
    rows.push_back({"search + jump to the middle + repaint", scrollMs, 0});

    // 2. 100k-row kernel table.
    KernelTable table;
    auto *random = QRandomGenerator::global();
    for (int i = 0; i < 100000; ++i) {
        KernelStat k;
        k.name = QStringLiteral("void kernel_%1<float, %2>(float const*, float*, int)")
                     .arg(random->bounded(1000000))
                     .arg(i % 7);
        k.calls = random->bounded(1, 1000);
        k.avgNs = random->bounded(100000.0);
        k.totalNs = k.avgNs * k.calls;
        k.share = random->bounded(1.0);
        table.kernels.push_back(std::move(k));
    }
    KernelTableModel model;
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    QTableView tableView;
    tableView.setModel(&proxy);
    tableView.resize(1200, 800);
    model.setTable(table);
    t.restart();
    proxy.sort(KernelTableModel::TotalColumn, Qt::DescendingOrder);
    rows.push_back({"sort 100k kernels by total time", double(t.nsecsElapsed()) / 1e6, 200});
    t.restart();
    proxy.sort(KernelTableModel::NameColumn, Qt::AscendingOrder);
    rows.push_back({"sort 100k kernels by name", double(t.nsecsElapsed()) / 1e6, 200});
    t.restart();
    proxy.setNameFilter(QStringLiteral("kernel_12"));
    rows.push_back({"filter 100k kernels by text", double(t.nsecsElapsed()) / 1e6, 200});

    // 3. Event-loop stall while a verify runs in the window.
    QTemporaryDir dir;
    Session session(builtinTools(), test::optionsFor(dir.path()));
    test::installFakeVerify(session);
    MainWindow window(&session);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::workspaceLoaded);
    loaded.wait(5000);
    qint64 worstNs = 0;
    QElapsedTimer gap;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticker, &QTimer::timeout, &app, [&] {
        worstNs = std::max(worstNs, gap.nsecsElapsed());
        gap.restart();
    });
    Job *job = window.startVerify(QStringLiteral("t"), 40, 1);
    gap.start();
    ticker.start(1);
    QSignalSpy finished(job, &Job::finished);
    // Repaint the window now and then, as a visible window would.
    QTimer repaint;
    QObject::connect(&repaint, &QTimer::timeout, &window, [&window] { (void)window.grab(); });
    repaint.start(250);
    finished.wait(30000);
    ticker.stop();
    rows.push_back({"worst event-loop stall during a verify", double(worstNs) / 1e6, 50});

    std::printf("hotkernel ui bench (%s build, QT_QPA_PLATFORM=%s, %d-line listing, %zu instructions)\n",
#ifdef NDEBUG
                "release",
#else
                "debug",
#endif
                qgetenv("QT_QPA_PLATFORM").constData(), listingLines, functions.front().instructions.size());
    std::printf("%-45s %10s %10s %s\n", "what", "ms", "goal ms", "");
    for (const Row &r : rows)
        std::printf("%-45s %10.1f %10s %s\n", r.what, r.ms,
                    r.goalMs > 0 ? QByteArray::number(r.goalMs).constData() : "",
                    r.goalMs > 0 ? (r.ms <= r.goalMs ? "ok" : "MISSED") : "");
    return 0;
}
