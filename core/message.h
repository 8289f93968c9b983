#pragma once

#include <concepts>
#include <vector>

#include <QString>

// A sentence for a person, kept as its English source text and its arguments until it is shown, so
// that each reader says it in its own language. The HTTP API's error bodies, /metrics, the call
// log, the command line and the log lines read english(); the dashboard shows translated(), in the
// language of the translator the desktop app installs. Why not translate where the message is made:
// the desktop app runs the same core in-process, with that translator installed, so a core that
// called tr() would put Chinese into the API's error bodies and the logs.
//
// The source is marked where it is written, always in the one context "Message", so lupdate reads
// it into resources/translations/*.ts (ui/CMakeLists.txt names the core sources it reads):
//
//     Message(QT_TRANSLATE_NOOP("Message", "option %1 is given twice")).arg(name)
//
// %1 ... %99 are the arguments in the order given (a translation may reorder them). An argument is
// a Message too: a nested sentence is translated with its parent; a plain QString (a name, a path,
// a rule's syntax, Qt's own error text) reads the same in every language.
class Message
{
public:
    Message() = default;
    Message(QString plain) : m_plain(std::move(plain)) {}   // implicit: text shown as it is
    // `source` outlives the message: a string literal marked with QT_TRANSLATE_NOOP("Message", ...).
    explicit Message(const char *source) : m_source(source) {}

    Message arg(Message value) const;
    template <typename Number>
        requires std::integral<Number> || std::floating_point<Number>
    Message arg(Number value) const { return arg(Message(QStringLiteral("%1").arg(value))); }

    QString english() const { return text(false); }
    QString translated() const { return text(true); }   // QCoreApplication::translate("Message", ...)
    bool isEmpty() const { return !m_source && m_plain.isEmpty(); }
    bool operator==(const Message &other) const;   // the same source and arguments
    bool operator==(const QString &) const = delete;   // say which: english() or translated()

private:
    QString text(bool translate) const;

    const char *m_source = nullptr;   // null: m_plain is the whole text
    QString m_plain;
    std::vector<Message> m_args;
};
