#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "report_layout", "passed": false},
  {"name": "grade_a_restocked_at_shipping_warehouse", "passed": false},
  {"name": "grade_b_to_outlet", "passed": false},
  {"name": "grade_c_written_off", "passed": false},
  {"name": "qa_corrections_applied", "passed": false},
  {"name": "late_returns_refused", "passed": false},
  {"name": "uninspected_pending", "passed": false},
  {"name": "stock_after", "passed": false},
  {"name": "writeoff_totals", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
