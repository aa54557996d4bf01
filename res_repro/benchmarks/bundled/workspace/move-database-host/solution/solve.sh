#!/bin/bash
set -euo pipefail
cd /app
# Facts from the inventory: active fra2 production primary and replica, pgbouncer and postgres ports.
read -r primary primary_ip < <(awk -F, '$3=="fra2" && $4=="pg-primary" && $5=="production" && $6=="active" {print $1, $2}' inventory/hosts.csv)
read -r replica replica_ip < <(awk -F, '$3=="fra2" && $4=="pg-replica" && $5=="production" && $6=="active" {print $1, $2}' inventory/hosts.csv)
bouncer=$(awk -F, '$1=="pgbouncer" {print $2}' inventory/services.csv)
postgres=$(awk -F, '$1=="postgresql" {print $2}' inventory/services.csv)
cap=10   # inventory/services.csv: max 10 server connections per client pool

python3 - "$primary" "$replica" "$bouncer" "$cap" <<'PY'
import json, re, sys
primary, replica, bouncer, cap = sys.argv[1:]

ini = open("config/app.ini").read()
section = None
out = []
for line in ini.splitlines():
    m = re.match(r"\[(\w+)\]", line)
    if m:
        section = m.group(1)
    elif section == "database":
        line = re.sub(r"^host = .*", f"host = {primary}.internal", line)
        line = re.sub(r"^port = .*", f"port = {bouncer}", line)
        line = re.sub(r"^sslmode = .*", "sslmode = require", line)
    elif section == "replica":
        line = re.sub(r"^host = .*", f"host = {replica}.internal", line)
        line = re.sub(r"^port = .*", f"port = {bouncer}", line)
    out.append(line)
open("config/app.ini", "w").write("\n".join(out) + "\n")

settings = json.load(open("config/settings.json"))
db = settings["database"]
db["url"] = f"postgresql://orders_svc@{primary}.internal:{bouncer}/orders?sslmode=require"
db["replica_url"] = f"postgresql://orders_svc@{replica}.internal:{bouncer}/orders?sslmode=require"
db["pool_size"] = int(cap)
with open("config/settings.json", "w") as f:
    json.dump(settings, f, indent=2)
    f.write("\n")

cm = open("k8s/configmap.yaml").read()
for key, value in {"DB_HOST": f"{primary}.internal", "DB_PORT": bouncer, "DB_SSLMODE": "require",
                   "DB_REPLICA_HOST": f"{replica}.internal", "DB_REPLICA_PORT": bouncer}.items():
    cm = re.sub(rf'(?m)^(  {key}: )".*"$', rf'\g<1>"{value}"', cm)
open("k8s/configmap.yaml", "w").write(cm)
PY

sed -i -e "s/^DB_ADDR=.*/DB_ADDR=$replica_ip/" -e "s/^DB_PORT=.*/DB_PORT=$postgres/" scripts/backup.sh
