"""Helpers for graders: reading labelled answer lines, comparing ids and amounts, reading the outbox."""

import re

NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
AMOUNT_TOLERANCE = 0.011


def check(name, weight, passed):
    """One weighted grader check."""
    return {"name": name, "weight": weight, "passed": bool(passed)}


def answer_field(answer, label):
    """The text after the last ``LABEL:`` starting a line (markdown emphasis tolerated), or None."""
    pattern = rf"^[ \t*_`#>-]*{re.escape(label)}[ \t*_`]*[:=](.*)$"
    found = re.findall(pattern, answer, re.IGNORECASE | re.MULTILINE)
    return found[-1].strip() if found else None


def first_number(text):
    """The first number in ``text`` (``1,234.50`` and ``1234.5`` both read as 1234.5), or None."""
    match = NUMBER.search(text or "")
    return float(match.group().replace(",", "")) if match else None


def amount_check(answer, label, expected, weight):
    """The labelled line states ``expected`` to the cent."""
    value = first_number(answer_field(answer, label))
    passed = value is not None and abs(value - expected) <= AMOUNT_TOLERANCE
    return check(f"answer: {label} is {expected:.2f}", weight, passed)


def count_check(answer, label, expected, weight):
    """The labelled line states the whole number ``expected``."""
    value = first_number(answer_field(answer, label))
    return check(f"answer: {label} is {expected}", weight, value == expected)


def listed_ids(answer, label, pattern):
    """Upper-cased ids matching ``pattern`` on the labelled line, or None when the line is absent."""
    field = answer_field(answer, label)
    if field is None:
        return None
    return [found.upper() for found in re.findall(pattern, field, re.IGNORECASE)]


def id_list_checks(answer, label, pattern, expected, weight):
    """One check per expected id on the labelled line (sharing ``weight``), and one for no extras."""
    listed = listed_ids(answer, label, pattern)
    found = set(listed or [])
    wanted = {item.upper() for item in expected}
    share = weight / len(expected)
    checks = [check(f"answer: {label} lists {item}", share, item.upper() in found) for item in expected]
    checks.append(check(f"answer: {label} lists nothing else", 1.0, listed is not None and found <= wanted))
    return checks


def records(state, service, collection):
    """A collection's records after the episode."""
    return state.get(service, {}).get(collection, [])


def by_key(state, service, collection, key):
    """A collection's records after the episode, by their ``key`` field."""
    return {str(record.get(key)): record for record in records(state, service, collection)}


def message_text(message):
    """A sent message's subject and body, lower-cased."""
    return f"{message.get('subject', '')}\n{message.get('body', '')}".lower()


def messages_to(state, address):
    """Messages in the mail outbox addressed to ``address``."""
    return [m for m in records(state, "mail", "outbox") if address.lower() in str(m.get("to", "")).lower()]


def mentions_all(text, needles):
    """True when every needle occurs in ``text`` (case-insensitive)."""
    return all(str(needle).lower() in text.lower() for needle in needles)


def sent_only_to(state, addresses):
    """True when every outbox message goes to one of ``addresses``."""
    allowed = [address.lower() for address in addresses]
    return all(
        any(address in str(m.get("to", "")).lower() for address in allowed)
        for m in records(state, "mail", "outbox")
    )
