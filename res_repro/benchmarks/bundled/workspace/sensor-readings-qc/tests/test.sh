#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "clean_header", "passed": false},
  {"name": "utc_timestamps", "passed": false},
  {"name": "celsius_sensors_calibrated", "passed": false},
  {"name": "fahrenheit_sensors_converted", "passed": false},
  {"name": "recalibration_note_applied", "passed": false},
  {"name": "sorted_by_time_then_sensor", "passed": false},
  {"name": "maintenance_windows", "passed": false},
  {"name": "out_of_range", "passed": false},
  {"name": "duplicates_dropped", "passed": false},
  {"name": "unknown_and_missing_counted", "passed": false},
  {"name": "report_totals", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
