// SPDX-License-Identifier: Apache-2.0
#include "measure/targetscaffold.h"

#include "base/boundedfile.h"
#include "base/confinedwrite.h"
#include "base/targetname.h"
#include "base/usererror.h"
#include "measure/pythonliteral.h"
#include "process/processrunner.h"
#include "remote/remotehost.h"
#include "remote/syncset.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QScopeGuard>

#include <optional>

namespace hotkernel {

namespace {

const QRegularExpression &identifierPattern()
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return re;
}

bool isPythonKeyword(const QString &name)
{
    static const QStringList keywords = {
        QStringLiteral("False"),  QStringLiteral("None"),     QStringLiteral("True"),
        QStringLiteral("and"),    QStringLiteral("as"),       QStringLiteral("assert"),
        QStringLiteral("async"),  QStringLiteral("await"),    QStringLiteral("break"),
        QStringLiteral("class"),  QStringLiteral("continue"), QStringLiteral("def"),
        QStringLiteral("del"),    QStringLiteral("elif"),     QStringLiteral("else"),
        QStringLiteral("except"), QStringLiteral("finally"),  QStringLiteral("for"),
        QStringLiteral("from"),   QStringLiteral("global"),   QStringLiteral("if"),
        QStringLiteral("import"), QStringLiteral("in"),       QStringLiteral("is"),
        QStringLiteral("lambda"), QStringLiteral("nonlocal"), QStringLiteral("not"),
        QStringLiteral("or"),     QStringLiteral("pass"),     QStringLiteral("raise"),
        QStringLiteral("return"), QStringLiteral("try"),      QStringLiteral("while"),
        QStringLiteral("with"),   QStringLiteral("yield")};
    return keywords.contains(name);
}

// module:function or ./file.py:function (a path relative to the out dir, or absolute).
void requireFunctionSpec(const QString &spec, const QString &what)
{
    static const QRegularExpression moduleForm(
        QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-"
                       "z_][A-Za-z0-9_]*)*$"));
    static const QRegularExpression fileForm(
        QStringLiteral("^[^:\\x00-\\x1f]+\\.py:[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"));
    if (moduleForm.match(spec).hasMatch() || fileForm.match(spec).hasMatch())
        return;
    throw UserError(
        QStringLiteral("%1 '%2' is not a function: write module:function (e.g. torch.nn.functional:gelu) "
                       "or ./file.py:function (a path relative to the out dir, or absolute).")
            .arg(what, spec));
}

} // namespace

TargetRequest TargetRequest::fromJson(const Json &a)
{
    TargetRequest r;
    r.name = stringField(a, "target");
    r.from = stringField(a, "from");
    r.shape = stringField(a, "shape");
    if (a.contains("extra"))
        r.extra = toStringList(a["extra"]);
    if (a.contains("rotate"))
        r.rotate = toStringList(a["rotate"]);
    if (a.contains("flops") && a["flops"].is_number())
        r.flops = a["flops"].get<double>();
    r.reference = stringField(a, "reference");
    r.derive = stringField(a, "derive");
    if (a.contains("inputs") && a["inputs"].is_string()) // the original's 'x,w_q,scales'
        r.inputs = toQt(a["inputs"].get<std::string>()).split(QLatin1Char(','), Qt::SkipEmptyParts);
    else if (a.contains("inputs"))
        r.inputs = toStringList(a["inputs"]);
    if (a.contains("min_bytes") && a["min_bytes"].is_number())
        r.minBytes = a["min_bytes"].get<qint64>();
    r.dtype = stringField(a, "dtype", r.dtype);
    if (a.contains("seed") && a["seed"].is_number())
        r.seed = a["seed"].get<qint64>();
    if (a.contains("atol") && a["atol"].is_number())
        r.atol = a["atol"].get<double>();
    if (a.contains("rtol") && a["rtol"].is_number())
        r.rtol = a["rtol"].get<double>();
    if (a.contains("iters") && a["iters"].is_number())
        r.iters = a["iters"].get<int>();
    r.device = stringField(a, "device");
    r.force = a.value("force", false);
    r.outDir = stringField(a, "out_dir", r.outDir);
    return r;
}

const QStringList &TargetScaffold::dtypes()
{
    static const QStringList list = {QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("fp32"),
                                     QStringLiteral("tf32"), QStringLiteral("fp64")};
    return list;
}

void TargetScaffold::requireIdentifier(const QString &name, const QString &what)
{
    if (name.isEmpty())
        throw UserError(QStringLiteral("%1 is empty: give a name such as rmsnorm.").arg(what));
    if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')))
        throw UserError(
            QStringLiteral("%1 '%2' contains a path separator: give a bare name (e.g. rmsnorm) and choose "
                           "the folder with --out-dir.")
                .arg(what, name));
    if (name.contains(QLatin1String("..")))
        throw UserError(
            QStringLiteral("%1 '%2' contains '..': give a bare name (e.g. rmsnorm) and choose the folder "
                           "with --out-dir.")
                .arg(what, name));
    for (const QChar c : name) {
        if (c.category() == QChar::Other_Control)
            throw UserError(
                QStringLiteral("%1 %2 contains a control character: use letters, digits and underscores.")
                    .arg(what, PythonLiteral::string(name)));
    }
    if (!identifierPattern().match(name).hasMatch() || isPythonKeyword(name))
        throw UserError(
            QStringLiteral("%1 '%2' is not a Python identifier: use letters, digits and underscores, not "
                           "starting with a digit (the scripts import it by name).")
                .arg(what, name));
}

QList<qint64> TargetScaffold::parseDims(const QString &text, const QString &what)
{
    static const QRegularExpression dims(QStringLiteral("^[0-9]+(x[0-9]+)*$"));
    // 4096x8192, and the original hotkernel's 4096,8192 and 4096*8192, with spaces allowed.
    QString normalized = text;
    normalized.remove(QLatin1Char(' '))
        .replace(QLatin1Char(','), QLatin1Char('x'))
        .replace(QLatin1Char('*'), QLatin1Char('x'));
    const auto fail = [&]() {
        return UserError(
            QStringLiteral("%1 '%2' does not parse: write positive dimensions separated by x (or , or *), "
                           "e.g. 4096x8192, or 8192 for a vector.")
                .arg(what, text));
    };
    if (!dims.match(normalized).hasMatch())
        throw fail();
    QList<qint64> out;
    for (const QString &part : normalized.split(QLatin1Char('x'))) {
        bool ok = false;
        const qint64 v = part.toLongLong(&ok);
        if (!ok || v <= 0 || v > (qint64(1) << 40))
            throw fail();
        out.append(v);
    }
    return out;
}

TargetPlan TargetScaffold::plan(const TargetRequest &request)
{
    TargetPlan p;
    p.request = request;
    const TargetRequest &r = request;
    // The rule record applies too (so every name new accepts can be recorded), then the scripts'
    // own need: they import each other by this name.
    TargetName::require(r.name, QStringLiteral("the target name"));
    requireIdentifier(r.name, QStringLiteral("target name"));
    if (r.from.isEmpty())
        throw UserError(QStringLiteral(
            "--from is missing: name the baseline function, e.g. --from torch.nn.functional:gelu "
            "or --from ./kernels.py:rmsnorm."));
    requireFunctionSpec(r.from, QStringLiteral("--from"));
    if (!dtypes().contains(r.dtype))
        throw UserError(QStringLiteral("unknown dtype '%1': use one of %2.")
                            .arg(r.dtype, dtypes().join(QStringLiteral(", "))));

    // The primary input: [NAME=]DIMS.
    TargetInputSpec primary;
    primary.name = QStringLiteral("x");
    QString dims = r.shape;
    if (r.shape.isEmpty())
        throw UserError(
            QStringLiteral("--shape is missing: give the primary input's shape, e.g. --shape 4096x8192."));
    if (const int eq = r.shape.indexOf(QLatin1Char('=')); eq >= 0) {
        primary.name = r.shape.left(eq);
        dims = r.shape.mid(eq + 1);
        requireIdentifier(primary.name, QStringLiteral("--shape input name"));
    }
    primary.shape = parseDims(dims, QStringLiteral("--shape"));
    p.rawInputs.append(primary);

    static const QRegularExpression extraForm(QStringLiteral("^([^:]*):([^:]*)(?::([^:]*))?$"));
    for (const QString &extra : r.extra) {
        const auto m = extraForm.match(extra);
        if (!m.hasMatch())
            throw UserError(
                QStringLiteral("--extra '%1' does not parse: write NAME:DIMS or NAME:DIMS:DTYPE, e.g. w:8192 "
                               "or scale:64:fp32.")
                    .arg(extra));
        TargetInputSpec spec;
        spec.name = m.captured(1);
        requireIdentifier(spec.name, QStringLiteral("--extra input name"));
        spec.shape = parseDims(m.captured(2), QStringLiteral("--extra %1").arg(spec.name));
        spec.dtype = m.captured(3);
        if (m.hasCaptured(3) && !dtypes().contains(spec.dtype))
            throw UserError(QStringLiteral("--extra '%1': unknown dtype '%2': use one of %3.")
                                .arg(extra, spec.dtype, dtypes().join(QStringLiteral(", "))));
        for (const TargetInputSpec &seen : std::as_const(p.rawInputs)) {
            if (seen.name == spec.name)
                throw UserError(QStringLiteral("input '%1' is given twice: every input needs its own name.")
                                    .arg(spec.name));
        }
        p.rawInputs.append(spec);
    }
    QStringList rawNames;
    for (const TargetInputSpec &spec : std::as_const(p.rawInputs))
        rawNames.append(spec.name);

    if (!r.derive.isEmpty()) {
        requireFunctionSpec(r.derive, QStringLiteral("--derive"));
        if (r.inputs.isEmpty())
            throw UserError(
                QStringLiteral("--derive needs --inputs: the names of the inputs it returns, in call order "
                               "(e.g. --inputs x,w_packed,scales)."));
        if (r.reference.isEmpty())
            throw UserError(
                QStringLiteral("--derive needs --reference: a function computing the result in fp32 from the "
                               "derived inputs (the baseline cannot run on fp32 copies of them)."));
        for (const QString &name : r.inputs) {
            requireIdentifier(name, QStringLiteral("--inputs name"));
            if (r.inputs.count(name) > 1)
                throw UserError(
                    QStringLiteral("--inputs names '%1' twice: each call input needs its own name.")
                        .arg(name));
        }
        p.callInputs = r.inputs;
    } else {
        if (!r.inputs.isEmpty())
            throw UserError(
                QStringLiteral("--inputs names the inputs a --derive function returns; without --derive the "
                               "call inputs are --shape's and --extra's (drop --inputs, or add --derive)."));
        p.callInputs = rawNames;
    }
    if (!r.reference.isEmpty())
        requireFunctionSpec(r.reference, QStringLiteral("--reference"));
    for (const QString &name : r.rotate) {
        if (!p.callInputs.contains(name))
            throw UserError(
                QStringLiteral("--rotate names '%1', which is not among the call inputs (%2): rotate only "
                               "inputs the function takes.")
                    .arg(name, p.callInputs.join(QStringLiteral(", "))));
    }
    if (r.iters < 1)
        throw UserError(
            QStringLiteral("--iters %1: give a positive number of calls per timed block (default 50).")
                .arg(r.iters));
    if (r.seed < 0)
        throw UserError(QStringLiteral("--seed %1: give a non-negative seed.").arg(r.seed));
    if (r.minBytes && *r.minBytes <= 0)
        throw UserError(
            QStringLiteral("--min-bytes %1: give the positive number of bytes one call must move.")
                .arg(*r.minBytes));
    if (r.flops && !(*r.flops >= 0))
        throw UserError(
            QStringLiteral("--flops must be a non-negative number of floating-point operations per call."));
    if ((r.atol && !(*r.atol >= 0)) || (r.rtol && !(*r.rtol >= 0)))
        throw UserError(QStringLiteral("--atol and --rtol must be non-negative numbers."));
    if (!r.device.isEmpty() && r.device != QLatin1String("cuda") && r.device != QLatin1String("cpu"))
        throw UserError(
            QStringLiteral(
                "unknown device '%1': use cuda or cpu (or leave it out: cuda when torch sees a GPU).")
                .arg(r.device));
    return p;
}

QString TargetScaffold::baselineFileName(const QString &target)
{
    return target + QStringLiteral("_baseline.py");
}
QString TargetScaffold::candidateFileName(const QString &target)
{
    return target + QStringLiteral("_candidate.py");
}
QString TargetScaffold::contractFileName()
{
    return QStringLiteral("_hotkernel_contract.py");
}

QByteArray TargetScaffold::contractSource()
{
    QFile f(QStringLiteral(":/hotkernel/contract/_hotkernel_contract.py")); // not a named file: a resource
                                                                            // compiled into the binary
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error(
            "the contract resource :/hotkernel/contract/_hotkernel_contract.py is missing from this build");
    return f.readAll();
}

TargetScaffold::Prepared TargetScaffold::prepare(const TargetRequest &request, const WorkDir &workDir)
{
    Prepared prepared;
    prepared.plan = plan(request);
    prepared.outDir = workDir.requireInside(request.outDir, QStringLiteral("out_dir"));
    if (QFileInfo::exists(prepared.outDir) && !QFileInfo(prepared.outDir).isDir())
        throw UserError(
            QStringLiteral("out_dir '%1' exists and is not a folder: choose a folder.").arg(request.outDir));
    const QByteArray contract = contractSource();
    const QDir out(prepared.outDir);
    prepared.files = {
        {baselineFileName(request.name), baselineSource(prepared.plan).toUtf8()},
        {candidateFileName(request.name), candidateSource(prepared.plan).toUtf8()},
        {contractFileName(), contract},
    };
    for (const auto &[name, bytes] : std::as_const(prepared.files)) {
        const QString existing = out.filePath(name);
        const bool exists = QFileInfo::exists(existing) || QFileInfo(existing).isSymLink();
        // The candidate is the user's work: --force (re-vendoring the contract, a new baseline)
        // never overwrites it; removing it first starts a new one.
        if (exists && request.force && name == candidateFileName(request.name)) {
            prepared.keepCandidate = true;
            continue;
        }
        if (!exists || request.force)
            continue;
        if (name == contractFileName()) {
            const BoundedFile::Read current =
                BoundedFile::read(existing, BoundedFile::kScriptLimit, BoundedFile::Links::Refuse);
            if (current.ok() && current.bytes == bytes)
                continue;
            throw UserError(
                QStringLiteral(
                    "%1 holds another version of the contract, which other targets there may use: pass "
                    "--force to replace it (their results then no longer compare with older ones), "
                    "or choose another --out-dir.")
                    .arg(out.filePath(name)));
        }
        throw UserError(
            QStringLiteral(
                "%1 already exists: pass --force to overwrite it (edits in it are lost), or choose "
                "another target name or --out-dir.")
                .arg(out.filePath(name)));
    }
    return prepared;
}

QCoro::Task<ScaffoldResult> TargetScaffold::write(TargetRequest request, WorkDir workDir, QString python,
                                                  Job *job, RemoteHost *remote)
{
    const Prepared prepared = prepare(request, workDir);
    const QString outDir = prepared.outDir;
    const auto &files = prepared.files;

    // Folders this call creates, removed again when it fails.
    QStringList created;
    for (QString dir = outDir; !QFileInfo::exists(dir); dir = QFileInfo(dir).absolutePath())
        created.append(dir);
    // The scripts are staged beside their destination (same file system, so the final move is a
    // rename). The staging folder is owned here: it goes on every exit, cancellation and a job
    // ended by a signal included, and the folders this call created go with it unless it succeeds.
    std::optional<ConfinedTempDir> staging;
    bool succeeded = false;
    const auto cleanup = qScopeGuard([&] {
        staging.reset();
        if (!succeeded) {
            for (const QString &dir : std::as_const(created))
                QDir().rmdir(dir);
        }
    });
    // Opened without leaving the working directory: no '..', no symlink that leads out of it.
    const ConfinedDir out = ConfinedDir::open(workDir.root(), workDir.relative(outDir));
    staging.emplace(out, QStringLiteral("new"));
    const QString keptName = prepared.keepCandidate ? candidateFileName(request.name) : QString();
    for (const auto &[name, bytes] : files)
        if (name != keptName)
            staging->dir().write(name, bytes);

    // Import check: the baseline imports --from (and resolves --reference/--derive) in the user's
    // interpreter. The staged scripts resolve ./file.py paths and local modules against the out dir, where
    // they will live.
    ProcessSpec spec;
    spec.program = python;
    spec.arguments =
        QStringList{staging->filePath(baselineFileName(request.name)), QStringLiteral("--check-import")};
    spec.workingDirectory = outDir;
    const QString pythonPath = qEnvironmentVariable("PYTHONPATH");
    spec.extraEnvironment.insert(QStringLiteral("PYTHONPATH"),
                                 pythonPath.isEmpty() ? outDir : outDir + QLatin1Char(':') + pythonPath);
    spec.extraEnvironment.insert(QStringLiteral("HOTKERNEL_CHECK_DIR"), outDir);
    spec.extraEnvironment.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    spec.timeout = std::chrono::seconds(180);
    QPointer<RemoteHost> host(remote);
    QString remoteStaging;
    if (host) {
        // On the session's host (issue 24): the staged scripts and what they use go there first,
        // and the check runs with the host's interpreter; its own PYTHONPATH applies, not ours.
        spec.extraEnvironment.insert(QStringLiteral("PYTHONPATH"), outDir);
        const QStringList staged{staging->filePath(baselineFileName(request.name))};
        QStringList outside;
        // The staged baseline's ./file.py paths resolve against the out dir, where it will live.
        const QStringList files = SyncSet::collect(workDir.root(), staged, &outside, outDir);
        if (!co_await host->sync(files, job) || !host)
            throw UserError(QStringLiteral("cancelled; nothing was written."));
        remoteStaging = host->shell()->remotePath(staging->path());
        host->shell()->wrap(spec, true);
    }
    const auto removeRemoteStaging = qScopeGuard([&host, &remoteStaging] {
        if (host && !remoteStaging.isEmpty() && !host->sharesDirectory())
            host->removeLater(remoteStaging);
    });
    const ProcessResult check = co_await ProcessRunner::run(spec, job);
    if (host && check.status == ProcessResult::Status::Finished &&
        host->shell()->isTransportFailure(check.exitCode, check.standardError))
        throw UserError(host->shell()->describeFailure(check.standardError) +
                        QStringLiteral(" Nothing was written."));
    if (!check.succeeded()) {
        if (check.status == ProcessResult::Status::Cancelled)
            throw UserError(QStringLiteral("cancelled; nothing was written."));
        if (check.status == ProcessResult::Status::FailedToStart)
            throw UserError(
                QStringLiteral(
                    "cannot start %1 (%2): set HOTKERNEL_PYTHON to your torch interpreter; nothing was "
                    "written.")
                    .arg(python, check.errorString));
        if (check.status == ProcessResult::Status::TimedOut)
            throw UserError(
                QStringLiteral(
                    "importing the baseline with %1 took over %2 s: check what --from imports; nothing "
                    "was written.")
                    .arg(python)
                    .arg(spec.timeout.count() / 1000));
        throw UserError(
            QStringLiteral(
                "the new baseline does not import with %1:\n%2\nCheck --from '%3'%4 (a module that "
                "interpreter can import, or ./file.py:function relative to the out dir); nothing "
                "was written.")
                .arg(python, check.stderrTail(6), request.from,
                     request.reference.isEmpty() && request.derive.isEmpty()
                         ? QString()
                         : QStringLiteral(", --reference and --derive")));
    }

    ScaffoldResult result;
    result.outDir = outDir;
    result.python = python;
    result.checkOutput = QString::fromUtf8(check.standardOutput).trimmed();
    result.keptCandidate = prepared.keepCandidate;
    for (const auto &[name, bytes] : files) {
        if (name != keptName)
            out.moveFrom(staging->dir(), name, name);
        result.files.append(out.filePath(name));
    }
    succeeded = true;
    co_return result;
}

} // namespace hotkernel
