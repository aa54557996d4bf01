#!/usr/bin/env bash
# nightly backup
tar czf "/var/backups/app-$(date +%F).tgz" /srv/app
