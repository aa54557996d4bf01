#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "compose_service_renamed", "passed": false},
  {"name": "compose_invoicing_definition", "passed": false},
  {"name": "compose_gateway_references", "passed": false},
  {"name": "database_names_kept", "passed": false},
  {"name": "env_file_renamed", "passed": false},
  {"name": "env_variables_renamed", "passed": false},
  {"name": "nginx_upstream_renamed", "passed": false},
  {"name": "nginx_public_paths_kept", "passed": false},
  {"name": "gateway_route_upstream", "passed": false},
  {"name": "prometheus_job", "passed": false},
  {"name": "no_stale_references", "passed": false},
  {"name": "unrelated_files_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
