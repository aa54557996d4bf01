#!/bin/bash
# Verifier: writes /logs/verifier/rubric.json with one pass/fail item per rubric check.
# Every item is first recorded as failed, so the file is complete even if the checker cannot run;
# check.py then overwrites it with the real results.
mkdir -p /logs/verifier
cat > /logs/verifier/rubric.json <<'JSON'
{"items": [
  {"name": "app_ini_primary", "passed": false},
  {"name": "app_ini_replica", "passed": false},
  {"name": "app_ini_other_sections_kept", "passed": false},
  {"name": "worker_urls", "passed": false},
  {"name": "worker_pool_capped", "passed": false},
  {"name": "k8s_configmap", "passed": false},
  {"name": "backup_targets_replica_ip", "passed": false},
  {"name": "backup_direct_postgres_port", "passed": false},
  {"name": "no_decommissioned_hosts", "passed": false},
  {"name": "staging_and_references_unchanged", "passed": false}
]}
JSON
timeout 50 python3 /tests/check.py || true
