// SPDX-License-Identifier: Apache-2.0
#include "measure/executiontrace.h"

#include "base/usererror.h"

namespace hotkernel {

namespace {

QList<qint64> intList(const Json &value)
{
    QList<qint64> out;
    if (!value.is_array())
        return out;
    for (const Json &v : value) {
        if (v.is_number_integer())
            out.append(v.get<qint64>());
    }
    return out;
}

// Splits at top-level commas: "Tensor? weight=None, int[2] size" -> two parts.
QStringList splitTopLevel(const QString &text)
{
    QStringList parts;
    int depth = 0;
    bool quoted = false;
    QString current;
    for (const QChar c : text) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\''))
            quoted = !quoted;
        if (!quoted && (c == QLatin1Char('(') || c == QLatin1Char('[')))
            ++depth;
        if (!quoted && (c == QLatin1Char(')') || c == QLatin1Char(']')))
            --depth;
        if (!quoted && depth == 0 && c == QLatin1Char(',')) {
            parts.append(current.trimmed());
            current.clear();
            continue;
        }
        current.append(c);
    }
    if (!current.trimmed().isEmpty())
        parts.append(current.trimmed());
    return parts;
}

} // namespace

bool ExecutionTrace::parseSchema(const QString &schema, QString *op, QString *overload,
                                 std::vector<SchemaArgument> *arguments)
{
    const qsizetype open = schema.indexOf(QLatin1Char('('));
    const qsizetype arrow = schema.lastIndexOf(QLatin1String(") ->"));
    if (open <= 0 || arrow < open)
        return false;
    QString name = schema.left(open);
    const qsizetype dot = name.indexOf(QLatin1Char('.'));
    *overload = dot >= 0 ? name.mid(dot + 1) : QString();
    *op = dot >= 0 ? name.left(dot) : name;
    bool keywordOnly = false;
    for (const QString &part : splitTopLevel(schema.mid(open + 1, arrow - open - 1))) {
        if (part == QLatin1String("*")) {
            keywordOnly = true;
            continue;
        }
        QString declaration = part.section(QLatin1Char('='), 0, 0).trimmed();
        const qsizetype space = declaration.lastIndexOf(QLatin1Char(' '));
        if (space < 0)
            return false;
        arguments->push_back({declaration.left(space).trimmed(), declaration.mid(space + 1), keywordOnly});
    }
    return true;
}

QString ExecutionTrace::targetDtype(const QString &traceType)
{
    if (traceType == QLatin1String("Tensor(c10::BFloat16)"))
        return QStringLiteral("bf16");
    if (traceType == QLatin1String("Tensor(c10::Half)"))
        return QStringLiteral("fp16");
    if (traceType == QLatin1String("Tensor(float)"))
        return QStringLiteral("fp32");
    return {};
}

TraceCall ExecutionTrace::decode(const Json &node)
{
    TraceCall call;
    call.node = node.value("id", qint64(-1));
    call.op = toQt(node.value("name", std::string()));
    for (const Json &attr : node.value("attrs", Json::array())) {
        if (attr.value("name", std::string()) == "op_schema" && attr.contains("value") &&
            attr["value"].is_string())
            call.schema = toQt(attr["value"].get<std::string>());
    }
    const Json inputs = node.value("inputs", Json::object());
    const Json values = inputs.value("values", Json::array());
    const Json shapes = inputs.value("shapes", Json::array());
    const Json types = inputs.value("types", Json::array());
    const Json strides = inputs.value("strides", Json::array());
    QString schemaOp;
    std::vector<SchemaArgument> schemaArguments;
    if (!call.schema.isEmpty() && parseSchema(call.schema, &schemaOp, &call.overload, &schemaArguments) &&
        schemaOp != call.op)
        schemaArguments.clear(); // a schema of another op: trust the node's name, not the schema
    for (size_t i = 0; i < types.size(); ++i) {
        TraceArgument a;
        a.traceType = types[i].is_string() ? toQt(types[i].get<std::string>()) : QString();
        if (schemaArguments.size() == types.size()) {
            a.name = schemaArguments[i].name;
            a.schemaType = schemaArguments[i].type;
            a.keywordOnly = schemaArguments[i].keywordOnly;
        } else {
            a.name = QStringLiteral("arg%1").arg(i);
        }
        a.isTensor = a.traceType.startsWith(QLatin1String("Tensor("));
        if (a.isTensor) {
            a.dtype = targetDtype(a.traceType);
            if (a.dtype.isEmpty())
                a.dtype = a.traceType.mid(7).chopped(1);
            a.shape = intList(i < shapes.size() ? shapes[i] : Json());
            a.strides = intList(i < strides.size() ? strides[i] : Json());
        } else if (i < values.size()) {
            a.value = values[i];
        }
        call.arguments.push_back(std::move(a));
    }
    return call;
}

TraceCall ExecutionTrace::call(const Json &trace, qint64 node)
{
    if (!trace.is_object() || !trace.contains("nodes") || !trace["nodes"].is_array())
        throw UserError(
            QStringLiteral("This is not a torch execution trace (no \"nodes\" list). Make one with "
                           "torch_trace (it records it by default)."));
    for (const Json &n : trace["nodes"]) {
        if (n.value("id", qint64(-1)) == node)
            return decode(n);
    }
    throw UserError(QStringLiteral("The execution trace has no node %1: the report and the trace do not "
                                   "belong together; run torch_trace again.")
                        .arg(node));
}

} // namespace hotkernel
