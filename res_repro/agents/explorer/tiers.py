"""The explorer's tiers: how many turns each may spend and which recovery skills it has."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Skill(StrEnum):
    """One way of coping with an environment that no longer matches the plan."""

    RETRY = "retry"  # wait out a rate limit or outage (Retry-After) and repeat the call
    PAGINATE = "paginate"  # follow next_cursor until every page is in
    FOLLOW_NEXT = "follow_next"  # make an error's `next` call and carry what it returns into a retry
    READ_HINTS = "read_hints"  # turn an error's `hint` into a call when it names a tool and arguments
    POLICIES = "policies"  # read the *_list_policies tools first and drop records their rules exclude
    POLL = "poll"  # poll an asynchronous job until it has finished, then fetch its result
    FOLLOW_LINKS = "follow_links"  # read what a record's links point to (a whole record, a party's entry)
    RESOLVE = "resolve"  # fetch record fields kept elsewhere (attachments) and decode encoded ones
    INVESTIGATE = "investigate"  # shell: after a failed step, look around, read notes, run what they say
    ORIENT = "orient"  # shell: tidy the workspace before running the plan, as after a failure
    RESTORE = "restore"  # shell: put files back as notes describe (decode, join, pick, ...), unpack archives


@dataclass(frozen=True)
class Tier:
    """A budget of turns (one tool call each) and a set of skills."""

    name: str
    budget: int
    skills: frozenset[Skill]
    recoveries_per_call: int = 0  # how many times one failing call (or shell step) is repaired and retried

    def has(self, skill: Skill) -> bool:
        """True when the tier has ``skill``."""
        return skill in self.skills


BASIC = Tier("explorer-basic", budget=20, skills=frozenset())
STANDARD = Tier(
    "explorer-standard",
    budget=40,
    skills=frozenset(
        {
            Skill.RETRY,
            Skill.PAGINATE,
            Skill.FOLLOW_NEXT,
            Skill.READ_HINTS,
            Skill.FOLLOW_LINKS,
            Skill.INVESTIGATE,
        }
    ),
    recoveries_per_call=4,
)
EXPERT = Tier("explorer-expert", budget=100, skills=frozenset(Skill), recoveries_per_call=8)
