// SPDX-License-Identifier: Apache-2.0
#include "measure/tracetarget.h"

#include "base/usererror.h"
#include "inspect/kernelwords.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

#include <cmath>

namespace hotkernel {

namespace {

QString pyLiteral(const Json &value, const QString &traceType, QString *unsupported)
{
    if (traceType == QLatin1String("None") || (value.is_string() && value.get<std::string>() == "<None>"))
        return QStringLiteral("None");
    if (value.is_boolean())
        return value.get<bool>() ? QStringLiteral("True") : QStringLiteral("False");
    if (value.is_number_integer())
        return QString::number(value.get<qint64>());
    if (value.is_number_float()) {
        const double v = value.get<double>();
        if (!std::isfinite(v))
            return std::isnan(v) ? QStringLiteral("float('nan')")
                                 : (v > 0 ? QStringLiteral("float('inf')") : QStringLiteral("-float('inf')"));
        QString text = toQt(Json(v).dump());
        if (!text.contains(QLatin1Char('.')) && !text.contains(QLatin1Char('e')))
            text += QStringLiteral(".0");
        return text;
    }
    if (value.is_string()) {
        if (traceType == QLatin1String("Device"))
            return QStringLiteral("torch.device(%1)").arg(toQt(Json(value).dump()));
        return toQt(Json(value).dump(-1, ' ', true));
    }
    if (value.is_array() && traceType.startsWith(QLatin1String("GenericList[")) &&
        !traceType.contains(QLatin1String("Tensor"))) {
        QStringList items;
        for (const Json &item : value)
            items.append(pyLiteral(item, {}, unsupported));
        return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    *unsupported = QStringLiteral("an argument of trace type %1 (value %2) has no Python form here")
                       .arg(traceType, toQt(value.dump()));
    return QStringLiteral("None");
}

QString dims(const QList<qint64> &shape)
{
    QStringList parts;
    for (qint64 d : shape)
        parts.append(QString::number(d));
    return parts.join(QLatin1Char('x'));
}

QString parameterName(const TraceArgument &a, int index)
{
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    if (a.name == QLatin1String("self") || a.name == QLatin1String("input"))
        return index == 0 ? QStringLiteral("x") : QStringLiteral("t%1").arg(index);
    if (!identifier.match(a.name).hasMatch() || a.name == QLatin1String("op") ||
        a.name == QLatin1String("torch") || a.name == QLatin1String("out"))
        return QStringLiteral("t%1").arg(index);
    return a.name;
}

} // namespace

QSet<QString> TraceTarget::kernelWords(const QString &name)
{
    const QStringList words = KernelWords::of(name);
    return QSet<QString>(words.begin(), words.end());
}

std::vector<TraceOpRow> TraceTarget::rows(const Json &report)
{
    std::vector<TraceOpRow> out;
    for (const Json &r : report.value("op_rows", Json::array())) {
        TraceOpRow row;
        row.row = r.value("row", 0);
        row.op = toQt(r.value("name", std::string()));
        row.node = r.value("et_node", qint64(-1));
        row.calls = r.value("calls", 0);
        row.deviceUs = r.value("device_total_us", 0.0);
        for (const Json &k : r.value("kernels", Json::array()))
            row.kernels.append(toQt(k.value("name", std::string())));
        out.push_back(std::move(row));
    }
    return out;
}

QString TraceTarget::normalizedKernelName(const QString &name)
{
    static const QRegularExpression casts(
        QStringLiteral("\\((?:unsigned |signed )?(?:int|long|char|bool|short|long long)\\)"));
    QString s = name;
    s.replace(QLatin1String("<unnamed>"), QLatin1String("(anonymous namespace)"));
    s.remove(casts);
    s.remove(QLatin1Char(' '));
    return s.toLower();
}

TraceOpRow TraceTarget::pick(const std::vector<TraceOpRow> &rows, int row, const QString &kernel)
{
    if (rows.empty())
        throw UserError(QStringLiteral(
            "The report has no op rows: it was made without the execution trace (torch_trace "
            "execution_trace: true, the default) or by an older hotkernel. Trace the program again."));
    QString listing;
    for (const TraceOpRow &r : rows)
        listing += QStringLiteral("  %1  %2  %3 us  %4\n")
                       .arg(r.row, 3)
                       .arg(r.op)
                       .arg(r.deviceUs, 0, 'f', 1)
                       .arg(r.kernels.value(0).left(90));
    if (row > 0) {
        for (const TraceOpRow &r : rows) {
            if (r.row == row)
                return r;
        }
        throw UserError(QStringLiteral("The report has no op row %1. Its rows:\n%2").arg(row).arg(listing));
    }
    if (kernel.isEmpty())
        throw UserError(
            QStringLiteral("Say which op: --op ROW (a row below) or --kernel NAME. Rows:\n%1").arg(listing));
    const QString wanted = normalizedKernelName(kernel);
    // Exact (normalised) names first, then substrings (a fragment typed by hand).
    for (int pass = 0; pass < 2; ++pass) {
        for (const TraceOpRow &r : rows) {
            for (const QString &k : r.kernels) {
                const QString have = normalizedKernelName(k);
                if (pass == 0 ? have == wanted : have.contains(wanted))
                    return r;
            }
        }
    }
    // Then the words of the name: ncu and torch demangle lambdas and literals differently
    // ("[lambda() (instance 1)]" against "{lambda()#1}", "(unsigned long)2" against "2ul"), but
    // both keep the kernel's and its functors' names.
    const QSet<QString> words = kernelWords(kernel);
    const TraceOpRow *best = nullptr;
    double bestScore = 0;
    for (const TraceOpRow &r : rows) {
        for (const QString &k : r.kernels) {
            const QSet<QString> theirs = kernelWords(k);
            if (words.isEmpty() || theirs.isEmpty())
                continue;
            const double score = double(QSet<QString>(words).intersect(theirs).size()) /
                                 double(std::max(words.size(), theirs.size()));
            if (score > bestScore) {
                bestScore = score;
                best = &r;
            }
        }
    }
    if (best && bestScore >= 0.75)
        return *best;
    throw UserError(
        QStringLiteral("No op row of the report launched a kernel named like '%1' (kernels launched "
                       "outside aten ops, e.g. by a Triton or CUDA extension, have no row). Rows:\n%2")
            .arg(kernel, listing));
}

TraceTargetPlan TraceTarget::plan(const TraceOpRow &row, const TraceCall &call, const QString &name,
                                  const QString &reportPath)
{
    TraceTargetPlan p;
    p.row = row;
    p.call = call;
    const QString shortOp = call.op.section(QStringLiteral("::"), -1);
    const QString target = name.isEmpty() ? shortOp : name;
    p.moduleFile = target + QStringLiteral("_op.py");
    if (!call.op.startsWith(QLatin1String("aten::"))) {
        p.unsupported = QStringLiteral("%1 is not an aten op; only aten ops are rebuilt").arg(call.op);
        return p;
    }
    QStringList params;
    QStringList callArgs;
    QStringList extras;
    QString primary;
    QString dtype;
    QStringList layoutNotes;
    int tensorIndex = 0;
    for (const TraceArgument &a : call.arguments) {
        QString text;
        if (a.isTensor) {
            if (ExecutionTrace::targetDtype(a.traceType).isEmpty()) {
                p.unsupported =
                    QStringLiteral("argument %1 is a %2 tensor: targets draw bf16/fp16/fp32 inputs "
                                   "with randn, which cannot stand in for integer or double data "
                                   "(indices, masks); make the target by hand with --derive")
                        .arg(a.name, a.dtype);
                return p;
            }
            if (a.shape.isEmpty()) {
                p.unsupported = QStringLiteral("argument %1 is a 0-dimensional tensor, which `new` cannot "
                                               "draw; make the target by hand")
                                    .arg(a.name);
                return p;
            }
            const QString param = parameterName(a, tensorIndex);
            params.append(param);
            text = param;
            if (tensorIndex == 0) {
                primary = QStringLiteral("%1=%2").arg(param, dims(a.shape));
                dtype = a.dtype;
            } else {
                extras.append(QStringLiteral("%1:%2:%3").arg(param, dims(a.shape), a.dtype));
            }
            // A contiguous tensor has strides that are the running products of the later dims.
            qint64 expected = 1;
            bool contiguous = a.strides.size() == a.shape.size();
            for (qsizetype d = a.shape.size() - 1; contiguous && d >= 0; --d) {
                if (a.shape[d] > 1 && a.strides[d] != expected)
                    contiguous = false;
                expected *= a.shape[d];
            }
            if (!contiguous && !a.strides.isEmpty())
                layoutNotes.append(
                    QStringLiteral("%1 had strides %2 in the model")
                        .arg(param,
                             toQt(Json(std::vector<qint64>(a.strides.begin(), a.strides.end())).dump())));
            ++tensorIndex;
        } else if (a.traceType.startsWith(QLatin1String("GenericList[")) &&
                   a.traceType.contains(QLatin1String("Tensor"))) {
            p.unsupported =
                QStringLiteral("argument %1 is a list of tensors (%2), which `new` does not draw yet")
                    .arg(a.name, a.traceType);
            return p;
        } else {
            QString why;
            text = pyLiteral(a.value, a.traceType, &why);
            if (!why.isEmpty()) {
                p.unsupported = QStringLiteral("argument %1: %2").arg(a.name, why);
                return p;
            }
        }
        callArgs.append(a.keywordOnly ? QStringLiteral("%1=%2").arg(a.name, text) : text);
    }
    if (tensorIndex == 0) {
        p.unsupported =
            QStringLiteral("%1 takes no tensor input (a factory op such as randn or zeros): there is "
                           "nothing to time in isolation")
                .arg(call.op);
        return p;
    }
    const QString overload = call.overload.isEmpty() ? QStringLiteral("default") : call.overload;
    QString s;
    s += QStringLiteral("# SPDX-License-Identifier: Apache-2.0\n");
    s +=
        QStringLiteral("\"\"\"%1 as the traced program called it (made by `hotkernel new --from-trace`).\n\n")
            .arg(call.op);
    s += QStringLiteral("Report %1, op row %2 (%3 calls, %4 us of device time), execution-trace node %5.\n")
             .arg(reportPath)
             .arg(row.row)
             .arg(row.calls)
             .arg(row.deviceUs, 0, 'f', 1)
             .arg(call.node);
    if (!call.schema.isEmpty())
        s += QStringLiteral("Schema: %1\n")
                 .arg(QString(call.schema).replace(QLatin1Char('\\'), QStringLiteral("\\\\")));
    if (!row.kernels.isEmpty())
        s += QStringLiteral("Kernels it launched: %1\n")
                 .arg(row.kernels.join(QStringLiteral("; "))
                          .replace(QLatin1Char('\\'), QStringLiteral("\\\\")));
    if (!layoutNotes.isEmpty())
        s += QStringLiteral("Inputs here are contiguous; %1.\n").arg(layoutNotes.join(QStringLiteral("; ")));
    s += QStringLiteral("\"\"\"\nimport torch\n\n\n");
    s += QStringLiteral("def op(%1):\n").arg(params.join(QStringLiteral(", ")));
    s += QStringLiteral("    out = torch.ops.aten.%1.%2(%3)\n")
             .arg(shortOp, overload, callArgs.join(QStringLiteral(", ")));
    s += QStringLiteral("    return out[0] if isinstance(out, (tuple, list)) else out\n");
    p.moduleSource = s;

    TargetRequest &r = p.request;
    r.name = target;
    r.from = QStringLiteral("./%1:op").arg(p.moduleFile);
    r.shape = primary;
    r.extra = extras;
    r.dtype = dtype;
    return p;
}

} // namespace hotkernel
