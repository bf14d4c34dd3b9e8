// SPDX-License-Identifier: Apache-2.0
#include "inspect/cardtable.h"

#include "base/logging.h"

#include <QFile>
#include <QRegularExpression>

namespace hotkernel {

const CardFigure *CardSpec::figure(const QString &key) const
{
    const auto it = figures.find(key);
    return it == figures.end() ? nullptr : &it->second;
}

std::optional<double> CardSpec::bandwidthBytesPerSecond() const
{
    const CardFigure *f = figure(QStringLiteral("bandwidth_gbs"));
    if (!f || !f->value)
        return std::nullopt;
    return *f->value * 1e9;
}

std::optional<double> CardSpec::peakFlopsPerSecond(const QString &dtype) const
{
    const CardFigure *f = figure(dtype.toLower() + QStringLiteral("_tflops"));
    if (!f || !f->value)
        return std::nullopt;
    return *f->value * 1e12;
}

Json CardSpec::toJson() const
{
    Json figs = Json::object();
    for (const QString &key : CardTable::figureKeys()) {
        const CardFigure *f = figure(key);
        if (!f)
            continue;
        Json entry{{"value", f->value ? Json(*f->value) : Json(nullptr)}, {"source", toStd(f->source)}};
        if (!f->note.isEmpty())
            entry["note"] = toStd(f->note);
        figs[toStd(key)] = std::move(entry);
    }
    return Json{{"id", toStd(id)},           {"name", toStd(name)},
                {"arch", toStd(arch)},       {"compute_capability", toStd(computeCapability)},
                {"memory", toStd(memory)},   {"aliases", hotkernel::toJson(aliases)},
                {"figures", std::move(figs)}};
}

QStringList CardTable::figureKeys()
{
    return {QStringLiteral("bandwidth_gbs"), QStringLiteral("fp32_tflops"), QStringLiteral("tf32_tflops"),
            QStringLiteral("bf16_tflops"),   QStringLiteral("fp16_tflops"), QStringLiteral("fp8_tflops"),
            QStringLiteral("l2_bytes"),      QStringLiteral("sm_count")};
}

QStringList CardTable::dtypes()
{
    return {QStringLiteral("fp32"), QStringLiteral("tf32"), QStringLiteral("bf16"), QStringLiteral("fp16"),
            QStringLiteral("fp8")};
}

QString CardTable::normalizedName(const QString &name)
{
    static const QRegularExpression vendorWords(QStringLiteral("\\b(nvidia|geforce)\\b"));
    static const QRegularExpression nonAlnum(QStringLiteral("[^a-z0-9]"));
    QString s = name.toLower();
    s.remove(vendorWords);
    s.remove(nonAlnum);
    return s;
}

CardTable CardTable::fromJson(const Json &document, QString *error)
{
    CardTable table;
    auto failed = [&](const QString &why) {
        if (error)
            *error = why;
        return CardTable();
    };
    if (!document.is_object() || !document.contains("cards") || !document["cards"].is_array())
        return failed(QStringLiteral("the card table has no \"cards\" array"));
    table.m_description = stringField(document, "description");
    for (const Json &row : document["cards"]) {
        CardSpec card;
        card.id = stringField(row, "id");
        card.name = stringField(row, "name");
        if (card.id.isEmpty() || card.name.isEmpty())
            return failed(QStringLiteral("a card in the table has no id or name"));
        card.arch = stringField(row, "arch");
        card.computeCapability = stringField(row, "compute_capability");
        card.memory = stringField(row, "memory");
        card.aliases = toStringList(row.value("aliases", Json::array()));
        const Json figures = row.value("figures", Json::object());
        for (auto it = figures.begin(); it != figures.end(); ++it) {
            CardFigure f;
            const Json &v = it.value();
            if (v.contains("value") && v["value"].is_number())
                f.value = v["value"].get<double>();
            f.source = stringField(v, "source");
            f.note = stringField(v, "note");
            card.figures[toQt(it.key())] = std::move(f);
        }
        table.m_cards.push_back(std::move(card));
    }
    return table;
}

const CardTable &CardTable::builtin()
{
    static const CardTable table = [] {
        QFile file(QStringLiteral(
            ":/hotkernel/cards/cards.json")); // not a named file: a resource compiled into the binary
        if (!file.open(QIODevice::ReadOnly)) {
            qCWarning(lcInspect, "card table resource missing: %s", qPrintable(file.fileName()));
            return CardTable();
        }
        QString error;
        const auto doc = parseJson(file.readAll(), &error);
        CardTable t = doc ? fromJson(*doc, &error) : CardTable();
        if (!error.isEmpty())
            qCWarning(lcInspect, "card table unreadable: %s", qPrintable(error));
        return t;
    }();
    return table;
}

const CardSpec *CardTable::find(const QString &nameOrAlias) const
{
    const QString wanted = normalizedName(nameOrAlias);
    if (wanted.isEmpty())
        return nullptr;
    for (const CardSpec &card : m_cards) {
        if (normalizedName(card.id) == wanted || normalizedName(card.name) == wanted)
            return &card;
        for (const QString &alias : card.aliases) {
            if (normalizedName(alias) == wanted)
                return &card;
        }
    }
    return nullptr;
}

QStringList CardTable::ids() const
{
    QStringList list;
    for (const CardSpec &card : m_cards)
        list.append(card.id);
    return list;
}

} // namespace hotkernel
