"""Rubric for change OPS-812: every production configuration file is checked on its own."""
import configparser
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniyaml import parse_yaml  # noqa: E402
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

HOSTS = list(csv.DictReader(open(fixture("inventory/hosts.csv"))))


def pick(role):
    (h,) = [h for h in HOSTS if h["datacenter"] == "fra2" and h["role"] == role
            and h["environment"] == "production" and h["status"] == "active"]
    return h


PRIMARY, REPLICA = pick("pg-primary"), pick("pg-replica")
P_DNS, R_DNS = PRIMARY["hostname"] + ".internal", REPLICA["hostname"] + ".internal"
BOUNCER, POSTGRES, CAP = "6432", "5432", 10
rubric = Rubric()


def ini(path):
    cp = configparser.ConfigParser(interpolation=None)
    cp.read_string(read_text(path))
    return {s: dict(cp[s]) for s in cp.sections()}


@rubric.item("app_ini_primary")
def _():
    got, want = ini(app("config/app.ini")), ini(fixture("config/app.ini"))
    want["database"].update(host=P_DNS, port=BOUNCER, sslmode="require")
    return got["database"] == want["database"]


@rubric.item("app_ini_replica")
def _():
    got = ini(app("config/app.ini"))
    return got["replica"] == {"host": R_DNS, "port": BOUNCER}


@rubric.item("app_ini_other_sections_kept")
def _():
    got, want = ini(app("config/app.ini")), ini(fixture("config/app.ini"))
    return got != want and {k: v for k, v in got.items() if k not in ("database", "replica")} == \
        {k: v for k, v in want.items() if k not in ("database", "replica")}


@rubric.item("worker_urls")
def _():
    db = json.loads(read_text(app("config/settings.json")))["database"]
    return db["url"] == f"postgresql://orders_svc@{P_DNS}:{BOUNCER}/orders?sslmode=require" and \
        db["replica_url"] == f"postgresql://orders_svc@{R_DNS}:{BOUNCER}/orders?sslmode=require"


@rubric.item("worker_pool_capped")
def _():
    got = json.loads(read_text(app("config/settings.json")))
    want = json.loads(read_text(fixture("config/settings.json")))
    got_db, want_db = got.pop("database"), want.pop("database")
    return got == want and got_db["pool_size"] == CAP and type(got_db["pool_size"]) is int \
        and got_db["pool_timeout_s"] == want_db["pool_timeout_s"]


@rubric.item("k8s_configmap")
def _():
    got = parse_yaml(read_text(app("k8s/configmap.yaml")))
    want = parse_yaml(read_text(fixture("k8s/configmap.yaml")))
    want["data"].update(DB_HOST=P_DNS, DB_PORT=BOUNCER, DB_SSLMODE="require", DB_REPLICA_HOST=R_DNS,
                        DB_REPLICA_PORT=BOUNCER)
    return got == want


def backup_values():
    """DB_ADDR and DB_PORT as the script sets them, found by running its assignments in bash."""
    text = read_text(app("scripts/backup.sh"))
    cmd = text.split("pg_dump")[0] + '\necho "$DB_ADDR $DB_PORT"\n'
    cmd = cmd.replace("STAMP=$(date +%Y%m%d)", "")
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=10)
    return out.stdout.split()


@rubric.item("backup_targets_replica_ip")
def _():
    return backup_values()[0] == REPLICA["ip"]


@rubric.item("backup_direct_postgres_port")
def _():
    text = read_text(app("scripts/backup.sh"))
    orig = read_text(fixture("scripts/backup.sh"))
    return backup_values()[1] == POSTGRES and text != orig and \
        re.search(r'pg_dump -h "\$DB_ADDR" -p "\$DB_PORT" -U orders_svc -d orders', text) is not None


@rubric.item("no_decommissioned_hosts")
def _():
    old = [h for h in HOSTS if h["status"] == "decommissioning"]
    texts = [read_text(app(p)) for p in ("config/app.ini", "config/settings.json", "k8s/configmap.yaml", "scripts/backup.sh")]
    return all(h["hostname"] not in t and h["ip"] not in t for h in old for t in texts)


@rubric.item("staging_and_references_unchanged")
def _():
    return unchanged("config/app.staging.ini", "tickets/OPS-812.md", "inventory/hosts.csv", "inventory/services.csv", "README.md")


rubric.run()
