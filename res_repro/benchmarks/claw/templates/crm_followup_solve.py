"""Reference program: hand a departing rep's open opportunities over and follow up on the stale ones."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

from datetime import date, timedelta

CLOSED_STAGES = ("closed won", "closed lost")


def follow_up(call, opportunity):
    """Email the opportunity's primary contact about it."""
    contact = call("get_contact", contact_id=opportunity["primary_contact_id"])
    call(
        "send_email",
        to=contact["email"],
        subject=f"Following up on {opportunity['name']}",
        body=(
            f"Hello {contact['name']},\n\nI am taking over {opportunity['name']} from {TARGET['rep']} "
            f"and would like to pick up where we left off.\n\nBest regards,\n{TARGET['backup']}"
        ),
    )


def solve(call):
    """Reassign the open opportunities, follow up on the stale ones, and report."""
    call = retrying(call)
    cutoff = date.fromisoformat(TARGET["today"]) - timedelta(days=TARGET["stale_days"])
    listed = items(call("list_opportunities", owner=TARGET["rep"]))
    stale, stale_value = [], 0
    for summary in listed:
        if summary["stage"].lower() in CLOSED_STAGES:
            continue
        opportunity = call("get_opportunity", opp_id=summary["opp_id"])
        if date.fromisoformat(opportunity["last_activity"]) < cutoff:
            follow_up(call, opportunity)
            stale.append(opportunity["opp_id"])
            stale_value += cents(opportunity["amount"])
        call("update_opportunity", opp_id=opportunity["opp_id"], owner=TARGET["backup"])
    return f"STALE_VALUE: {money(stale_value)}\nSTALE_OPPS: {', '.join(stale)}"
