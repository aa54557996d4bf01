#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "findings_layout", "passed": false},
  {"name": "terminated_owners", "passed": false},
  {"name": "inactive_accounts", "passed": false},
  {"name": "admin_approvals", "passed": false},
  {"name": "admin_mfa", "passed": false},
  {"name": "service_account_owners", "passed": false},
  {"name": "disabled_accounts_out_of_scope", "passed": false},
  {"name": "summary", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
