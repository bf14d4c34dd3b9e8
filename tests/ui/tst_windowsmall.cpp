// SPDX-License-Identifier: Apache-2.0
// Issue 45 on small windows: on the demo at 1280x720 and 1600x1000, light and dark, SASS shows
// at least eight rows with the hottest line among them, the kernel table and the roofline keep
// room; the roofline's y labels are whole, its ceiling labels never overlap (the selected
// kernel's roof keeps its label), and the hover callout stays inside the plot, off the labels,
// on a background. RooflineLabelLayout's rules are checked on a crowded plot of their own.
#include "apptheme.h"
#include "faketools.h"
#include "kerneltableview.h"
#include "mainwindow.h"
#include "rooflinechartview.h"
#include "rooflinelabellayout.h"
#include "sassmodel.h"
#include "sassview.h"
#include "testlimits.h"
#include "tools/builtintools.h"
#include "workspace/workspace.h"

#include <QApplication>
#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLogValueAxis>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

using namespace hotkernel;

namespace {

Workspace demoWorkspace()
{
    Workspace w = Workspace::load(QStringLiteral(HOTKERNEL_SOURCE_DIR "/resources/demo"));
    w.loadCalibration();
    return w;
}

// The demo as the window opens it at size, in theme.
struct DemoWindow
{
    QTemporaryDir dir;
    std::unique_ptr<Session> session;
    std::unique_ptr<MainWindow> window;
};

std::unique_ptr<DemoWindow> openDemo(const QSize &size, const QString &theme)
{
    auto demo = std::make_unique<DemoWindow>();
    QSettings().remove(QStringLiteral("window"));
    if (!AppTheme::apply(theme))
        return nullptr;
    demo->session = std::make_unique<Session>(builtinTools(), test::optionsFor(demo->dir.path()));
    demo->window = std::make_unique<MainWindow>(demo->session.get());
    QSignalSpy loaded(demo->window.get(), &MainWindow::workspaceLoaded);
    if (!loaded.wait(test::kEventLimitMs))
        return nullptr;
    demo->window->resize(size);
    demo->window->resetLayout();
    demo->window->show();
    if (!QTest::qWaitForWindowExposed(demo->window.get()))
        return nullptr;
    demo->window->setWorkspace(demoWorkspace());
    QTest::qWait(50); // one round of layout after the workspace came in
    return demo;
}

// The y axis' tick labels as drawn: the chart's text items left of the plot, level with it.
QList<QGraphicsTextItem *> yTickLabels(QChart *chart)
{
    const QRectF plot = chart->mapToScene(chart->plotArea()).boundingRect();
    QList<QGraphicsTextItem *> labels;
    for (QGraphicsItem *item : chart->scene()->items()) {
        auto *text = dynamic_cast<QGraphicsTextItem *>(item);
        if (!text || !text->isVisible() || text->toPlainText().isEmpty())
            continue;
        const QRectF box = text->sceneBoundingRect();
        if (box.right() <= plot.left() + 1 && box.center().y() >= plot.top() - box.height() &&
            box.center().y() <= plot.bottom() + box.height() && text->rotation() == 0)
            labels.append(text);
    }
    return labels;
}

// What the axis says at each of its ticks, formatted as it formats them.
QStringList expectedTicks(const QLogValueAxis *axis)
{
    QStringList ticks;
    const double step = std::log10(axis->base());
    for (double e = std::ceil(std::log10(axis->min()) / step - 1e-9) * step;
         e <= std::log10(axis->max()) + 1e-9; e += step)
        ticks.append(QString::asprintf(axis->labelFormat().toLatin1().constData(), std::pow(10.0, e)));
    return ticks;
}

} // namespace

class TestWindowSmall : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("hotkernel-tests"));
        QStandardPaths::setTestModeEnabled(true);
    }

    void panesKeepTheirRoom_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("theme");
        for (const char *theme : {"light", "dark"}) {
            QTest::addRow("1280x720 %s", theme) << QSize(1280, 720) << QString::fromLatin1(theme);
            QTest::addRow("1600x1000 %s", theme) << QSize(1600, 1000) << QString::fromLatin1(theme);
        }
    }

    void panesKeepTheirRoom()
    {
        QFETCH(QSize, size);
        QFETCH(QString, theme);
        auto demo = openDemo(size, theme);
        QVERIFY(demo);
        MainWindow &window = *demo->window;
        QCOMPARE(window.size(), size);
        // SASS: eight rows at least, the hottest line among them, whole.
        SassView *sass = window.sassView();
        QVERIFY2(sass->visibleRows() >= 8, qPrintable(QString::number(sass->visibleRows())));
        const int hottest = sass->model()->hottestRow();
        QVERIFY(hottest >= 0);
        QCOMPARE(sass->currentRow(), hottest);
        const QRect hotRect = sass->table()->visualRect(sass->table()->currentIndex());
        QVERIFY2(sass->table()->viewport()->rect().contains(hotRect),
                 qPrintable(QStringLiteral("hot row at %1, viewport %2 high")
                                .arg(hotRect.top())
                                .arg(sass->table()->viewport()->height())));
        // The kernel table and the roofline keep theirs.
        QTableView *kernels = window.kernelView()->table();
        QVERIFY(kernels->viewport()->height() >= 4 * kernels->verticalHeader()->defaultSectionSize());
        RooflineChartView *roofline = window.rooflineView();
        QVERIFY2(roofline->chart()->plotArea().height() >= 80,
                 qPrintable(QString::number(roofline->chart()->plotArea().height())));
        QCOMPARE(roofline->isCompact(), size.height() < 900);
    }

    void rooflineTextsStayApart_data() { panesKeepTheirRoom_data(); }

    void rooflineTextsStayApart()
    {
        QFETCH(QSize, size);
        QFETCH(QString, theme);
        auto demo = openDemo(size, theme);
        QVERIFY(demo);
        RooflineChartView *view = demo->window->rooflineView();
        QChart *chart = view->chart();
        QVERIFY(!view->selectedKey().isEmpty());

        // Ceiling labels: none over another, the selected kernel's roof among them.
        const QList<QPolygonF> labels = view->ceilingLabelShapes();
        QVERIFY(!labels.isEmpty());
        for (qsizetype i = 0; i < labels.size(); ++i) {
            for (qsizetype j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels[i].intersects(labels[j]),
                         qPrintable(QStringLiteral("%1 and %2").arg(i).arg(j)));
        }
        const RooflinePoint *selected = nullptr;
        for (const RooflinePoint &p : view->data().points) {
            if (p.key == view->selectedKey() && (!selected || p.kind != QLatin1String("baseline")))
                selected = &p;
        }
        QVERIFY(selected);
        const QString roof = view->roofAbove(*selected).label;
        QVERIFY(!roof.isEmpty());
        QVERIFY2(!view->droppedLabels().contains(roof), qPrintable(view->droppedLabels().join(u',')));

        // The y axis: each tick's label whole, as the axis formats its value.
        auto *y = qobject_cast<QLogValueAxis *>(chart->axes(Qt::Vertical).value(0));
        QVERIFY(y);
        const QStringList expected = expectedTicks(y);
        const QList<QGraphicsTextItem *> ticks = yTickLabels(chart);
        QVERIFY2(ticks.size() >= 2, qPrintable(expected.join(u',')));
        QList<QRectF> tickBoxes;
        for (QGraphicsTextItem *t : ticks) {
            QVERIFY2(expected.contains(t->toPlainText()),
                     qPrintable(t->toPlainText() + QStringLiteral(" not in ") + expected.join(u',')));
            tickBoxes.append(t->sceneBoundingRect());
        }

        // The callout of every point: inside the plot, off the ceiling labels and the ticks, opaque.
        const QRectF plot = chart->mapToScene(chart->plotArea()).boundingRect();
        for (const RooflinePoint &p : view->data().points) {
            view->showCalloutFor(p);
            const QRectF box = view->calloutShape();
            QVERIFY(!box.isEmpty());
            QVERIFY2(plot.contains(box), qPrintable(p.key));
            // Short plots get the two-line callout: five lines hid the 1280x720 plot.
            if (view->isCompact())
                QVERIFY2(box.height() <= plot.height() / 2 + 1, qPrintable(p.key));
            for (const QPolygonF &label : view->ceilingLabelShapes())
                QVERIFY2(!label.intersects(QPolygonF(box)), qPrintable(p.key));
            for (const QRectF &tick : std::as_const(tickBoxes))
                QVERIFY(!tick.intersects(box));
            bool opaque = false;
            for (QGraphicsItem *item : chart->childItems()) {
                auto *rect = dynamic_cast<QGraphicsRectItem *>(item);
                if (rect && rect->isVisible() && rect->sceneBoundingRect().contains(box))
                    opaque = opaque || rect->brush().color().alpha() == 255;
            }
            QVERIFY2(opaque, qPrintable(p.key));
        }
    }

    void sassKeepsTheHotLineWhenMadeShorter()
    {
        const Workspace w = demoWorkspace();
        const SassFunction *f = w.functionFor(QStringLiteral("_rmsnorm_kernel"));
        QVERIFY(f);
        SassView view;
        view.resize(560, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFunction(*f);
        QTest::qWait(20);
        const QModelIndex hot = view.table()->currentIndex();
        QCOMPARE(view.currentRow(), view.model()->hottestRow());
        view.resize(560, view.heightForRows(8));
        QTRY_VERIFY(view.table()->viewport()->rect().contains(view.table()->visualRect(hot)));
        QVERIFY(view.visibleRows() >= 8);
    }

    void labelLayoutDropsTheLesserLabel()
    {
        // Five roofs a few pixels apart in a short plot: not every label fits.
        const QRectF plot(0, 0, 300, 60);
        std::vector<RooflineLabelLayout::Request> requests;
        for (int i = 0; i < 5; ++i)
            requests.push_back({QLineF(0, 20 + 4 * i, 300, 20 + 4 * i), QSizeF(160, 15), 0.9, true, i == 4});
        // The kept one first, as the chart view orders them.
        std::rotate(requests.begin(), requests.begin() + 4, requests.end());
        const auto places = RooflineLabelLayout::placeLabels(requests, plot, {QPointF(150, 30)});
        QVERIFY(places.front().visible);
        int shown = 0;
        for (size_t i = 0; i < places.size(); ++i) {
            if (!places[i].visible)
                continue;
            ++shown;
            for (size_t j = i + 1; j < places.size(); ++j)
                QVERIFY(!places[j].visible || !places[i].shape.intersects(places[j].shape));
            QVERIFY(!places[i].shape.containsPoint(QPointF(150, 30), Qt::OddEvenFill));
        }
        QVERIFY(shown >= 1 && shown < 5);

        // Ticks: every decade on a tall axis, fewer on a short one.
        QCOMPARE(RooflineLabelLayout::decadesPerTick(8, 400, 15), 1);
        QVERIFY(RooflineLabelLayout::decadesPerTick(8, 90, 15) >= 2);

        // The callout: off the label that covers the place nearest the point, inside the plot.
        const QPolygonF label(QRectF(110, 0, 100, 20));
        bool clear = false;
        const QRectF box = RooflineLabelLayout::placeCallout(QSizeF(80, 40), QPointF(150, 30),
                                                             QRectF(0, 0, 300, 100), {label}, &clear);
        QVERIFY(clear);
        QVERIFY(QRectF(0, 0, 300, 100).contains(box));
        QVERIFY(!label.intersects(QPolygonF(box)));
        QVERIFY(!box.adjusted(-10, -10, 10, 10).contains(QPointF(150, 30)));
    }
};

QTEST_MAIN(TestWindowSmall)
#include "tst_windowsmall.moc"
