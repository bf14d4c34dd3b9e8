// SPDX-License-Identifier: Apache-2.0
#include "diffpair.h"

#include <QFileInfo>

#include <algorithm>

namespace hotkernel {

namespace {

QString fileOf(const SassFunction &f)
{
    return f.metadata.count(QStringLiteral("file")) ? f.metadata.at(QStringLiteral("file")) : QString();
}

bool sampled(const SassFunction *f)
{
    return std::any_of(f->instructions.begin(), f->instructions.end(),
                       [](const SassInstruction &in) { return in.stallSamples.has_value(); });
}

} // namespace

std::optional<DiffPair> DiffPair::choose(const std::vector<SassFunction> &functions, const QString &target,
                                         const SassFunction *selected)
{
    const SassFunction *baseline = nullptr;
    const SassFunction *candidate = nullptr;
    for (const SassFunction &f : functions) {
        const QString file = QFileInfo(fileOf(f)).fileName();
        if (!baseline && file.startsWith(target + QStringLiteral("_baseline")))
            baseline = &f;
        if (!candidate && file.startsWith(target + QStringLiteral("_candidate")))
            candidate = &f;
    }
    if (baseline && candidate && !target.isEmpty())
        return DiffPair{baseline, candidate, {}, {}};
    // No baseline listing (ATen's kernels are rarely disassembled): two listings of the selected
    // kernel, such as two builds of a Triton kernel, older first, are the change to read.
    std::vector<const SassFunction *> builds;
    for (const SassFunction &f : functions) {
        if (selected && (f.name == selected->name) && f.level == selected->level)
            builds.push_back(&f);
    }
    if (builds.size() < 2)
        return std::nullopt;
    // The listing with samples is the profiled (kept) build: it goes on the right.
    std::stable_sort(builds.begin(), builds.end(),
                     [](const SassFunction *a, const SassFunction *b) { return !sampled(a) && sampled(b); });
    const auto label = [](const SassFunction *f) {
        return f->metadata.count(QStringLiteral("file")) ? f->metadata.at(QStringLiteral("file")) : f->name;
    };
    return DiffPair{builds[0], builds[1], label(builds[0]), label(builds[1])};
}

} // namespace hotkernel
