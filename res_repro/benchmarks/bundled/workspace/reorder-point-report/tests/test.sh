#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "reorder_layout", "passed": false},
  {"name": "average_daily_demand", "passed": false},
  {"name": "reorder_points_standard", "passed": false},
  {"name": "lead_time_note_applied", "passed": false},
  {"name": "a_class_safety_days", "passed": false},
  {"name": "stock_positions", "passed": false},
  {"name": "order_quantities", "passed": false},
  {"name": "discontinued_left_out", "passed": false},
  {"name": "purchase_orders", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
