// SPDX-License-Identifier: Apache-2.0
#include "windowoptions.h"

namespace hotkernel {

bool WindowOptions::isWindowArgument(const QString &argument)
{
    return argument == QLatin1String("--demo") || argument == QLatin1String("--theme") ||
           argument == QLatin1String("--screenshot") || argument.startsWith(QLatin1String("--theme=")) ||
           argument.startsWith(QLatin1String("--screenshot="));
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
