"""Data rules stated in words by a service's ``*_list_policies`` tool, and their effect on listings.

Two kinds of rule are understood: records with a stated field value are to be ignored ("records with
status 'superseded' ... ignore them"), and of several versions of one record only the one with the
highest value of a field counts ("one record (same claim_id) in several revisions: only the highest
revision is current").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

POLICY_TOOL_SUFFIX = "_list_policies"
# "... with status 'superseded' ...", "... whose state is "void" ...", "... where flag = `x` ..."
CONDITION = re.compile(
    r"\b(?:with|whose|where|having)\s+(?:an?\s+|the\s+)?[`'\"]?(\w+)[`'\"]?\s*(?:is\s+|=\s*|of\s+|:\s*)?"
    r"[`'\"]([^`'\"]+)[`'\"]",
    re.IGNORECASE,
)
EXCLUDE = re.compile(r"\b(ignore|exclude|skip|disregard|do not (?:count|use|include))\b", re.IGNORECASE)
SAME = re.compile(r"\bsame\s+[`'\"]?(\w+)", re.IGNORECASE)
HIGHEST = re.compile(r"\b(?:highest|latest|newest)\s+[`'\"]?(\w+)", re.IGNORECASE)
SENTENCE = re.compile(r"[^.;\n]+(?:[.;\n]|$)")


class Rule(Protocol):
    """A rule that narrows a listing."""

    def apply(self, records: list[Any]) -> list[Any]:
        """The records that count under the rule."""
        ...


@dataclass(frozen=True)
class ExclusionRule:
    """Records whose ``field`` equals ``value`` (case-insensitive) do not count."""

    field: str
    value: str

    def apply(self, records: list[Any]) -> list[Any]:
        """Drop the excluded records."""
        return [r for r in records if not self.excludes(r)]

    def excludes(self, record: Any) -> bool:
        """True when ``record`` is one this rule sets aside."""
        return isinstance(record, dict) and str(record.get(self.field, "")).lower() == self.value.lower()


@dataclass(frozen=True)
class LatestRule:
    """Of the records sharing ``key``, only the one with the highest ``order`` counts."""

    key: str
    order: str

    def apply(self, records: list[Any]) -> list[Any]:
        """Keep the highest version of each record, where the first version stood."""
        best: dict[Any, Any] = {}
        for record in records:
            if isinstance(record, dict) and self.key in record:
                held = best.get(record[self.key])
                if held is None or _number(record.get(self.order)) > _number(held.get(self.order)):
                    best[record[self.key]] = record
        kept, seen = [], set()
        for record in records:
            if not isinstance(record, dict) or self.key not in record:
                kept.append(record)
            elif record[self.key] not in seen:
                seen.add(record[self.key])
                kept.append(best[record[self.key]])
        return kept


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("-inf")


def _texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def rules_in(sentence: str) -> list[Rule]:
    """The rules one sentence states."""
    same, highest = SAME.search(sentence), HIGHEST.search(sentence)
    if same and highest:
        return [LatestRule(same.group(1), highest.group(1))]
    if EXCLUDE.search(sentence):
        return [ExclusionRule(field, value) for field, value in CONDITION.findall(sentence)]
    return []


def parse_rules(body: Any) -> list[Rule]:
    """The rules stated anywhere in a policy listing, in order, without repeats."""
    rules: list[Rule] = []
    for text in _texts(body):
        for sentence in SENTENCE.findall(text):
            rules.extend(rule for rule in rules_in(sentence) if rule not in rules)
    return rules


def apply_rules(body: Any, rules: list[Rule]) -> Any:
    """``body`` with each rule applied to its lists (and ``count`` kept in step)."""
    if not rules or not isinstance(body, dict):
        return body
    kept = dict(body)
    for key, value in body.items():
        if isinstance(value, list):
            for rule in rules:
                value = rule.apply(value)
            kept[key] = value
    if isinstance(body.get("count"), int) and isinstance(kept.get("items"), list):
        kept["count"] = len(kept["items"])
    return kept
