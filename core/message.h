#pragma once

#include <concepts>
#include <vector>

#include <QByteArray>
#include <QString>

class QJsonObject;
class QJsonValue;

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
//
// Across the wire (toJson, fromJson) a message keeps its source and arguments, so a window attached
// to a remote Breakwater says the remote's refusals and breaker reasons in its own language too.
class Message
{
public:
    Message() = default;
    Message(QString plain) : m_plain(std::move(plain)) {}   // implicit: text shown as it is
    // `source` outlives the message: a string literal marked with QT_TRANSLATE_NOOP("Message", ...).
    explicit Message(const char *source) : m_source(QByteArray::fromRawData(source, qstrlen(source))) {}

    Message arg(Message value) const;
    template <typename Number>
        requires std::integral<Number> || std::floating_point<Number>
    Message arg(Number value) const { return arg(Message(QStringLiteral("%1").arg(value))); }

    QString english() const { return text(false); }
    QString translated() const { return text(true); }   // QCoreApplication::translate("Message", ...)
    // A plain message is its text; one with a source {"source": "...", "args": [...]}. fromJson
    // takes either (anything else is an empty message) and reads at most a few levels of arguments.
    QJsonValue toJson() const;
    static Message fromJson(const QJsonValue &json);
    bool isEmpty() const { return m_source.isNull() && m_plain.isEmpty(); }
    bool operator==(const Message &other) const;   // the same source and arguments
    bool operator==(const QString &) const = delete;   // say which: english() or translated()

private:
    QString text(bool translate) const;

    static Message fromJson(const QJsonValue &json, int depth);
    // The marked literal (not copied), or a source read from the wire; null: m_plain is the whole text.
    QByteArray m_source;
    QString m_plain;
    std::vector<Message> m_args;
};

// A message in a JSON object read by people and by Breakwater's own attached windows: `name` holds
// the English text, `sentenceName` (only for a sentence with a source) the message itself; by
// default `name`Message (the event feed's "reason" and "reasonMessage"), an API error's is
// "breakwater_message" beside its "message".
void insertMessage(QJsonObject &json, const QString &name, const Message &message, const QString &sentenceName = {});
// The message insertMessage put there; from an older Breakwater, the English text as plain.
Message messageIn(const QJsonObject &json, const QString &name, const QString &sentenceName = {});
