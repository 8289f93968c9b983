#include "requestpanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QRegularExpression>
#include <QVBoxLayout>

#include "accounting/callending.h"
#include "accounting/curlcommand.h"
#include "accounting/harexport.h"
#include "privatefiles.h"
#include "accounting/retrygroups.h"
#include "dashboardmodel.h"
#include "dashboardstyle.h"
#include "replaydialog.h"
#include "requestfilter.h"
#include "requesttablemodel.h"

using namespace Qt::StringLiterals;

namespace {

// The table's columns in the order they are given room: on a narrow table the last ones are
// hidden rather than cut or scrolled sideways (issue 27: "upstrea..." and a scroll bar at 1366
// px); every value stays in the details. Columns not listed (added later) come after the route.
const QList<int> kColumnsByNeed{RequestTableModel::Arrival, RequestTableModel::OutcomeColumn, RequestTableModel::Attempt,
                                RequestTableModel::Status, RequestTableModel::Ended, RequestTableModel::Upstream,
                                RequestTableModel::Model, RequestTableModel::Total, RequestTableModel::Route};
const QList<int> kColumnsLast{RequestTableModel::Cost, RequestTableModel::Tokens, RequestTableModel::Queue,
                              RequestTableModel::UpstreamTime, RequestTableModel::Injected, RequestTableModel::RequestId,
                              RequestTableModel::Key};
constexpr int kCellPadding = 10;   // the delegate's margins and the grid line

QString csvField(const QString &text)
{
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n'))
        return text;
    QString quoted = text;
    quoted.replace(u"\""_s, u"\"\""_s);
    return u'"' + quoted + u'"';
}

QString offset(qint64 atMs, qint64 originMs)
{
    return atMs > 0 ? u"+"_s + dashboardstyle::formatDuration(atMs - originMs) : u"–"_s;
}

// A block of recorded lines under a title, indented, or nothing when none were recorded.
QString block(const QString &title, const QByteArray &lines)
{
    if (lines.isEmpty())
        return {};
    QString text = u'\n' + title + u'\n';
    for (const QByteArray &line : lines.split('\n')) {
        if (!line.isEmpty())
            text += u"  "_s + QString::fromUtf8(line) + u'\n';
    }
    return text;
}

// What the record holds of the inside of the call: the key's inputs, the stream's events, the
// headers both ways and the upstream's error body (accounting/callinspection.h).
QString inside(const CallRecord &r)
{
    QString text = block(RequestPanel::tr("key inputs (what made the dedup key)"), r.keyInputs);
    if (!r.streamVerdict.isEmpty()) {
        //: The stream's verdict is the wire's word ("complete", "cut"); %2 the number of events
        QString stream = RequestPanel::tr("verdict: %1\nevents: %2\n").arg(QString::fromLatin1(r.streamVerdict)).arg(r.eventCount);
        stream += RequestPanel::tr("time to first token: %1\n")
                      .arg(r.firstTokenAtMs > 0 ? dashboardstyle::formatDuration(r.firstTokenAtMs - r.receivedAtMs)
                                                : RequestPanel::tr("no content came"));
        stream += RequestPanel::tr("largest gap between events: %1\n")
                      .arg(r.maxEventGapMs >= 0 ? dashboardstyle::formatDuration(r.maxEventGapMs) : u"–"_s);
        text += block(RequestPanel::tr("stream"), stream.toUtf8());
    }
    text += block(RequestPanel::tr("request headers"), r.requestHeaders);
    text += block(RequestPanel::tr("response headers"), r.responseHeaders);
    if (!r.errorBody.isEmpty())
        text += u'\n' + RequestPanel::tr("upstream error body") + u'\n' + QString::fromUtf8(r.errorBody) + u'\n';
    return text;
}

} // namespace

RequestPanel::RequestPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *filters = new QHBoxLayout;
    m_outcome = new QComboBox(this);
    m_outcome->addItem(tr("all outcomes"), QString());
    for (const Outcome outcome : {Outcome::Miss, Outcome::Joined, Outcome::Hit, Outcome::Bypass,
                                  Outcome::BreakerRefused, Outcome::SpendRefused, Outcome::Error, Outcome::FellBack})
        m_outcome->addItem(QString::fromLatin1(outcomeName(outcome)), QString::fromLatin1(outcomeName(outcome)));
    m_model = new QComboBox(this);
    m_model->addItem(tr("all models"), QString());
    m_member = new QComboBox(this);
    m_member->setObjectName(u"memberFilter"_s);
    m_member->addItem(tr("all members"), QString());
    m_member->hide();   // until a member's call arrives: without a team there is nobody to choose
    m_status = new QComboBox(this);
    m_status->addItem(tr("all statuses"), QString());
    for (const QString &statusClass : {u"2xx"_s, u"4xx"_s, u"5xx"_s})
        m_status->addItem(statusClass, statusClass);
    filters->addWidget(new QLabel(tr("Filter:"), this));
    filters->addWidget(m_outcome);
    filters->addWidget(m_model);
    filters->addWidget(m_member);
    filters->addWidget(m_status);
    m_failedOnly = new QCheckBox(tr("failed only"), this);
    m_failedOnly->setToolTip(tr("Only calls that were served but did not end well (upstream errors, timeouts, ...)"));
    filters->addWidget(m_failedOnly);
    filters->addStretch();
    layout->addLayout(filters);
    m_timeRange = new QWidget(this);
    auto *timeRange = new QHBoxLayout(m_timeRange);
    timeRange->setContentsMargins(0, 0, 0, 0);
    m_timeRangeText = new QLabel(m_timeRange);
    auto *clearTimeRange = new QPushButton(tr("clear"), m_timeRange);
    clearTimeRange->setToolTip(tr("Show the calls of every time again"));
    connect(clearTimeRange, &QPushButton::clicked, this, &RequestPanel::clearTimeRange);
    timeRange->addWidget(m_timeRangeText);
    timeRange->addWidget(clearTimeRange);
    timeRange->addStretch();
    m_timeRange->hide();
    layout->addWidget(m_timeRange);

    m_table = new RequestTableModel(this);
    m_filter = new RequestFilter(this);
    m_filter->setSourceModel(m_table);
    m_view = new QTableView(this);
    m_view->setModel(m_filter);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);   // several calls for a HAR export
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RequestTableModel::Arrival, Qt::DescendingOrder);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->verticalHeader()->hide();
    // Widths from the widest value each column can hold, not from the first rows ("ok" sized the
    // ended column before "upstream_error" came): the columns do not move as traffic runs.
    const QFontMetrics metrics = m_view->fontMetrics();
    m_columnWidths.fill(0, RequestTableModel::ColumnCount);
    const auto floor = [&](int column, const QString &widest) {
        m_columnWidths[column] = std::max(m_columnWidths[column], metrics.horizontalAdvance(widest) + kCellPadding);
    };
    floor(RequestTableModel::Arrival, dashboardstyle::formatClock(0).replace(QRegularExpression(u"\\d"_s), u"0"_s));
    for (int outcome = 0; outcome <= int(Outcome::Error); ++outcome)
        floor(RequestTableModel::OutcomeColumn, QString::fromLatin1(outcomeName(Outcome(outcome))));
    floor(RequestTableModel::OutcomeColumn, RequestTableModel::tr("injected"));
    for (int ending = 0; ending < kEndingCount; ++ending)
        floor(RequestTableModel::Ended, QString::fromLatin1(endingName(Ending(ending))));
    floor(RequestTableModel::Status, u"000"_s);
    floor(RequestTableModel::Attempt, RequestTableModel::tr("%1 of %2").arg(u"00"_s, u"00"_s));
    floor(RequestTableModel::Total, u"000000"_s);
    m_view->viewport()->installEventFilter(this);
    // "2 of 3" beside the outcome, not past the right edge of a laptop's window.
    m_view->horizontalHeader()->moveSection(m_view->horizontalHeader()->visualIndex(RequestTableModel::Attempt),
                                            RequestTableModel::OutcomeColumn + 1);
    // Which upstream a fallback stood in for, beside the one that answered.
    m_view->horizontalHeader()->moveSection(m_view->horizontalHeader()->visualIndex(RequestTableModel::Fallback),
                                            m_view->horizontalHeader()->visualIndex(RequestTableModel::Upstream) + 1);
    m_view->setAlternatingRowColors(true);
    m_details = new QPlainTextEdit(this);
    m_details->setReadOnly(true);
    m_details->setFont(QFont(u"monospace"_s));
    m_details->setPlaceholderText(tr("Select a request to see its timings, key, outcome, tokens and cost."));

    m_copyCurl = new QPushButton(tr("Copy as curl"), this);
    m_copyCurl->setToolTip(tr("Copy the selected call as a curl command against Breakwater (credentials as variables)"));
    m_copyCurl->setEnabled(false);
    m_exportHar = new QPushButton(tr("Export HAR…"), this);
    m_exportHar->setToolTip(tr("Save the selected calls, or all shown, as HAR 1.2 for a browser's devtools"));
    m_replay = new QPushButton(tr("Replay…"), this);
    m_replay->setToolTip(tr("Send the selected call again, through Breakwater or to another URL, and compare the answers"));
    m_replay->setEnabled(false);
    m_exportHar->setEnabled(false);   // until there is a row to export
    auto *detailsPane = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(detailsPane);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_copyCurl);
    actions->addWidget(m_exportHar);
    actions->addWidget(m_replay);
    // What the last button did ("Copied as curl", "3 calls saved to x.har"): a click shows a result.
    m_actionNote = new QLabel(this);
    m_actionNote->setObjectName(u"actionNote"_s);
    actions->addWidget(m_actionNote);
    actions->addStretch();
    detailsLayout->addLayout(actions);
    detailsLayout->addWidget(m_details, 1);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(detailsPane);
    // Two thirds for the table: at 1366x768 that holds arrival to model; the details wrap.
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    const auto comboChanged = [](QComboBox *combo, auto apply) {
        connect(combo, &QComboBox::currentIndexChanged, combo, [combo, apply] { apply(combo->currentData().toString()); });
    };
    comboChanged(m_outcome, [this](const QString &value) { m_filter->setOutcome(value); });
    comboChanged(m_model, [this](const QString &value) { m_filter->setModel(value); });
    comboChanged(m_member, [this](const QString &value) { m_filter->setMember(value); });
    comboChanged(m_status, [this](const QString &value) { m_filter->setStatus(value); });
    connect(m_failedOnly, &QCheckBox::toggled, m_filter, &RequestFilter::setFailedOnly);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RequestPanel::onSelectionChanged);
    // Clear resets the table, and a reset drops the selection without a selectionChanged: the
    // details of a call that is gone, and the buttons acting on it, must go too.
    connect(m_filter, &QAbstractItemModel::modelReset, this, &RequestPanel::onSelectionChanged);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &RequestPanel::onSelectionChanged);
    connect(m_view, &QWidget::customContextMenuRequested, this, &RequestPanel::showContextMenu);
    connect(m_copyCurl, &QPushButton::clicked, this, &RequestPanel::copyAsCurl);
    connect(m_exportHar, &QPushButton::clicked, this, &RequestPanel::chooseExportHar);
    connect(m_replay, &QPushButton::clicked, this, &RequestPanel::openReplay);
}

void RequestPanel::refresh(const DashboardModel &model)
{
    // New rows arrive on top: the selected row would slide down under the pointer (a click aimed
    // at it selects a neighbour). It is kept where it is on screen instead, by scrolling as many
    // rows as arrived above it; without a selection the newest stay in view.
    const QPersistentModelIndex anchor = detailsRow() >= 0 ? QPersistentModelIndex(m_view->selectionModel()->currentIndex())
                                                           : QPersistentModelIndex();
    const int anchorRowBefore = anchor.isValid() ? anchor.row() : -1;
    const int fresh = m_table->syncFrom(model);
    if (anchorRowBefore >= 0 && anchor.isValid() && anchor.row() != anchorRowBefore) {
        QScrollBar *bar = m_view->verticalScrollBar();
        const int rowHeight = m_view->verticalHeader()->defaultSectionSize();
        const int moved = anchor.row() - anchorRowBefore;
        bar->setValue(bar->value() + (m_view->verticalScrollMode() == QAbstractItemView::ScrollPerItem ? moved : moved * rowHeight));
    }
    m_exportHar->setEnabled(m_filter->rowCount() > 0);
    if (fresh > 0)
        measureColumns(fresh);
    // New models and statuses become filter choices (the new rows are the first ones).
    for (int row = 0; row < fresh; ++row) {
        const CallRecord &record = m_table->recordAt(row);
        if (!record.model.isEmpty() && !m_modelsSeen.contains(record.model)) {
            m_modelsSeen.insert(record.model);
            addChoice(m_model, record.model);
        }
        if (!record.member.isEmpty() && !m_membersSeen.contains(record.member)) {
            m_membersSeen.insert(record.member);
            addChoice(m_member, record.member);
            m_member->show();
        }
        if (record.status > 0 && !m_statusesSeen.contains(record.status)) {
            m_statusesSeen.insert(record.status);
            addChoice(m_status, QString::number(record.status));
        }
    }
}

void RequestPanel::measureColumns(int rows)
{
    // Only the new rows (they are on top): a column grows to its widest value seen, never shrinks.
    const QFontMetrics metrics = m_view->fontMetrics();
    bool grew = false;
    for (int column = 0; column < m_table->columnCount(); ++column) {
        int widest = m_columnWidths.value(column);
        for (int row = 0; row < rows; ++row)
            widest = std::max(widest, metrics.horizontalAdvance(m_table->index(row, column).data().toString()) + kCellPadding);
        if (column >= m_columnWidths.size())
            m_columnWidths.resize(column + 1);
        grew |= widest > m_columnWidths[column];
        m_columnWidths[column] = widest;
    }
    if (grew)
        fitColumns();
}

void RequestPanel::fitColumns()
{
    QHeaderView *header = m_view->horizontalHeader();
    QList<int> order = kColumnsByNeed;
    for (int column = 0; column < m_table->columnCount(); ++column) {
        if (!order.contains(column) && !kColumnsLast.contains(column))
            order.append(column);
    }
    order += kColumnsLast;
    // As many as fit whole, in that order; a narrower one further down may still fit.
    int room = m_view->viewport()->width();
    for (const int column : order) {
        // Its title with the sort arrow (sectionSizeHint() says 0 for a hidden column).
        const QString title = m_table->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
        const int titleWidth = header->fontMetrics().horizontalAdvance(title)
            + 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header)
            + header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + 4;
        const int width = std::max({m_columnWidths.value(column), titleWidth, header->minimumSectionSize()});
        const bool fits = width <= room;
        if (header->isSectionHidden(column) == fits)
            header->setSectionHidden(column, !fits);
        if (!fits)
            continue;
        room -= width;
        if (header->sectionSize(column) != width)
            header->resizeSection(column, width);
    }
}

bool RequestPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

void RequestPanel::setTimeRange(qint64 fromMs, qint64 toMs)
{
    m_filter->setArrivalRange(fromMs, std::max(toMs, fromMs + 1));
    m_timeRangeText->setText(tr("Filtered to calls received %1–%2").arg(dashboardstyle::formatClock(fromMs, false),
                                                                      dashboardstyle::formatClock(toMs, false)));
    m_timeRange->show();
}

void RequestPanel::clearTimeRange()
{
    m_filter->setArrivalRange(0, 0);
    m_timeRangeText->clear();
    m_timeRange->hide();
}

QString RequestPanel::timeRangeText() const
{
    return m_timeRangeText->text();
}

void RequestPanel::addChoice(QComboBox *combo, const QString &value)
{
    combo->addItem(value, value);
}

int RequestPanel::rowCount() const
{
    return m_filter->rowCount();
}

int RequestPanel::totalRowCount() const
{
    return m_table->rowCount();
}

void RequestPanel::setOutcomeFilter(const QString &outcome)
{
    m_outcome->setCurrentIndex(std::max(0, m_outcome->findData(outcome)));
}

void RequestPanel::setModelFilter(const QString &model)
{
    m_model->setCurrentIndex(std::max(0, m_model->findData(model)));
}

void RequestPanel::setMemberFilter(const QString &member)
{
    m_member->setCurrentIndex(std::max(0, m_member->findData(member)));
}

bool RequestPanel::offersMemberFilter() const
{
    return !m_membersSeen.isEmpty();
}

void RequestPanel::setStatusFilter(const QString &status)
{
    m_status->setCurrentIndex(std::max(0, m_status->findData(status)));
}

void RequestPanel::setFailedOnly(bool failedOnly)
{
    m_failedOnly->setChecked(failedOnly);
}

void RequestPanel::selectRow(int row)
{
    m_view->selectRow(row);
}

QString RequestPanel::detailsText() const
{
    return m_details->toPlainText();
}

void RequestPanel::onSelectionChanged()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    m_copyCurl->setEnabled(!rows.isEmpty());
    m_replay->setEnabled(!rows.isEmpty());
    m_exportHar->setEnabled(m_filter->rowCount() > 0);
    if (rows.isEmpty()) {
        m_details->clear();
        m_detailsId.clear();
        return;
    }
    const int shown = detailsRow();
    const QString text = describe(m_table->recordAt(shown), m_table->placeAt(shown));
    // The same call again (rows arrived, a retry joined its group): keep the reader's place.
    if (m_table->recordAt(shown).requestId == m_detailsId && text == m_details->toPlainText())
        return;
    const bool sameCall = m_table->recordAt(shown).requestId == m_detailsId;
    const int scrolled = m_details->verticalScrollBar()->value();
    m_detailsId = m_table->recordAt(shown).requestId;
    m_details->setPlainText(text);
    if (sameCall)
        m_details->verticalScrollBar()->setValue(scrolled);
}

int RequestPanel::detailsRow() const
{
    // With several rows selected, the one clicked last (the current one) is shown.
    const QItemSelectionModel *selection = m_view->selectionModel();
    const QModelIndexList rows = selection->selectedRows();
    if (rows.isEmpty())
        return -1;
    const QModelIndex current = selection->currentIndex();
    const QModelIndex shown = current.isValid() && selection->isRowSelected(current.row()) ? current : rows.first();
    return m_filter->mapToSource(shown).row();
}

QString RequestPanel::curlCommand() const
{
    const int row = detailsRow();
    return row < 0 ? QString() : CurlCommand::forRecord(m_table->recordAt(row), m_origin);
}

void RequestPanel::copyAsCurl()
{
    const QString command = curlCommand();
    if (command.isEmpty())
        return;
    QApplication::clipboard()->setText(command);
    m_actionNote->setText(tr("Copied as curl"));
    m_copyCurl->setToolTip(tr("Copied. Set the credential's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY) before running it."));
}

QList<CallRecord> RequestPanel::selectedOrShown() const
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        for (int row = 0; row < m_filter->rowCount(); ++row)
            rows.append(m_filter->index(row, 0));
    }
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QList<CallRecord> records;
    for (const QModelIndex &index : std::as_const(rows))
        records.append(m_table->recordAt(m_filter->mapToSource(index).row()));
    // Oldest first, as a HAR viewer lays calls out on a time line.
    std::stable_sort(records.begin(), records.end(),
                     [](const CallRecord &a, const CallRecord &b) { return a.receivedAtMs < b.receivedAtMs; });
    return records;
}

bool RequestPanel::exportHar(const QString &path, QString *error) const
{
    // 0600 like the call log: it holds the same headers, key inputs and (with --log-bodies) bodies.
    const QList<CallRecord> calls = selectedOrShown();
    const Result written = writePrivateFile(path, HarExport::toJson(calls, m_origin));
    if (!written.ok())
        *error = written.error();
    else
        m_actionNote->setText(tr("%1 saved to %2").arg(dashboardstyle::countOf(calls.size(), tr("call"), tr("calls")),
                                                      QFileInfo(path).fileName()));
    return written.ok();
}

QString RequestPanel::harFileName()
{
    return u"breakwater-requests-%1.har"_s.arg(QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss"_s));
}

void RequestPanel::chooseExportHar()
{
    // The title says what will be saved: the selection, else every call shown.
    const bool selected = !m_view->selectionModel()->selectedRows().isEmpty();
    const qsizetype calls = selectedOrShown().size();
    const QString title = selected ? tr("Export the %1 selected as HAR").arg(dashboardstyle::countOf(calls, tr("call"), tr("calls")))
                                   : tr("Export all %1 shown as HAR").arg(dashboardstyle::countOf(calls, tr("call"), tr("calls")));
    const QString path = QFileDialog::getSaveFileName(this, title, harFileName(), tr("HAR files (*.har)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportHar(path, &error))
        QMessageBox::warning(this, tr("Export HAR"), tr("The calls were not saved: %1.").arg(error));
}

ReplayDialog *RequestPanel::openReplay()
{
    const int row = detailsRow();
    if (row < 0)
        return nullptr;
    auto *dialog = new ReplayDialog(m_table->recordAt(row), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setBreakwaterOrigin(m_origin);
    dialog->setUpstreamUrls(m_upstreamUrls);
    dialog->setCaFile(m_caFile);
    dialog->show();
    return dialog;
}

void RequestPanel::showContextMenu(const QPoint &at)
{
    QMenu menu(this);
    QAction *curl = menu.addAction(tr("Copy as curl"), this, &RequestPanel::copyAsCurl);
    curl->setEnabled(m_view->selectionModel()->hasSelection());
    QAction *replay = menu.addAction(tr("Replay…"), this, &RequestPanel::openReplay);
    replay->setEnabled(m_view->selectionModel()->hasSelection());
    menu.addAction(tr("Export HAR…"), this, &RequestPanel::chooseExportHar);
    menu.exec(m_view->viewport()->mapToGlobal(at));
}

QString RequestPanel::describe(const CallRecord &record)
{
    return describe(record, RetryPlace{});
}

QString RequestPanel::describe(const CallRecord &r, const RetryPlace &place)
{
    // -> QString: with QStringBuilder an auto return would dangle on the temporaries.
    const auto field = [](const QString &name, const QString &value) -> QString {
        return name.leftJustified(22) + value + u'\n';
    };
    const auto count = [](qint64 n) -> QString { return n < 0 ? tr("unknown") : QString::number(n); };
    QString text;
    text += field(tr("request id"), QString::fromLatin1(r.requestId));
    text += field(tr("outcome"), QString::fromLatin1(outcomeName(r.outcome)));
    text += field(tr("ended"), QString::fromLatin1(endingName(endingOf(r))));
    text += field(tr("status"), QString::number(r.status) +
                  (r.errorKind.isEmpty() ? QString() : u"  ("_s + QString::fromLatin1(r.errorKind) + u')'));
    text += field(tr("route"), QString::fromLatin1(r.route) + u" → "_s + QString::fromLatin1(r.upstream));
    if (!r.fallbackFrom.isEmpty())
        text += field(tr("fallback"), tr("from %1 (it refused the call; its fallback %2 answered)")
                                          .arg(QString::fromUtf8(r.fallbackFrom), QString::fromUtf8(r.upstream)));
    if (!r.fallbackTo.isEmpty()) {
        //: %1 the upstream's refusal ("529", "upstream_unreachable"), %2 the upstream, %3 its fallback
        text += field(tr("fallback"), tr("%1 from %2 → answered by its fallback %3 (the row with this request id)")
                                          .arg(r.errorKind.isEmpty() ? QString::number(r.status)
                                                                     : QString::fromLatin1(r.errorKind),
                                               QString::fromUtf8(r.upstream), QString::fromUtf8(r.fallbackTo)));
    }
    text += field(tr("model"), r.model + (r.stream ? u"  "_s + tr("(stream)") : QString()));
    text += field(tr("client"), r.clientAddress);
    text += field(tr("key fingerprint"), QString::fromLatin1(r.keyFingerprint));
    text += field(tr("credential"), r.credentialFingerprint.isEmpty()
                      ? tr("none")
                      : tr("fingerprint %1 (never the credential)").arg(QString::fromLatin1(r.credentialFingerprint)));
    text += field(tr("breaker at admission"), QString::fromLatin1(r.breakerState));
    if (!r.injected.isEmpty())
        text += field(tr("injected"), r.injected + u"  "_s + tr("(fault injected by Breakwater, not the provider's)"));
    if (const QString attempt = RequestTableModel::attemptText(r, place); !attempt.isEmpty())
        text += field(tr("attempt"), attempt + (r.retryAttempt >= 0 ? u"  "_s + tr("(X-Stainless-Retry-Count %1)").arg(r.retryAttempt)
                                                                   : QString()));
    text += inside(r);
    text += u'\n' + tr("timings") + u'\n';
    text += field(u"  "_s + tr("arrived"), dashboardstyle::formatClock(r.receivedAtMs));
    text += field(u"  "_s + tr("queue wait"), dashboardstyle::formatDuration(std::max<qint64>(r.queueWaitMs, 0)));
    text += field(u"  "_s + tr("upstream start"), offset(r.upstreamStartAtMs, r.receivedAtMs));
    text += field(u"  "_s + tr("first byte"), offset(r.firstByteAtMs, r.receivedAtMs));
    text += field(u"  "_s + tr("last byte"), offset(r.endAtMs, r.receivedAtMs));
    text += field(u"  "_s + tr("total"), dashboardstyle::formatDuration(r.totalMs()));
    text += u"\n"_s;
    text += field(tr("tokens"), tr("in %1, out %2, cached %3").arg(count(r.inputTokens), count(r.outputTokens),
                                                               count(r.cachedTokens)));
    text += field(tr("cost"), dashboardstyle::formatUsd(r.costUsd, r.costUsd >= 0));
    text += field(tr("cost saved"), dashboardstyle::formatUsd(r.costSavedUsd));
    if (r.requestBody.isEmpty() && r.responseBody.isEmpty()) {
        text += field(tr("bodies"), tr("not logged"));
    } else {
        text += u'\n' + tr("request body") + u'\n' + QString::fromUtf8(r.requestBody.left(64 * 1024)) + u'\n';
        text += u'\n' + tr("response body") + u'\n' + QString::fromUtf8(r.responseBody.left(64 * 1024)) + u'\n';
    }
    return text;
}

QString RequestPanel::toCsv() const
{
    // Typed for a spreadsheet or a script, not a copy of the table's text: ISO 8601 times with the
    // date and UTC offset, plain numbers (cost without "$", milliseconds without units), one
    // column per token kind, and the error kind. Unknown values are empty fields.
    static const QStringList header{u"arrival"_s, u"outcome"_s, u"status"_s, u"error"_s, u"upstream"_s,
                                    u"model"_s, u"route"_s, u"stream"_s, u"total_ms"_s, u"queue_ms"_s,
                                    u"upstream_ms"_s, u"input_tokens"_s, u"output_tokens"_s,
                                    u"cached_tokens"_s, u"cost_usd"_s, u"cost_saved_usd"_s, u"injected"_s,
                                    u"key"_s, u"request_id"_s};
    const auto time = [](qint64 ms) {
        if (ms <= 0)
            return QString();
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(ms);
        return local.toOffsetFromUtc(local.offsetFromUtc()).toString(Qt::ISODateWithMs);   // ...+01:00
    };
    const auto count = [](qint64 n) { return n >= 0 ? QString::number(n) : QString(); };
    const auto usd = [](double value) {
        if (value < 0)
            return QString();
        QString text = QString::number(value, 'f', 10);   // a plain decimal, never 1e-06
        while (text.endsWith(u'0'))
            text.chop(1);
        if (text.endsWith(u'.'))
            text.chop(1);
        return text;
    };
    QString csv = header.join(u',') + u"\r\n"_s;
    for (int row = 0; row < m_filter->rowCount(); ++row) {
        const CallRecord &r = m_table->recordAt(m_filter->mapToSource(m_filter->index(row, 0)).row());
        const QStringList fields{time(r.receivedAtMs), QString::fromLatin1(outcomeName(r.outcome)),
                                 r.status > 0 ? QString::number(r.status) : QString(),
                                 QString::fromLatin1(r.errorKind), QString::fromLatin1(r.upstream), r.model,
                                 QString::fromLatin1(r.route), r.stream ? u"true"_s : u"false"_s,
                                 QString::number(r.totalMs()), count(r.queueWaitMs), count(RequestTableModel::upstreamMs(r)),
                                 count(r.inputTokens), count(r.outputTokens), count(r.cachedTokens),
                                 usd(r.costUsd), usd(r.costSavedUsd), r.injected, QString::fromLatin1(r.keyFingerprint),
                                 QString::fromLatin1(r.requestId)};
        QStringList quoted;
        for (const QString &field : fields)
            quoted.append(csvField(field));
        csv += quoted.join(u',') + u"\r\n"_s;
    }
    return csv;
}

bool RequestPanel::exportCsv(const QString &path, QString *error) const
{
    const Result written = writePrivateFile(path, toCsv().toUtf8());   // 0600, as the call log it comes from
    if (!written.ok())
        *error = written.error();
    return written.ok();
}

QString RequestPanel::actionNote() const
{
    return m_actionNote->text();
}
