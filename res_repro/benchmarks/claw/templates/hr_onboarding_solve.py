"""Reference program: IT requests and welcome emails for the accepted hires starting in one week."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821


def onboard(call, hire):
    """File the hire's IT request and send the welcome email."""
    kit = call("get_role_kit", role=hire["role"])
    department = call("get_department", department=hire["department"])
    manager = call("get_employee", employee_id=hire["manager_id"])
    call(
        "create_it_request",
        hire_id=hire["hire_id"],
        hardware=kit["hardware"],
        accounts=department["accounts"],
    )
    call(
        "send_email",
        to=hire["personal_email"],
        subject="Welcome aboard!",
        body=(
            f"Hi {hire['name']},\n\nWelcome to the team! Your start date is {hire['start_date']} and your "
            f"manager will be {manager['name']}. Your equipment and accounts are being prepared."
        ),
    )


def solve(call):
    """Onboard every accepted hire of the week and report."""
    call = retrying(call)
    listed = items(call("list_hires", status="accepted"))
    week = [h for h in listed if TARGET["week_start"] <= h["start_date"] <= TARGET["week_end"]]
    onboarded = []
    for summary in sorted(week, key=lambda h: h["hire_id"]):
        onboard(call, call("get_hire", hire_id=summary["hire_id"]))
        onboarded.append(summary["hire_id"])
    return f"HEADCOUNT: {len(onboarded)}\nHIRES: {', '.join(onboarded)}"
