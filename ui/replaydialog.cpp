#include "replaydialog.h"

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "replay/answerdiff.h"

using namespace Qt::StringLiterals;

namespace {

QPlainTextEdit *textBox(QWidget *parent, bool readOnly)
{
    auto *box = new QPlainTextEdit(parent);
    box->setReadOnly(readOnly);
    box->setFont(QFont(u"monospace"_s));
    box->setLineWrapMode(QPlainTextEdit::NoWrap);
    return box;
}

// The body the recorded answer is compared with: the response body when bodies were logged, else
// a failed call's error body (kept always), else nothing.
QByteArray recordedBody(const CallRecord &record)
{
    return record.responseBody.isEmpty() ? record.errorBody : record.responseBody;
}

} // namespace

ReplayDialog::ReplayDialog(const CallRecord &record, QWidget *parent)
    : QDialog(parent), m_record(record), m_replayer(new Replayer(this))
{
    setWindowTitle(tr("Replay %1").arg(QString::fromLatin1(record.requestId)));
    resize(1100, 720);
    const ApiStyle style = Replayer::styleOf(record);
    const QByteArray target = record.target.isEmpty() ? record.route : record.target;
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("<b>%1 %2</b> → %3, recorded status %4").arg(
                                     QString::fromLatin1(record.method.isEmpty() ? "POST" : record.method),
                                     QString::fromUtf8(target).toHtmlEscaped(), QString::fromLatin1(record.upstream),
                                     QString::number(record.status)), this));

    auto *where = new QGroupBox(tr("Send to"), this);
    auto *whereLayout = new QFormLayout(where);
    m_through = new QRadioButton(where);
    m_other = new QRadioButton(tr("another base URL:"), where);
    m_otherUrl = new QLineEdit(where);
    m_otherUrl->setPlaceholderText(style == ApiStyle::Anthropic ? u"https://api.anthropic.com"_s
                                                                : u"http://127.0.0.1:8081/v1"_s);
    m_otherUrl->setToolTip(tr("Straight there, not through Breakwater: a local model, the other upstream"));
    whereLayout->addRow(m_through);
    whereLayout->addRow(m_other, m_otherUrl);
    auto *targets = new QButtonGroup(this);
    targets->addButton(m_through);
    targets->addButton(m_other);
    m_through->setChecked(true);
    setBreakwaterOrigin(m_origin);
    layout->addWidget(where);

    auto *credential = new QGroupBox(tr("Credential (never stored)"), this);
    auto *credentialLayout = new QFormLayout(credential);
    const bool found = !Replayer::environmentCredential(style).isEmpty();
    m_fromEnvironment = new QRadioButton(credential);
    m_typed = new QRadioButton(tr("typed:"), credential);
    m_credential = new QLineEdit(credential);
    m_credential->setEchoMode(QLineEdit::Password);
    m_credential->setPlaceholderText(style == ApiStyle::Anthropic ? u"sk-ant-…"_s : u"sk-…"_s);
    m_noCredential = new QRadioButton(tr("none (a local model that needs no key)"), credential);
    credentialLayout->addRow(m_fromEnvironment);
    credentialLayout->addRow(m_typed, m_credential);
    credentialLayout->addRow(m_noCredential);
    auto *credentials = new QButtonGroup(this);
    credentials->addButton(m_fromEnvironment);
    credentials->addButton(m_typed);
    credentials->addButton(m_noCredential);
    (found ? m_fromEnvironment : m_typed)->setChecked(true);
    layout->addWidget(credential);

    layout->addWidget(new QLabel(tr("Request body (edit it to send something else):"), this));
    m_body = textBox(this, false);
    m_shownBody = AnswerDiff::readable(record.requestBody);
    m_body->setPlainText(QString::fromUtf8(m_shownBody));
    layout->addWidget(m_body, 2);

    auto *sendRow = new QHBoxLayout;
    m_send = new QPushButton(tr("Send"), this);
    m_send->setObjectName(u"send"_s);
    m_send->setDefault(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    sendRow->addWidget(m_send);
    sendRow->addWidget(m_status, 1);
    layout->addLayout(sendRow);

    auto *answers = new QSplitter(Qt::Horizontal, this);
    const auto titled = [answers](const QString &title, QPlainTextEdit *box) {
        auto *pane = new QWidget(answers);
        auto *paneLayout = new QVBoxLayout(pane);
        paneLayout->setContentsMargins(0, 0, 0, 0);
        paneLayout->addWidget(new QLabel(title, pane));
        paneLayout->addWidget(box, 1);
        answers->addWidget(pane);
    };
    m_original = textBox(answers, true);
    m_replayed = textBox(answers, true);
    m_replayed->setPlaceholderText(tr("Send to see the answer here."));
    titled(tr("Recorded answer"), m_original);
    titled(tr("Replayed answer"), m_replayed);
    layout->addWidget(answers, 3);
    m_difference = new QLabel(this);
    m_difference->setWordWrap(true);
    m_difference->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_difference);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);

    QString original = tr("status %1").arg(record.status);
    if (!record.errorKind.isEmpty())
        original += u"  ("_s + QString::fromLatin1(record.errorKind) + u')';
    original += u"\n\n"_s;
    if (!record.responseBody.isEmpty())
        original += QString::fromUtf8(AnswerDiff::readable(record.responseBody));
    else if (!record.errorBody.isEmpty())
        original += tr("upstream error body:") + u'\n' + QString::fromUtf8(AnswerDiff::readable(record.errorBody));
    else
        original += tr("(the answer's body was not logged)");
    m_original->setPlainText(original);

    connect(m_send, &QPushButton::clicked, this, &ReplayDialog::send);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_replayer, &Replayer::finished, this, &ReplayDialog::showAnswer);
    connect(targets, &QButtonGroup::buttonToggled, this, &ReplayDialog::updateControls);
    connect(credentials, &QButtonGroup::buttonToggled, this, &ReplayDialog::updateControls);
    connect(m_otherUrl, &QLineEdit::textChanged, this, &ReplayDialog::updateControls);
    updateControls();
    if (const Message refused = Replayer::refusal(record); !refused.isEmpty()) {
        m_body->setEnabled(false);
        m_status->setText(refused.translated());
    }
}

void ReplayDialog::setBreakwaterOrigin(const QString &origin)
{
    m_origin = origin;
    m_through->setText(tr("Breakwater itself (%1, with Cache-Control: no-cache: a fresh upstream call)").arg(origin));
}

void ReplayDialog::setUpstreamUrls(const QHash<QString, QString> &urls)
{
    m_upstreamUrls = urls;
    if (m_otherUrl->text().isEmpty())
        m_otherUrl->setText(urls.value(QString::fromLatin1(m_record.upstream)));
    if (environmentCredentialOffered() && m_credential->text().isEmpty())
        m_fromEnvironment->setChecked(true);   // now known to go to the key's own provider
    updateControls();
}

void ReplayDialog::setThroughBreakwater(bool through)
{
    (through ? m_through : m_other)->setChecked(true);
}

void ReplayDialog::setOtherUrl(const QString &url)
{
    m_otherUrl->setText(url);
}

void ReplayDialog::setTypedCredential(const QString &credential)
{
    m_credential->setText(credential);
    m_typed->setChecked(true);
}

void ReplayDialog::setBodyText(const QString &text)
{
    m_body->setPlainText(text);
}

QString ReplayDialog::bodyText() const
{
    return m_body->toPlainText();
}

bool ReplayDialog::canSend() const
{
    return m_send->isEnabled();
}

QUrl ReplayDialog::destination() const
{
    if (m_through->isChecked())   // where Breakwater forwards it
        return QUrl(m_upstreamUrls.value(QString::fromLatin1(m_record.upstream)));
    return QUrl(m_otherUrl->text().trimmed());
}

bool ReplayDialog::environmentCredentialOffered() const
{
    const ApiStyle style = Replayer::styleOf(m_record);
    return !Replayer::environmentCredential(style).isEmpty() && Replayer::environmentCredentialFits(style, destination());
}

void ReplayDialog::updateControls()
{
    // The environment's key only goes to its own provider: through Breakwater to an upstream that is
    // a gateway or a colleague's server, or straight to another URL, it must be typed.
    const ApiStyle style = Replayer::styleOf(m_record);
    const QString variable = Replayer::credentialVariable(style);
    const bool offered = environmentCredentialOffered();
    QString source;
    if (Replayer::environmentCredential(style).isEmpty())
        source = tr("from the environment: $%1 (not set)").arg(variable);
    else if (offered)
        source = tr("from the environment: $%1 (found)").arg(variable);
    else
        //: %1 is a variable name, %2 the provider's host (api.openai.com)
        source = tr("from the environment: $%1 (only for %2, which this replay does not reach)")
                     .arg(variable, Replayer::providerUrl(style).host());
    m_fromEnvironment->setText(source);
    m_fromEnvironment->setEnabled(offered);
    if (!offered && m_fromEnvironment->isChecked())
        m_typed->setChecked(true);   // toggles back into updateControls, which then finds it settled
    m_otherUrl->setEnabled(m_other->isChecked());
    m_credential->setEnabled(m_typed->isChecked());
    const bool whereKnown = m_through->isChecked() || QUrl(m_otherUrl->text().trimmed()).isValid();
    m_send->setEnabled(Replayer::refusal(m_record).isEmpty() && !m_replayer->isRunning() && whereKnown
                       && !(m_other->isChecked() && m_otherUrl->text().trimmed().isEmpty()));
}

void ReplayDialog::send()
{
    if (!canSend())
        return;
    Replayer::Options options;
    options.throughBreakwater = m_through->isChecked();
    options.caFile = m_caFile;
    options.baseUrl = QUrl(options.throughBreakwater ? m_origin : m_otherUrl->text().trimmed());
    if (m_fromEnvironment->isChecked() && environmentCredentialOffered())
        options.credential = Replayer::environmentCredential(Replayer::styleOf(m_record));
    else if (m_typed->isChecked())
        options.credential = m_credential->text().trimmed().toUtf8();
    const QByteArray edited = m_body->toPlainText().toUtf8();
    options.body = edited == m_shownBody ? m_record.requestBody : edited;   // untouched: the recorded bytes
    QString note;
    if (edited != m_shownBody && !edited.trimmed().isEmpty()) {
        QJsonParseError error;
        QJsonDocument::fromJson(edited, &error);
        if (error.error != QJsonParseError::NoError)
            note = u' ' + tr("(the edited body is not valid JSON: sent as typed)");
    }
    Message why;
    if (!m_replayer->replay(m_record, options, &why)) {
        m_status->setText(why.translated());
        return;
    }
    m_status->setText(tr("Sending to %1…").arg(Replayer::urlFor(options.baseUrl, m_record.target.isEmpty()
                                                                                    ? m_record.route : m_record.target)
                                                  .toDisplayString()) + note);
    m_replayed->clear();
    m_difference->clear();
    updateControls();
}

void ReplayDialog::showAnswer(const Replayer::Answer &answer)
{
    updateControls();
    QString text;
    if (answer.status == 0) {
        text = tr("no answer: %1").arg(answer.error.translated()) + u'\n';
        m_status->setText(tr("No answer from %1: %2").arg(answer.url.toDisplayString(), answer.error.translated()));
    } else {
        text = tr("status %1 in %2 ms").arg(answer.status).arg(answer.elapsedMs) + u'\n';
        if (!answer.error.isEmpty())
            text += tr("(then: %1)").arg(answer.error.translated()) + u'\n';
        m_status->setText(tr("Answered %1 by %2.").arg(answer.status).arg(answer.url.toDisplayString()));
    }
    if (!answer.headers.isEmpty())
        text += u"\n"_s + QString::fromUtf8(answer.headers);
    text += u'\n' + QString::fromUtf8(AnswerDiff::readable(answer.body));
    if (answer.truncated)
        text += u'\n' + tr("… (cut here: the answer was longer than the replay keeps)");
    // What went out, last: the answer is what one looks at first.
    text += u"\n\n"_s + tr("sent to %1").arg(answer.url.toDisplayString()) + u'\n' + QString::fromUtf8(answer.sentHeaders);
    m_replayed->setPlainText(text);
    m_difference->setText(tr("Difference: %1")
                              .arg(AnswerDiff::summary(m_record.status, recordedBody(m_record), answer.status, answer.body)
                                       .translated()));
    Q_EMIT answered();
}

QString ReplayDialog::originalText() const
{
    return m_original->toPlainText();
}

QString ReplayDialog::replayText() const
{
    return m_replayed->toPlainText();
}

QString ReplayDialog::differenceText() const
{
    return m_difference->text();
}

QString ReplayDialog::statusText() const
{
    return m_status->text();
}
