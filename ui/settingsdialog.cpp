#include "settingsdialog.h"

#include <initializer_list>
#include <utility>

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace {

QDoubleSpinBox *secondsBox(double minimum, QWidget *parent)
{
    auto *box = new QDoubleSpinBox(parent);
    box->setRange(minimum, 86400.0 * 365);
    box->setDecimals(1);
    box->setSuffix(u' ' + SettingsDialog::tr("s", "seconds"));
    return box;
}

QSpinBox *countBox(int minimum, int maximum, QWidget *parent, const QString &suffix = {})
{
    auto *box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    return box;
}

// Human names for the options, for the restart message.
QString optionLabel(const QString &option)
{
    static const QHash<QString, const char *> labels{
        {u"--listen"_s, QT_TRANSLATE_NOOP("SettingsDialog", "listen address")},
        {u"--upstream"_s, QT_TRANSLATE_NOOP("SettingsDialog", "OpenAI upstream")},
        {u"--anthropic-upstream"_s, QT_TRANSLATE_NOOP("SettingsDialog", "Anthropic upstream")},
        {u"--timeout"_s, QT_TRANSLATE_NOOP("SettingsDialog", "timeout")},
        {u"--concurrency"_s, QT_TRANSLATE_NOOP("SettingsDialog", "concurrency")},
        {u"--dedup-window"_s, QT_TRANSLATE_NOOP("SettingsDialog", "de-dup window")},
        {u"--cache-size"_s, QT_TRANSLATE_NOOP("SettingsDialog", "cache size")},
        {u"--breaker-failures"_s, QT_TRANSLATE_NOOP("SettingsDialog", "breaker failures")},
        {u"--breaker-cooldown"_s, QT_TRANSLATE_NOOP("SettingsDialog", "breaker cool-down")},
        {u"--max-spend"_s, QT_TRANSLATE_NOOP("SettingsDialog", "spend limit")}};
    const char *label = labels.value(option);
    return label ? SettingsDialog::tr(label) : option;
}

} // namespace

SettingsDialog::SettingsDialog(const AppSettings &values, const QStringList &overridden, bool demo, QWidget *parent)
    : QDialog(parent)
    , m_opened(values)
{
    setWindowTitle(tr("Breakwater settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_listen = new QLineEdit(this);
    m_listen->setPlaceholderText(u"127.0.0.1:8080"_s);
    m_openai = new QLineEdit(this);
    m_openai->setPlaceholderText(u"https://api.openai.com/v1"_s);
    m_anthropic = new QLineEdit(this);
    m_anthropic->setPlaceholderText(u"https://api.anthropic.com"_s);
    m_timeout = secondsBox(0.1, this);
    m_concurrency = countBox(1, 4096, this, u' ' + tr("calls per upstream"));
    m_dedupWindow = secondsBox(0, this);
    m_dedupWindow->setSpecialValueText(tr("0 s (only join calls in flight)"));
    m_cacheSize = countBox(0, 65536, this, u" MB"_s);
    m_breakerFailures = countBox(1, 1000, this, u' ' + tr("failures in a row"));
    m_breakerCooldown = secondsBox(0.1, this);
    m_maxSpend = new QDoubleSpinBox(this);
    m_maxSpend->setRange(0, 1'000'000);
    m_maxSpend->setDecimals(2);
    m_maxSpend->setPrefix(u"$"_s);
    m_maxSpend->setSuffix(u' ' + tr("per day"));
    m_maxSpend->setSpecialValueText(tr("no limit"));
    form->addRow(tr("Listen address"), m_listen);
    form->addRow(tr("OpenAI upstream"), m_openai);
    form->addRow(tr("Anthropic upstream"), m_anthropic);
    m_inUse = new QLabel(this);
    m_inUse->setObjectName(u"upstreamsInUse"_s);
    m_inUse->setWordWrap(true);
    m_inUse->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (demo)
        form->addRow(tr("In use now"), m_inUse);
    else
        m_inUse->hide();
    form->addRow(tr("Timeout (first byte, stream gaps)"), m_timeout);
    form->addRow(tr("Concurrency"), m_concurrency);
    form->addRow(tr("De-dup window"), m_dedupWindow);
    form->addRow(tr("Answer cache size"), m_cacheSize);
    form->addRow(tr("Breaker opens after"), m_breakerFailures);
    form->addRow(tr("Breaker cool-down"), m_breakerCooldown);
    form->addRow(tr("Spend limit"), m_maxSpend);
    layout->addLayout(form);
    for (const auto &[field, name] : std::initializer_list<std::pair<QWidget *, const char16_t *>>{
             {m_listen, u"listen"}, {m_openai, u"openaiUpstream"}, {m_anthropic, u"anthropicUpstream"},
             {m_timeout, u"timeout"}, {m_concurrency, u"concurrency"}, {m_dedupWindow, u"dedupWindow"},
             {m_cacheSize, u"cacheSize"}, {m_breakerFailures, u"breakerFailures"},
             {m_breakerCooldown, u"breakerCooldown"}, {m_maxSpend, u"maxSpend"}})
        field->setObjectName(QString::fromUtf16(name));   // tests find the fields by name
    m_startAtLogin = new QCheckBox(tr("Start Breakwater when I log in (in the tray)"), this);
    layout->addWidget(m_startAtLogin);

    QStringList notes;
    if (!overridden.isEmpty()) {
        notes << tr("Given on the command line this run (they win over saved values): %1.").arg(overridden.join(u", "_s));
    }
    if (demo)
        notes << tr("Demo mode: both upstreams are the built-in mock provider while it runs.");
    notes << tr("Applied to the running proxy at once when you press OK: timeout, concurrency, de-dup window, "
                "cache size, the breaker's failures and cool-down, and the spend limit. The listen address and "
                "the upstreams take effect after a restart. Starting at login applies at once.");
    m_note = new QLabel(notes.join(u'\n'), this);
    m_note->setObjectName(u"note"_s);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);

    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(u"color: #b00020;"_s);
    m_problems->hide();
    layout->addWidget(m_problems);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel
                                             | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            [this] { setValues(AppSettings::defaults()); });
    layout->addWidget(buttons);
    setValues(values);
}

AppSettings SettingsDialog::initialValues(const ProxyConfig &running, QSettings &settings, bool demo)
{
    AppSettings fallback = AppSettings::fromConfig(running);
    if (demo) {
        const AppSettings defaults = AppSettings::defaults();
        fallback.openaiUpstream = defaults.openaiUpstream;
        fallback.anthropicUpstream = defaults.anthropicUpstream;
    }
    return AppSettings::load(settings, fallback);
}

void SettingsDialog::saveChanges(QSettings &settings) const
{
    values().save(settings, changedOptions());
}

AppSettings SettingsDialog::values() const
{
    AppSettings s;
    s.listen = m_listen->text().trimmed();
    s.openaiUpstream = m_openai->text().trimmed();
    s.anthropicUpstream = m_anthropic->text().trimmed();
    s.timeoutSeconds = m_timeout->value();
    s.concurrency = m_concurrency->value();
    s.dedupWindowSeconds = m_dedupWindow->value();
    s.cacheSizeMb = m_cacheSize->value();
    s.breakerFailures = m_breakerFailures->value();
    s.breakerCooldownSeconds = m_breakerCooldown->value();
    s.maxSpendUsd = m_maxSpend->value();
    return s;
}

void SettingsDialog::setValues(const AppSettings &values)
{
    m_listen->setText(values.listen);
    m_openai->setText(values.openaiUpstream);
    m_anthropic->setText(values.anthropicUpstream);
    m_timeout->setValue(values.timeoutSeconds);
    m_concurrency->setValue(values.concurrency);
    m_dedupWindow->setValue(values.dedupWindowSeconds);
    m_cacheSize->setValue(values.cacheSizeMb);
    m_breakerFailures->setValue(values.breakerFailures);
    m_breakerCooldown->setValue(values.breakerCooldownSeconds);
    m_maxSpend->setValue(values.maxSpendUsd);
}

void SettingsDialog::setUpstreamsInUse(const QString &openai, const QString &anthropic)
{
    m_inUse->setText(tr("OpenAI %1, Anthropic %2: the demo's mock provider; the fields above apply when "
                        "Breakwater runs without --demo").arg(openai, anthropic));
}

QString SettingsDialog::upstreamsInUseText() const
{
    return m_inUse->text();
}

void SettingsDialog::setRemote(const QString &remote)
{
    //: %1 is the remote Breakwater's address, https://host:port
    setWindowTitle(tr("Settings of %1").arg(remote));
    m_remote = true;
    for (QLineEdit *field : {m_listen, m_openai, m_anthropic}) {
        field->setEnabled(false);
        field->setToolTip(tr("The remote's own: set where it runs (its command line or configuration file)"));
    }
    m_startAtLogin->setChecked(false);
    m_startAtLogin->hide();
    m_note->setText(tr("The live settings of the remote Breakwater at %1. OK sends the ones you changed to it "
                       "through its control API, with its owner's control token; a change lasts until the remote "
                       "restarts. Its listen address and upstreams are set where it runs.").arg(remote));
}

bool SettingsDialog::startAtLogin() const
{
    return m_startAtLogin->isChecked();
}

void SettingsDialog::setStartAtLogin(bool start)
{
    m_startAtLogin->setChecked(start);
}

QString SettingsDialog::startAtLoginMessage(bool start, const Result &changed)
{
    if (!changed.ok())
        return tr("Starting at login could not be changed: %1.").arg(changed.message().translated());
    return start ? tr("Breakwater will start in the tray when you log in.") : tr("Breakwater will no longer start when you log in.");
}

void SettingsDialog::accept()
{
    AppSettings checked = values();
    if (m_remote) {   // the remote's own address and upstreams are not this dialog's to check
        const AppSettings defaults = AppSettings::defaults();
        checked.listen = defaults.listen;
        checked.openaiUpstream = defaults.openaiUpstream;
        checked.anthropicUpstream = defaults.anthropicUpstream;
    }
    const QList<Message> problems = checked.validate();
    if (!problems.isEmpty()) {
        QStringList shown;
        for (const Message &problem : problems)
            shown << problem.translated();
        m_problems->setText(shown.join(u'\n'));
        m_problems->show();
        return;   // stay open until every value is valid
    }
    m_appliedLive = m_liveApply ? m_liveApply(values(), changedOptions()) : QStringList();
    QDialog::accept();
}

QString SettingsDialog::restartMessage(const AppSettings &saved, const AppSettings &running, const QStringList &overridden,
                                      const QStringList &appliedLive)
{
    QStringList changed;
    QStringList stillOverridden;
    QStringList appliedNow;
    for (const QString &option : saved.differences(running)) {
        if (appliedLive.contains(option))
            appliedNow << optionLabel(option);
        if (overridden.contains(option))
            stillOverridden << optionLabel(option) + u" ("_s + option + u')';
        else if (!appliedLive.contains(option))
            changed << optionLabel(option);
    }
    QString message = changed.isEmpty()
        ? (appliedNow.isEmpty() ? tr("Settings saved. Nothing the running proxy uses has changed.")
                                : tr("Settings saved."))
        : tr("Settings saved. Restart Breakwater to apply: %1. The running proxy keeps its current "
             "settings until then.").arg(changed.join(u", "_s));
    if (!appliedNow.isEmpty())
        message += u'\n' + tr("Applied to the running proxy now: %1.").arg(appliedNow.join(u", "_s));
    if (!stillOverridden.isEmpty())
        message += u'\n' + tr("Given on the command line, so they win over the saved values: %1.").arg(stillOverridden.join(u", "_s));
    return message;
}
