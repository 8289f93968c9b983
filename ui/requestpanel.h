#pragma once

#include <QHash>
#include <QSet>
#include <QWidget>

class DashboardModel;
class QCheckBox;
class QComboBox;
class QItemSelection;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class ReplayDialog;
class QTableView;
class RequestFilter;
class RequestTableModel;
struct CallRecord;
struct RetryPlace;

// The "Requests" tab: recent calls in a table, filterable by outcome, model and status; selecting a
// row shows everything the record holds (timings, key fingerprint and what made the key, outcome,
// retry attempt, tokens, cost, the headers both ways, a stream's events and verdict, a failed call's
// error body, and the bodies when the call log keeps them). Records never carry a credential, only
// its fingerprint. A call can be copied as a curl command, and the selected calls (or all shown)
// exported as HAR 1.2, both at Breakwater's own address (setOrigin), and a call replayed and its
// answers compared (Replay…, ui/replaydialog.h).
class RequestPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RequestPanel)
public:
    explicit RequestPanel(QWidget *parent = nullptr);

    void refresh(const DashboardModel &model);
    int rowCount() const;            // rows passing the filters
    int totalRowCount() const;       // rows held
    void setOutcomeFilter(const QString &outcome);
    void setModelFilter(const QString &model);
    // The member choice appears once a call of a team's member is in the table.
    void setMemberFilter(const QString &member);
    bool offersMemberFilter() const;
    void setStatusFilter(const QString &status);
    void setFailedOnly(bool failedOnly);
    // Only calls received in [fromMs, toMs] (a breaker band clicked), with a "filtered to
    // HH:MM:SS–HH:MM:SS [clear]" line above the table; clearTimeRange() shows every call again.
    void setTimeRange(qint64 fromMs, qint64 toMs);
    void clearTimeRange();
    QString timeRangeText() const;   // the indicator's text; empty when not filtered by time
    void selectRow(int row);
    QString detailsText() const;
    QString actionNote() const;   // what the last Copy as curl or Export HAR did
    QString toCsv() const;           // the rows passing the filters, as shown
    bool exportCsv(const QString &path, QString *error) const;

    // Breakwater's own address, "http://127.0.0.1:8080", for curl commands and HAR URLs.
    void setOrigin(const QString &origin) { m_origin = origin; }
    // The selected call as a curl command (accounting/curlcommand.h); empty without a selection.
    QString curlCommand() const;
    void copyAsCurl();   // onto the clipboard, and says so in the details' tool tip
    // The selected rows, else every row passing the filters, as shown.
    QList<CallRecord> selectedOrShown() const;
    bool exportHar(const QString &path, QString *error) const;
    void chooseExportHar();
    static QString harFileName();   // breakwater-requests-YYYYMMDD-HHMMSS.har
    // The configured upstream's base URL by name ("openai", "anthropic"), offered by Replay….
    void setUpstreamUrl(const QString &upstream, const QString &url) { m_upstreamUrls.insert(upstream, url); }
    void setCaFile(const QString &path) { m_caFile = path; }   // --ca-file, for replays
    // "Replay…": a dialog (ui/replaydialog.h) for the selected call, shown and deleted on close;
    // nullptr without a selection.
    ReplayDialog *openReplay();

    static QString describe(const CallRecord &record);
    static QString describe(const CallRecord &record, const RetryPlace &place);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onSelectionChanged();
    void measureColumns(int rows);   // the newest `rows` rows' values widen their columns
    void fitColumns();   // the columns that fit the table's width, by need; the others hidden
    void addChoice(QComboBox *combo, const QString &value);
    void showContextMenu(const QPoint &at);
    int detailsRow() const;   // the table row whose details are shown, -1 for none

    RequestTableModel *m_table = nullptr;
    RequestFilter *m_filter = nullptr;
    QTableView *m_view = nullptr;
    QPlainTextEdit *m_details = nullptr;
    QComboBox *m_outcome = nullptr;
    QComboBox *m_model = nullptr;
    QComboBox *m_member = nullptr;
    QComboBox *m_status = nullptr;
    QCheckBox *m_failedOnly = nullptr;
    QPushButton *m_copyCurl = nullptr;
    QPushButton *m_exportHar = nullptr;
    QPushButton *m_replay = nullptr;
    QLabel *m_actionNote = nullptr;   // mutable through a const export: it only reports
    QHash<QString, QString> m_upstreamUrls;
    QString m_caFile;
    QWidget *m_timeRange = nullptr;   // the indicator and its clear button, shown while filtered
    QLabel *m_timeRangeText = nullptr;
    QString m_origin = QStringLiteral("http://127.0.0.1:8080");
    QByteArray m_detailsId;   // the call whose details are shown (its text is kept while it stays)
    QSet<QString> m_modelsSeen;
    QSet<QString> m_membersSeen;
    QSet<int> m_statusesSeen;
    QList<int> m_columnWidths;   // by column: the widest value it can hold or has held
};
