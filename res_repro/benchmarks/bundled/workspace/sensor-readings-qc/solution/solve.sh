#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

sensors = json.load(open("config/sensors.json"))["sensors"]
sensors["T-07"]["calibration_offset"] = -0.8   # docs/2024-06-05_T-07-recalibration.md
windows = list(csv.DictReader(open("config/maintenance.csv", newline="")))

def utc(sensor, local):
    sign = 1 if sensor["utc_offset"][0] == "+" else -1
    hh, mm = map(int, sensor["utc_offset"][1:].split(":"))
    t = datetime.strptime(local, "%Y-%m-%d %H:%M:%S") - sign * timedelta(hours=hh, minutes=mm)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")

counts = dict.fromkeys(["unknown_sensor", "missing_value", "maintenance", "out_of_range", "duplicate"], 0)
seen, accepted, n = set(), [], 0
for row in csv.DictReader(open("data/readings_2024-06-03.csv", newline="")):
    n += 1
    s = sensors.get(row["sensor_id"])
    if s is None:
        counts["unknown_sensor"] += 1; continue
    try:
        v = Decimal(row["value"].strip())
        if not v.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        counts["missing_value"] += 1; continue
    ts = utc(s, row["local_time"])
    if any(w["sensor_id"] == row["sensor_id"] and w["start_utc"] <= ts < w["end_utc"] for w in windows):
        counts["maintenance"] += 1; continue
    v += Decimal(str(s["calibration_offset"]))
    if s["unit"] == "F":
        v = (v - 32) * 5 / 9
    v = v.quantize(Decimal("0.01"), ROUND_HALF_UP)
    lo, hi = s["valid_range_c"]
    if not Decimal(str(lo)) <= v <= Decimal(str(hi)):
        counts["out_of_range"] += 1; continue
    if (row["sensor_id"], ts) in seen:
        counts["duplicate"] += 1; continue
    seen.add((row["sensor_id"], ts))
    accepted.append((ts, row["sensor_id"], f"{v:.2f}"))

with open("out/readings_clean.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["sensor_id", "timestamp_utc", "temperature_c"])
    for ts, sid, v in sorted(accepted):
        w.writerow([sid, ts, v])
json.dump({"input_rows": n, "accepted": len(accepted), "rejected": counts}, open("out/qc_report.json", "w"), indent=2)
PY
