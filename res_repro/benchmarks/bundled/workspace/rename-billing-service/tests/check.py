"""Rubric for the billing -> invoicing migration: each deployment file is checked on its own."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniyaml import parse_yaml  # noqa: E402
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

PORT = "8085"
UNTOUCHED = ["README.md", "docs/MIGRATION-2024-11.md", "config/ports.toml", "env/gateway.env",
             "env/catalog.env", "env/notifications.env"]
ORIG = parse_yaml(read_text(fixture("docker-compose.yml")))
rubric = Rubric()


def compose():
    return parse_yaml(read_text(app("docker-compose.yml")))


def env(path):
    out = {}
    for line in read_text(path).splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def nginx():
    return re.sub(r"#[^\n]*", "", read_text(app("nginx/conf.d/api.conf")))


@rubric.item("compose_service_renamed")
def _():
    services = compose()["services"]
    return "invoicing" in services and "billing" not in services and \
        set(services) == set(ORIG["services"]) - {"billing"} | {"invoicing"}


@rubric.item("compose_invoicing_definition")
def _():
    s = compose()["services"]["invoicing"]
    return s["image"] == "registry.internal/shop/invoicing:1.15.0" and s["env_file"] == "env/invoicing.env" \
        and [str(p) for p in s["expose"]] == [PORT] and sorted(s["depends_on"]) == ["notifications", "postgres"]


@rubric.item("compose_gateway_references")
def _():
    g = compose()["services"]["gateway"]
    want_env = {"CATALOG_URL": "http://catalog:8081", "INVOICING_URL": f"http://invoicing:{PORT}",
                "NOTIFICATIONS_URL": "http://notifications:8090"}
    return g["environment"] == want_env and sorted(g["depends_on"]) == ["catalog", "invoicing", "notifications"]


@rubric.item("database_names_kept")
def _():
    c = compose()
    pg = c["services"]["postgres"]
    db_url = env(app("env/invoicing.env"))["INVOICING_DB_URL"]
    return pg == ORIG["services"]["postgres"] and "billing-data" in c["volumes"] \
        and db_url == "postgres://billing_app@postgres:5432/billing"


@rubric.item("env_file_renamed")
def _():
    return os.path.isfile(app("env/invoicing.env")) and not os.path.exists(app("env/billing.env"))


@rubric.item("env_variables_renamed")
def _():
    old = env(fixture("env/billing.env"))
    want = {"INVOICING_" + k[len("BILLING_"):]: v for k, v in old.items()}
    want["INVOICING_LISTEN_PORT"] = PORT
    return env(app("env/invoicing.env")) == want


@rubric.item("nginx_upstream_renamed")
def _():
    text = nginx()
    m = re.search(r"upstream\s+invoicing_backend\s*\{([^}]*)\}", text)
    webhooks = re.search(r"location\s+/api/billing/webhooks/\s*\{([^}]*)\}", text)
    return m is not None and re.fullmatch(rf"\s*server\s+invoicing:{PORT};\s*", m.group(1)) is not None \
        and "billing_backend" not in text and webhooks is not None \
        and re.search(r"proxy_pass\s+http://invoicing_backend;", webhooks.group(1)) is not None


@rubric.item("nginx_public_paths_kept")
def _():
    text = nginx()
    locations = re.findall(r"location\s+(\S+)\s*\{([^}]*)\}", text)
    paths = [p for p, _ in locations]
    billing = dict(locations).get("/api/billing/", "")
    return paths == ["/api/billing/webhooks/", "/api/billing/", "/api/"] and "https://gateway_backend" in billing


@rubric.item("gateway_route_upstream")
def _():
    got = parse_yaml(read_text(app("services/gateway/routes.yaml")))["routes"]
    want = parse_yaml(read_text(fixture("services/gateway/routes.yaml")))["routes"]
    want[1]["upstream"] = f"http://invoicing:{PORT}"
    return got == want


@rubric.item("prometheus_job")
def _():
    got = parse_yaml(read_text(app("monitoring/prometheus.yml")))
    want = parse_yaml(read_text(fixture("monitoring/prometheus.yml")))
    want["scrape_configs"][2] = {"job_name": "invoicing", "static_configs": [{"targets": [f"invoicing:{PORT}"]}]}
    return got == want


@rubric.item("no_stale_references")
def _():
    allowed = ["/api/billing/", "billing_app", "billing-data", "5432/billing", "POSTGRES_DB: billing"]
    texts = [read_text(app(p)) for p in ("docker-compose.yml", "services/gateway/routes.yaml",
                                         "monitoring/prometheus.yml", "env/invoicing.env")]
    texts.append(nginx())
    for text in texts:
        text = re.sub(r"(?m)^\s*#.*$", "", text)
        for a in allowed:
            text = text.replace(a, "")
        if re.search(r"billing", text, re.I) or re.search(r"\b8080\b", text):
            return False
    return True


@rubric.item("unrelated_files_unchanged")
def _():
    return unchanged(*UNTOUCHED)


rubric.run()
