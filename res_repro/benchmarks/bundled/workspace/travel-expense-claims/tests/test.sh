#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "reimbursements_layout", "passed": false},
  {"name": "claimed_amounts", "passed": false},
  {"name": "ineligible_category_rejected", "passed": false},
  {"name": "receipt_rule", "passed": false},
  {"name": "hotel_caps_before_update", "passed": false},
  {"name": "tier1_hotel_cap_update", "passed": false},
  {"name": "meals_caps", "passed": false},
  {"name": "taxi_and_mileage_caps", "passed": false},
  {"name": "approved_exception_paid", "passed": false},
  {"name": "exception_limits_respected", "passed": false},
  {"name": "outcome_labels", "passed": false},
  {"name": "employee_totals", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
