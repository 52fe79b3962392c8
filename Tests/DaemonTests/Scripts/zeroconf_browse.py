"""Browses _mpd._tcp.local. with python3-zeroconf, as a phone client does.

Usage: zeroconf_browse.py SECONDS
Prints `found NAME PORT ADDRESS...` for each service resolved, and `removed NAME` when a
service says goodbye; exits once a service was found and removed, or after SECONDS.
"""
import sys
import time

from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

found = []
removed = []


def changed(zeroconf, service_type, name, state_change):
    if state_change is ServiceStateChange.Added:
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is not None:
            print("found", name, info.port, *info.parsed_addresses(), flush=True)
            found.append(name)
    elif state_change is ServiceStateChange.Removed:
        print("removed", name, flush=True)
        removed.append(name)


zc = Zeroconf(interfaces=["127.0.0.1"])
browser = ServiceBrowser(zc, "_mpd._tcp.local.", handlers=[changed])
deadline = time.time() + float(sys.argv[1])
while time.time() < deadline and not (found and removed):
    time.sleep(0.05)
zc.close()
