#!/bin/bash
set -euo pipefail
cd /app
port=$(sed -n 's/^invoicing *= *\([0-9]*\).*/\1/p' config/ports.toml)
old=$(sed -n 's/^billing *= *\([0-9]*\).*/\1/p' config/ports.toml)

# docker-compose.yml: service, image, env file, port, gateway references; database names stay.
sed -i \
  -e "s/^  billing:$/  invoicing:/" \
  -e "s#registry.internal/shop/billing:1.14.2#registry.internal/shop/invoicing:1.15.0#" \
  -e "s#env_file: env/billing.env#env_file: env/invoicing.env#" \
  -e "s#BILLING_URL: http://billing:$old#INVOICING_URL: http://invoicing:$port#" \
  -e "s/^      - billing$/      - invoicing/" \
  docker-compose.yml
# the expose entry of the renamed service (the only service exposing the old port)
sed -i "/^  invoicing:$/,/^$/ s/- \"$old\"/- \"$port\"/" docker-compose.yml

# env file: rename, rename BILLING_ variables, new listen port.
mv env/billing.env env/invoicing.env
sed -i -e 's/^BILLING_/INVOICING_/' -e "s/^INVOICING_LISTEN_PORT=$old$/INVOICING_LISTEN_PORT=$port/" env/invoicing.env

# nginx: upstream renamed and pointed at the new host/port; public paths unchanged.
sed -i -e 's/billing_backend/invoicing_backend/g' -e "s/server billing:$old;/server invoicing:$port;/" \
  -e 's/go straight to the billing service/go straight to the invoicing service/' nginx/conf.d/api.conf

# gateway routing table: upstream only, the public path stays.
sed -i "s#upstream: http://billing:$old#upstream: http://invoicing:$port#" services/gateway/routes.yaml

# monitoring
sed -i -e 's/job_name: billing$/job_name: invoicing/' -e "s/\"billing:$old\"/\"invoicing:$port\"/" monitoring/prometheus.yml
