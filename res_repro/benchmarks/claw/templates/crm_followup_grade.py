"""Grader: the stale value and opportunities, the follow-up emails, and the reassignments."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bOPP-\d+\b"


def followup_checks(state, weight):
    """One check per stale opportunity: its primary contact got an email naming it."""
    followups = EXPECTED["followups"]
    return [
        check(
            f"email: follow-up on {opp_id} to {item['email']}",
            weight / len(followups),
            any(item["name"].lower() in message_text(m) for m in messages_to(state, item["email"])),
        )
        for opp_id, item in followups.items()
    ]


def owner_checks(opportunities, weight):
    """One check per open opportunity of the departing rep: it now belongs to the backup."""
    wanted = EXPECTED["backup"].lower()
    return [
        check(
            f"state: {opp_id} reassigned",
            weight / len(EXPECTED["reassigned"]),
            str(opportunities.get(opp_id, {}).get("owner", "")).lower() == wanted,
        )
        for opp_id in EXPECTED["reassigned"]
    ]


def no_side_effects(state, opportunities):
    """Other opportunities keep their owner and only stale opportunities' contacts get mail."""
    unchanged = all(opportunities.get(i, {}).get("owner") == o for i, o in EXPECTED["untouched"].items())
    recipients = [item["email"] for item in EXPECTED["followups"].values()]
    return check("no side effects", 1.0, unchanged and sent_only_to(state, recipients))


def grade(answer, audit, state):
    """Weighted checks for one CRM follow-up task."""
    opportunities = by_key(state, "crm", "opportunities", "opp_id")
    return [
        amount_check(answer, "STALE_VALUE", EXPECTED["stale_value"], 3.0),
        *id_list_checks(answer, "STALE_OPPS", ID_PATTERN, EXPECTED["stale"], 2.0),
        *followup_checks(state, 3.0),
        *owner_checks(opportunities, 2.0),
        no_side_effects(state, opportunities),
    ]
