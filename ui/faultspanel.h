#pragma once

#include <QList>
#include <QWidget>

#include "faults/faultrule.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
struct ProxySnapshot;

// The "Faults" tab: the armed fault-injection rules (as the proxy's snapshot has them, so rules
// armed through the control API, `breakwater fault` or --fault show too), one Remove button each
// and Clear all; the presets; and an Add row. The row's fields (kind, its value, scope, p or count,
// for) write the rule's text form into the text field, which may also be typed in directly; Add
// parses that text with FaultRule::parse, the one parser, and shows its message for a bad rule.
//
// It never touches the proxy: Add, Remove, Clear all and the presets are signals, which
// faultcontrol::connectPanel queues onto the proxy's thread. What happened shows at the next
// refresh(snapshot), as everywhere else in the dashboard.
class FaultsPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FaultsPanel)
public:
    enum Column { Rule, Kind, Scope, Fired, Left, Action, ColumnCount };

    explicit FaultsPanel(QWidget *parent = nullptr);

    void refresh(const ProxySnapshot &snapshot);

    // As last refreshed.
    int ruleCount() const { return int(m_rules.size()); }
    const QList<FaultRule> &rules() const { return m_rules; }
    QTableWidget *table() const { return m_table; }
    QPushButton *removeButton(int row) const;
    QPushButton *clearButton() const { return m_clear; }
    QPushButton *presetButton(const QString &rule) const;   // by the rule it arms, the same in every language

    // The Add row.
    QComboBox *kindChoice() const { return m_kind; }
    QLineEdit *valueField() const { return m_value; }
    QComboBox *upstreamChoice() const { return m_upstream; }
    QLineEdit *routeField() const { return m_route; }
    QLineEdit *modelField() const { return m_model; }
    QComboBox *firingChoice() const { return m_firing; }   // every call, p %, next N calls
    QLineEdit *firingField() const { return m_firingValue; }
    QLineEdit *lifetimeField() const { return m_lifetime; }
    QLineEdit *ruleField() const { return m_text; }
    QPushButton *addButton() const { return m_add; }
    // Arms on every instance of the fleet; enabled only while this one's shared state is "shared".
    QCheckBox *wholeFleetBox() const { return m_wholeFleet; }
    QString errorText() const;   // the parser's message for the last bad rule; empty otherwise

    // Arms the text field's rule (the Add button): false and the message when it does not parse.
    bool addRule();

Q_SIGNALS:
    // `wholeFleet`: the "Whole fleet" box was ticked (fleet/fleetfaults.h).
    void armRequested(const FaultRule &rule, bool wholeFleet);
    void disarmRequested(int id);
    void clearRequested();

private:
    QWidget *buildForm();
    void buildText();       // the form's fields into the text field
    void onKindChanged();
    void fillTable();

    QList<FaultRule> m_rules;
    qint64 m_steadyMs = 0;
    QString m_shownKey;     // what the table shows (ids, fired, seconds left): redrawn when it changes
    QTableWidget *m_table = nullptr;
    QLabel *m_injected = nullptr;
    QPushButton *m_clear = nullptr;
    QList<std::pair<QPushButton *, QString>> m_presets;   // each with the rule it arms
    QComboBox *m_kind = nullptr;
    QLineEdit *m_value = nullptr;
    QComboBox *m_upstream = nullptr;
    QLineEdit *m_route = nullptr;
    QLineEdit *m_model = nullptr;
    QComboBox *m_firing = nullptr;
    QLineEdit *m_firingValue = nullptr;
    QLineEdit *m_lifetime = nullptr;
    QLineEdit *m_text = nullptr;
    QPushButton *m_add = nullptr;
    QCheckBox *m_wholeFleet = nullptr;
    QLabel *m_error = nullptr;
};
