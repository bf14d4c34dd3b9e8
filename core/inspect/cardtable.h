// SPDX-License-Identifier: Apache-2.0
// The spec-sheet table of cards (resources/cards/cards.json): peaks per dtype, bandwidth, L2 and
// SM count, each with its source; and the match of a probed device name to a row. Pure data,
// immutable after loading: safe to read from any thread.
#pragma once

#include "base/json.h"

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace hotkernel {

struct CardFigure
{
    std::optional<double> value; // null: the card has no such unit, or the vendor does not say
    QString source;              // document title the number comes from
    QString note;                // "dense: half of the with-sparsity figure", ...
};

struct CardSpec
{
    QString id;   // "h200-sxm"
    QString name; // "NVIDIA H200 SXM"
    QString arch;
    QString computeCapability;
    QString memory;
    QStringList aliases;                   // names NVML / nvidia-smi / people use for this card
    std::map<QString, CardFigure> figures; // keys: CardTable::figureKeys()

    const CardFigure *figure(const QString &key) const;
    // Bytes per second of DRAM bandwidth, when known.
    std::optional<double> bandwidthBytesPerSecond() const;
    // FLOP per second for dtype (fp32, tf32, bf16, fp16, fp8), dense; nullopt when unknown.
    std::optional<double> peakFlopsPerSecond(const QString &dtype) const;
    Json toJson() const;
};

class CardTable
{
public:
    // The table compiled into hotkernel (:/hotkernel/cards/cards.json). Loaded once.
    static const CardTable &builtin();
    // Parses a cards.json document; on failure returns an empty table and says why in *error.
    static CardTable fromJson(const Json &document, QString *error = nullptr);

    const std::vector<CardSpec> &cards() const { return m_cards; }
    QString description() const { return m_description; }

    // The row for an id, a card name or an alias (as NVML reports it: "NVIDIA H200"), compared
    // without case, spaces, dashes or the words NVIDIA/GeForce. nullptr when nothing matches:
    // a near miss (an A100 40GB against the 80GB row) must not borrow another card's figures.
    const CardSpec *find(const QString &nameOrAlias) const;
    QStringList ids() const;

    static QStringList figureKeys(); // bandwidth_gbs, fp32_tflops, ..., l2_bytes, sm_count
    static QStringList dtypes();     // fp32, tf32, bf16, fp16, fp8
    static QString normalizedName(const QString &name);

private:
    std::vector<CardSpec> m_cards;
    QString m_description;
};

} // namespace hotkernel
