#include "faultspanel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "dashboardstyle.h"
#include "faultcontrol.h"
#include "proxysnapshot.h"

using namespace Qt::StringLiterals;

namespace {

// The kinds as the combo offers them: the word of the text form, and what its value is (if any).
struct KindChoice
{
    QString kind;
    const char *valueHint;   // nullptr: the kind takes no value; translated where shown
};
const QList<KindChoice> kKinds{
    {u"503"_s, nullptr}, {u"529"_s, nullptr}, {u"429"_s, nullptr}, {u"500"_s, nullptr}, {u"502"_s, nullptr},
    {u"hang"_s, nullptr}, {u"delay"_s, QT_TRANSLATE_NOOP("FaultsPanel", "D, e.g. 2s")},
    {u"slow-stream"_s, QT_TRANSLATE_NOOP("FaultsPanel", "D, e.g. 500ms")},
    {u"cut"_s, QT_TRANSLATE_NOOP("FaultsPanel", "events, e.g. 3")},
    {u"error-event"_s, QT_TRANSLATE_NOOP("FaultsPanel", "events, e.g. 2")}, {u"reset"_s, nullptr}, {u"garbage"_s, nullptr},
};

QString scopeText(const FaultRule &rule)
{
    QStringList parts;
    parts << (rule.upstream.isEmpty() ? FaultsPanel::tr("both upstreams") : QString::fromLatin1(rule.upstream));
    if (!rule.route.isEmpty())
        parts << QString::fromUtf8(rule.route);
    if (!rule.model.isEmpty())
        parts << rule.model;
    if (rule.percent != 100)
        //: A rule firing for a percentage of the calls it matches
        parts << FaultsPanel::tr("p %1 %").arg(rule.percent);
    if (!rule.fleetId.isEmpty())
        parts << FaultsPanel::tr("whole fleet");
    return parts.join(u", "_s);
}

} // namespace

FaultsPanel::FaultsPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *presets = new QHBoxLayout;
    presets->addWidget(new QLabel(tr("Presets:")));
    for (const faultcontrol::Preset &preset : faultcontrol::presets()) {
        auto *button = new QPushButton(preset.name);
        button->setToolTip(tr("Arms %1").arg(preset.rule));
        connect(button, &QPushButton::clicked, this, [this, rule = preset.rule] {
            m_text->setText(rule);
            addRule();
        });
        m_presets.append({button, preset.rule});
        presets->addWidget(button);
    }
    presets->addStretch();
    m_clear = new QPushButton(tr("Clear all"));
    m_clear->setToolTip(tr("Disarm every rule"));
    m_clear->setEnabled(false);
    connect(m_clear, &QPushButton::clicked, this, &FaultsPanel::clearRequested);
    presets->addWidget(m_clear);
    layout->addLayout(presets);

    m_table = new QTableWidget(0, ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("rule"), tr("kind"), tr("scope"), tr("fired"), tr("left / expires"), QString()});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(Rule, QHeaderView::Stretch);
    for (const int column : {Kind, Scope, Fired, Left, Action})
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    m_injected = new QLabel;
    m_injected->setWordWrap(true);
    layout->addWidget(m_injected);
    layout->addWidget(buildForm());
    fillTable();
}

QWidget *FaultsPanel::buildForm()
{
    auto *box = new QGroupBox(tr("Add a rule (off until armed; injected calls go through the breaker, the log and the charts as real failures)"));
    auto *grid = new QGridLayout(box);
    grid->setContentsMargins(6, 4, 6, 6);
    m_kind = new QComboBox;
    m_kind->setObjectName(u"faultKind"_s);   // the rule syntax' own words (503, hang, cut), not translated
    for (const KindChoice &choice : kKinds)
        m_kind->addItem(choice.kind);
    m_value = new QLineEdit;
    m_upstream = new QComboBox;
    m_upstream->addItem(tr("both upstreams"), QString());
    m_upstream->addItem(u"openai"_s, u"openai"_s);
    m_upstream->addItem(u"anthropic"_s, u"anthropic"_s);
    m_route = new QLineEdit;
    m_route->setPlaceholderText(tr("any route"));
    m_model = new QLineEdit;
    m_model->setPlaceholderText(tr("any model"));
    m_firing = new QComboBox;
    m_firing->addItem(tr("every call"), QString());
    m_firing->addItem(tr("p % of calls"), u"p"_s);
    m_firing->addItem(tr("next N calls"), u"count"_s);
    m_firingValue = new QLineEdit;
    m_firingValue->setEnabled(false);
    m_lifetime = new QLineEdit;
    m_lifetime->setPlaceholderText(tr("for, e.g. 60s"));
    m_text = new QLineEdit;
    //: KIND, OPTION and VALUE are the rule's syntax; keep "503:for=60s" as it is
    m_text->setPlaceholderText(tr("KIND[:OPTION=VALUE]...  e.g. 503:for=60s"));
    m_add = new QPushButton(tr("Add"));
    m_wholeFleet = new QCheckBox(tr("Whole fleet"));
    m_wholeFleet->setToolTip(tr("Arm the rule on every Breakwater that shares this one's Redis (--shared-state), "
                                "so the team rehearses the outage together."));
    m_wholeFleet->setEnabled(false);
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->hide();

    //: "for": how long the rule stays armed (its for= option)
    const QList<std::pair<QString, QWidget *>> fields{{tr("kind"), m_kind}, {tr("value"), m_value},
                                                       {tr("upstream"), m_upstream}, {tr("route"), m_route},
                                                       {tr("model"), m_model}, {tr("fires for"), m_firing},
                                                       {QString(), m_firingValue}, {tr("for"), m_lifetime}};
    int column = 0;
    for (const auto &[name, widget] : fields) {
        if (!name.isEmpty())
            grid->addWidget(new QLabel(name), 0, column++);
        grid->addWidget(widget, 0, column++);
    }
    grid->addWidget(new QLabel(tr("rule")), 1, 0);
    grid->addWidget(m_text, 1, 1, 1, column - 3);
    grid->addWidget(m_wholeFleet, 1, column - 2);
    grid->addWidget(m_add, 1, column - 1);
    grid->addWidget(m_error, 2, 0, 1, column);
    grid->setColumnStretch(7, 1);   // the route and the model
    grid->setColumnStretch(9, 1);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &FaultsPanel::onKindChanged);
    connect(m_firing, &QComboBox::currentIndexChanged, this, [this] {
        m_firingValue->setEnabled(m_firing->currentIndex() > 0);
        m_firingValue->setPlaceholderText(m_firing->currentData().toString() == u"p"_s ? u"0-100"_s
                                          : m_firing->currentIndex() > 0 ? tr("calls") : QString());
        buildText();
    });
    connect(m_upstream, &QComboBox::currentIndexChanged, this, &FaultsPanel::buildText);
    for (QLineEdit *edit : {m_value, m_route, m_model, m_firingValue, m_lifetime})
        connect(edit, &QLineEdit::textEdited, this, &FaultsPanel::buildText);
    connect(m_text, &QLineEdit::textEdited, m_error, &QLabel::hide);
    connect(m_text, &QLineEdit::returnPressed, this, &FaultsPanel::addRule);
    connect(m_add, &QPushButton::clicked, this, &FaultsPanel::addRule);
    onKindChanged();
    return box;
}

void FaultsPanel::onKindChanged()
{
    const char *source = kKinds.value(m_kind->currentIndex()).valueHint;
    const QString hint = source ? tr(source) : QString();
    m_value->setEnabled(!hint.isEmpty());
    m_value->setPlaceholderText(hint.isEmpty() ? tr("no value") : hint);
    if (hint.isEmpty())
        m_value->clear();
    buildText();
}

void FaultsPanel::buildText()
{
    // The text form as FaultRule::parse reads it; what is wrong with it is the parser's to say.
    QString text = m_kind->currentText();
    if (m_value->isEnabled() && !m_value->text().trimmed().isEmpty())
        text += u'=' + m_value->text().trimmed();
    if (const QString upstream = m_upstream->currentData().toString(); !upstream.isEmpty())
        text += u":upstream="_s + upstream;
    if (const QString route = m_route->text().trimmed(); !route.isEmpty())
        text += u":route="_s + route;
    if (const QString model = m_model->text().trimmed(); !model.isEmpty())
        text += u":model="_s + model;
    if (const QString firing = m_firing->currentData().toString(); !firing.isEmpty())
        text += u':' + firing + u'=' + m_firingValue->text().trimmed();
    if (const QString lifetime = m_lifetime->text().trimmed(); !lifetime.isEmpty())
        text += u":for="_s + lifetime;
    m_text->setText(text);
    m_error->hide();
}

bool FaultsPanel::addRule()
{
    const Expected<FaultRule> rule = FaultRule::parse(m_text->text());
    if (!rule.ok()) {
        m_error->setText(rule.message().translated());
        m_error->show();
        return false;
    }
    m_error->hide();
    Q_EMIT armRequested(rule.value(), m_wholeFleet->isEnabled() && m_wholeFleet->isChecked());
    return true;
}

QString FaultsPanel::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

QPushButton *FaultsPanel::removeButton(int row) const
{
    return qobject_cast<QPushButton *>(m_table->cellWidget(row, Action));
}

QPushButton *FaultsPanel::presetButton(const QString &rule) const
{
    const auto it = std::find_if(m_presets.begin(), m_presets.end(), [&rule](const auto &p) { return p.second == rule; });
    return it == m_presets.end() ? nullptr : it->first;
}

void FaultsPanel::refresh(const ProxySnapshot &snapshot)
{
    m_rules = snapshot.faults;
    m_steadyMs = snapshot.steadyMs;
    m_wholeFleet->setEnabled(snapshot.sharedState == "shared");
    QStringList injected;
    for (auto it = snapshot.faultsInjected.begin(); it != snapshot.faultsInjected.end(); ++it)
        injected << u"%1 %2 × %3"_s.arg(QString::fromLatin1(it.key().first), QString::fromLatin1(it.key().second)).arg(it.value());
    m_injected->setText(injected.isEmpty() ? tr("No fault injected since start.")
                                           : tr("Injected since start: %1").arg(injected.join(u", "_s)));
    fillTable();
}

void FaultsPanel::fillTable()
{
    // Only when something shown changed: a snapshot comes four times a second.
    const auto secondsLeft = [this](const FaultRule &rule) {
        return (std::max<qint64>(rule.expiresAtMs - m_steadyMs, 0) + 999) / 1000;
    };
    QString key;
    for (const FaultRule &rule : std::as_const(m_rules))
        key += u"%1/%2/%3;"_s.arg(rule.id).arg(rule.fired).arg(rule.expiresAtMs > 0 ? secondsLeft(rule) : -1);
    if (key == m_shownKey && m_table->rowCount() == int(m_rules.size()))
        return;
    m_shownKey = key;
    m_clear->setEnabled(!m_rules.isEmpty());
    m_table->setRowCount(int(m_rules.size()));
    for (int row = 0; row < int(m_rules.size()); ++row) {
        const FaultRule &rule = m_rules[row];
        QStringList left;
        if (rule.count >= 0)
            left << tr("%1 calls").arg(rule.count - rule.fired);
        if (rule.expiresAtMs > 0)
            left << tr("%1 s", "seconds left").arg(secondsLeft(rule));
        const QStringList cells{rule.label(), QString::fromLatin1(rule.kindName()), scopeText(rule),
                                QString::number(rule.fired), left.isEmpty() ? tr("until removed") : left.join(u", "_s)};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            if (column == Rule)
                item->setForeground(dashboardstyle::injectedColor());
            m_table->setItem(row, column, item);
        }
        auto *remove = removeButton(row);
        if (!remove) {
            remove = new QPushButton(tr("Remove"));
            m_table->setCellWidget(row, Action, remove);
        }
        remove->disconnect(this);
        connect(remove, &QPushButton::clicked, this, [this, id = rule.id] { Q_EMIT disarmRequested(id); });
    }
}
