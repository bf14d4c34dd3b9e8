// SPDX-License-Identifier: Apache-2.0
#include "record/resultlog.h"

#include "base/boundedfile.h"
#include "base/logging.h"
#include "base/targetname.h"
#include "base/usererror.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringDecoder>

#include <algorithm>

namespace hotkernel {

namespace {
const char *const Verdicts[] = {"faster", "slower", "inconclusive", "incorrect", "invalid"};

std::optional<double> numberAt(const Json &object, const char *key, const char *inner = nullptr)
{
    if (!object.is_object() || !object.contains(key))
        return std::nullopt;
    const Json &value = inner ? object[key] : object;
    const char *field = inner ? inner : key;
    if (!value.is_object() || !value.contains(field) || !value[field].is_number())
        return std::nullopt;
    return value[field].get<double>();
}

QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// The state of the card when verify ran, as far as the probe knew it.
Json gpuAtVerify(const Json &verify)
{
    Json out = Json::object();
    const Json gpu = verify.value("gpu", Json::object());
    if (!gpu.is_object())
        return out;
    static const char *const keys[] = {
        "available",        "reason",       "name",          "driver",           "cuda_driver_version",
        "power_limit_w",    "sm_clock_mhz", "mem_clock_mhz", "max_sm_clock_mhz", "temperature_c",
        "throttle_reasons", "source"};
    for (const char *key : keys)
        if (gpu.contains(key))
            out[key] = gpu[key];
    return out;
}
} // namespace

QString ResultLog::targetNameProblem(const QString &name)
{
    return TargetName::problem(name);
}

QString ResultLog::verifyResultProblem(const Json &verify)
{
    if (!verify.is_object())
        return QStringLiteral("it is not a JSON object");
    if (verify.contains("error") && !verify.contains("verdict"))
        return QStringLiteral("it is the error of a failed verify (%1), not a verify result")
            .arg(stringField(verify, "error"));
    if (verify.contains("tool") && verify["tool"] != "verify")
        return QStringLiteral("it is the result of '%1', not of verify").arg(stringField(verify, "tool"));
    const QString verdict = stringField(verify, "verdict");
    if (verdict.isEmpty())
        return QStringLiteral("it has no \"verdict\"");
    if (std::none_of(std::begin(Verdicts), std::end(Verdicts),
                     [&](const char *v) { return verdict == QLatin1String(v); }))
        return QStringLiteral(
                   "its verdict '%1' is not one of faster, slower, inconclusive, incorrect, invalid")
            .arg(verdict);
    for (const char *key : {"baseline_sha256", "candidate_sha256"})
        if (stringField(verify, key).isEmpty())
            return QStringLiteral("it has no \"%1\"").arg(QLatin1String(key));
    for (const char *role : {"baseline", "candidate"}) {
        const std::string pathKey = std::string(role) + "_path";
        if (stringField(verify, pathKey.c_str()).isEmpty() && stringField(verify, role).isEmpty())
            return QStringLiteral("it names no %1 script").arg(QLatin1String(role));
    }
    return {};
}

ScriptRecord ResultLog::readScript(const Json &verify, const QString &role, const QString &workDir)
{
    ScriptRecord script;
    script.name = stringField(verify, toStd(role).c_str());
    script.verifySha256 = stringField(verify, toStd(role + QStringLiteral("_sha256")).c_str()).toLower();
    QStringList candidates;
    if (const QString p = stringField(verify, toStd(role + QStringLiteral("_path")).c_str()); !p.isEmpty())
        candidates.append(p);
    if (!script.name.isEmpty())
        candidates.append(QDir::isAbsolutePath(script.name) ? script.name
                                                            : QDir(workDir).filePath(script.name));
    for (const QString &path : std::as_const(candidates)) {
        const BoundedFile::Read file = BoundedFile::read(path, BoundedFile::kScriptLimit);
        if (!file.ok())
            continue;
        script.path = QFileInfo(path).absoluteFilePath();
        script.source = file.bytes;
        script.sha256 = sha256Hex(script.source);
        script.changedSinceVerify = script.sha256 != script.verifySha256;
        return script;
    }
    throw UserError(
        QStringLiteral(
            "the %1 script the verify result names (%2) cannot be read; record keeps both scripts' "
            "sources, so they must still exist: restore it or re-run verify.")
            .arg(role, candidates.join(QStringLiteral(" or "))));
}

QString ResultLog::cardOf(const Json &verify)
{
    const Json gpu = verify.value("gpu", Json::object());
    if (gpu.is_object() && !(gpu.contains("available") && gpu["available"] == false)) {
        if (const QString name = stringField(gpu, "name"); !name.isEmpty())
            return name;
    }
    const Json contract = verify.value("contract", Json::object());
    if (const QString name = stringField(contract, "device_name"); !name.isEmpty())
        return name;
    if (const QString device = stringField(contract, "device"); !device.isEmpty())
        return device;
    return QStringLiteral("unknown");
}

Json ResultLog::build(const QString &target, const Json &verify, const QString &note, const QString &who,
                      const QDateTime &recordedAt, const ScriptRecord &baseline,
                      const ScriptRecord &candidate)
{
    const auto scriptJson = [](const ScriptRecord &s) {
        return Json{{"name", toStd(s.name)},
                    {"path", toStd(s.path)},
                    {"sha256", toStd(s.sha256)},
                    {"verify_sha256", toStd(s.verifySha256)},
                    {"changed_since_verify", s.changedSinceVerify}};
    };
    const auto withSource = [&](const ScriptRecord &s) {
        Json j = scriptJson(s);
        // JSON text must be UTF-8; a script that is not keeps its exact bytes in base64.
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString text = decoder.decode(s.source);
        if (decoder.hasError())
            j["source_base64"] = s.source.toBase64().toStdString();
        else
            j["source"] = toStd(text);
        return j;
    };
    Json log = Json::object();
    log["kind"] = Kind;
    log["format_version"] = FormatVersion;
    log["target"] = toStd(target);
    log["recorded_at"] = toStd(recordedAt.toUTC().toString(Qt::ISODateWithMs));
    log["note"] = toStd(note);
    log["who"] = toStd(who);
    log["hotkernel_version"] = HOTKERNEL_VERSION;
    log["card"] = toStd(cardOf(verify));
    log["scripts"] = Json{{"baseline", withSource(baseline)}, {"candidate", withSource(candidate)}};
    log["interpreter"] = verify.value("interpreter", Json());
    log["versions"] = verify.value("versions", Json());
    log["gpu_at_verify"] = gpuAtVerify(verify);
    log["verify"] = verify;
    return log;
}

std::optional<ResultLog> ResultLog::fromJson(Json json, const QString &relativePath, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<ResultLog> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!json.is_object() || json.value("kind", Json()) != Kind)
        return fail(
            QStringLiteral("not a hotkernel result log (no \"kind\": \"%1\")").arg(QLatin1String(Kind)));
    if (!json.value("format_version", Json()).is_number_integer() ||
        json["format_version"].get<int>() > FormatVersion)
        return fail(QStringLiteral("format_version is missing or newer than this hotkernel reads (%1)")
                        .arg(FormatVersion));
    if (stringField(json, "target").isEmpty() || stringField(json, "recorded_at").isEmpty())
        return fail(QStringLiteral("it has no target or recorded_at"));
    if (!json.value("verify", Json()).is_object() || !verifyResultProblem(json["verify"]).isEmpty())
        return fail(QStringLiteral("its \"verify\" is not a verify result"));
    ResultLog log;
    log.m_json = std::move(json);
    log.m_relativePath = relativePath;
    return log;
}

QStringList ResultLog::listFiles(const QString &root)
{
    QStringList files;
    const QDir results(QDir(root).filePath(QStringLiteral("results")));
    // Sorted here by UTF-16 code units, never by locale, so every machine lists them alike.
    QStringList targets = results.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Unsorted);
    std::sort(targets.begin(), targets.end());
    for (const QString &target : targets) {
        if (target.startsWith(QLatin1Char('.')))
            continue;
        const QDir dir(results.filePath(target));
        // Dot files are record's temporary files, never logs.
        QStringList names = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Unsorted);
        std::sort(names.begin(), names.end());
        for (const QString &name : names)
            if (!name.startsWith(QLatin1Char('.')))
                files.append(QStringLiteral("results/%1/%2").arg(target, name));
    }
    return files;
}

ResultLog::Scan ResultLog::scan(const QString &root)
{
    Scan scan;
    const QStringList files = listFiles(root);
    for (const QString &relative : files) {
        const BoundedFile::Read file = BoundedFile::read(QDir(root).filePath(relative),
                                                         BoundedFile::kJsonLimit, BoundedFile::Links::Refuse);
        if (!file.ok()) {
            scan.warnings.append(relative + QLatin1Char(' ') + file.error + QStringLiteral(", skipped"));
            continue;
        }
        QString error;
        const auto parsed = parseJson(file.bytes, &error);
        if (!parsed) {
            scan.warnings.append(QStringLiteral("%1: not valid JSON (%2), skipped").arg(relative, error));
            continue;
        }
        if (!parsed->is_object() || parsed->value("kind", Json()) != Kind) {
            ++scan.ignored; // other data kept under results/, such as calibration runs
            continue;
        }
        auto log = fromJson(*parsed, relative, &error);
        if (!log) {
            scan.warnings.append(QStringLiteral("%1: %2, skipped").arg(relative, error));
            continue;
        }
        const QString dirTarget = relative.section(QLatin1Char('/'), 1, 1);
        if (log->target() != dirTarget) {
            scan.warnings.append(QStringLiteral("%1: records target '%2' but lies under results/%3/, skipped")
                                     .arg(relative, log->target(), dirTarget));
            continue;
        }
        scan.logs.append(std::move(*log));
    }
    for (const QString &w : std::as_const(scan.warnings))
        qCWarning(lcRecord).noquote() << w;
    return scan;
}

QString ResultLog::target() const
{
    return stringField(m_json, "target");
}
QString ResultLog::card() const
{
    const QString card = stringField(m_json, "card");
    return card.isEmpty() ? cardOf(m_json["verify"]) : card;
}
QString ResultLog::recordedAt() const
{
    return stringField(m_json, "recorded_at");
}
QString ResultLog::verdict() const
{
    return stringField(m_json["verify"], "verdict");
}
QString ResultLog::note() const
{
    return stringField(m_json, "note");
}
QString ResultLog::who() const
{
    return stringField(m_json, "who");
}
std::optional<double> ResultLog::speedup() const
{
    return numberAt(m_json["verify"], "speedup");
}
std::optional<double> ResultLog::baselineMean() const
{
    return numberAt(m_json["verify"], "baseline_stats", "mean_ms");
}
std::optional<double> ResultLog::baselineStd() const
{
    return numberAt(m_json["verify"], "baseline_stats", "std_ms");
}
std::optional<double> ResultLog::candidateMean() const
{
    return numberAt(m_json["verify"], "candidate_stats", "mean_ms");
}
std::optional<double> ResultLog::candidateStd() const
{
    return numberAt(m_json["verify"], "candidate_stats", "std_ms");
}
std::optional<int> ResultLog::protocol() const
{
    if (const auto v = numberAt(m_json["verify"], "contract", "protocol"))
        return int(*v);
    return std::nullopt;
}

std::optional<int> ResultLog::n() const
{
    if (const auto v = numberAt(m_json["verify"], "n"))
        return int(*v);
    if (const auto v = numberAt(m_json["verify"], "candidate_stats", "n"))
        return int(*v);
    return std::nullopt;
}

} // namespace hotkernel
