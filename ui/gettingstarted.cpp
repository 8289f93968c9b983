#include "gettingstarted.h"

#include <QApplication>
#include <QClipboard>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>

using namespace Qt::StringLiterals;

GettingStarted::GettingStarted(QWidget *parent)
    : QWidget(parent)
{
    // Three lines: what to do, then the two lines to paste; the note on keys sits beside them.
    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setVerticalSpacing(2);
    m_intro = new QLabel(this);
    m_intro->setTextFormat(Qt::RichText);
    m_intro->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_intro, 0, 0, 1, 3);
    QFont mono(u"monospace"_s);
    mono.setStyleHint(QFont::Monospace);
    for (int i = 0; i < 2; ++i) {
        m_lines[i] = new QLabel(this);
        m_lines[i]->setFont(mono);
        m_lines[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto *copy = new QPushButton(tr("Copy"), this);
        copy->setObjectName(i == 0 ? u"copyOpenai"_s : u"copyAnthropic"_s);
        QLabel *line = m_lines[i];
        connect(copy, &QPushButton::clicked, this, [line] { QApplication::clipboard()->setText(line->text()); });
        layout->addWidget(copy, 1 + i, 0);
        layout->addWidget(m_lines[i], 1 + i, 1);
    }
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_note, 1, 2, 2, 1);
    layout->setColumnStretch(2, 1);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
}

void GettingStarted::setBaseUrls(const QString &openaiBaseUrl, const QString &anthropicBaseUrl, bool demo)
{
    m_intro->setText(tr("<b>Point an app at Breakwater:</b> set the SDK's base URL in the shell that starts "
                        "it, then run it as usual; its calls appear here."));
    m_lines[0]->setText(exportLine(Sdk::OpenAI, openaiBaseUrl, demo));
    m_lines[1]->setText(exportLine(Sdk::Anthropic, anthropicBaseUrl, demo));
    m_note->setText(demo ? tr("Demo mode: the mock provider takes any key. The Demo scenarios menu plays a herd, "
                              "an outage and a hang without any app.")
                         : tr("Your own API keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) stay as they are: Breakwater "
                              "passes them through."));
}

QString GettingStarted::text() const
{
    return QStringList{m_intro->text(), m_lines[0]->text(), m_lines[1]->text(), m_note->text()}.join(u'\n');
}

QString GettingStarted::exportLine(Sdk sdk, const QString &baseUrl, bool demo)
{
    if (sdk == Sdk::OpenAI)
        return u"export OPENAI_BASE_URL=%1%2"_s.arg(baseUrl, demo ? u" OPENAI_API_KEY=sk-demo"_s : QString());
    return u"export ANTHROPIC_BASE_URL=%1%2"_s.arg(baseUrl, demo ? u" ANTHROPIC_API_KEY=sk-ant-demo"_s : QString());
}
