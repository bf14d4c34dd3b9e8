// SPDX-License-Identifier: Apache-2.0
#include "measure/runline.h"

#include <algorithm>
#include <cmath>

namespace hotkernel {

namespace {

constexpr int kProtocol = RunLineParser::kProtocol;

// Protocol 4 moved the judge out of the candidate's process: an older vendored contract cannot
// write its judged outputs, so it must be replaced, not tolerated.
QString oldProtocol(int spoken)
{
    return QStringLiteral(
               "speaks protocol %1 but this hotkernel reads protocol %2 (protocol 5: the core's "
               "clock brackets the timed replays and the GPU witnesses each of them); re-vendor "
               "the contract with `hotkernel new NAME --from MODULE:FN --shape ... --force` in the "
               "same folder (it keeps NAME_candidate.py as it is), or copy _hotkernel_contract.py "
               "from a folder this hotkernel made")
        .arg(spoken)
        .arg(kProtocol);
}

QString shortened(const QByteArray &text)
{
    QString s = QString::fromUtf8(text).trimmed();
    if (s.size() > 160)
        s = s.left(157) + QStringLiteral("...");
    return s;
}

QString where(const QString &script, int run)
{
    return QStringLiteral("%1 run %2").arg(script).arg(run);
}

bool isFiniteNumber(const Json &v)
{
    return v.is_number() && std::isfinite(v.get<double>());
}

QString compact(const Json &v)
{
    return toQt(v.dump());
}

} // namespace

long long RunLineParser::blockCalls(const Json &line)
{
    const long long calls = integerField(line, "calls", 0);
    return calls > 0 ? calls : std::max(0LL, integerField(line, "iters", 0));
}

const std::vector<const char *> &RunLineParser::identityFields()
{
    static const std::vector<const char *> fields{
        "protocol", "target",   "shape", "dtype", "seed",          "iters",           "calls",
        "rotate",   "rotate_k", "flops", "bytes", "target_sha256", "contract_sha256", "device"};
    return fields;
}

std::optional<RunLine> RunLineParser::parseLine(const QByteArray &line, const QString &script, int run,
                                                QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<RunLine> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(where(script, run), why);
        return std::nullopt;
    };
    const QByteArray trimmed = line.trimmed();
    if (trimmed.isEmpty())
        return fail(QStringLiteral("printed an empty line where the JSON result line was expected"));
    QString parseError;
    const auto parsed = parseJson(trimmed, &parseError);
    if (!parsed)
        return fail(
            QStringLiteral("printed a line that is not JSON (%1): %2. Scripts must print exactly one JSON "
                           "line on stdout; send everything else to stderr.")
                .arg(parseError, shortened(trimmed)));
    const Json &j = *parsed;
    if (!j.is_object())
        return fail(QStringLiteral("printed JSON that is not an object: %1").arg(shortened(trimmed)));

    if (!j.contains("protocol") || !j["protocol"].is_number_integer())
        return fail(
            QStringLiteral("the result line has no integer \"protocol\" field; is this a hotkernel target "
                           "script? Make one with `hotkernel new`."));
    if (j["protocol"].get<int>() != kProtocol)
        return fail(QStringLiteral("the result line ") + oldProtocol(j["protocol"].get<int>()) +
                    QLatin1Char('.'));
    if (!j.contains("ok") || !j["ok"].is_boolean())
        return fail(
            QStringLiteral("the result line has no boolean \"ok\" field: %1").arg(shortened(trimmed)));

    RunLine r;
    r.json = j;
    r.ok = j["ok"].get<bool>();
    if (j.contains("run")) {
        if (!j["run"].is_number_integer())
            return fail(QStringLiteral("\"run\" is not an integer: %1").arg(compact(j["run"])));
        r.run = j["run"].get<int>();
        if (r.run != run)
            return fail(QStringLiteral("answered for run %1 instead").arg(r.run));
    } else {
        r.run = run;
    }
    r.timer = stringField(j, "timer");
    r.mismatch = stringField(j, "mismatch");
    const QString contractError = stringField(j, "error");
    if (!contractError.isEmpty() && r.mismatch.isEmpty())
        r.mismatch = contractError;

    const bool hasMs = j.contains("ms") && !j["ms"].is_null();
    if (hasMs && !isFiniteNumber(j["ms"]))
        return fail(QStringLiteral("\"ms\" is not a finite number: %1").arg(compact(j["ms"])));
    if (hasMs)
        r.ms = j["ms"].get<double>();
    if (r.ok) {
        if (!hasMs)
            return fail(QStringLiteral("the line says ok but has no \"ms\" field"));
        if (!(r.ms > 0))
            return fail(
                QStringLiteral("\"ms\" must be positive when ok is true, got %1").arg(compact(j["ms"])));
        if (!contractError.isEmpty())
            return fail(QStringLiteral("the line says ok but also reports an error: %1").arg(contractError));
    }
    if (j.contains("samples_ms") && !j["samples_ms"].is_null()) {
        if (!j["samples_ms"].is_array())
            return fail(QStringLiteral("\"samples_ms\" is not a list: %1").arg(compact(j["samples_ms"])));
        for (const Json &v : j["samples_ms"]) {
            if (!isFiniteNumber(v) || v.get<double>() < 0)
                return fail(
                    QStringLiteral("\"samples_ms\" holds %1, not a non-negative number").arg(compact(v)));
            r.samplesMs.push_back(v.get<double>());
        }
    }
    if (j.contains("shape") && !j["shape"].is_null()) {
        if (!j["shape"].is_array())
            return fail(QStringLiteral("\"shape\" is not a list of integers: %1").arg(compact(j["shape"])));
        for (const Json &v : j["shape"]) {
            if (!v.is_number_integer())
                return fail(
                    QStringLiteral("\"shape\" is not a list of integers: %1").arg(compact(j["shape"])));
        }
    }
    for (const char *key : {"flops", "bytes"}) {
        if (j.contains(key) && !j[key].is_null() && !isFiniteNumber(j[key]))
            return fail(QStringLiteral("\"%1\" is neither a number nor null: %2")
                            .arg(QLatin1String(key), compact(j[key])));
    }
    return r;
}

std::optional<RunLine> RunLineParser::parseOutput(const QByteArray &standardOutput, const QString &script,
                                                  int run, QString *error)
{
    const QList<QByteArray> lines = standardOutput.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        if (!it->trimmed().isEmpty())
            return parseLine(*it, script, run, error);
    }
    if (error)
        *error = QStringLiteral(
                     "%1: printed no JSON line on stdout. A target script prints exactly one JSON result "
                     "line per run; check its stderr for what went wrong.")
                     .arg(where(script, run));
    return std::nullopt;
}

std::optional<Json> RunLineParser::parseReady(const QByteArray &line, const QString &script, QString *error)
{
    QString parseError;
    const auto parsed = parseJson(line.trimmed(), &parseError);
    if (!parsed || !parsed->is_object()) {
        if (error)
            *error = QStringLiteral(
                         "%1 --worker: printed %2 where the {\"event\": \"ready\"} line was expected. Does "
                         "the script end with main(TARGET, fn) from the hotkernel contract?")
                         .arg(script, shortened(line));
        return std::nullopt;
    }
    if (parsed->contains("protocol") && (*parsed)["protocol"].is_number_integer() &&
        (*parsed)["protocol"].get<int>() != kProtocol) {
        if (error)
            *error = QStringLiteral("%1 --worker: the script ").arg(script) +
                     oldProtocol((*parsed)["protocol"].get<int>()) + QLatin1Char('.');
        return std::nullopt;
    }
    if (stringField(*parsed, "event") != QLatin1String("ready")) {
        if (error) {
            const QString reported = stringField(*parsed, "error");
            *error = reported.isEmpty()
                         ? QStringLiteral("%1 --worker: the first line was not {\"event\": \"ready\"}: %2")
                               .arg(script, shortened(line))
                         : QStringLiteral("%1 --worker: failed to start: %2").arg(script, reported);
        }
        return std::nullopt;
    }
    return parsed;
}

std::optional<JudgeAnswer> RunLineParser::parseJudgeAnswer(const QByteArray &line, const QString &script,
                                                           int run, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<JudgeAnswer> {
        if (error)
            *error = QStringLiteral("%1 judging run %2: %3").arg(script).arg(run).arg(why);
        return std::nullopt;
    };
    const QByteArray trimmed = line.trimmed();
    QString parseError;
    const auto parsed = parseJson(trimmed, &parseError);
    if (!parsed || !parsed->is_object())
        return fail(
            QStringLiteral("printed %1 where the judge's JSON answer was expected").arg(shortened(trimmed)));
    const Json &j = *parsed;
    if (!j.contains("protocol") || !j["protocol"].is_number_integer() ||
        j["protocol"].get<int>() != kProtocol)
        return fail(QStringLiteral("the script ") +
                    oldProtocol(j.contains("protocol") && j["protocol"].is_number_integer()
                                    ? j["protocol"].get<int>()
                                    : 0) +
                    QLatin1Char('.'));
    if (const QString contractError = stringField(j, "error"); !contractError.isEmpty())
        return fail(QStringLiteral("the contract reported an error: %1").arg(contractError));
    if (stringField(j, "event") != QLatin1String("judged") || !j.contains("judged_ok") ||
        !j["judged_ok"].is_boolean())
        return fail(QStringLiteral("the answer is not {\"event\": \"judged\", \"judged_ok\": ...}: %1")
                        .arg(shortened(trimmed)));
    if (!j.contains("run") || !j["run"].is_number_integer() || j["run"].get<int>() != run)
        return fail(QStringLiteral("answered for run %1 instead").arg(compact(j.value("run", Json()))));
    JudgeAnswer a;
    a.json = j;
    a.ok = j["judged_ok"].get<bool>();
    if (isFiniteNumber(j.value("max_err", Json())))
        a.maxErr = j["max_err"].get<double>();
    a.mismatch = stringField(j, "mismatch");
    a.invalid = stringField(j, "invalid");
    if (a.ok && (!a.mismatch.isEmpty() || !a.invalid.isEmpty()))
        return fail(QStringLiteral("the answer says judged_ok but also names a failure: %1")
                        .arg(a.invalid.isEmpty() ? a.mismatch : a.invalid));
    if (!a.ok && a.mismatch.isEmpty() && a.invalid.isEmpty())
        return fail(QStringLiteral("the answer says not judged_ok without a mismatch or invalid"));
    return a;
}

std::optional<JudgeAnswer> RunLineParser::parseJudgeOutput(const QByteArray &standardOutput,
                                                           const QString &script, int run, QString *error)
{
    const QList<QByteArray> lines = standardOutput.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        if (!it->trimmed().isEmpty())
            return parseJudgeAnswer(*it, script, run, error);
    }
    if (error)
        *error = QStringLiteral("%1 judging run %2: printed no JSON line on stdout; check its stderr.")
                     .arg(script)
                     .arg(run);
    return std::nullopt;
}

QStringList RunLineParser::identityMismatches(const Json &baseline, const Json &candidate)
{
    QStringList out;
    for (const char *key : identityFields()) {
        const Json b = baseline.contains(key) ? baseline[key] : Json();
        const Json c = candidate.contains(key) ? candidate[key] : Json();
        if (b != c)
            out.append(QStringLiteral("%1: baseline %2, candidate %3")
                           .arg(QLatin1String(key), compact(b), compact(c)));
    }
    return out;
}

} // namespace hotkernel
