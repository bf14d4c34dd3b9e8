// SPDX-License-Identifier: Apache-2.0
#include "panedocks.h"

#include "sassview.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>

#include <cmath>

namespace hotkernel {

namespace {
constexpr int kDefaultLeftWidth = 880; // of the default 1600: the kernel table's columns
constexpr int kSassRows = 8;           // listing rows a short window keeps for SASS around its hot line
} // namespace

QDockWidget *PaneDocks::add(QWidget *widget, const QString &title, const QString &name,
                            Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, m_window);
    dock->setObjectName(name); // saveState() needs it
    dock->setWidget(widget);
    m_window->addDockWidget(area, dock);
    m_docks.append(dock);
    return dock;
}

QDockWidget *PaneDocks::dock(const QString &name) const
{
    for (QDockWidget *d : m_docks) {
        if (d->objectName() == name)
            return d;
    }
    return nullptr;
}

void PaneDocks::applyDefaultLayout(const SassView *sassView)
{
    QMainWindow *w = m_window;
    QDockWidget *targets = dock(QStringLiteral("targets"));
    QDockWidget *kernels = dock(QStringLiteral("kernels"));
    QDockWidget *sass = dock(QStringLiteral("sass"));
    QDockWidget *roofline = dock(QStringLiteral("roofline"));
    QDockWidget *history = dock(QStringLiteral("history"));
    QDockWidget *feed = dock(QStringLiteral("feed"));
    // Built again from nothing rather than restored from a saved state: a state saved before the
    // window first showed holds no sizes, and one saved later may hold a user's arrangement.
    for (QDockWidget *d : std::as_const(m_docks)) {
        d->setFloating(false);
        w->removeDockWidget(d);
    }
    w->addDockWidget(Qt::LeftDockWidgetArea, targets);
    w->addDockWidget(Qt::RightDockWidgetArea, sass);
    w->addDockWidget(Qt::BottomDockWidgetArea, history);
    w->splitDockWidget(targets, kernels, Qt::Vertical);
    w->splitDockWidget(sass, roofline, Qt::Vertical);
    // A short window keeps the tab bar out of the crowded right column: Source goes behind Targets
    // (one row of targets, room to spare), SASS and the roofline get the height (issue 45).
    const bool shortWindow = w->height() > 200 && w->height() < 900;
    w->tabifyDockWidget(shortWindow ? targets : sass, dock(QStringLiteral("source")));
    w->splitDockWidget(history, feed, Qt::Horizontal);
    for (QDockWidget *d : std::as_const(m_docks))
        d->show();
    sass->raise();
    targets->raise();
    // The kernel table needs the width for Nsight's columns (share to bound, before and change in
    // a comparison) beside an elided name; the charts need height to be readable.
    // Measured at 1600x1000 and scaled to the window (1280x720 keeps every pane readable).
    const double sw = w->width() > 200 ? w->width() / 1600.0 : 1.0;
    const double sh = w->height() > 200 ? w->height() / 1000.0 : 1.0;
    auto px = [](double v) { return int(std::lround(v)); };
    w->resizeDocks({targets, kernels}, {px(120 * sh), px(380 * sh)}, Qt::Vertical);
    w->resizeDocks({targets, sass}, {px(kDefaultLeftWidth * sw), px((1600 - kDefaultLeftWidth) * sw)},
                   Qt::Horizontal);
    if (shortWindow) {
        // SASS gets kSassRows rows around its hot line, the bottom row the least that shows the
        // latest verify and the running job, the roofline all the rest (at 1280x720 the bottom
        // row's share of a tall window left SASS two rows and the plot 56 px).
        const int sassHeight = sass->minimumSizeHint().height() - sassView->minimumSizeHint().height() +
                               sassView->heightForRows(kSassRows);
        w->resizeDocks({kernels, history}, {px(1000 * sh), 1}, Qt::Vertical);
        w->resizeDocks({sass}, {sassHeight}, Qt::Vertical);
    } else {
        w->resizeDocks({sass, roofline}, {px(330 * sh), px(420 * sh)}, Qt::Vertical);
        // 320 gives the bottom row the 243 px it had when the history chart's minimum (200 px)
        // set it; that minimum is 130 now, for short windows.
        w->resizeDocks({kernels, history}, {px(480 * sh), px(320 * sh)}, Qt::Vertical);
    }
    w->resizeDocks({history, feed}, {px(880 * sw), px(720 * sw)}, Qt::Horizontal);
}

void PaneDocks::focus(QDockWidget *dock)
{
    dock->show();
    dock->raise();
    QWidget *target = dock->widget();
    // The pane's first widget that takes the keyboard (its table, its text), else the pane.
    for (QWidget *w : target->findChildren<QWidget *>()) {
        if (w->isVisible() && (w->focusPolicy() & Qt::TabFocus) && qobject_cast<QAbstractItemView *>(w)) {
            target = w;
            break;
        }
    }
    target->setFocus(Qt::ShortcutFocusReason);
}

void PaneDocks::focusNext(int step)
{
    qsizetype current = -1;
    for (qsizetype i = 0; i < m_docks.size(); ++i) {
        if (m_docks[i]->isAncestorOf(QApplication::focusWidget()))
            current = i;
    }
    const qsizetype n = m_docks.size();
    focus(m_docks[((current < 0 ? (step > 0 ? -1 : 0) : current) + step + n) % n]);
}

} // namespace hotkernel
