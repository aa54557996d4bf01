#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "new_signature", "passed": false},
  {"name": "behaviour_preserved", "passed": false},
  {"name": "deprecated_wrapper", "passed": false},
  {"name": "cart_updated", "passed": false},
  {"name": "checkout_updated", "passed": false},
  {"name": "daily_report_updated", "passed": false},
  {"name": "run_checks_passes", "passed": false},
  {"name": "docs_updated", "passed": false},
  {"name": "rfc_and_checks_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
