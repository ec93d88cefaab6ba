#!/usr/bin/env python3
"""Runs a command with its stdout on a pseudo-terminal COLS columns wide
(TIOCSWINSZ; COLUMNS unset) and prints what it wrote, \r\n as \n.

  python3 run_in_pty.py COLS CMD [ARGS...]

Exit status: the command's. Used by tests/it/fit.rs.
"""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

cols = int(sys.argv[1])
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
env = dict(os.environ)
env.pop("COLUMNS", None)
p = subprocess.Popen(sys.argv[2:], stdout=slave, stderr=subprocess.DEVNULL,
                     stdin=subprocess.DEVNULL, env=env)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 1 << 16)
    except OSError:  # EIO once the child closed its side
        break
    if not chunk:
        break
    out += chunk
code = p.wait()
sys.stdout.buffer.write(out.replace(b"\r\n", b"\n"))
sys.exit(code)
