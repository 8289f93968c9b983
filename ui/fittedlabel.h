#pragma once

#include <QLabel>
#include <QStringList>

// A one-line label that says as much as its width holds without cutting a word: its text is made
// of parts, each with shorter forms (the last may be empty: the part is left out); round by round
// the parts take their next form, in the order they give way, until the line fits. The tool tip always has the whole text. It never
// asks for more width than the shortest line needs, so a long text cannot widen the window, and
// what it shows is never elided ("last error" at the end of a laptop's strip, issue 27).
class FittedLabel final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FittedLabel)
public:
    struct Part
    {
        QStringList forms;   // longest first; an empty last form drops the part
        int yieldOrder = 0;  // lower gives way first; the part with the highest stays longest
    };

    explicit FittedLabel(QWidget *parent = nullptr);

    void setParts(const QList<Part> &parts, const QString &separator);
    void setWholeText(const QString &text);   // one part that cannot shrink
    QString wholeText() const { return m_whole; }
    // The line for `width` pixels: what fit() shows.
    QString lineFor(int width) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fit();
    static QString join(const QList<Part> &parts, const QList<int> &form, const QString &separator);

    QList<Part> m_parts;
    QString m_separator;
    QString m_whole;
};
