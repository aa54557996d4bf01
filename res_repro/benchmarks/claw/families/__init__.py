"""The claw task families, by name: each maps a seeded RNG and an index to one task draft."""

from __future__ import annotations

import random
from collections.abc import Callable

from res_repro.benchmarks.claw.families import (
    calendar_scheduling,
    crm_followup,
    expense_audit,
    finance_reconcile,
    helpdesk_triage,
    hr_onboarding,
    inventory_reorder,
)
from res_repro.benchmarks.generated import ToolTaskDraft

Generator = Callable[[random.Random, int], ToolTaskDraft]

FAMILIES: dict[str, Generator] = {
    finance_reconcile.FAMILY: finance_reconcile.generate,
    expense_audit.FAMILY: expense_audit.generate,
    crm_followup.FAMILY: crm_followup.generate,
    calendar_scheduling.FAMILY: calendar_scheduling.generate,
    helpdesk_triage.FAMILY: helpdesk_triage.generate,
    hr_onboarding.FAMILY: hr_onboarding.generate,
    inventory_reorder.FAMILY: inventory_reorder.generate,
}
