#pragma once

#include <QSet>
#include <QWidget>

class DashboardModel;
class QCheckBox;
class QComboBox;
class QItemSelection;
class QPlainTextEdit;
class QTableView;
class RequestFilter;
class RequestTableModel;
struct CallRecord;

// The "Requests" tab: recent calls in a table, filterable by outcome, model and status; selecting a
// row shows everything the record holds (timings, key fingerprint, outcome, tokens, cost, and the
// bodies when the call log keeps them). Records never carry a credential, only its fingerprint.
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
    void setStatusFilter(const QString &status);
    void setFailedOnly(bool failedOnly);
    void selectRow(int row);
    QString detailsText() const;
    QString toCsv() const;           // the rows passing the filters, as shown
    bool exportCsv(const QString &path, QString *error) const;

    static QString describe(const CallRecord &record);

private:
    void onSelectionChanged();
    void addChoice(QComboBox *combo, const QString &value);

    RequestTableModel *m_table = nullptr;
    RequestFilter *m_filter = nullptr;
    QTableView *m_view = nullptr;
    QPlainTextEdit *m_details = nullptr;
    QComboBox *m_outcome = nullptr;
    QComboBox *m_model = nullptr;
    QComboBox *m_status = nullptr;
    QCheckBox *m_failedOnly = nullptr;
    QSet<QString> m_modelsSeen;
    QSet<int> m_statusesSeen;
};
