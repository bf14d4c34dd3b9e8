// SPDX-License-Identifier: Apache-2.0
#include "measure/bracketclock.h"

#include "base/json.h"

namespace hotkernel {

std::optional<QByteArray> BracketClock::take(const QByteArray &line)
{
    // Cheap refusal first: result lines are long and most lines are not bracket events.
    if (!line.contains("\"event\""))
        return std::nullopt;
    const std::optional<Json> j = parseJson(line);
    if (!j || !j->is_object())
        return std::nullopt;
    const QString event = stringField(*j, "event");
    if (event != QLatin1String("armed") && event != QLatin1String("done"))
        return std::nullopt;
    const auto r = j->find("run");
    if (r == j->end() || !r->is_number_integer() || r->get<long long>() != m_run) {
        if (m_fault.isEmpty())
            m_fault = QStringLiteral("a bracket event for another run came during run %1: %2")
                          .arg(m_run)
                          .arg(QString::fromUtf8(line.left(120)));
        return QByteArray();
    }
    if (event == QLatin1String("armed")) {
        if (m_armed) {
            if (m_fault.isEmpty())
                m_fault = QStringLiteral("run %1 said it was armed twice").arg(m_run);
            m_seconds = -1;
            return QByteArray();
        }
        m_armed = true;
        m_clock.start();
        return QByteArray("{\"op\": \"go\", \"run\": ") + QByteArray::number(m_run) + "}\n";
    }
    if (!m_armed || m_seconds >= 0) {
        if (m_fault.isEmpty())
            m_fault = m_armed ? QStringLiteral("run %1 said its timed replays were done twice").arg(m_run)
                              : QStringLiteral("run %1 said its timed replays were done before it was armed")
                                    .arg(m_run);
        m_seconds = -1;
        return QByteArray();
    }
    m_seconds = m_clock.nsecsElapsed() / 1e9;
    return QByteArray();
}

} // namespace hotkernel
