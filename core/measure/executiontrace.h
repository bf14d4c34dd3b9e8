// SPDX-License-Identifier: Apache-2.0
// Reads torch.profiler's execution trace (ExecutionTraceObserver JSON, schema 1.1.x-chakra) into the
// calls it records, every argument kept: tensors with shape, dtype and strides, and the non-tensor
// values (gelu's approximate="tanh", layer_norm's normalized_shape) that record_shapes drops.
// Pure; any thread.
#pragma once

#include "base/json.h"

#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace hotkernel {

struct TraceArgument
{
    QString name;       // from the op's schema ("self", "normalized_shape"); argN without one
    QString schemaType; // "Tensor", "SymInt[]", "str", ... as the schema writes it
    QString traceType;  // "Tensor(c10::BFloat16)", "GenericList[Int]", "String", "None", ...
    bool keywordOnly = false;
    bool isTensor = false;
    QString dtype;         // tensors: "bf16", "fp16", "fp32", or the trace's element type when other
    QList<qint64> shape;   // tensors
    QList<qint64> strides; // tensors, as the model had them
    Json value;            // non-tensors: the recorded value
};

struct TraceCall
{
    qint64 node = -1;
    QString op;       // "aten::gelu"
    QString overload; // "" for the default overload, "Tensor" for aten::add.Tensor
    QString schema;   // the op_schema attribute
    std::vector<TraceArgument> arguments;
};

class ExecutionTrace
{
public:
    // The node with this id, decoded. Throws UserError when data is not an execution trace or the
    // node is not in it.
    static TraceCall call(const Json &trace, qint64 node);
    static TraceCall decode(const Json &node);
    // "aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor": op, overload and each
    // argument's type, name and whether it is keyword-only.
    struct SchemaArgument
    {
        QString type;
        QString name;
        bool keywordOnly = false;
    };
    static bool parseSchema(const QString &schema, QString *op, QString *overload,
                            std::vector<SchemaArgument> *arguments);
    // "Tensor(c10::BFloat16)" -> "bf16"; empty when not a floating dtype hotkernel targets draw.
    static QString targetDtype(const QString &traceType);
};

} // namespace hotkernel
