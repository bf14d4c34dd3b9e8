// SPDX-License-Identifier: Apache-2.0
// JSON value type used across the core, and the few conversions to and from Qt strings.
#pragma once

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>

namespace hotkernel {

// Ordered: tool results and logs keep the field order they were written in, which keeps
// golden files and leaderboard regeneration byte-stable.
using Json = nlohmann::ordered_json;

inline std::string toStd(const QString &s)
{
    return s.toStdString();
}
inline QString toQt(const std::string &s)
{
    return QString::fromStdString(s);
}

// A string field of an object, or fallback when absent or not a string.
QString stringField(const Json &object, const char *key, const QString &fallback = {});
// An integer field of an object, or fallback when absent or not an integer.
long long integerField(const Json &object, const char *key, long long fallback);
QStringList toStringList(const Json &array);
Json toJson(const QStringList &list);

// Parses text as JSON; on failure returns std::nullopt and says why in *error.
std::optional<Json> parseJson(const QByteArray &text, QString *error = nullptr);

} // namespace hotkernel
