"""Rubric for the 3 June readings QC; the expected result is recomputed from the original inputs."""
import csv
import json
import os
import re
import sys
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, read_json, unchanged  # noqa: E402

SENSORS = json.load(open(fixture("config/sensors.json")))["sensors"]
SENSORS["T-07"]["calibration_offset"] = -0.8
WINDOWS = read_csv(fixture("config/maintenance.csv"))
RAW = read_csv(fixture("data/readings_2024-06-03.csv"))
REASONS = ["unknown_sensor", "missing_value", "maintenance", "out_of_range", "duplicate"]


def utc(s, local):
    sign = 1 if s["utc_offset"][0] == "+" else -1
    h, m = map(int, s["utc_offset"][1:].split(":"))
    return (datetime.strptime(local, "%Y-%m-%d %H:%M:%S") - sign * timedelta(hours=h, minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ")


COUNTS, ACCEPTED, SEEN, REJECTED_KEYS = dict.fromkeys(REASONS, 0), {}, set(), {r: [] for r in REASONS}
for row in RAW:
    s = SENSORS.get(row["sensor_id"])
    if s is None:
        COUNTS["unknown_sensor"] += 1
        continue
    try:
        v = Decimal(row["value"].strip())
        assert v.is_finite()
    except (InvalidOperation, AssertionError):
        COUNTS["missing_value"] += 1
        continue
    ts = utc(s, row["local_time"])
    key = (row["sensor_id"], ts)
    if any(w["sensor_id"] == row["sensor_id"] and w["start_utc"] <= ts < w["end_utc"] for w in WINDOWS):
        COUNTS["maintenance"] += 1
        REJECTED_KEYS["maintenance"].append(key)
        continue
    v += Decimal(str(s["calibration_offset"]))
    if s["unit"] == "F":
        v = (v - 32) * 5 / 9
    v = v.quantize(Decimal("0.01"), ROUND_HALF_UP)
    if not s["valid_range_c"][0] <= v <= s["valid_range_c"][1]:
        COUNTS["out_of_range"] += 1
        REJECTED_KEYS["out_of_range"].append(key)
        continue
    if key in SEEN:
        COUNTS["duplicate"] += 1
        continue
    SEEN.add(key)
    ACCEPTED[key] = f"{v:.2f}"
rubric = Rubric()


def rows():
    data = read_csv_rows(app("out/readings_clean.csv"))
    assert data[0] == ["sensor_id", "timestamp_utc", "temperature_c"]
    return data[1:]


def sensor_rows(sensor_ids):
    got = sorted((r[0], r[1], r[2]) for r in rows() if r[0] in sensor_ids)
    want = sorted((k[0], k[1], v) for k, v in ACCEPTED.items() if k[0] in sensor_ids)
    return got == want


def report():
    return read_json(app("out/qc_report.json"))


@rubric.item("clean_header")
def _():
    return read_csv_rows(app("out/readings_clean.csv"))[0] == ["sensor_id", "timestamp_utc", "temperature_c"]


@rubric.item("utc_timestamps")
def _():
    got = [(r[0], r[1]) for r in rows()]
    return all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t) for _, t in got) and sorted(set(got)) == sorted(ACCEPTED)


@rubric.item("celsius_sensors_calibrated")
def _():
    return sensor_rows({"T-01", "T-02", "T-05"})


@rubric.item("fahrenheit_sensors_converted")
def _():
    return sensor_rows({"T-03", "T-04"})


@rubric.item("recalibration_note_applied")
def _():
    return sensor_rows({"T-07"})


@rubric.item("sorted_by_time_then_sensor")
def _():
    got = [(r[1], r[0]) for r in rows()]
    return len(got) > 1 and got == sorted(got)


@rubric.item("maintenance_windows")
def _():
    keys = {(r[0], r[1]) for r in rows()}
    return report()["rejected"]["maintenance"] == COUNTS["maintenance"] and not keys & set(REJECTED_KEYS["maintenance"]) \
        and len(keys) > 0


@rubric.item("out_of_range")
def _():
    keys = {(r[0], r[1]) for r in rows()}
    return report()["rejected"]["out_of_range"] == COUNTS["out_of_range"] and not keys & set(REJECTED_KEYS["out_of_range"]) \
        and len(keys) > 0


@rubric.item("duplicates_dropped")
def _():
    keys = [(r[0], r[1]) for r in rows()]
    return report()["rejected"]["duplicate"] == COUNTS["duplicate"] and len(keys) == len(set(keys)) > 0


@rubric.item("unknown_and_missing_counted")
def _():
    r = report()["rejected"]
    return r["unknown_sensor"] == COUNTS["unknown_sensor"] and r["missing_value"] == COUNTS["missing_value"]


@rubric.item("report_totals")
def _():
    r = report()
    return r["input_rows"] == len(RAW) and r["accepted"] == len(ACCEPTED) == len(rows()) \
        and set(r["rejected"]) == set(REASONS) and r["accepted"] + sum(r["rejected"].values()) == len(RAW)


@rubric.item("inputs_unchanged")
def _():
    return unchanged("data/readings_2024-06-03.csv", "config/sensors.json", "config/maintenance.csv",
                     "docs/qc_rules.md", "docs/2024-06-05_T-07-recalibration.md", "README.md")


rubric.run()
