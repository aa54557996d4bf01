"""Grader: the headcount and hires, one correct IT request and one welcome email per hire."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bNH-\d+\b"


def same_items(listed, wanted):
    """True when two lists hold the same strings, ignoring order and case."""
    return sorted(str(x).lower() for x in listed or []) == sorted(x.lower() for x in wanted)


def request_checks(requests, weight):
    """One check per hire: exactly one IT request, with the role's kit and the department's accounts."""
    hires = EXPECTED["hires"]
    checks = []
    for hire_id, wanted in hires.items():
        filed = [r for r in requests if str(r.get("hire_id", "")).upper() == hire_id]
        passed = (
            len(filed) == 1
            and same_items(filed[0].get("hardware"), wanted["hardware"])
            and same_items(filed[0].get("accounts"), wanted["accounts"])
        )
        checks.append(check(f"state: IT request for {hire_id}", weight / len(hires), passed))
    return checks


def welcome_checks(state, weight):
    """One check per hire: a welcome email with the start date and the manager's name."""
    hires = EXPECTED["hires"]
    return [
        check(
            f"email: welcome to {hire_id}",
            weight / len(hires),
            any(
                mentions_all(message_text(m), [wanted["start_date"], wanted["manager_name"]])
                for m in messages_to(state, wanted["personal_email"])
            ),
        )
        for hire_id, wanted in hires.items()
    ]


def no_side_effects(state, requests):
    """Requests and emails only for the week's accepted hires."""
    hires = EXPECTED["hires"]
    only_hires = all(str(r.get("hire_id", "")).upper() in hires for r in requests)
    addresses = [wanted["personal_email"] for wanted in hires.values()]
    return check("no side effects", 1.0, only_hires and sent_only_to(state, addresses))


def grade(answer, audit, state):
    """Weighted checks for one onboarding task."""
    requests = records(state, "it", "requests")
    return [
        count_check(answer, "HEADCOUNT", len(EXPECTED["hires"]), 3.0),
        *id_list_checks(answer, "HIRES", ID_PATTERN, list(EXPECTED["hires"]), 2.0),
        *request_checks(requests, 3.0),
        *welcome_checks(state, 2.0),
        no_side_effects(state, requests),
    ]
