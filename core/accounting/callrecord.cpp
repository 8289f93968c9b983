#include "accounting/callrecord.h"

QByteArray outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Miss: return "miss";
    case Outcome::Joined: return "joined";
    case Outcome::Hit: return "hit";
    case Outcome::Bypass: return "bypass";
    case Outcome::BreakerRefused: return "breaker_refused";
    case Outcome::SpendRefused: return "spend_refused";
    case Outcome::Error: return "error";
    case Outcome::FellBack: return "fell_back";
    }
    return "error";
}
