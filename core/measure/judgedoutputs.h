// SPDX-License-Identifier: Apache-2.0
// Reads the header of a judged-outputs file: what the candidate's contract wrote after its judged
// replay for the judge outside its process (docs/contract.md, "The judge outside the candidate's
// process"). The values are compared by the baseline worker; the core checks only that the file is
// the one asked for and whole. Pure; any thread.
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct JudgedOutput
{
    int set = 0;   // rotated input set
    int index = 0; // position in fn's output tuple
    QString dtype; // torch's name without "torch.": bfloat16, float32, int64...
    std::vector<qint64> shape;
    qint64 bytes = 0;
};

struct JudgedHeader
{
    int run = 0;
    quint64 judgeSeed = 0;
    QString inputsSha256;
    QString targetSha256;
    std::vector<JudgedOutput> outputs;
    qint64 headerBytes = 0; // the header line with its newline
    // "file" (the outputs' bytes follow the header) or "cuda_ipc" (the header names each output's
    // allocation in the candidate's GPU memory, which the judge opens)
    QString transport;
};

struct JudgedExpectation
{
    int run = 0;
    quint64 judgeSeed = 0;
    QString inputsSha256; // the baseline's judge_inputs_sha256; empty: not compared
};

class JudgedOutputsParser
{
public:
    // The contract's file name for run I in the judge directory.
    static QString fileName(int run);
    // The header line is at most this long (the contract writes far less).
    static constexpr qint64 kHeaderMax = 1024 * 1024;

    // start: the file's first bytes (at least its header line); fileSize: the whole file's size.
    // Sets *error to what is wrong (not a header, another run or seed, other inputs, a payload
    // shorter or longer than the header lists) and returns std::nullopt.
    static std::optional<JudgedHeader> parse(const QByteArray &start, qint64 fileSize,
                                             const JudgedExpectation &expected, QString *error);
    // parse() on the file at path; a missing or unreadable file is an error too.
    static std::optional<JudgedHeader> read(const QString &path, const JudgedExpectation &expected,
                                            QString *error);
};

} // namespace hotkernel
