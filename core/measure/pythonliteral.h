// SPDX-License-Identifier: Apache-2.0
// Python literals for the scripts hotkernel writes (TargetScaffold): strings, numbers and lists as
// Python reads them back exactly. Pure; any thread.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace hotkernel::PythonLiteral {

// A double-quoted string, escaped as JSON escapes it (a subset of Python's escapes), ASCII only.
QString string(const QString &text);
// An integer when value is a whole number below 9e15 in magnitude, else the shortest text that reads back as
// the same double.
QString number(double value);
QString intList(const QList<qint64> &values);
QString stringList(const QStringList &values);

} // namespace hotkernel::PythonLiteral
