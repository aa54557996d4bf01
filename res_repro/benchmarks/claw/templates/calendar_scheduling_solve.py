"""Reference program: book the earliest common free slot and find the organizer's double-bookings."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

DAY_START, DAY_END, STEP = 9 * 60, 17 * 60, 30


def minutes(text):
    """HH:MM as minutes after midnight."""
    hours, mins = text.split(":")
    return int(hours) * 60 + int(mins)


def clock(total):
    """Minutes after midnight as HH:MM."""
    return f"{total // 60:02d}:{total % 60:02d}"


def overlaps(a, b):
    """True when two (start, end) spans share time."""
    return a[0] < b[1] and b[0] < a[1]


def confirmed_spans(call, email):
    """(event_id, (start, end)) for each confirmed event in a calendar on the target date."""
    spans = []
    for summary in items(call("list_events", calendar=email, date=TARGET["date"])):
        event = call("get_event", event_id=summary["event_id"])
        if event["status"] == "confirmed":
            spans.append((event["event_id"], (minutes(event["start"]), minutes(event["end"]))))
    return spans


def solve(call):
    """Find the slot, book it, and report it with the organizer's double-booked events."""
    call = retrying(call)
    names = [TARGET["organizer"], *TARGET["attendees"]]
    emails = [named(items(call("find_person", query=name)), "name", name)["email"] for name in names]
    calendars = [confirmed_spans(call, email) for email in emails]
    busy = [span for spans in calendars for _, span in spans]
    duration = TARGET["duration"]
    start = next(
        s
        for s in range(DAY_START, DAY_END - duration + 1, STEP)
        if not any(overlaps((s, s + duration), span) for span in busy)
    )
    call(
        "create_event",
        calendar=emails[0],
        date=TARGET["date"],
        start=clock(start),
        end=clock(start + duration),
        title=TARGET["title"],
        attendees=emails[1:],
    )
    organizer = calendars[0]
    double = [i for i, span in organizer if any(overlaps(span, s) for j, s in organizer if j != i)]
    return f"SLOT: {clock(start)}-{clock(start + duration)}\nDOUBLE_BOOKED: {', '.join(double)}"
