"""Helpers for reference programs: retries on transient failures, record lookups, and money in cents."""

TRANSIENT_STATUSES = (429, 503)
ATTEMPTS = 8


def retrying(call):
    """``call`` that retries a tool call answered with a transient status (rate limit, unavailable)."""

    def wrapped(tool, **arguments):
        attempt = 1
        while True:
            try:
                return call(tool, **arguments)
            except Exception as exc:
                status = getattr(getattr(exc, "response", None), "status", None)
                if status not in TRANSIENT_STATUSES or attempt >= ATTEMPTS:
                    raise
                attempt += 1

    return wrapped


def items(body):
    """The records of a list or search response."""
    return body["items"]


def named(records, key, value):
    """The record whose ``key`` equals ``value`` exactly (case-insensitive); near matches are skipped."""
    for record in records:
        if str(record.get(key, "")).lower() == value.lower():
            return record
    raise LookupError(f"no record with {key}={value!r}")


def cents(amount):
    """A currency amount as whole cents."""
    return round(float(amount) * 100)


def money(total_cents):
    """Cents as an amount with two decimals."""
    return f"{total_cents / 100:.2f}"


def id_number(identifier):
    """The numeric part of an identifier such as ``EXP-1042``, for ordering."""
    return int(identifier.rsplit("-", 1)[1])
