"""Container restart analysis: read every ticket and every notes document, then diagnose each service.

Restart counts, probe settings and resource limits are parsed from the ticket text and the per-service
sections of the cluster configuration note; each ticket is classified by its failure signal (OOM kill,
crash loop, liveness timeout, readiness/traffic skew) and the remedy is derived from the parsed numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

SERVICE_RE = re.compile(r"([a-z]+(?:-[a-z]+)*-service)")
RESTART_SIGNALS = ("restart", "crashloopbackoff", "oomkilled", "probe")


def _fetch_tickets(call: Call) -> list[dict[str, Any]]:
    """Every ticket in full, whatever its status."""
    listed = call("helpdesk_list_tickets", status="all").get("tickets", [])
    return [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]


def _fetch_notes(call: Call) -> list[dict[str, Any]]:
    """Every notes document in full."""
    listed = call("notes_list_documents").get("notes", [])
    return [call("notes_get_document", note_id=n["note_id"]) for n in listed]


def _ticket_text(ticket: dict[str, Any]) -> str:
    parts = [ticket.get("subject", ""), ticket.get("description", "")]
    parts += [c.get("text", "") for c in ticket.get("comments") or []]
    return " ".join(parts)


def _service_sections(notes: list[dict[str, Any]]) -> dict[str, str]:
    """Configuration text per service, from '## <service>' sections of the notes."""
    sections: dict[str, str] = {}
    for note in notes:
        for chunk in note.get("content", "").split("## ")[1:]:
            match = SERVICE_RE.match(chunk.strip())
            if match:
                sections[match.group(1)] = sections.get(match.group(1), "") + chunk
    return sections


def _setting(section: str, label: str) -> str:
    """The value after '<label>:' (ASCII or full-width colon) in a config section, or ''."""
    match = re.search(re.escape(label) + r"\s*[:：]\s*([^\n-][^\n]*?)(?=\s*-\s|\n|$)", section)
    return match.group(1).strip() if match else ""


def _probe(section: str, kind: str) -> dict[str, str]:
    """Parsed liveness/readiness probe settings (timeout, initialDelaySeconds, failureThreshold)."""
    line = _setting(section, kind)
    return dict(re.findall(r"(\w+)=(\w+)", line))


def _restarts(text: str) -> tuple[str, str]:
    """(count, window) of restarts stated in a ticket, e.g. ('23', '48 hours')."""
    match = re.search(r"(\d+)\s*hours\s*restart\s*(\d+)\s*times", text)
    if match:
        return match.group(2), f"{match.group(1)} hours"
    match = re.search(r"restart\s*(\d+)\s*times", text)
    return (match.group(1), "") if match else ("", "")


def _pods(text: str) -> list[str]:
    """Pod names in a ticket, with the traffic share or per-pod restart count that follows each one."""
    pods = [
        f"{name} ({share} of traffic)" for name, share in re.findall(r"(pod-[a-z]+-\d{2})(\d{1,3}%)", text)
    ]
    for name, count in re.findall(r"(pod-[a-z]+-[0-9a-f]{4})(?:restart(\d+)times)?", text):
        if not any(name.startswith(pod.split()[0]) for pod in pods):
            pods.append(f"{name} ({count} restarts)" if count else name)
    return list(dict.fromkeys(pods))


def _restart_text(text: str) -> str:
    """Restart count as stated, or the number of affected pods when no count is given."""
    count, window = _restarts(text)
    if count:
        return f"{count} restarts" + (f" in {window}" if window else "")
    pods = re.search(r"(\d+)\s*Pods?", text)
    return f"not stated ({pods.group(1)} pods affected)" if pods else "not stated"


def _mb(value: str) -> int:
    """Megabytes in '512MB' / '1GB' / '512Mi'."""
    match = re.search(r"(\d+)\s*([MG])", value)
    if not match:
        return 0
    return int(match.group(1)) * (1024 if match.group(2) == "G" else 1)


def _incident_lines(notes: list[dict[str, Any]], service: str) -> list[str]:
    """Incident-record bullet lines that mention the service (or its dependencies)."""
    lines = []
    for note in notes:
        if "incident" not in " ".join(note.get("tags", [])) and "incident" not in note.get("title", ""):
            continue
        for bullet in re.split(r"\n|(?=\s-\s)", note.get("content", "")):
            if service in bullet:
                lines.append(bullet.strip(" -"))
    return lines


def _classify(text: str) -> str:
    """Failure signal of a restart ticket, checked in a fixed order."""
    lowered = text.lower()
    if "oomkilled" in lowered:
        return "oom"
    if "crashloopbackoff" in lowered:
        return "crashloop"
    if "liveness" in lowered or ("health" in lowered and "timeout" in lowered):
        return "liveness"
    if "readiness" in lowered or re.search(r"\d+%", text):
        return "readiness"
    return "other"


def _analyse_oom(service: str, text: str, cfg: str, incidents: list[str]) -> tuple[str, list[str]]:
    memory = _setting(cfg, "Memory Request/Limit")
    limit_mb = _mb(memory.split("/")[-1]) if memory else 0
    jvm = _setting(cfg, "JVMparameter") or _setting(cfg, "JVM")
    pool = re.search(r"maxPoolSize=\d+", cfg)
    growth = next((re.search(r"(\d+)%", line) for line in incidents if re.search(r"\d+%", line)), None)
    version = next((re.search(r"v\d+\.\d+\.\d+", line) for line in incidents if "v" in line), None)
    pct = int(growth.group(1)) if growth else 0
    needed = limit_mb * (1 + pct / 100) if limit_mb else 0
    target_gb = max(1, math.ceil(needed / 1024)) if needed else 1
    cause = (
        f"OOMKilled: the container exceeds its memory limit of {limit_mb}MB (request/limit {memory})."
        + (f" The upgrade to {version.group(0)} raised memory use by about {pct}%" if version and pct else "")
        + (f", i.e. roughly {needed:.0f}MB needed against a {limit_mb}MB limit." if needed else "")
        + (f" JVM heap {jvm} leaves little headroom for off-heap/metaspace." if jvm else "")
        + (
            " The heap dump comment points at database connections not being released (connection pool "
            f"leak suspected, {pool.group(0)})."
            if "connection" in text and pool
            else ""
        )
    )
    fixes = [
        f"Increase the memory limit from {limit_mb}MB to {target_gb}GB (request at least {limit_mb}MB) to "
        f"absorb the ~{pct}% growth.",
        "Tune the JVM heap to the new limit (e.g. -Xmx at ~75% of the limit) and enable heap-dump-on-OOM.",
        "Investigate the database connection pool leak (close connections, enable leak detection).",
    ]
    return cause, fixes


def _analyse_crashloop(service: str, text: str, cfg: str, incidents: list[str]) -> tuple[str, list[str]]:
    hosts = re.findall(r"redis-cluster-\d+(?::\d+)?", text)
    old = hosts[0] if hosts else "the old Redis host"
    new = next((h for h in hosts if h.split(":")[0] != old.split(":")[0]), "the new primary")
    configured = _setting(cfg, "Redisconfiguration") or _setting(cfg, "Redis configuration")
    cause = (
        f"CrashLoopBackOff: on start-up the pods fail with 'Connection refused' to {old}. The Redis address "
        f"is hardcoded in the config ({configured or old}); after the Redis failover the primary moved to "
        f"{new}, so every start fails."
    )
    fixes = [
        f"Immediate: point the Redis config at {new} and roll the pods.",
        "Permanent: stop hardcoding the Redis address; use Redis Sentinel / Cluster discovery (service "
        "discovery) so failovers are followed automatically.",
        "Add a start-up retry with backoff instead of exiting on the first refused connection.",
    ]
    return cause, fixes


def _analyse_liveness(service: str, text: str, cfg: str, incidents: list[str]) -> tuple[str, list[str]]:
    probe = _probe(cfg, "livenessProbe")
    timeout = probe.get("timeout", "")
    p99 = re.search(r"P99\s*latency\s*(\d+)\s*seconds", text)
    p99_s = int(p99.group(1)) if p99 else 0
    cause = (
        f"Liveness probe timeout: /health must answer within {timeout} (failureThreshold "
        f"{probe.get('failureThreshold', '?')}), but email sending is handled synchronously on the request "
        "thread, which blocks the /health endpoint"
        + (f" (P99 latency {p99_s} seconds)" if p99_s else "")
        + "; the kubelet then kills the container."
    )
    new_timeout = p99_s + 3 if p99_s else 10
    fixes = [
        "Make email sending asynchronous (separate thread pool or message queue) so /health is never "
        "blocked.",
        f"Keep /health lightweight, and increase the liveness timeout from {timeout} to ~{new_timeout}s as "
        "a stop-gap.",
    ]
    return cause, fixes


def _analyse_readiness(service: str, text: str, cfg: str, incidents: list[str]) -> tuple[str, list[str]]:
    probe = _probe(cfg, "readinessProbe")
    delay = probe.get("initialDelaySeconds", "")
    startup = re.search(r"(\d+)\s*seconds", _setting(cfg, "actualstarttime") or text)
    startup_s = int(startup.group(1)) if startup else 0
    affinity = _setting(cfg, "sessionAffinity")
    split = ", ".join(pod for pod in _pods(text) if "%" in pod)
    cause = (
        f"Readiness probe too early: initialDelaySeconds={delay} while the service needs about {startup_s}s "
        "to start, so pods that restarted after the node update were marked ready/unready at the wrong "
        f"time and traffic is unbalanced ({split})"
        + (
            f"; sessionAffinity {affinity} keeps clients pinned to the pod that was ready first."
            if affinity
            else "."
        )
    )
    fixes = [
        f"Increase readinessProbe initialDelaySeconds from {delay} to {startup_s + 5}s (at least the "
        f"~{startup_s}s start-up) or add a startupProbe.",
        "Review sessionAffinity ClientIP and rebalance connections after restarts; use a "
        "PodDisruptionBudget for node updates.",
    ]
    return cause, fixes


KIND_LABELS = {
    "oom": "OOMKilled (memory limit)",
    "crashloop": "CrashLoopBackOff (dependency unreachable)",
    "liveness": "liveness probe timeout",
    "readiness": "readiness probe / traffic skew",
    "other": "unclassified",
}

ANALYSERS = {
    "oom": _analyse_oom,
    "crashloop": _analyse_crashloop,
    "liveness": _analyse_liveness,
    "readiness": _analyse_readiness,
}


def _resources(cfg: str) -> str:
    cpu = _setting(cfg, "CPU Request/Limit")
    memory = _setting(cfg, "Memory Request/Limit")
    probes = [
        f"{kind} {_setting(cfg, kind)}" for kind in ("livenessProbe", "readinessProbe") if _setting(cfg, kind)
    ]
    parts = [f"CPU request/limit {cpu}" if cpu else "", f"memory request/limit {memory}" if memory else ""]
    return "; ".join(p for p in parts + probes if p) or "not documented"


def solve(call: Call) -> str:
    """Diagnose every restarting service from its ticket and its cluster configuration."""
    tickets = _fetch_tickets(call)
    notes = _fetch_notes(call)
    configs = _service_sections(notes)
    restart_tickets = [t for t in tickets if any(s in _ticket_text(t).lower() for s in RESTART_SIGNALS)]

    lines = ["# Container Restart Analysis Report", ""]
    lines.append(
        f"Reviewed {len(tickets)} tickets ({len(restart_tickets)} restart alerts) and {len(notes)} "
        "documents: " + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes) + "."
    )
    lines += ["", "| Ticket | Service / pods | Restarts | Failure type |", "|---|---|---|---|"]
    rows = []
    for ticket in restart_tickets:
        text = _ticket_text(ticket)
        service_match = SERVICE_RE.search(text)
        service = service_match.group(1) if service_match else ticket["ticket_id"]
        pods = _pods(text)
        kind = _classify(text)
        rows.append((ticket, service, pods, kind, text))
        cells = [ticket["ticket_id"], f"{service} {' '.join(pods)}", _restart_text(text), KIND_LABELS[kind]]
        lines.append("| " + " | ".join(cells) + " |")

    remediation: list[str] = []
    for ticket, service, pods, kind, text in rows:
        cfg = configs.get(service, "")
        incidents = _incident_lines(notes, service)
        analyser = ANALYSERS.get(kind)
        cause, fixes = analyser(service, text, cfg, incidents) if analyser else ("Unclear from the data.", [])
        lines += ["", f"## {service} ({ticket['ticket_id']}, priority {ticket.get('priority', '')})"]
        lines.append(f"- Pods: {', '.join(pods) if pods else 'all replicas of ' + service}")
        lines.append(f"- Restart count: {_restart_text(text)}")
        lines.append(f"- Root cause: {cause}")
        lines.append(f"- Resource utilization / config: {_resources(cfg)}")
        if incidents:
            lines.append(f"- Related incident records: {'; '.join(incidents)}")
        lines.append("- Remediation:")
        lines += [f"  - {fix}" for fix in fixes]
        remediation.append(f"{service}: {fixes[0] if fixes else 'investigate further'}")

    lines += ["", "## Remediation priorities"]
    lines += [f"{i}. {item}" for i, item in enumerate(remediation, 1)]
    return "\n".join(lines)
