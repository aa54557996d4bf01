# old helper, kept for reference only; do not run
# tar czf backup.tgz /srv/app
