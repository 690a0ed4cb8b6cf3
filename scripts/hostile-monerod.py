#!/usr/bin/env python3
"""A monerod that misbehaves on purpose, for tests of scan-blocks --node (127.0.0.1 only).

    hostile-monerod.py MODE      prints its port, then serves one connection at a time for 120 s

MODE: silent (accepts and never answers), trickle (one byte every 0.5 s), endless (a 200 OK
whose body never ends), heights=A,B,... (get_height answers A, then B, ...; the last again).
Any other call gets 404. It is not a fake of monerod's answers (the live-node tests use the
real monerod): only of the ways a node can fail.
"""
import socket
import sys
import time

mode = sys.argv[1]
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(8)
print(server.getsockname()[1], flush=True)
end = time.time() + 120
served = 0
while time.time() < end:
    server.settimeout(max(0.1, end - time.time()))
    try:
        conn, _ = server.accept()
    except socket.timeout:
        break
    conn.settimeout(5)
    try:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                break
            request += chunk
        if mode == "silent":
            time.sleep(30)
        elif mode == "trickle":
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n" + b"x" * 20:
                conn.send(bytes([byte]))
                time.sleep(0.5)
        elif mode == "endless":
            conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
            chunk = b" " * 65536
            while time.time() < end:
                conn.send(chunk)
        elif mode.startswith("heights="):
            heights = mode[len("heights="):].split(",")
            if b"get_height" in request.split(b"\r\n")[0]:
                body = b'{"height": %s, "status": "OK"}' % heights[min(served, len(heights) - 1)].encode()
                served += 1
                conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            else:
                conn.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
    finally:
        conn.close()
