// SPDX-License-Identifier: Apache-2.0
#include "record/verifyrecord.h"

#include "record/resultlog.h"

#include <QDir>

#include <algorithm>

namespace hotkernel {

namespace {

std::optional<double> number(const Json &object, const char *key)
{
    if (!object.is_object() || !object.contains(key) || !object[key].is_number())
        return std::nullopt;
    return object[key].get<double>();
}

} // namespace

std::optional<VerifyRecord> VerifyRecord::fromJson(const Json &json)
{
    if (!json.is_object() || !json.contains("verdict") || !json.contains("baseline_stats") ||
        !json.contains("candidate_stats"))
        return std::nullopt;
    VerifyRecord r;
    const Json &b = json["baseline_stats"];
    const Json &c = json["candidate_stats"];
    r.verdict = stringField(json, "verdict");
    r.target = stringField(json, "target");
    r.n = int(number(json, "n").value_or(number(c, "n").value_or(0)));
    r.baselineMeanMs = number(b, "mean_ms").value_or(0);
    r.baselineStdMs = number(b, "std_ms").value_or(0);
    r.candidateMeanMs = number(c, "mean_ms").value_or(0);
    r.candidateStdMs = number(c, "std_ms").value_or(0);
    r.reason = stringField(json, "reason");
    r.rule = stringField(json, "rule");
    r.mode = stringField(json, "mode");
    r.speedup = number(json, "speedup");
    // Results written before verify gave the estimate for every measured verdict: the means say it.
    if (!r.speedup && r.measured() && r.baselineMeanMs > 0 && r.candidateMeanMs > 0)
        r.speedup = r.baselineMeanMs / r.candidateMeanMs;
    if (!r.measured())
        r.speedup.reset();
    if (json.contains("speedup_ci99") && json["speedup_ci99"].is_array() &&
        json["speedup_ci99"].size() == 2 && json["speedup_ci99"][0].is_number() &&
        json["speedup_ci99"][1].is_number())
        r.ci99 = std::pair(json["speedup_ci99"][0].get<double>(), json["speedup_ci99"][1].get<double>());
    r.who = stringField(json, "who");
    r.note = stringField(json, "note");
    r.recorded = json.contains("recorded_at");
    // The verify's own time, recorded or not: recording it later does not move it (issue 45).
    QString when = stringField(json, "finished_at", stringField(json, "started_at"));
    if (when.isEmpty())
        when = stringField(json, "recorded_at");
    r.time = QDateTime::fromString(when, Qt::ISODate);
    r.verifiedAt = stringField(json, "finished_at");
    r.verifyId = stringField(json, "verify_id");
    if (json.contains("contract") && json["contract"].is_object()) {
        const Json &contract = json["contract"];
        r.card = stringField(contract, "device_name");
        r.flops = number(contract, "flops");
        r.bytes = number(contract, "bytes");
    }
    if (r.card.isEmpty() && json.contains("gpu") && json["gpu"].is_object())
        r.card = stringField(json["gpu"], "name");
    return r;
}

bool VerifyRecord::measured() const
{
    return verdict == QLatin1String("faster") || verdict == QLatin1String("slower") ||
           verdict == QLatin1String("inconclusive");
}

std::vector<VerifyRecord> VerifyRecord::readResults(const QString &root, QStringList *problems)
{
    std::vector<VerifyRecord> records;
    const ResultLog::Scan scan = ResultLog::scan(root);
    if (problems)
        problems->append(scan.warnings);
    for (const ResultLog &log : scan.logs) {
        auto r = fromJson(log.json().value("verify", Json::object()));
        if (!r)
            continue;
        r->path = QDir(root).filePath(log.relativePath());
        r->recorded = true;
        r->target = log.target();
        r->note = log.note();
        r->who = log.who();
        if (!log.card().isEmpty())
            r->card = log.card();
        if (const QDateTime at = QDateTime::fromString(log.recordedAt(), Qt::ISODateWithMs);
            at.isValid() && !r->time.isValid())
            r->time = at;
        records.push_back(std::move(*r));
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const VerifyRecord &a, const VerifyRecord &b) { return a.time < b.time; });
    return records;
}

} // namespace hotkernel
