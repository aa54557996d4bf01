"""Compatibility with the station data server."""

# Oldest version of the station server's protocol this client can talk to. This is the
# server's protocol version, not the version of this package.
MIN_SERVER_PROTOCOL = "2.3.1"
