// SPDX-License-Identifier: Apache-2.0
#include "session/cliarguments.h"

#include "base/usererror.h"

namespace hotkernel {

namespace {
QString propertyType(const Json &property)
{
    if (!property.is_object())
        return {};
    if (property.contains("type") && property["type"].is_string())
        return toQt(property["type"].get<std::string>());
    if (property.contains("type") && property["type"].is_array() && !property["type"].empty())
        return toQt(property["type"][0].get<std::string>());
    return QStringLiteral("string");
}

QString flagFor(const QString &property)
{
    if (property.size() == 1)
        return QLatin1Char('-') + property;
    QString flag = property;
    flag.replace(QLatin1Char('_'), QLatin1Char('-'));
    return QStringLiteral("--") + flag;
}

Json convert(const ToolSpec &spec, const QString &name, const Json &property, const QString &text)
{
    const QString type = propertyType(property);
    const auto fail = [&](const QString &what) {
        throw UserError(QStringLiteral("hotkernel %1: %2 takes %3, not '%4'.\n%5")
                            .arg(spec.cliVerb, flagFor(name), what, text, CliArguments::usage(spec)));
    };
    if (type == QLatin1String("integer")) {
        bool ok = false;
        const qlonglong v = text.toLongLong(&ok);
        if (!ok)
            fail(QStringLiteral("a whole number"));
        return v;
    }
    if (type == QLatin1String("number")) {
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok)
            fail(QStringLiteral("a number"));
        return v;
    }
    if (type == QLatin1String("boolean")) {
        if (text == QLatin1String("true") || text == QLatin1String("1") || text == QLatin1String("yes"))
            return true;
        if (text == QLatin1String("false") || text == QLatin1String("0") || text == QLatin1String("no"))
            return false;
        fail(QStringLiteral("true or false"));
    }
    if (type == QLatin1String("object")) {
        QString error;
        auto parsed = parseJson(text.toUtf8(), &error);
        if (!parsed || !parsed->is_object())
            fail(QStringLiteral("a JSON object or a path to one"));
        return *parsed;
    }
    return toStd(text);
}
} // namespace

Json CliArguments::parse(const ToolSpec &spec, const QStringList &arguments)
{
    const Json properties = spec.inputSchema.value("properties", Json::object());
    Json result = Json::object();
    int positional = 0;

    // Options split array values on commas ("--extra w:8,b:8"); a positional array (a command
    // line) takes each word whole, commas and all.
    const auto assign = [&](const QString &name, const QString &text, bool wholeWord = false) {
        const Json &property = properties[toStd(name)];
        if (propertyType(property) == QLatin1String("array") && wholeWord) {
            Json &list = result[toStd(name)];
            if (!list.is_array())
                list = Json::array();
            list.push_back(convert(spec, name, property.value("items", Json::object()), text));
        } else if (propertyType(property) == QLatin1String("array")) {
            Json &list = result[toStd(name)];
            if (!list.is_array())
                list = Json::array();
            const Json items = property.value("items", Json::object());
            for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
                list.push_back(convert(spec, name, items, part.trimmed()));
        } else {
            result[toStd(name)] = convert(spec, name, property, text);
        }
    };

    bool onlyPositionals = false; // after "--": words that start with '-' belong to the command
    for (int i = 0; i < arguments.size(); ++i) {
        const QString arg = arguments.at(i);
        if (arg == QLatin1String("--") && !onlyPositionals) {
            onlyPositionals = true;
            continue;
        }
        if (!onlyPositionals && arg.startsWith(QLatin1Char('-')) && arg.size() > 1 && !arg.at(1).isDigit()) {
            QString key = arg.mid(arg.startsWith(QStringLiteral("--")) ? 2 : 1);
            QString inlineValue;
            bool hasInline = false;
            if (const int eq = key.indexOf(QLatin1Char('=')); eq >= 0) {
                inlineValue = key.mid(eq + 1);
                key = key.left(eq);
                hasInline = true;
            }
            QString name = key;
            name.replace(QLatin1Char('-'), QLatin1Char('_'));
            bool negated = false;
            if (!properties.contains(toStd(name)) && name.startsWith(QStringLiteral("no_"))) {
                negated = true;
                name = name.mid(3);
            }
            if (!properties.contains(toStd(name))) {
                throw UserError(QStringLiteral("hotkernel %1: unknown option '%2'.\n%3")
                                    .arg(spec.cliVerb, arg, usage(spec)));
            }
            const Json &property = properties[toStd(name)];
            if (propertyType(property) == QLatin1String("boolean") && !hasInline) {
                result[toStd(name)] = !negated;
                continue;
            }
            if (!hasInline) {
                if (i + 1 >= arguments.size())
                    throw UserError(QStringLiteral("hotkernel %1: %2 needs a value.\n%3")
                                        .arg(spec.cliVerb, arg, usage(spec)));
                inlineValue = arguments.at(++i);
            }
            assign(name, inlineValue);
            continue;
        }
        if (positional >= spec.cliPositionals.size()) {
            throw UserError(QStringLiteral("hotkernel %1: unexpected argument '%2'.\n%3")
                                .arg(spec.cliVerb, arg, usage(spec)));
        }
        const QString name = spec.cliPositionals.at(positional);
        assign(name, arg, true);
        if (propertyType(properties[toStd(name)]) != QLatin1String("array"))
            ++positional;
    }

    for (const auto &required : spec.inputSchema.value("required", Json::array())) {
        const QString name = toQt(required.get<std::string>());
        if (!result.contains(required.get<std::string>())) {
            const bool isPositional = spec.cliPositionals.contains(name);
            throw UserError(
                QStringLiteral("hotkernel %1: missing %2.\n%3")
                    .arg(spec.cliVerb, isPositional ? name.toUpper() : flagFor(name), usage(spec)));
        }
    }
    return result;
}

QString CliArguments::usage(const ToolSpec &spec)
{
    const Json properties = spec.inputSchema.value("properties", Json::object());
    const Json required = spec.inputSchema.value("required", Json::array());
    QString line = QStringLiteral("usage: hotkernel ") + spec.cliVerb;
    for (const QString &p : spec.cliPositionals) {
        const bool isRequired = std::find(required.begin(), required.end(), Json(toStd(p))) != required.end();
        line +=
            isRequired ? QStringLiteral(" %1").arg(p.toUpper()) : QStringLiteral(" [%1]").arg(p.toUpper());
    }
    line += QStringLiteral(" [options]\n");
    for (const QString &p : spec.cliPositionals) {
        if (propertyType(properties.value(toStd(p), Json::object())) == QLatin1String("array"))
            line +=
                QStringLiteral(
                    "  %1 is the words that are not options; put -- before them when one starts with '-'.\n")
                    .arg(p.toUpper());
    }
    QString options;
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        const QString name = toQt(it.key());
        if (spec.cliPositionals.contains(name))
            continue;
        const QString type = propertyType(it.value());
        QString flag = flagFor(name);
        if (type != QLatin1String("boolean"))
            flag +=
                QLatin1Char(' ') + (type == QLatin1String("array") ? QStringLiteral("A,B") : name.toUpper());
        QString description = stringField(it.value(), "description");
        if (it.value().contains("default"))
            description += QStringLiteral(" (default %1)").arg(toQt(it.value()["default"].dump()));
        options += QStringLiteral("  %1\n      %2\n").arg(flag, description);
    }
    return line + options;
}

} // namespace hotkernel
