// SPDX-License-Identifier: Apache-2.0
// The ids a Session gives results that a later call refers to (issue 44): a verify's result for
// record, and later a sweep's, all in one id space. An id is unguessable (128 random bits) and
// names the session that issued it; the result stays in this process's memory only, so an id
// outlives neither the session nor the proof that the session measured it. Main thread.
#pragma once

#include "base/json.h"

#include <QString>

#include <map>

namespace hotkernel {

class ResultIds
{
public:
    ResultIds(); // a fresh tag for this session

    // Adds "<kind>_id" to result, keeps the result under that id and returns the id,
    // "<kind>-<session tag>-<32 hex digits>".
    QString issue(const QString &kind, Json &result);
    // The result an id names. Throws UserError that says what to do when the id is malformed,
    // comes from another session (one that has ended, or another process) or is unknown here.
    Json find(const QString &kind, const QString &id) const;
    // A shortened copy of an issued result, as the MCP server sent it to fit a model's context
    // (mcp/contextbudget.h): given back whole, it stands for the full result it was cut from.
    void addShortened(const QString &id, const Json &shortened);
    // The id of the full result a shortened copy was cut from; empty when it is not such a copy.
    QString idOfShortened(const Json &copy) const;
    // Whether text has the form of an id (a CLI argument that is an id, not a file or JSON).
    static bool looksLikeId(const QString &text);
    const QString &tag() const { return m_tag; }

private:
    QString m_tag;
    std::map<QString, Json> m_results;
    std::map<QString, QString> m_shortened; // shortened copy's digest (Session::verifyDigest) -> id
};

} // namespace hotkernel
