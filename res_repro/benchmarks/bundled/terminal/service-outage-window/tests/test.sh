#!/bin/bash
# Verifier: writes 1 to /logs/verifier/reward.txt when the outcome is right, otherwise 0.
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
if timeout 50 python3 /tests/check.py; then
  echo 1 > /logs/verifier/reward.txt
fi
