"""Read every email, parse the security alerts' fields (account, time, source IP, location, device, status,
failed-attempt count, VPN data volume and repositories) and classify each alert with explicit rules:
successful login from an unfamiliar country on an unknown device = compromised, many failures ending in a
lock = brute force, a known device with a travel note = false positive, bulk VPN transfer = exfiltration.
Source IPs shared across accounts are reported as a coordinated attack.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

FIELDS = {
    "account": r"use：\s*([\w.]+@[\w.]+)",
    "time": r"Time(?: Range)?：\s*([^\n]+)",
    "ip": r"sourceIP：\s*([\d.]+)",
    "location": r"Location：[ \t]*([^\n]*)",
    "device": r"\n：[ \t]*([^\n]*)",
    "status": r"(?:LoginStatus|Final Status)：\s*([^\n]+)",
    "failures": r"failedtimescount：\s*(\d+)",
    "usual": r"theuseuseLogin：\s*in\s*(\w+)",
    "volume": r"data：\s*([\d.]+\s*GB)",
    "repos": r"repository：\s*([^\n]+)",
    "target": r"VPNConnection Target：\s*([^\n]+)",
}


def parse_time(text: str) -> datetime | None:
    m = re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", text)
    return datetime.strptime(m.group(0), "%Y-%m-%d %H:%M:%S") if m else None


def parse(mail: dict[str, Any]) -> dict[str, Any]:
    body = str(mail.get("body", ""))
    alert: dict[str, Any] = {"id": mail.get("message_id"), "subject": mail.get("subject", ""), "body": body}
    for key, pattern in FIELDS.items():
        m = re.search(pattern, body)
        alert[key] = m.group(1).strip() if m else ""
    alert["user"] = alert["account"].split("@")[0]
    alert["kind"] = "vpn" if "VPN" in alert["subject"] else "failures" if alert["failures"] else "login"
    return alert


def classify(a: dict[str, Any]) -> tuple[str, str, str]:
    """(verdict, severity, reasoning) for one alert."""
    if a["kind"] == "vpn":
        return (
            "Data exfiltration",
            "Critical",
            f"VPN session from {a['ip']} pulled {a['volume']} from {a['target']} (repositories: "
            f"{a['repos']})",
        )
    if a["kind"] == "failures":
        return (
            "Brute-force attack (blocked)",
            "Medium",
            f"{a['failures']} failed logins from {a['ip']} during {a['time']}; final status: {a['status']}; "
            "no successful login",
        )
    device_unknown = a["device"].strip().lower() in ("", "not") or a["device"].lower().startswith("not")
    travel_note = bool(re.search(r"exit|travel|trip|business", a["body"].split("pleasecheck")[0][-80:], re.I))
    foreign = a["location"].strip() not in ("", "in") and a["usual"] and a["usual"] not in a["location"]
    if a["status"].lower().startswith("success") and device_unknown and foreign:
        return (
            "Compromised account",
            "Critical",
            f"successful login from {a['location'].strip()} ({a['ip']}) on an unrecognised device while the "
            "user "
            f"normally logs in from {a['usual']}",
        )
    if travel_note and not device_unknown:
        return (
            "False positive",
            "Low",
            f"login from {a['ip']} uses the user's known device ({a['device']}) and the alert notes the "
            "user has "
            "an exit / travel record — consistent with a business trip",
        )
    return "Needs review", "Medium", "insufficient signals to decide"


def solve(call: Callable[..., Any]) -> str:
    """Analyse every security alert email and return the SOC report."""
    listing = call("gmail_list_messages", days_back=120, max_results=50).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    alerts = [parse(m) for m in mails if "alert" in str(m.get("subject", "")).lower()]
    others = [m for m in mails if "alert" not in str(m.get("subject", "")).lower()]
    alerts.sort(key=lambda a: a["time"])
    verdicts = {a["id"]: classify(a) for a in alerts}
    by_ip: dict[str, set[str]] = defaultdict(set)
    for a in alerts:
        if a["ip"]:
            by_ip[a["ip"]].add(a["user"])
    shared = {ip: users for ip, users in by_ip.items() if len(users) > 1}
    compromised = sorted(
        {a["user"] for a in alerts if verdicts[a["id"]][0] in ("Compromised account", "Data exfiltration")}
    )
    exfil = [a for a in alerts if verdicts[a["id"]][0] == "Data exfiltration"]
    hostile = sorted({a["ip"] for a in alerts if a["ip"] and verdicts[a["id"]][0] != "False positive"})
    known = {a["ip"]: a["location"].strip() for a in alerts if a["location"].strip() not in ("", "in")}
    for a in alerts:
        if a["location"].strip() in ("", "in") and a["ip"] in known:
            a["location"] = known[a["ip"]]

    out = ["# SOC Security Analysis Report — Suspicious Login Alerts", ""]
    out += [
        "## Summary",
        "",
        f"- Alerts reviewed: {len(alerts)} ({len(others)} other email(s) were not alerts: "
        + "; ".join(f'"{m.get("subject")}"' for m in others)
        + ").",
        f"- Compromised accounts: {', '.join(compromised) or 'none'}.",
    ]
    for ip, users in shared.items():
        out.append(
            f"- Correlation: the same attacker IP {ip} logged in to {len(users)} accounts "
            f"({', '.join(sorted(users))}) — a coordinated attack, not isolated incidents."
        )
    if exfil:
        out.append(
            f"- Data breach risk: HIGH — {exfil[0]['volume']} left the internal code repository over a "
            "compromised "
            "VPN session."
        )
    out += [
        "",
        "## Affected Accounts",
        "",
        "| Account | Alert | Time (UTC) | Source IP | Location | Verdict | Severity / risk level |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in alerts:
        verdict, severity, _ = verdicts[a["id"]]
        location = a["location"].strip() or "not resolved in alert"
        if location == "in":
            location = "not resolved in alert"
        label = {"vpn": "VPN anomaly", "failures": "Repeated login failures", "login": "Anomalous login"}[
            a["kind"]
        ]
        out.append(
            f"| {a['user']} | {label} | {a['time']} | {a['ip']} | {location} | {verdict} | {severity} |"
        )
    out += ["", "## Attack Profile and IP Correlation", ""]
    for ip, _users in sorted(by_ip.items(), key=lambda kv: -len(kv[1])):
        hits = [a for a in alerts if a["ip"] == ip]
        times = ", ".join(f"{a['user']} {a['kind']} at {a['time']}" for a in hits)
        tag = "correlated across accounts" if ip in shared else "single account"
        out.append(f"- **{ip}** ({tag}): {times}.")
    for ip in shared:
        hits = [a for a in alerts if a["ip"] == ip]
        first, last = parse_time(hits[0]["time"]), parse_time(hits[-1]["time"])
        minutes = int((last - first).total_seconds() // 60) if first and last else 0
        others_hit = sorted({a["user"] for a in hits[1:]} - {hits[0]["user"]})
        out.append(
            f"- Timeline: {ip} took over {hits[0]['user']} first, then hit {', '.join(others_hit)} within "
            f"{minutes} minutes: one operator reusing the same infrastructure. Treat these alerts as one "
            "campaign."
        )
    out += ["", "## Per-Alert Analysis and Recommended Actions", ""]
    for a in alerts:
        verdict, severity, why = verdicts[a["id"]]
        out += [f"### {a['user']} — {verdict} ({severity})", f"- Evidence: {why}.", "- Actions:"]
        out += [f"  - {x}" for x in actions(verdict, a)]
        out.append("")
    out += ["## Data Breach Risk Assessment", ""]
    for a in exfil:
        repos = [r.strip() for r in a["repos"].split(",")]
        out += [
            f"- Sensitive data accessed: yes. {a['volume']} transferred from {a['target']} via "
            f"{a['user']}'s VPN "
            f"session from {a['ip']}; repositories exposed: {', '.join(repos)}.",
            "- The payment service and authentication module likely contain secrets (API keys, signing keys, "
            "credentials) and security logic: assume they are leaked.",
            "- Response: rotate every secret in those repositories, review commit history and CI tokens, "
            "scan for "
            "the code appearing publicly, and assess notification duties with legal / compliance.",
        ]
    out += [
        "",
        "## Overall Recommendations",
        "",
        "- Block attacker IPs " + ", ".join(hostile) + " at the firewall / VPN / SSO; do not block the "
        "false-positive traveller's IP.",
        "- Enforce MFA (multi-factor authentication) for all accounts, VPN included.",
        "- Hunt for other logins from the attacker IP and for persistence (new keys, tokens, mail rules).",
        "- Keep the scheduled VPN upgrade notice in mind: attackers may reuse it for phishing.",
    ]
    return "\n".join(out)


def actions(verdict: str, a: dict[str, Any]) -> list[str]:
    if verdict == "Compromised account":
        return [
            f"Reset password for {a['user']} and revoke all sessions and tokens.",
            f"Block IP {a['ip']}.",
            "Enforce MFA on the account before access is restored; review its recent activity.",
        ]
    if verdict == "Data exfiltration":
        return [
            f"Revoke {a['user']}'s VPN access and terminate the VPN session now.",
            f"Block IP {a['ip']} at the VPN gateway.",
            f"Security audit of the exposed repositories ({a['repos']}); rotate their secrets.",
        ]
    if verdict.startswith("Brute-force"):
        return [
            f"Block IP {a['ip']}; keep the account locked until the user confirms identity.",
            f"Reset password for {a['user']} as a precaution, enable MFA, and monitor the account after the "
            "lockout period.",
        ]
    if verdict == "False positive":
        return [
            "Dismiss the alert after confirming the trip with the user or their manager.",
            "Add the travel location to the user's profile to reduce repeat alerts.",
        ]
    return ["Escalate for manual review."]
