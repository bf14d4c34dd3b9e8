// SPDX-License-Identifier: Apache-2.0
#include "session/schemavalidator.h"

#include <cmath>

namespace hotkernel {

namespace {
bool hasType(const Json &value, const std::string &type)
{
    if (type == "object")
        return value.is_object();
    if (type == "array")
        return value.is_array();
    if (type == "string")
        return value.is_string();
    if (type == "boolean")
        return value.is_boolean();
    if (type == "null")
        return value.is_null();
    if (type == "number")
        return value.is_number();
    if (type == "integer") {
        if (value.is_number_integer())
            return true;
        if (value.is_number_float()) {
            const double d = value.get<double>();
            return std::isfinite(d) && std::floor(d) == d;
        }
        return false;
    }
    return true;
}

QString typeName(const Json &value)
{
    switch (value.type()) {
    case Json::value_t::object:
        return QStringLiteral("an object");
    case Json::value_t::array:
        return QStringLiteral("an array");
    case Json::value_t::string:
        return QStringLiteral("a string");
    case Json::value_t::boolean:
        return QStringLiteral("a boolean");
    case Json::value_t::null:
        return QStringLiteral("null");
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
        return QStringLiteral("an integer");
    case Json::value_t::number_float:
        return QStringLiteral("a number");
    default:
        return QStringLiteral("a value");
    }
}
} // namespace

QString SchemaValidator::validate(const Json &schema, const Json &value, const QString &path)
{
    if (!schema.is_object())
        return {};

    if (auto it = schema.find("type"); it != schema.end()) {
        std::vector<std::string> types;
        if (it->is_string())
            types.push_back(it->get<std::string>());
        else if (it->is_array())
            for (const auto &t : *it)
                types.push_back(t.get<std::string>());
        bool ok = types.empty();
        for (const auto &t : types)
            ok = ok || hasType(value, t);
        if (!ok) {
            QStringList names;
            for (const auto &t : types)
                names.append(toQt(t));
            return QStringLiteral("%1 must be %2, not %3")
                .arg(path, names.join(QStringLiteral(" or ")), typeName(value));
        }
    }

    if (auto it = schema.find("oneOf"); it != schema.end() && it->is_array()) {
        int matches = 0;
        QString first;
        for (const auto &option : *it) {
            const QString e = validate(option, value, path);
            if (e.isEmpty())
                ++matches;
            else if (first.isEmpty())
                first = e;
        }
        if (matches == 0)
            return first;
    }

    if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
        bool found = false;
        QStringList allowed;
        for (const auto &option : *it) {
            found = found || option == value;
            allowed.append(toQt(option.dump()));
        }
        if (!found)
            return QStringLiteral("%1 must be one of %2, not %3")
                .arg(path, allowed.join(QStringLiteral(", ")), toQt(value.dump()));
    }

    if (value.is_number()) {
        const double d = value.get<double>();
        if (auto it = schema.find("minimum"); it != schema.end() && d < it->get<double>())
            return QStringLiteral("%1 must be at least %2, not %3")
                .arg(path, toQt(it->dump()), toQt(value.dump()));
        if (auto it = schema.find("maximum"); it != schema.end() && d > it->get<double>())
            return QStringLiteral("%1 must be at most %2, not %3")
                .arg(path, toQt(it->dump()), toQt(value.dump()));
        if (auto it = schema.find("exclusiveMinimum"); it != schema.end() && d <= it->get<double>())
            return QStringLiteral("%1 must be greater than %2, not %3")
                .arg(path, toQt(it->dump()), toQt(value.dump()));
    }

    if (value.is_string()) {
        const auto length = QString::fromStdString(value.get<std::string>()).size();
        if (auto it = schema.find("minLength"); it != schema.end() && length < it->get<qsizetype>())
            return QStringLiteral("%1 must not be empty").arg(path);
    }

    if (value.is_array()) {
        if (auto it = schema.find("minItems"); it != schema.end() && value.size() < it->get<size_t>())
            return QStringLiteral("%1 needs at least %2 items").arg(path).arg(it->get<size_t>());
        if (auto it = schema.find("items"); it != schema.end()) {
            for (size_t i = 0; i < value.size(); ++i) {
                const QString e = validate(*it, value[i], QStringLiteral("%1[%2]").arg(path).arg(i));
                if (!e.isEmpty())
                    return e;
            }
        }
    }

    if (value.is_object()) {
        const Json properties = schema.value("properties", Json::object());
        if (auto it = schema.find("required"); it != schema.end()) {
            for (const auto &name : *it) {
                if (!value.contains(name.get<std::string>()))
                    return QStringLiteral("%1.%2 is required").arg(path, toQt(name.get<std::string>()));
            }
        }
        const bool closed =
            schema.contains("additionalProperties") && schema["additionalProperties"] == false;
        for (auto it = value.begin(); it != value.end(); ++it) {
            const auto prop = properties.find(it.key());
            if (prop == properties.end()) {
                if (closed) {
                    QStringList known;
                    for (auto p = properties.begin(); p != properties.end(); ++p)
                        known.append(toQt(p.key()));
                    return QStringLiteral("%1 has no property '%2' (known: %3)")
                        .arg(path, toQt(it.key()), known.join(QStringLiteral(", ")));
                }
                continue;
            }
            const QString e = validate(*prop, it.value(), path + QLatin1Char('.') + toQt(it.key()));
            if (!e.isEmpty())
                return e;
        }
    }
    return {};
}

Json SchemaValidator::withDefaults(const Json &schema, Json value)
{
    if (!value.is_object() || !schema.contains("properties"))
        return value;
    for (const auto &[name, property] : schema["properties"].items()) {
        if (!value.contains(name) && property.is_object() && property.contains("default"))
            value[name] = property["default"];
    }
    return value;
}

} // namespace hotkernel
