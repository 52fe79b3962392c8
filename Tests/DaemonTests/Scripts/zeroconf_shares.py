"""Announces file shares with python3-zeroconf, as Samba's Avahi integration, sshd with a
service file, a WebDAV server and an FTP server would, then asks a Nimbus daemon for
`listneighbors` and prints its answer.

Usage: zeroconf_shares.py MPD_PORT
"""
import socket
import sys
import time

from zeroconf import ServiceInfo, Zeroconf

zc = Zeroconf(interfaces=["127.0.0.1"])
address = [socket.inet_aton("127.0.0.1")]
services = [
    ("_smb._tcp.local.", "Living room NAS", 445, {}),
    ("_sftp-ssh._tcp.local.", "Backup box", 2222, {}),
    ("_webdav._tcp.local.", "Photo frame", 8080, {"path": "/dav"}),
    ("_ftp._tcp.local.", "Old router", 21, {}),
    ("_http._tcp.local.", "Not a share", 80, {}),
]
for kind, name, port, text in services:
    zc.register_service(ServiceInfo(kind, name + "." + kind, addresses=address, port=port, properties=text, server="box.local."))

connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
reader = connection.makefile("rb")
reader.readline()
answer = []
for attempt in range(5):
    connection.sendall(b"listneighbors\n")
    answer = []
    while True:
        line = reader.readline().decode().rstrip("\n")
        answer.append(line)
        if line == "OK" or line.startswith("ACK") or not line:
            break
    if len(answer) >= 9:
        break
    time.sleep(0.5)
print("\n".join(answer), flush=True)
zc.close()
