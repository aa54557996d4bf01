#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "report_header", "passed": false},
  {"name": "departments_listed_and_sorted", "passed": false},
  {"name": "budgets_from_export", "passed": false},
  {"name": "events_budget_increase_applied", "passed": false},
  {"name": "rejected_sales_cut_ignored", "passed": false},
  {"name": "actuals_converted_to_eur", "passed": false},
  {"name": "invoice_correction_applied", "passed": false},
  {"name": "retired_cost_centre_merged", "passed": false},
  {"name": "variance_is_budget_minus_actual", "passed": false},
  {"name": "status_follows_tolerance_rule", "passed": false},
  {"name": "totals", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
