"""Reference program: audit an employee's claims of one month against policy and for duplicates."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821


def breaks_policy(claim, policy, seen):
    """True when the claim is over its limit, lacks a required receipt, or repeats an earlier claim."""
    amount = cents(claim["amount"])
    key = (claim["merchant"].lower(), claim["date"], amount)
    broken = (
        amount > cents(policy["per_claim_limit"])
        or (not claim["receipt"] and amount > cents(policy["receipt_required_over"]))
        or key in seen
    )
    seen.add(key)
    return broken


def solve(call):
    """Audit the claims, set their statuses, tell the manager, and report."""
    call = retrying(call)
    found = items(call("find_employee", query=TARGET["employee"]))
    employee = call("get_employee", person_id=named(found, "name", TARGET["employee"])["person_id"])
    manager = call("get_employee", person_id=employee["manager_id"])
    listed = items(call("list_claims", employee_id=employee["person_id"], month=TARGET["month"]))
    ids = sorted((c["claim_id"] for c in listed if c["status"] == "submitted"), key=id_number)
    policies, seen, flagged, approved_total = {}, set(), [], 0
    for claim_id in ids:
        claim = call("get_claim", claim_id=claim_id)
        category = claim["category"]
        if category not in policies:
            policies[category] = call("get_policy", category=category)
        if breaks_policy(claim, policies[category], seen):
            call("update_claim", claim_id=claim_id, status="flagged")
            flagged.append(claim_id)
        else:
            call("update_claim", claim_id=claim_id, status="approved")
            approved_total += cents(claim["amount"])
    call(
        "send_email",
        to=manager["email"],
        subject=f"Flagged expense claims of {TARGET['employee']} for {TARGET['month']}",
        body="These claims break the expense policy and were flagged: " + ", ".join(flagged) + ".",
    )
    return f"APPROVED_TOTAL: {money(approved_total)}\nFLAGGED: {', '.join(flagged)}"
