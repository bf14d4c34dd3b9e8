// SPDX-License-Identifier: Apache-2.0
#include "measure/pythonliteral.h"

#include "base/json.h"

#include <cmath>

namespace hotkernel::PythonLiteral {

QString string(const QString &s)
{
    return toQt(Json(toStd(s)).dump(-1, ' ', true));
}

QString number(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
        return QString::number(qint64(v));
    return toQt(Json(v).dump()); // shortest text that reads back as the same double
}

QString intList(const QList<qint64> &values)
{
    QStringList parts;
    for (qint64 v : values)
        parts.append(QString::number(v));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString stringList(const QStringList &values)
{
    QStringList parts;
    for (const QString &v : values)
        parts.append(string(v));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace hotkernel::PythonLiteral
