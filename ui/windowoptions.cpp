// SPDX-License-Identifier: Apache-2.0
#include "windowoptions.h"

namespace hotkernel {

QStringList WindowOptions::screenshotThemes() const
{
    return theme.isEmpty() ? QStringList{QStringLiteral("light"), QStringLiteral("dark")}
                           : QStringList{theme};
}

bool WindowOptions::isWindowArgument(const QString &argument)
{
    return argument == QLatin1String("--demo") || argument == QLatin1String("--theme") ||
           argument == QLatin1String("--screenshot") || argument.startsWith(QLatin1String("--theme=")) ||
           argument.startsWith(QLatin1String("--screenshot="));
}

QString WindowOptions::displayProblem(const QStringList &environment)
{
    auto value = [&environment](const QString &key) {
        const QString prefix = key + QLatin1Char('=');
        for (const QString &line : environment) {
            if (line.startsWith(prefix))
                return line.mid(prefix.size());
        }
        return QString();
    };
    // Platforms that draw without a display server ("offscreen:fontengine=..." carries options).
    static const QStringList displayless{QStringLiteral("offscreen"),   QStringLiteral("minimal"),
                                         QStringLiteral("minimalegl"),  QStringLiteral("vnc"),
                                         QStringLiteral("eglfs"),       QStringLiteral("linuxfb"),
                                         QStringLiteral("vkkhrdisplay")};
    const QString platform = value(QStringLiteral("QT_QPA_PLATFORM")).section(QLatin1Char(':'), 0, 0);
    if (displayless.contains(platform))
        return {};
    if (!value(QStringLiteral("DISPLAY")).isEmpty() || !value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty())
        return {};
#if defined(Q_OS_MACOS) || defined(Q_OS_WIN)
    return {};
#else
    return QStringLiteral(
        "hotkernel: no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
        "To see the window without one, write it to PNGs with `hotkernel --demo --screenshot DIR` "
        "under QT_QPA_PLATFORM=offscreen, or run it inside a virtual display with "
        "`xvfb-run hotkernel`; to let an agent work without any window, run "
        "`hotkernel mcp --headless`; the CLI verbs (`hotkernel help`) need no display either.");
#endif
}

WindowOptions WindowOptions::parse(const QStringList &arguments)
{
    WindowOptions o;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments[i];
        auto value = [&](const QLatin1String &flag) -> QString {
            if (a.startsWith(QString(flag) + QLatin1Char('=')))
                return a.mid(flag.size() + 1);
            if (i + 1 < arguments.size())
                return arguments[++i];
            o.error = QStringLiteral("%1 needs a value").arg(flag);
            return {};
        };
        if (a == QLatin1String("--demo")) {
            o.demo = true;
        } else if (a.startsWith(QLatin1String("--theme"))) {
            o.theme = value(QLatin1String("--theme"));
            if (o.error.isEmpty() && o.theme != QLatin1String("light") && o.theme != QLatin1String("dark"))
                o.error = QStringLiteral("--theme takes light or dark, not '%1'").arg(o.theme);
        } else if (a.startsWith(QLatin1String("--screenshot"))) {
            o.screenshotDir = value(QLatin1String("--screenshot"));
        } else {
            o.error =
                QStringLiteral("unknown window option '%1'; the window takes --demo, --theme light|dark and "
                               "--screenshot DIR")
                    .arg(a);
        }
        if (!o.error.isEmpty())
            break;
    }
    return o;
}

} // namespace hotkernel
