"""Grader: the triage count and urgent tickets, each ticket's assignee and priority, nothing else touched."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bTCK-\d+\b"


def field_checks(tickets, key, weight):
    """One check per triaged ticket: its ``key`` (assignee or priority) has the expected value."""
    triage = EXPECTED["triage"]
    return [
        check(
            f"state: {ticket_id} {key} is {wanted[key]}",
            weight / len(triage),
            str(tickets.get(ticket_id, {}).get(key, "")).lower() == wanted[key].lower(),
        )
        for ticket_id, wanted in triage.items()
    ]


def no_side_effects(tickets):
    """Tickets outside the triage set keep their status, assignee and priority."""
    unchanged = all(
        all(tickets.get(ticket_id, {}).get(key) == value for key, value in fields.items())
        for ticket_id, fields in EXPECTED["untouched"].items()
    )
    return check("no side effects", 1.0, unchanged)


def grade(answer, audit, state):
    """Weighted checks for one triage task."""
    tickets = by_key(state, "helpdesk", "tickets", "ticket_id")
    return [
        count_check(answer, "TRIAGED", len(EXPECTED["triage"]), 3.0),
        *id_list_checks(answer, "URGENT", ID_PATTERN, EXPECTED["urgent"], 2.0),
        *field_checks(tickets, "assignee", 3.0),
        *field_checks(tickets, "priority", 2.0),
        no_side_effects(tickets),
    ]
