// SPDX-License-Identifier: Apache-2.0
#include "base/json.h"
#include "base/jsonparse.h"

#include <unordered_map>
#include <vector>

namespace hotkernel {

long long integerField(const Json &object, const char *key, long long fallback)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer())
        return fallback;
    return it->get<long long>();
}

QString stringField(const Json &object, const char *key, const QString &fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return fallback;
    return toQt(it->get<std::string>());
}

QStringList toStringList(const Json &array)
{
    QStringList list;
    if (!array.is_array())
        return list;
    for (const auto &item : array) {
        if (item.is_string())
            list.append(toQt(item.get<std::string>()));
    }
    return list;
}

Json toJson(const QStringList &list)
{
    Json array = Json::array();
    for (const QString &s : list)
        array.push_back(toStd(s));
    return array;
}

namespace {

// Builds the value from nlohmann's SAX events, as its own DOM parser does, but keeps no more
// than maxDepth containers open: deeper ones are counted and skipped, so the rest of the text is
// still checked and a shallow field after a deep one (a JSON-RPC id) still arrives.
class DepthLimitedBuilder
{
public:
    DepthLimitedBuilder(Json &root, int maxDepth) : m_root(root), m_maxDepth(maxDepth) {}

    bool null() { return scalar(nullptr); }
    bool boolean(bool value) { return scalar(value); }
    bool number_integer(Json::number_integer_t value) { return scalar(value); }
    bool number_unsigned(Json::number_unsigned_t value) { return scalar(value); }
    bool number_float(Json::number_float_t value, const Json::string_t &) { return scalar(value); }
    bool string(Json::string_t &value) { return scalar(std::move(value)); }
    bool binary(Json::binary_t &value) { return scalar(Json::binary(std::move(value))); }
    bool start_object(std::size_t) { return open(Json::object()); }
    bool start_array(std::size_t) { return open(Json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(Json::string_t &name)
    {
        if (m_skipped == 0)
            m_slot = &slotFor(std::move(name));
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e)
    {
        m_error = QString::fromUtf8(e.what());
        return false;
    }

    bool tooDeep() const { return m_tooDeep; }
    const QString &error() const { return m_error; }

private:
    // Below this many keys a linear search is cheapest; above it a hash index keeps a
    // million-key object linear to read (ordered_json's own insert searches every key: 80,000
    // keys took 13 s).
    static constexpr std::size_t IndexFrom = 16;

    // Where the value of key name goes in the innermost object: a new entry, or the existing one
    // for a repeated key (the last value wins, as with nlohmann's own parser). Valid until the
    // value is placed: nothing else is inserted into this object before it.
    Json &slotFor(std::string &&name)
    {
        // The vector under ordered_json's map: its own operator[] takes keys, not positions.
        Json::object_t::Container &object = m_open.back()->get_ref<Json::object_t &>();
        std::unordered_map<std::string, std::size_t> &index = m_indexes.back();
        if (index.empty() && object.size() >= IndexFrom) {
            for (std::size_t i = 0; i < object.size(); ++i)
                index.emplace(object[i].first, i);
        }
        if (index.empty()) {
            for (auto &entry : object) {
                if (entry.first == name)
                    return entry.second;
            }
        } else if (const auto it = index.find(name); it != index.end()) {
            return object[it->second].second;
        } else {
            index.emplace(name, object.size());
        }
        object.emplace_back(std::move(name), nullptr);
        return object.back().second;
    }

    Json *place(Json &&value)
    {
        if (m_open.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Json &container = *m_open.back();
        if (container.is_array()) {
            container.push_back(std::move(value));
            return &container.back();
        }
        *m_slot = std::move(value);
        return m_slot;
    }
    bool scalar(Json &&value)
    {
        if (m_skipped == 0)
            place(std::move(value));
        return true;
    }
    bool open(Json &&container)
    {
        if (m_skipped > 0 || int(m_open.size()) >= m_maxDepth) {
            if (m_skipped == 0) {
                m_tooDeep = true;
                place(nullptr);
            }
            ++m_skipped;
            return true;
        }
        m_open.push_back(place(std::move(container)));
        m_indexes.emplace_back();
        return true;
    }
    bool close()
    {
        if (m_skipped > 0) {
            --m_skipped;
        } else {
            m_open.pop_back();
            m_indexes.pop_back();
        }
        return true;
    }

    Json &m_root;
    int m_maxDepth;
    std::vector<Json *> m_open; // the containers being filled, outermost first
    std::vector<std::unordered_map<std::string, std::size_t>> m_indexes; // per open container
    Json *m_slot = nullptr; // where the next value of the innermost object goes
    quint64 m_skipped = 0;  // depth inside a skipped container
    bool m_tooDeep = false;
    QString m_error;
};

} // namespace

JsonParse parseJsonLimited(QByteArrayView text, int maxDepth, qsizetype maxBytes)
{
    JsonParse result;
    if (text.size() > maxBytes) {
        result.status = JsonParse::Status::TooLarge;
        result.error =
            QStringLiteral("the JSON is %1 bytes; hotkernel reads at most %2").arg(text.size()).arg(maxBytes);
        return result;
    }
    DepthLimitedBuilder builder(result.value, maxDepth);
    const bool parsed = Json::sax_parse(text.begin(), text.end(), &builder);
    if (!parsed) {
        result.status = JsonParse::Status::Malformed;
        result.error = builder.error().isEmpty() ? QStringLiteral("not JSON") : builder.error();
        result.value = nullptr;
    } else if (builder.tooDeep()) {
        result.status = JsonParse::Status::TooDeep;
        result.error = QStringLiteral("the JSON nests arrays and objects more than %1 levels deep; hotkernel "
                                      "reads at most %1")
                           .arg(maxDepth);
    } else {
        result.status = JsonParse::Status::Ok;
    }
    return result;
}

std::optional<Json> parseJson(const QByteArray &text, QString *error)
{
    JsonParse parse = parseJsonLimited(text);
    if (!parse.ok()) {
        if (error)
            *error = parse.error;
        return std::nullopt;
    }
    return std::move(parse.value);
}

} // namespace hotkernel
