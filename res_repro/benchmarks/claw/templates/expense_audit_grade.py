"""Grader: the approved total and flagged claims, the claim statuses, and the manager's email."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bEXP-\d+\b"


def status_checks(claims, ids, status, weight):
    """One check per claim that should now have ``status`` (sharing ``weight``)."""
    return [
        check(f"state: {i} is {status}", weight / len(ids), claims.get(i, {}).get("status") == status)
        for i in ids
    ]


def no_side_effects(state, claims):
    """Other claims keep their status and no mail goes to anyone but the manager."""
    unchanged = all(claims.get(i, {}).get("status") == s for i, s in EXPECTED["untouched"].items())
    return check("no side effects", 1.0, unchanged and sent_only_to(state, [EXPECTED["manager_email"]]))


def grade(answer, audit, state):
    """Weighted checks for one expense-audit task."""
    claims = by_key(state, "expenses", "claims", "claim_id")
    emailed = any(
        mentions_all(message_text(m), EXPECTED["flagged"])
        for m in messages_to(state, EXPECTED["manager_email"])
    )
    return [
        amount_check(answer, "APPROVED_TOTAL", EXPECTED["approved_total"], 3.0),
        *id_list_checks(answer, "FLAGGED", ID_PATTERN, EXPECTED["flagged"], 2.0),
        *status_checks(claims, EXPECTED["flagged"], "flagged", 2.0),
        *status_checks(claims, EXPECTED["approved"], "approved", 1.0),
        check("email: manager told every flagged claim", 2.0, emailed),
        no_side_effects(state, claims),
    ]
