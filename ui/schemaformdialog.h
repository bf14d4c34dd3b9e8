// SPDX-License-Identifier: Apache-2.0
// A dialog whose fields are a tool's input schema (the same schema the CLI flags and MCP clients
// use), so New target, Bench and Verify offer exactly the tool's options: a one-line summary (the
// agent-facing description behind "More"), units, and numbers as a person writes them. GUI thread.
#pragma once

#include "base/json.h"

#include <QDialog>

#include <functional>
#include <vector>

class QFormLayout;

namespace hotkernel {

struct ToolSpec;

class SchemaFormDialog : public QDialog
{
    Q_OBJECT
public:
    // initial: values to pre-fill (also for properties the schema lacks). fixed: values the call
    // carries as given, shown but not edited (record's verify_result, an object).
    SchemaFormDialog(const ToolSpec &tool, const Json &initial, QWidget *parent = nullptr,
                     const Json &fixed = Json::object());
    // The first sentence of a tool's description: what the dialog opens with ("More" shows the rest).
    static QString summaryOf(const QString &description);
    // The unit a property's value is in, from its name or description (" s", " ms", " B"); or empty.
    static QString unitOf(const QString &name, const QString &description);

    // The arguments as the tool takes them: required fields, and optional ones the user set.
    Json arguments() const;
    // Sets a field's value as if typed (tests, presets); false when there is no such field.
    bool setValue(const QString &name, const Json &value);

private:
    struct Field
    {
        QString name;
        QWidget *editor = nullptr;
        std::function<Json()> value; // null Json = left empty
        std::function<void(const Json &)> set;
        bool required = false;
    };
    void addField(const QString &name, const Json &schema, const Json &initial, bool required,
                  QFormLayout *form);

    std::vector<Field> m_fields;
    Json m_fixed;
};

} // namespace hotkernel
