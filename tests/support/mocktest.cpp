#include "mocktest.h"

#include <QTest>

using namespace Qt::StringLiterals;

MockTest::MockTest(QObject *parent) : QObject(parent) { }

MockTest::~MockTest() = default;

LoopbackResponse MockTest::post(const QByteArray &path, const QByteArray &body, const HeaderList &headers) const
{
    return fetch(port(), "POST", path, headers, body);
}

LoopbackResponse MockTest::get(const QByteArray &path, const HeaderList &headers) const
{
    return fetch(port(), "GET", path, headers);
}

void MockTest::init()
{
    m_mock = std::make_unique<ServiceThread<MockProvider>>(u"mock"_s, [] { return new MockProvider; });
    QVERIFY(mock()->isListening());
}

void MockTest::cleanup()
{
    m_mock.reset();
}
