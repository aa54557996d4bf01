#!/bin/bash
# Nightly logical backup of the orders database (production).
# Runs on backup-01, which has no access to the internal DNS: address the database by IP.
set -euo pipefail

DB_ADDR=10.20.1.14
DB_PORT=5432
STAMP=$(date +%Y%m%d)

pg_dump -h "$DB_ADDR" -p "$DB_PORT" -U orders_svc -d orders -F c -f "/backup/orders-$STAMP.dump"
find /backup -name 'orders-*.dump' -mtime +14 -delete
