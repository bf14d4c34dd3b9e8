// SPDX-License-Identifier: Apache-2.0
#include "base/json.h"

namespace hotkernel {

QString stringField(const Json &object, const char *key, const QString &fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return fallback;
    return toQt(it->get<std::string>());
}

QStringList toStringList(const Json &array)
{
    QStringList list;
    if (!array.is_array())
        return list;
    for (const auto &item : array) {
        if (item.is_string())
            list.append(toQt(item.get<std::string>()));
    }
    return list;
}

Json toJson(const QStringList &list)
{
    Json array = Json::array();
    for (const QString &s : list)
        array.push_back(toStd(s));
    return array;
}

std::optional<Json> parseJson(const QByteArray &text, QString *error)
{
    try {
        return Json::parse(text.constData(), text.constData() + text.size());
    } catch (const Json::parse_error &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return std::nullopt;
    }
}

} // namespace hotkernel
