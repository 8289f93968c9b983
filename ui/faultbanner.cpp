#include "faultbanner.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include "dashboardstyle.h"
#include "faultcontrol.h"
#include "proxysnapshot.h"

using namespace Qt::StringLiterals;

FaultBanner::FaultBanner(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(u"faultBanner"_s);
    setStyleSheet(u"#faultBanner { background: %1; border-radius: 3px; } #faultBanner QLabel { color: white; }"_s
                      .arg(dashboardstyle::injectedColor().name()));
    auto *layout = new QHBoxLayout(this);
    // In the tab bar's corner (DashboardWindow): as tall as the tabs, so it appears without moving anything.
    layout->setContentsMargins(8, 0, 2, 0);
    layout->setSpacing(4);
    m_text = new QLabel;
    QFont bold = m_text->font();
    bold.setBold(true);
    m_text->setFont(bold);
    // A long list of rules is cut at the window's edge rather than widening it; the tooltip has all.
    m_text->setMinimumWidth(100);
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_text, 1);
    m_show = new QPushButton(tr("Faults…"));
    m_show->setToolTip(tr("Show the Faults tab"));
    connect(m_show, &QPushButton::clicked, this, &FaultBanner::showRequested);
    layout->addWidget(m_show);
    m_clear = new QPushButton(tr("Clear all"));
    m_clear->setToolTip(tr("Disarm every fault rule"));
    connect(m_clear, &QPushButton::clicked, this, &FaultBanner::clearRequested);
    layout->addWidget(m_clear);
    m_resume = new QPushButton(tr("Resume admission"));
    m_resume->setObjectName(u"resumeAdmission"_s);
    m_resume->setToolTip(tr("Admit new calls again"));
    connect(m_resume, &QPushButton::clicked, this, &FaultBanner::resumeAdmissionRequested);
    layout->addWidget(m_resume);
    hide();
}

void FaultBanner::refresh(const ProxySnapshot &snapshot)
{
    // Paused admission refuses every new call as surely as a 503 rule fails them: it is said here,
    // in the same strip, rather than only by a button's label (issue 27).
    const bool armed = !snapshot.faults.isEmpty();
    const bool paused = snapshot.admissionPaused;
    QStringList parts;
    if (paused)
        parts << tr("Admission paused: every new call is refused with 503 (calls in flight go on)");
    if (armed)
        parts << tr("Fault injection armed: %1 (calls it matches fail on purpose)").arg(faultcontrol::armedSummary(snapshot));
    const QString text = parts.join(u" · "_s);
    if (m_full != text) {
        m_full = text;
        m_text->setToolTip(parts.join(u'\n'));
        fitText();
    }
    m_show->setVisible(armed);
    m_clear->setVisible(armed);
    m_resume->setVisible(paused);
    if (isHidden() == text.isEmpty())
        return;
    setVisible(!text.isEmpty());
}

void FaultBanner::setPreferredWidth(int width)
{
    if (width == m_preferredWidth)
        return;
    m_preferredWidth = width;
    updateGeometry();
}

QSize FaultBanner::sizeHint() const
{
    const QSize hint = QFrame::sizeHint();
    return {std::max(hint.width(), m_preferredWidth), hint.height()};
}

QString FaultBanner::text() const
{
    return isHidden() ? QString() : m_full;
}

void FaultBanner::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    fitText();
}

void FaultBanner::fitText()
{
    // Cut at a word's end with "…" rather than mid-word at the window's edge.
    m_text->setText(m_text->fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(m_text->width(), 100)));
}
