#pragma once

#include <optional>
#include <utility>

#include <QString>
#include <QtGlobal>

#include "message.h"

// How a call that can fail says so: the one convention at Breakwater's boundaries (opening the call
// log, loading a price file, binding the proxy's port, parsing the command line, writing the login
// autostart entry, computing a report). Such a call returns a Result, or an Expected<T> when it
// also yields a value; a failure carries a message for a person ("cannot read price file x: No such
// file or directory"), which callers print or answer as it is (error(): English) or show in the
// dashboard (message().translated(); message.h says why a sentence stays untranslated until shown).
// No exceptions, no out-parameters, no "an empty string means ok": a failing call says
// `return Failure{message};`, a succeeding one `return {};` or returns its value.

// What a failing call returns; it converts to a failed Result or Expected<T>.
struct Failure
{
    Message message;   // a QString converts: a plain message
};

// The outcome of a call that yields nothing but success or a failure. Default: success.
class [[nodiscard]] Result
{
public:
    Result() = default;
    Result(Failure failure) : m_error(std::move(failure.message)), m_ok(false) {}

    bool ok() const { return m_ok; }
    QString error() const { return m_error.english(); }   // empty when ok()
    const Message &message() const { return m_error; }

private:
    Message m_error;
    bool m_ok = true;
};

// A value, or the failure that kept the call from producing one.
template <typename T>
class [[nodiscard]] Expected
{
public:
    Expected(T value) : m_value(std::move(value)) {}
    Expected(Failure failure) : m_error(std::move(failure.message)) {}

    bool ok() const { return m_value.has_value(); }
    QString error() const { return m_error.english(); }   // empty when ok()
    const Message &message() const { return m_error; }

    // Only when ok().
    const T &value() const & { Q_ASSERT(ok()); return *m_value; }
    T &value() & { Q_ASSERT(ok()); return *m_value; }
    T &&value() && { Q_ASSERT(ok()); return std::move(*m_value); }
    const T *operator->() const { return &value(); }
    T *operator->() { return &value(); }

private:
    std::optional<T> m_value;
    Message m_error;
};
