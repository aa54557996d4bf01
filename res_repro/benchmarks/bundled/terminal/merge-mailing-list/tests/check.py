"""Recompute the mailing list from the (unmodified) inputs and compare."""
import csv
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


for line in open(os.path.join(HERE, "inputs.sha256")):
    digest, name = line.split()
    with open(os.path.join("/app", name), "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != digest:
            fail(f"/app/{name} was modified")

crm = {}
with open("/app/crm_export.csv", newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        key = row["email"].strip().lower()
        if key not in crm or int(row["id"]) < crm[key][0]:
            crm[key] = (int(row["id"]), row["name"])
unsub = {l.strip().lower() for l in open("/app/unsubscribed.txt", encoding="utf-8") if l.strip()}
signed = {l.strip().lower() for l in open("/app/newsletter.txt", encoding="utf-8") if l.strip()}
want = [["email", "name"]] + [[e, crm[e][1] if e in crm else ""]
                              for e in sorted(signed - unsub, key=lambda s: s.encode())]

path = "/app/mailing_list.csv"
if not os.path.isfile(path):
    fail(f"{path} is missing")
with open(path, newline="", encoding="utf-8") as f:
    got = [row for row in csv.reader(f) if row]
if got != want:
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print(f"first difference at row {i}: got {g!r}, want {w!r}")
            break
    print(f"rows: got {len(got)}, want {len(want)}")
    fail("mailing list differs")
print("OK")
