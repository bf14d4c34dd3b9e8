// SPDX-License-Identifier: Apache-2.0
// The text of a target's two scripts (TargetScaffold::baselineSource, candidateSource): what `new`
// writes, apart from validating the request and putting the files in place (targetscaffold.cpp).
#include "measure/targetscaffold.h"

#include "base/json.h"
#include "measure/pythonliteral.h"
#include "process/processspec.h"

namespace hotkernel {

namespace {

using PythonLiteral::intList;
using PythonLiteral::stringList;

bool isFileSpec(const QString &spec)
{
    return spec.left(spec.lastIndexOf(QLatin1Char(':'))).endsWith(QLatin1String(".py"));
}

// The `hotkernel new` command that makes this target again (kept in the baseline's docstring).
QString commandLine(const TargetRequest &r)
{
    QStringList a = {QStringLiteral("hotkernel"),
                     QStringLiteral("new"),
                     r.name,
                     QStringLiteral("--from"),
                     r.from,
                     QStringLiteral("--shape"),
                     r.shape};
    if (!r.extra.isEmpty())
        a << QStringLiteral("--extra") << r.extra.join(QLatin1Char(','));
    if (!r.rotate.isEmpty())
        a << QStringLiteral("--rotate") << r.rotate.join(QLatin1Char(','));
    if (r.flops)
        a << QStringLiteral("--flops") << PythonLiteral::number(*r.flops);
    if (!r.reference.isEmpty())
        a << QStringLiteral("--reference") << r.reference;
    if (!r.derive.isEmpty())
        a << QStringLiteral("--derive") << r.derive << QStringLiteral("--inputs")
          << r.inputs.join(QLatin1Char(','));
    if (r.minBytes)
        a << QStringLiteral("--min-bytes") << QString::number(*r.minBytes);
    a << QStringLiteral("--dtype") << r.dtype;
    if (r.seed != 0)
        a << QStringLiteral("--seed") << QString::number(r.seed);
    if (r.atol)
        a << QStringLiteral("--atol") << PythonLiteral::number(*r.atol);
    if (r.rtol)
        a << QStringLiteral("--rtol") << PythonLiteral::number(*r.rtol);
    if (r.iters != 50)
        a << QStringLiteral("--iters") << QString::number(r.iters);
    if (!r.device.isEmpty())
        a << QStringLiteral("--device") << r.device;
    QStringList quoted;
    for (const QString &part : std::as_const(a))
        quoted.append(shellQuote(part));
    return quoted.join(QLatin1Char(' '));
}

// How fn's module-level helper is imported, in both scripts.
QString implImport(const QString &from)
{
    const int colon = from.lastIndexOf(QLatin1Char(':'));
    const QString where = from.left(colon);
    const QString attr = from.mid(colon + 1);
    if (!isFileSpec(from) && !attr.contains(QLatin1Char('.')))
        return QStringLiteral("from %1 import %2 as baseline_impl\n").arg(where, attr);
    return QStringLiteral("baseline_impl = load_function(%1, __file__)\n").arg(PythonLiteral::string(from));
}

QString fnSource(const TargetPlan &plan, const QString &comment)
{
    const QString params = plan.callInputs.join(QStringLiteral(", "));
    return QStringLiteral("def fn(%1):\n%2    return baseline_impl(%1)\n").arg(params, comment);
}

QString optionalNumber(const std::optional<double> &v)
{
    return v ? PythonLiteral::number(*v) : QStringLiteral("None");
}

} // namespace

QString TargetScaffold::baselineSource(const TargetPlan &plan)
{
    const TargetRequest &r = plan.request;
    QStringList inputs;
    for (const TargetInputSpec &spec : plan.rawInputs) {
        inputs.append(
            spec.dtype.isEmpty()
                ? QStringLiteral("Input(%1, %2)").arg(PythonLiteral::string(spec.name), intList(spec.shape))
                : QStringLiteral("Input(%1, %2, dtype=%3)")
                      .arg(PythonLiteral::string(spec.name), intList(spec.shape),
                           PythonLiteral::string(spec.dtype)));
    }
    QString s;
    s += QStringLiteral(
             "\"\"\"Target %1: the function to beat and the target definition (made by `hotkernel new`).\n\n"
             "python %2 [--run I] [--device cuda|cpu] prints one JSON result line; --worker serves runs on "
             "stdin;\n"
             "--check-import only imports. Made with:\n    %3\n\"\"\"\n")
             .arg(r.name, baselineFileName(r.name),
                  commandLine(r).replace(QLatin1Char('\\'), QStringLiteral("\\\\")));
    s += QStringLiteral("from _hotkernel_contract import Input, Target, load_function, main  # first: keeps "
                        "stdout for the protocol\n\n");
    s += implImport(r.from) + QStringLiteral("\n\n");
    s += fnSource(plan, {}) + QStringLiteral("\n\n");
    s += QStringLiteral("TARGET = Target(\n");
    s += QStringLiteral("    name=%1,\n").arg(PythonLiteral::string(r.name));
    s += QStringLiteral("    inputs=[%1],\n").arg(inputs.join(QStringLiteral(", ")));
    s += QStringLiteral("    dtype=%1,\n").arg(PythonLiteral::string(r.dtype));
    s += QStringLiteral("    seed=%1,\n").arg(r.seed);
    s += QStringLiteral("    iters=%1,\n").arg(r.iters);
    s += QStringLiteral("    rotate=%1,  # None: the first input (all derived inputs with derive)\n")
             .arg(r.rotate.isEmpty() ? QStringLiteral("None") : stringList(r.rotate));
    s += QStringLiteral("    flops=%1,\n").arg(optionalNumber(r.flops));
    s += QStringLiteral("    min_bytes=%1,  # None: the bytes of the call's inputs\n")
             .arg(r.minBytes ? QString::number(*r.minBytes) : QStringLiteral("None"));
    s += QStringLiteral("    atol=%1,  # None: the dtype's default (fp32 1e-4, tf32 1e-3, bf16/fp16 1e-2)\n")
             .arg(optionalNumber(r.atol));
    s += QStringLiteral("    rtol=%1,\n").arg(optionalNumber(r.rtol));
    s += QStringLiteral("    reference=%1,  # None: this file's fn on fp32 copies of the inputs\n")
             .arg(r.reference.isEmpty() ? QStringLiteral("None") : PythonLiteral::string(r.reference));
    s += QStringLiteral("    derive=%1,\n")
             .arg(r.derive.isEmpty() ? QStringLiteral("None") : PythonLiteral::string(r.derive));
    s += QStringLiteral("    call_inputs=%1,\n")
             .arg(r.derive.isEmpty() ? QStringLiteral("None") : stringList(plan.callInputs));
    s +=
        QStringLiteral("    device=%1,  # None: cuda when torch sees a GPU, else cpu (decided at run time)\n")
            .arg(r.device.isEmpty() ? QStringLiteral("None") : PythonLiteral::string(r.device));
    s += QStringLiteral(")\n\nif __name__ == \"__main__\":\n    main(TARGET, fn)\n");
    return s;
}

QString TargetScaffold::candidateSource(const TargetPlan &plan)
{
    const TargetRequest &r = plan.request;
    QString s;
    s +=
        QStringLiteral(
            "\"\"\"Candidate for target %1: only fn lives here; the definition is %2.TARGET.\n\n"
            "It starts as the baseline. Make fn faster, keep its parameters and its outputs (shape, dtype);\n"
            "then: hotkernel verify %3 %4\n\"\"\"\n")
            .arg(r.name, r.name + QStringLiteral("_baseline"), baselineFileName(r.name),
                 candidateFileName(r.name));
    s += QStringLiteral(
        "from _hotkernel_contract import load_function, main  # first: keeps stdout for the protocol\n");
    s += QStringLiteral("from %1_baseline import TARGET\n\n").arg(r.name);
    s += implImport(r.from) + QStringLiteral("\n\n");
    s += fnSource(plan, QStringLiteral("    # Replace this body with the faster kernel.\n"));
    s += QStringLiteral("\n\nif __name__ == \"__main__\":\n    main(TARGET, fn)\n");
    return s;
}

} // namespace hotkernel
