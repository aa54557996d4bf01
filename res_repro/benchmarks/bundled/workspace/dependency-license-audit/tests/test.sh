#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "report_layout", "passed": false},
  {"name": "production_dependencies_only", "passed": false},
  {"name": "licenses_looked_up", "passed": false},
  {"name": "permissive_allowed", "passed": false},
  {"name": "weak_copyleft", "passed": false},
  {"name": "strong_copyleft", "passed": false},
  {"name": "network_copyleft", "passed": false},
  {"name": "approved_exception_only", "passed": false},
  {"name": "summary", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
