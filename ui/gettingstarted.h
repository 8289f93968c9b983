#pragma once

#include <QWidget>

class QLabel;

// What the empty window shows a newcomer: how to point an app at Breakwater, as the two lines to
// paste into the shell that starts it, each with a Copy button, naming the real listen address
// (port 0 picks a free one, so only the running proxy knows it). The tray's "Copy export lines"
// gives the same lines (exportLine). The window hides this once calls arrive.
class GettingStarted final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GettingStarted)
public:
    explicit GettingStarted(QWidget *parent = nullptr);

    // The OpenAI base URL ends in /v1, the Anthropic one is the same without it.
    void setBaseUrls(const QString &openaiBaseUrl, const QString &anthropicBaseUrl, bool demo);
    QString text() const;   // everything shown, for tests

    enum class Sdk { OpenAI, Anthropic };
    // "export OPENAI_BASE_URL=http://127.0.0.1:8080/v1"; in demo mode with the mock's demo key,
    // since the SDKs refuse to start without one (real providers need the user's own).
    static QString exportLine(Sdk sdk, const QString &baseUrl, bool demo);

private:
    QLabel *m_intro = nullptr;
    QLabel *m_lines[2] = {};
    QLabel *m_note = nullptr;
};
