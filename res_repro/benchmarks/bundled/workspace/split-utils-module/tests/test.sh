#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "textutil_module", "passed": false},
  {"name": "timeutil_module", "passed": false},
  {"name": "money_module", "passed": false},
  {"name": "utils_module_deleted", "passed": false},
  {"name": "unused_code_deleted", "passed": false},
  {"name": "catalog_updated", "passed": false},
  {"name": "orders_updated", "passed": false},
  {"name": "reports_updated", "passed": false},
  {"name": "unit_tests_pass", "passed": false},
  {"name": "adr_and_tests_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
