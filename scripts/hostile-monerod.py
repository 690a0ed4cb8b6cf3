#!/usr/bin/env python3
"""A monerod that misbehaves on purpose, for tests of scan-blocks --node (127.0.0.1 only).

    hostile-monerod.py MODE      prints its port, then serves one connection at a time for 120 s

MODE: silent (accepts and never answers), trickle (one byte every 0.5 s), endless (a 200 OK
whose body never ends), heights=A,B,... (get_height answers A, then B, ...; the last again),
epee=garbage|truncated (a chain of 1 block, the binary calls answered with bytes that are not
epee, or epee cut short), block=garbage (the one block's blob is not a Monero block),
txblob=bad (an empty chain whose pool holds a tx_blob that is not hex), large (get_height
answered in 1 MiB of JSON; to a request that says "Connection: close" only its first 128 KiB
and then the connection closes, as monerod 0.18's epee server does: measured on the real
monerod, whose get_blocks.bin of the bulk bench chain broke off there).
Any other call gets 404. It is not a fake of monerod's answers (the live-node tests use the
real monerod): only of the ways a node can fail.
"""
import socket
import sys
import time

mode = sys.argv[1]


def packed(n):
    """epee's varint: the low two bits say its width."""
    for width, marker in ((1, 0), (2, 1), (4, 2), (8, 3)):
        if n < 1 << (8 * width - 2):
            return ((n << 2) | marker).to_bytes(width, "little")


def section(fields):
    """An epee object of (name, type, encoded value) fields."""
    out = packed(len(fields))
    for name, kind, value in fields:
        out += bytes([len(name)]) + name + bytes([kind]) + value
    return out


def epee_blocks(blob):
    """get_blocks_by_height.bin's answer: one block (a string) with no transactions."""
    block = section([(b"block", 10, packed(len(blob)) + blob)])
    header = bytes([0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01])
    return header + section([(b"blocks", 0x80 | 12, packed(1) + block), (b"status", 10, packed(2) + b"OK")])


def answer(conn, body, status=b"200 OK"):
    conn.send(b"HTTP/1.1 " + status + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)

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
    # No deadline of its own on a send: a reader slowed by a busy machine must meet the same
    # server as a fast one (a 5 s send timeout once ended the endless body early). The
    # server's lifetime bounds every call.
    conn.settimeout(max(0.1, end - time.time()))
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
        elif mode == "large":
            body = b'{"height": 7, "status": "OK", "padding": "' + b"x" * (1 << 20) + b'"}'
            reply = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            if b"connection: close" in request.lower():
                reply = reply[:128 << 10]
            conn.sendall(reply)
        elif mode.startswith("heights="):
            heights = mode[len("heights="):].split(",")
            if b"get_height" in request.split(b"\r\n")[0]:
                body = b'{"height": %s, "status": "OK"}' % heights[min(served, len(heights) - 1)].encode()
                served += 1
                conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            else:
                conn.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        elif mode.split("=")[0] in ("epee", "block", "txblob"):
            # The body too: a socket closed with unread bytes sends a reset, not the answer.
            head, _, body = request.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                body += chunk
            target = request.split(b"\r\n")[0].split(b" ")[1]
            if target.endswith(b"/get_height"):
                answer(conn, b'{"height": %d, "status": "OK"}' % (0 if mode.startswith("txblob") else 1))
            elif target.endswith(b"/get_transaction_pool"):
                pool = b'[{"tx_blob": "zz", "id_hash": "00"}]' if mode == "txblob=bad" else b"[]"
                answer(conn, b'{"status": "OK", "transactions": %s}' % pool)
            elif target.endswith(b".bin"):
                good = epee_blocks(b"\x0e\x0e garbage, not a block")
                answer(conn, {"epee=garbage": b"this is not epee", "epee=truncated": good[:-7]}.get(mode, good))
            else:
                answer(conn, b"", b"404 Not Found")
    except OSError:
        pass
    finally:
        conn.close()
