// SPDX-License-Identifier: Apache-2.0
#include "schemaformdialog.h"

#include "session/toolspec.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace hotkernel {

namespace {

QString typeOf(const Json &schema)
{
    if (!schema.contains("type"))
        return QStringLiteral("string");
    const Json &t = schema["type"];
    if (t.is_string())
        return toQt(t.get<std::string>());
    // ["integer", "null"]: the first non-null type.
    if (t.is_array()) {
        for (const Json &one : t) {
            if (one.is_string() && one.get<std::string>() != "null")
                return toQt(one.get<std::string>());
        }
    }
    return QStringLiteral("string");
}

// Numbers as a person writes them: "300", "0.05", never "300.000000".
class NumberSpinBox : public QDoubleSpinBox
{
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override
    {
        return locale().toString(value, 'g', 12).remove(locale().groupSeparator());
    }
};

} // namespace

QString SchemaFormDialog::summaryOf(const QString &description)
{
    const QString text = description.simplified();
    // The first sentence: up to a full stop followed by a space (not "e.g. ", not "1.5").
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] == QLatin1Char('.') && text[i + 1] == QLatin1Char(' ') &&
            !text.left(i + 1).endsWith(QLatin1String("e.g.")) &&
            !text.left(i + 1).endsWith(QLatin1String("i.e.")))
            return text.left(i + 1);
    }
    return text;
}

QString SchemaFormDialog::unitOf(const QString &name, const QString &description)
{
    if (name.endsWith(QLatin1String("_ms")))
        return QStringLiteral(" ms");
    if (name.endsWith(QLatin1String("_us")))
        return QStringLiteral(" us");
    if (name.endsWith(QLatin1String("_s")) || name.contains(QLatin1String("timeout")) ||
        description.contains(QLatin1String("seconds")))
        return QStringLiteral(" s");
    if (name.endsWith(QLatin1String("_bytes")) || name == QLatin1String("bytes"))
        return QStringLiteral(" B");
    if (name.endsWith(QLatin1String("_pct")))
        return QStringLiteral(" %");
    return {};
}

SchemaFormDialog::SchemaFormDialog(const ToolSpec &tool, const Json &initial, QWidget *parent,
                                   const Json &fixed)
    : QDialog(parent), m_fixed(fixed.is_object() ? fixed : Json::object())
{
    setWindowTitle(tool.title.isEmpty() ? tool.name : tool.title);
    auto *form = new QFormLayout;
    const Json &schema = tool.inputSchema;
    QStringList required;
    if (schema.contains("required"))
        required = toStringList(schema["required"]);
    const Json properties = schema.contains("properties") && schema["properties"].is_object()
                                ? schema["properties"]
                                : Json::object();
    // Required fields first: what must be filled is what a person looks for.
    for (const bool wantRequired : {true, false}) {
        for (const auto &[key, property] : properties.items()) {
            const QString name = toQt(key);
            if (required.contains(name) != wantRequired)
                continue;
            if (m_fixed.contains(key)) {
                auto *given = new QLabel(
                    tr("(given: %1)")
                        .arg(stringField(property, "description").section(QLatin1Char('.'), 0, 0)));
                given->setWordWrap(true);
                form->addRow(name, given);
                continue;
            }
            addField(name, property, initial.contains(key) ? initial[key] : Json(), required.contains(name),
                     form);
        }
    }
    // Pre-filled values the schema does not list still travel: the session validates them.
    if (initial.is_object()) {
        for (const auto &[key, value] : initial.items()) {
            if (!properties.contains(key) && !m_fixed.contains(key))
                addField(toQt(key), Json{{"type", value.is_number_integer() ? "integer" : "string"}}, value,
                         true, form);
        }
    }

    auto *summary = new QLabel(summaryOf(tool.description), this);
    summary->setWordWrap(true);
    auto *description = new QLabel(tool.description, this);
    description->setWordWrap(true);
    description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    description->hide();
    auto *more = new QPushButton(tr("More..."), this);
    more->setCheckable(true);
    more->setVisible(summaryOf(tool.description) != tool.description.simplified());
    connect(more, &QPushButton::toggled, this, [description, more](bool on) {
        description->setVisible(on);
        more->setText(on ? tr("Less") : tr("More..."));
    });
    auto *top = new QHBoxLayout;
    top->addWidget(summary, 1);
    top->addWidget(more, 0, Qt::AlignTop);
    auto *inner = new QWidget;
    inner->setLayout(form);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(inner);
    scroll->setWidgetResizable(true);
    // The fields follow the dialog's width; only a long form scrolls, and only down (a horizontal
    // bar appeared for the width of the vertical one).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(description);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    resize(640, 520);
}

void SchemaFormDialog::addField(const QString &name, const Json &schema, const Json &initial, bool required,
                                QFormLayout *form)
{
    Field field;
    field.name = name;
    field.required = required;
    const QString type = typeOf(schema);
    const Json start = initial.is_null() && schema.contains("default") ? schema["default"] : initial;
    const bool hasDefault = schema.contains("default");
    if (type == QLatin1String("boolean")) {
        auto *box = new QCheckBox;
        box->setChecked(start.is_boolean() && start.get<bool>());
        // Left out only when it says what the tool would do anyway: a prefilled value that differs
        // from the default is the caller's choice and goes with the call untouched.
        const bool defaultState =
            hasDefault && schema["default"].is_boolean() && schema["default"].get<bool>();
        field.editor = box;
        field.value = [box, defaultState, required, hasDefault] {
            return box->isChecked() != defaultState || required || !hasDefault ? Json(box->isChecked())
                                                                               : Json();
        };
        field.set = [box](const Json &v) { box->setChecked(v.is_boolean() && v.get<bool>()); };
    } else if (type == QLatin1String("integer")) {
        auto *spin = new QSpinBox;
        spin->setRange(schema.contains("minimum") ? schema["minimum"].get<int>() : 0,
                       schema.contains("maximum") ? schema["maximum"].get<int>()
                                                  : std::numeric_limits<int>::max());
        // The minimum shows as "default" so an unset optional field stays unset.
        const bool optionalUnset = !start.is_number() && !required;
        if (optionalUnset) {
            spin->setMinimum(spin->minimum() - 1);
            spin->setSpecialValueText(tr("(default)"));
            spin->setValue(spin->minimum());
        } else if (start.is_number()) {
            spin->setValue(start.get<int>());
        }
        const int initialValue = spin->value();
        field.editor = spin;
        field.value = [spin, initialValue, required, optionalUnset] {
            if (optionalUnset && spin->value() == spin->minimum())
                return Json();
            return spin->value() != initialValue || required || !optionalUnset ? Json(spin->value()) : Json();
        };
        field.set = [spin](const Json &v) {
            if (v.is_number())
                spin->setValue(v.get<int>());
        };
    } else if (type == QLatin1String("number")) {
        auto *spin = new NumberSpinBox;
        spin->setDecimals(6);
        spin->setRange(-1e18, 1e18);
        if (start.is_number())
            spin->setValue(start.get<double>());
        const bool unset = !start.is_number();
        field.editor = spin;
        field.value = [spin, unset] { return unset && spin->value() == 0 ? Json() : Json(spin->value()); };
        field.set = [spin](const Json &v) {
            if (v.is_number())
                spin->setValue(v.get<double>());
        };
    } else if (schema.contains("enum") && schema["enum"].is_array()) {
        auto *combo = new QComboBox;
        if (!required)
            combo->addItem(QString());
        for (const Json &e : schema["enum"])
            combo->addItem(e.is_string() ? toQt(e.get<std::string>()) : toQt(e.dump()));
        if (start.is_string())
            combo->setCurrentText(toQt(start.get<std::string>()));
        field.editor = combo;
        field.value = [combo] {
            return combo->currentText().isEmpty() ? Json() : Json(toStd(combo->currentText()));
        };
        field.set = [combo](const Json &v) {
            if (v.is_string())
                combo->setCurrentText(toQt(v.get<std::string>()));
        };
    } else {
        const bool isArray = type == QLatin1String("array");
        auto *edit = new QLineEdit;
        if (isArray)
            edit->setPlaceholderText(tr("comma-separated"));
        auto textOf = [isArray](const Json &v) -> QString {
            if (v.is_string())
                return toQt(v.get<std::string>());
            if (isArray && v.is_array())
                return toStringList(v).join(QLatin1Char(','));
            return v.is_null() ? QString() : toQt(v.dump());
        };
        edit->setText(textOf(start));
        // As for the check box: the default is left out, a prefilled value is not (the window's
        // "Profile this kernel" prefills kernel_regex and set, which an untouched dialog must keep).
        const QString defaultText = hasDefault ? textOf(schema["default"]) : QString();
        field.editor = edit;
        field.value = [edit, isArray, defaultText, required, hasDefault] {
            const QString text = edit->text().trimmed();
            if (text.isEmpty() || (hasDefault && !required && text == defaultText))
                return Json();
            if (isArray) {
                QStringList items;
                for (const QString &item : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
                    items.append(item.trimmed());
                return toJson(items);
            }
            return Json(toStd(text));
        };
        field.set = [edit, textOf](const Json &v) { edit->setText(textOf(v)); };
    }
    const QString description =
        schema.contains("description") ? stringField(schema, "description") : QString();
    field.editor->setToolTip(description);
    if (const QString unit = unitOf(name, description); !unit.isEmpty()) {
        if (auto *spin = qobject_cast<QSpinBox *>(field.editor))
            spin->setSuffix(unit);
        else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(field.editor))
            dspin->setSuffix(unit);
    }
    field.editor->setObjectName(name);
    form->addRow(required ? name + QStringLiteral(" *") : name, field.editor);
    if (!description.isEmpty()) {
        // The field's own first sentence under it, smaller: enough to fill it without the tooltip.
        auto *hint = new QLabel(summaryOf(description));
        hint->setWordWrap(true);
        QFont small = hint->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        hint->setFont(small);
        hint->setForegroundRole(QPalette::PlaceholderText);
        form->addRow(QString(), hint);
    }
    m_fields.push_back(std::move(field));
}

Json SchemaFormDialog::arguments() const
{
    Json args = m_fixed;
    for (const Field &f : m_fields) {
        Json v = f.value();
        if (!v.is_null())
            args[toStd(f.name)] = std::move(v);
    }
    return args;
}

bool SchemaFormDialog::setValue(const QString &name, const Json &value)
{
    for (Field &f : m_fields) {
        if (f.name == name) {
            f.set(value);
            return true;
        }
    }
    return false;
}

} // namespace hotkernel
