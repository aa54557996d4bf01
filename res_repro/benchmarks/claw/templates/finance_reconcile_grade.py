"""Grader: the outstanding amount and disputed invoices, the invoice statuses, and the vendor email."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bINV-\d+\b"


def status_checks(invoices, ids, status, weight):
    """One check per invoice that should now have ``status`` (sharing ``weight``)."""
    return [
        check(f"state: {i} is {status}", weight / len(ids), invoices.get(i, {}).get("status") == status)
        for i in ids
    ]


def no_side_effects(state, invoices):
    """Unpaid invoices stay open, other invoices keep their status, and no mail goes elsewhere."""
    kept = {**EXPECTED["untouched"], **dict.fromkeys(EXPECTED["open"], "open")}
    unchanged = all(invoices.get(i, {}).get("status") == status for i, status in kept.items())
    return check("no side effects", 1.0, unchanged and sent_only_to(state, [EXPECTED["billing_email"]]))


def grade(answer, audit, state):
    """Weighted checks for one reconciliation task."""
    invoices = by_key(state, "erp", "invoices", "invoice_id")
    emailed = any(
        mentions_all(message_text(m), EXPECTED["disputed"])
        for m in messages_to(state, EXPECTED["billing_email"])
    )
    return [
        amount_check(answer, "OUTSTANDING", EXPECTED["outstanding"], 3.0),
        *id_list_checks(answer, "DISPUTED", ID_PATTERN, EXPECTED["disputed"], 2.0),
        *status_checks(invoices, EXPECTED["disputed"], "disputed", 2.0),
        *status_checks(invoices, EXPECTED["paid"], "paid", 1.0),
        check("email: billing contact told every disputed invoice", 2.0, emailed),
        no_side_effects(state, invoices),
    ]
