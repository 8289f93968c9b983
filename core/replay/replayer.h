#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QUrl>

#include <chrono>

#include "http/apierror.h"
#include "message.h"

class QNetworkAccessManager;
class QNetworkReply;
struct CallRecord;

// Sends a recorded call again, for the person looking at it in the dashboard: its method, target,
// recorded request headers and logged request body (replay needs --log-bodies; a call without a
// body is refused with a sentence saying so), the body optionally edited. Either through Breakwater
// itself (its own origin, with `Cache-Control: no-cache`, so the call is a fresh upstream call that
// goes through the breaker, timeout and call log like any other, never a cache hit), or straight
// to another base URL (a local llama.cpp at http://127.0.0.1:8081/v1, the other upstream).
// Records never hold a credential, so the caller hands one in (typed, or from the environment by
// the route's API style, but only for a replay that reaches that variable's own provider): it goes
// into the one request sent and is kept nowhere else, and the sent headers reported back show it
// redacted. The answer (status, headers, body; a stream as
// its event text) is collected whole, bounded by a size and a transfer timeout, and reported with
// finished().
//
// Threads: lives on the GUI thread with its own QNetworkAccessManager. That is fine for this tool:
// it is the user's own action and never on a proxied request's path. One replay at a time.
class Replayer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Replayer)
public:
    struct Options
    {
        bool throughBreakwater = true;   // true: baseUrl is Breakwater's own address (+ no-cache)
        QUrl baseUrl;                    // "http://127.0.0.1:8080", or "http://127.0.0.1:8081/v1"
        QByteArray credential;           // empty: none sent; never stored past the request
        QByteArray body;                 // the (edited) body; empty: the record's own
        std::chrono::milliseconds timeout{std::chrono::seconds(120)};   // without a byte moving
        qint64 maxAnswerBytes = 8 * 1024 * 1024;
        QString caFile;                  // --ca-file: authorities trusted besides the system's
    };

    struct Answer
    {
        QUrl url;                  // where it went
        QByteArray sentHeaders;    // "Name: value" lines, the credential redacted
        QByteArray sentBody;
        int status = 0;            // 0: no HTTP answer (see error)
        QByteArray headers;        // "Name: value" lines as received
        QByteArray body;           // as received (a stream's event text), at most maxAnswerBytes
        bool truncated = false;    // the body was cut at maxAnswerBytes
        Message error;             // empty for an HTTP answer of any status
        qint64 elapsedMs = 0;
    };

    explicit Replayer(QObject *parent = nullptr);
    ~Replayer() override;

    // Why `record` cannot be replayed, or empty when it can.
    static Message refusal(const CallRecord &record);
    static ApiStyle styleOf(const CallRecord &record);   // by its route and headers, as the proxy told
    // The environment variable the SDKs read the credential from: OPENAI_API_KEY, ANTHROPIC_API_KEY,
    // GEMINI_API_KEY.
    static QString credentialVariable(ApiStyle style);
    // That variable's value in this process's environment, empty when it is not set.
    static QByteArray environmentCredential(ApiStyle style);
    // The provider that variable's key is for: https://api.openai.com/v1, https://api.anthropic.com.
    static QUrl providerUrl(ApiStyle style);
    // Whether a replay whose request ends up at `destination` may carry the environment's key: only
    // when that is the key's own provider (https, its host, its port). Through Breakwater, the
    // destination is the upstream Breakwater forwards the call to, which may be any
    // OpenAI-compatible server (a gateway, a colleague's vLLM) that must never see $OPENAI_API_KEY.
    static bool environmentCredentialFits(ApiStyle style, const QUrl &destination);
    // The URL a recorded target goes to at `baseUrl`: a base ending in /v1 takes the target's
    // path without its leading /v1 (as the SDKs' base URLs do), any other base takes it whole.
    static QUrl urlFor(const QUrl &baseUrl, const QByteArray &target);

    // Starts the replay; false (and nothing sent, no signal) when the record cannot be replayed,
    // its caFile holds no certificate, or one is already running, `why` saying so.
    bool replay(const CallRecord &record, const Options &options, Message *why = nullptr);
    bool isRunning() const { return m_reply != nullptr; }
    void abort();

Q_SIGNALS:
    void finished(const Replayer::Answer &answer);

private:
    bool keep(const QByteArray &chunk);   // appends within the bound; false when it had to cut
    void onReadyRead();
    void onFinished();

    QNetworkAccessManager *m_network = nullptr;   // owned (a child)
    QNetworkReply *m_reply = nullptr;              // the replay running, a child of m_network
    Answer m_answer;
    qint64 m_maxAnswerBytes = 0;
    QString m_caFile;   // the last replay's Options::caFile
    bool m_cutAtBound = false;   // aborted by us for size: the answer stands, marked truncated
    // Only shown (elapsedMs), never decides anything, so the steady timer is enough here.
    QElapsedTimer m_elapsed;
};

Q_DECLARE_METATYPE(Replayer::Answer)
