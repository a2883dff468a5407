"""pty_run.py CMD [ARG...]

Run CMD on a new pseudo-terminal that is its controlling terminal and its
stdin, stdout and stderr, as a login shell would run it; print what the
terminal showed; then print what is waiting in the terminal's input queue,
which is what the user's shell would read and run next:

    pending-input: ''            nothing was injected
    pending-input: 'echo x\\n'   something was (CVE-2017-5226)

Exits with CMD's status (128+N for a signal)."""
import errno, fcntl, os, select, signal, sys, termios

master, slave = os.openpty()
pid = os.fork()
if pid == 0:
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.closerange(3, 1024)
    os.execvp(sys.argv[1], sys.argv[1:])

shown = b""
status = None
while status is None:
    r, _, _ = select.select([master], [], [], 0.05)
    if r:
        try:
            shown += os.read(master, 65536)
        except OSError:
            pass
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
while select.select([master], [], [], 0.1)[0]:
    try:
        data = os.read(master, 65536)
    except OSError:
        break
    if not data:
        break
    shown += data
sys.stdout.write(shown.decode(errors="replace").replace("\r\n", "\n"))

# The slave is still ours: read its input queue without waiting.
fl = fcntl.fcntl(slave, fcntl.F_GETFL)
fcntl.fcntl(slave, fcntl.F_SETFL, fl | os.O_NONBLOCK)
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ICANON  # a partial line counts too
attrs[6][termios.VMIN] = 0
attrs[6][termios.VTIME] = 0
termios.tcsetattr(slave, termios.TCSANOW, attrs)
pending = b""
try:
    pending = os.read(slave, 4096)
except OSError as e:
    if e.errno != errno.EAGAIN:
        raise
print("pending-input: %r" % pending.decode(errors="replace"))
sys.exit(status if status >= 0 else 128 - status)
