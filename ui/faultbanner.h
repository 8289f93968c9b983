#pragma once

#include <QFrame>

class QLabel;
class QPushButton;
struct ProxySnapshot;

// The strip across the top of the window while admission is paused ("Admission paused: ...", with
// Resume admission) or any fault-injection rule is armed: "Fault injection
// armed: #1 503:for=60s (41 s left)", with Clear all and a way to the Faults tab, in a colour no
// chart uses, so nobody forgets a rule and takes an injected failure for the provider's. Hidden
// while no rule is armed. Only shows the snapshot: its buttons are signals (the window wires them).
class FaultBanner final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FaultBanner)
public:
    explicit FaultBanner(QWidget *parent = nullptr);

    void refresh(const ProxySnapshot &snapshot);
    QString text() const;
    // The width it asks for: the room beside the tabs (its text is fitted to what it gets).
    void setPreferredWidth(int width);
    QSize sizeHint() const override;
    QPushButton *clearButton() const { return m_clear; }
    QPushButton *resumeButton() const { return m_resume; }

protected:
    void resizeEvent(QResizeEvent *event) override;

Q_SIGNALS:
    void clearRequested();
    void showRequested();   // the Faults tab
    void resumeAdmissionRequested();

private:
    void fitText();   // the whole text, or elided to the label's width (the tooltip has all)

    QString m_full;
    int m_preferredWidth = 0;
    QLabel *m_text = nullptr;
    QPushButton *m_show = nullptr;
    QPushButton *m_clear = nullptr;
    QPushButton *m_resume = nullptr;   // shown while admission is paused
};
