#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "structure", "passed": false},
  {"name": "payment_terms", "passed": false},
  {"name": "liability_caps", "passed": false},
  {"name": "renewal_notice", "passed": false},
  {"name": "governing_law_and_waiver", "passed": false},
  {"name": "data_processing_agreements", "passed": false},
  {"name": "security_audit_rights", "passed": false},
  {"name": "compliance_flags", "passed": false},
  {"name": "summary", "passed": false},
  {"name": "inputs_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
