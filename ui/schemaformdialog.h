// SPDX-License-Identifier: Apache-2.0
// A dialog whose fields are a tool's input schema (the same schema the CLI flags and MCP clients
// use), so New target, Bench and Verify offer exactly the tool's options. GUI thread.
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
    // initial: values to pre-fill (also for properties the schema lacks).
    SchemaFormDialog(const ToolSpec &tool, const Json &initial, QWidget *parent = nullptr);

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
};

} // namespace hotkernel
