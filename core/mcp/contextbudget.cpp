// SPDX-License-Identifier: Apache-2.0
#include "mcp/contextbudget.h"

#include <algorithm>
#include <map>

namespace hotkernel {

namespace {

// The budgets, set from what each tool's result carries that an agent acts on (docs/mcp.md,
// "Results sized for a model's context"); measured sizes are in bench/context_bytes.py's output.
const std::map<QString, qsizetype> &budgets()
{
    static const std::map<QString, qsizetype> table{
        {QStringLiteral("gpu_info"), 3000},    {QStringLiteral("roofline"), 3000},
        {QStringLiteral("torch_trace"), 6000}, {QStringLiteral("profile"), 6000},
        {QStringLiteral("top_kernels"), 6000}, {QStringLiteral("disasm"), 4000},
        {QStringLiteral("bench"), 3000},       {QStringLiteral("verify"), 4000},
        {QStringLiteral("record"), 2500},      {QStringLiteral("new_target"), 2500},
    };
    return table;
}

constexpr qsizetype DefaultBudget = 4000;
// Over budget, strings longer than LongString keep their first CutTo bytes (fewer when that
// would split a UTF-8 character).
constexpr qsizetype LongString = 160;
constexpr std::size_t CutTo = 120;
// Members smaller than this are never left out: too little to matter, and often what an agent reads.
constexpr qsizetype SmallMember = 150;

struct Candidate
{
    Json::json_pointer where;
    qsizetype bytes = 0;
};

// The largest innermost list of two or more items (one holding no such list itself): a kernel's
// rules go before the kernels, a verify's step times before the verify. Returns whether value
// holds such a list anywhere.
bool findInnermostList(const Json &value, const Json::json_pointer &where, Candidate &largest)
{
    bool nested = false;
    if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            nested = findInnermostList(value[i], where / i, largest) || nested;
        if (value.size() >= 2 && !nested) {
            const qsizetype bytes = ContextBudget::compactSize(value);
            if (bytes > largest.bytes)
                largest = Candidate{where, bytes};
        }
        return nested || value.size() >= 2;
    }
    if (value.is_object()) {
        for (const auto &[key, item] : value.items())
            nested = findInnermostList(item, where / key, largest) || nested;
    }
    return nested;
}

// Members never left out: which machine a result is about (a remote host's url and name) decides
// how an agent reads every number beside it, and it is a few hundred bytes.
bool alwaysKept(const std::string &key)
{
    return key == "host";
}

// The largest top-level member whose value is an object of more than SmallMember bytes (a
// verify's contract, its physical floor): never a result's lists, which were halved already.
void findLargestMember(const Json &value, Candidate &largest)
{
    for (const auto &[key, item] : value.items()) {
        const qsizetype bytes = item.is_object() && !alwaysKept(key) ? ContextBudget::compactSize(item) : 0;
        if (bytes > SmallMember && bytes > largest.bytes)
            largest = Candidate{Json::json_pointer() / key, bytes};
    }
}

// Cuts every string longer than LongString (ncu's rule descriptions, templated kernel names);
// returns how many.
int cutLongStrings(Json &value)
{
    if (value.is_string()) {
        const std::string &text = value.get_ref<const std::string &>();
        if (qsizetype(text.size()) <= LongString)
            return 0;
        std::size_t end = CutTo;
        while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
            --end; // never inside a UTF-8 character
        value = text.substr(0, end) + "...";
        return 1;
    }
    int cut = 0;
    if (value.is_array() || value.is_object()) {
        for (auto &item : value)
            cut += cutLongStrings(item);
    }
    return cut;
}

QString pathText(const Json::json_pointer &where)
{
    const QString p = toQt(where.to_string());
    return p.isEmpty() ? QStringLiteral("(the result)")
                       : p.mid(1).replace(QLatin1Char('/'), QLatin1Char('.'));
}

} // namespace

qsizetype ContextBudget::budgetFor(const QString &tool)
{
    const auto it = budgets().find(tool);
    return it == budgets().end() ? DefaultBudget : it->second;
}

qsizetype ContextBudget::compactSize(const Json &value)
{
    return qsizetype(value.dump(-1, ' ', false, Json::error_handler_t::replace).size());
}

ContextBudget::Fitted ContextBudget::fit(const Json &structured, qsizetype budget)
{
    Fitted f{structured, {}};
    if (compactSize(f.structured) <= budget)
        return f;
    if (const int cut = cutLongStrings(f.structured); cut > 0)
        f.shortened.append(QStringLiteral("%1 strings longer than %2 bytes cut to their first %3")
                               .arg(cut)
                               .arg(LongString)
                               .arg(CutTo));
    std::map<std::string, std::size_t> originalLength; // per list cut: how long it was
    while (compactSize(f.structured) > budget) {
        Candidate list;
        findInnermostList(f.structured, Json::json_pointer(), list);
        if (list.bytes == 0)
            break; // nothing left to cut: the caller sees it over budget
        Json &array = f.structured[list.where];
        originalLength.try_emplace(list.where.to_string(), array.size());
        // Lists are heaviest first: keep the head, halve the rest away.
        const std::size_t keep = std::max<std::size_t>(1, array.size() / 2);
        array.erase(array.begin() + std::ptrdiff_t(keep), array.end());
    }
    // One line per kind of list ("kernels.*.ncu.rules"), however many kernels had theirs cut.
    std::map<QString, std::pair<std::size_t, std::size_t>> kinds; // kept at most, longest before
    // Last, whole top-level objects, largest first (a verify's contract and physical-floor
    // details): named, so an agent knows to read them in the full result.
    QStringList leftOut;
    while (compactSize(f.structured) > budget) {
        Candidate member;
        findLargestMember(f.structured, member);
        if (member.bytes == 0)
            break;
        leftOut.append(pathText(member.where));
        f.structured.erase(member.where.back());
    }
    if (!leftOut.isEmpty())
        f.shortened.append(QStringLiteral("left out: %1").arg(leftOut.join(QStringLiteral(", "))));
    for (const auto &[where, length] : originalLength) {
        const Json::json_pointer p(where);
        if (!f.structured.contains(p))
            continue; // inside a list item that was cut away itself
        QStringList parts = pathText(p).split(QLatin1Char('.'));
        for (QString &part : parts) {
            bool number = false;
            part.toInt(&number);
            if (number)
                part = QStringLiteral("*");
        }
        auto &[kept, before] = kinds[parts.join(QLatin1Char('.'))];
        kept = std::max(kept, f.structured[p].size());
        before = std::max(before, length);
    }
    for (const auto &[kind, counts] : kinds)
        f.shortened.append(
            QStringLiteral("%1: the first %2 of %3 kept").arg(kind).arg(counts.first).arg(counts.second));
    return f;
}

} // namespace hotkernel
