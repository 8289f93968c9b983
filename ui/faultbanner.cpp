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
    layout->setContentsMargins(8, 3, 4, 3);
    m_text = new QLabel;
    QFont bold = m_text->font();
    bold.setBold(true);
    m_text->setFont(bold);
    // A long list of rules is cut at the window's edge rather than widening it; the tooltip has all.
    m_text->setMinimumWidth(100);
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_text, 1);
    m_show = new QPushButton(u"Faults…"_s);
    m_show->setToolTip(u"Show the Faults tab"_s);
    connect(m_show, &QPushButton::clicked, this, &FaultBanner::showRequested);
    layout->addWidget(m_show);
    m_clear = new QPushButton(u"Clear all"_s);
    m_clear->setToolTip(u"Disarm every fault rule"_s);
    connect(m_clear, &QPushButton::clicked, this, &FaultBanner::clearRequested);
    layout->addWidget(m_clear);
    hide();
}

void FaultBanner::refresh(const ProxySnapshot &snapshot)
{
    const bool armed = !snapshot.faults.isEmpty();
    if (armed) {
        const QString rules = faultcontrol::armedSummary(snapshot);
        const QString text = u"Fault injection armed: %1 (calls it matches fail on purpose)"_s.arg(rules);
        if (m_full != text) {
            m_full = text;
            m_text->setToolTip(rules);
            fitText();
        }
    } else {
        m_full.clear();
    }
    if (isHidden() == armed)
        setVisible(armed);
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
