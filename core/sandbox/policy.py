"""What a solution's worker may touch, as data: the one place to read (and review) the sandbox's policy.

The layers that enforce it (core/sandbox/confine.py) read everything from here: Landlock's grants (what
a worker may read, write and, on CUDA, execute; `carve` grants a folder entry by entry around what must
stay unreadable), the system calls seccomp refuses and the errno each gets, and the environment a
worker keeps. docs/SECURITY.md (The layers) describes each.
"""

from __future__ import annotations

import errno
import glob
import importlib.util
import os
import site
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from infrakata.core.paths import BUNDLED, EXAMPLES

# -- files ------------------------------------------------------------------------------------------

# Access classes, mapped to Landlock's rights in landlock.py. LIST: a folder's names only, for a folder
# carved around answers (the import system lists a folder before it loads anything from it).
READ, LIST, WRITE, EXECUTE, DEVICE = "read", "list", "write", "execute", "device"

SYSTEM_READABLE = (
    "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/usr/share/zoneinfo",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/passwd", "/etc/group",
    "/etc/nsswitch.conf",
    # torch reads the CPU's capabilities and NUMA layout; in a PID namespace /proc shows the worker's own tree.
    "/proc", "/sys",
    "/dev/urandom", "/dev/random",
)
DEVICES_READ_WRITE = ("/dev/null", "/dev/zero", "/dev/full")
# Without a PID namespace /proc is the machine's, every process's command line in it: a worker reads
# its own entry and these (the CPU's and memory's descriptions) only.
PROC_SYSTEM_READABLE = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys/kernel", "/proc/sys/vm")
# A CUDA worker: the driver's device files, and what Triton's compiler reads and runs (gcc for its
# launcher, ptxas from its own package), with the headers they include.
CUDA_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps/*")
CUDA_READABLE = ("/usr/include", "/usr/local/include", "/usr/local/cuda", "/etc/alternatives", "/proc/driver/nvidia")
CUDA_EXECUTABLE = ("/usr/bin", "/bin", "/usr/lib/gcc", "/usr/libexec", "/usr/local/cuda/bin")
# torch's CUDA IPC (the benchmark's last output, opened by the reference's worker) keeps its reference
# counter in a shared-memory file; the reference's worker opens it by the name the handle gives.
CUDA_WRITABLE = ("/dev/shm",)


@dataclass(frozen=True)
class Grant:
    path: str
    access: str  # READ, WRITE, EXECUTE (read and run), DEVICE (read, write and ioctl)


def _package_folder(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


# What of infrakata.kernels a solution may import: the shared Triton helpers, not our solved katas.
KERNEL_HELPERS = ("__init__.py", "bf16.py")


def answers() -> list[Path]:
    """What holds answers and sits where a worker's packages are: the bundled catalogue (references,
    editorials, wrong solutions), the bundled examples (solved katas) and our own kernels (the Triton
    katas solved, and their bytecode)."""
    # By the product's own folders too: an editable install's import hook may not name them as packages.
    found = [BUNDLED.resolve(), EXAMPLES.resolve()]
    for package in ("infrakata.problems", "infrakata.examples"):
        folder = _package_folder(package)
        if folder is not None:
            found.append(folder)
    kernels = _package_folder("infrakata.kernels")
    if kernels is not None:
        found += [kernels / name for name in sorted(os.listdir(kernels)) if name not in KERNEL_HELPERS]
    return sorted(set(found))


def python_folders() -> list[Path]:
    """The interpreter's standard library and the environment's packages, and infrakata's engine
    wherever it is installed (in site-packages, or the checkout of an editable install)."""
    paths = sysconfig.get_paths()
    candidates = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths]
    candidates += [os.path.join(sys.base_prefix, "lib"), os.path.join(sys.prefix, "lib")]
    candidates += [p for p in sys.path if "site-packages" in p or "dist-packages" in p]
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    for package in ("infrakata.core", "infrakata.kernels"):  # the kernels' answers are carved out (answers())
        folder = _package_folder(package)
        if folder is not None:
            candidates.append(str(folder))
    return sorted({Path(p).resolve() for p in candidates if p and os.path.isdir(p)})


def carve(folder: Path, denied: Iterable[Path], access: str = READ) -> list[Grant]:
    """`folder`, as grants that leave out every denied path under it: the folder whole when none is
    under it, else its names (LIST) and its entries one by one (recursing only towards the denied ones)."""
    real = folder.resolve()  # a granted link (/lib -> usr/lib) reaches what its target holds
    denied = [d for d in denied if d == real or real in d.parents]
    if not denied:
        return [Grant(str(folder), access)]
    if real in denied:
        return []
    try:
        entries = sorted(os.scandir(real), key=lambda e: e.name)
    except OSError:
        return []
    granted = [Grant(str(real), LIST)]
    for entry in entries:
        granted += carve(Path(entry.path), denied, access)
    return granted


def _without_nested(found: Iterable[Grant]) -> list[Grant]:
    """One READ grant per tree: a path under a folder read whole adds nothing (LIST grants stay: they
    are the folders carved around answers)."""
    whole: list[Path] = []
    kept: list[Grant] = []
    for grant in sorted(set(found), key=lambda g: (len(Path(g.path).parts), g.path, g.access)):
        path = Path(grant.path)
        if any(path == w or w in path.parents for w in whole):
            continue
        if grant.access == READ:
            whole.append(path)
        kept.append(grant)
    return sorted(kept, key=lambda g: g.path)


def grants(private: Path, cuda: bool, denied: list[Path] | None = None) -> list[Grant]:
    """Everything a worker may open, and how. `private` is its own folder (its HOME, TMPDIR, caches).
    Every folder granted is carved around the answers (`denied`, by default `answers()`), wherever the
    install put them: in a virtual environment, or in a system folder (/usr/local/lib, /usr/lib)."""
    denied = answers() if denied is None else denied
    readable = [*python_folders(), *(Path(p) for p in (*SYSTEM_READABLE, *(CUDA_READABLE if cuda else ()))
                                     if os.path.exists(p))]
    found = _without_nested(g for folder in readable for g in carve(folder, denied))
    found += [Grant(p, DEVICE) for p in DEVICES_READ_WRITE if os.path.exists(p)]
    if cuda:
        found += [g for p in CUDA_EXECUTABLE if os.path.exists(p) for g in carve(Path(p), denied, EXECUTE)]
        found += [Grant(p, DEVICE) for pattern in CUDA_DEVICES for p in sorted(glob.glob(pattern))]
        found += [Grant(p, WRITE) for p in CUDA_WRITABLE if os.path.isdir(p)]
        triton = _package_folder("triton")
        if triton is not None:  # ptxas and friends ship inside the package
            found += [Grant(str(p), EXECUTE) for p in sorted(triton.glob("backends/*/bin"))]
    found.append(Grant(str(private), WRITE))
    return found


def proc_grants(pid: int) -> list[Grant]:
    """Of the machine's /proc, what a worker without a PID namespace may read: its own entry (not its
    children's), and PROC_SYSTEM_READABLE."""
    return [Grant(p, READ) for p in (f"/proc/{pid}", *PROC_SYSTEM_READABLE) if os.path.exists(p)]


def readable_by_workers(path: Path, granted: Iterable[Grant]) -> bool:
    """Whether a worker could read `path` under these grants (kata doctor checks the answers are not)."""
    path = path.resolve()
    return any(path == Path(g.path) or Path(g.path) in path.parents for g in granted if g.access != LIST)


# -- system calls -----------------------------------------------------------------------------------

# Refused with EPERM: reading or steering other processes, privileges, namespaces and mounts, the
# kernel's own interfaces. A solution needs none of them.
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "process_madvise",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups",
    "capset",
    "unshare", "setns",
    # A worker's processes stay in its process group, so that stopping or killing the group reaches them all.
    "setsid", "setpgid",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "io_uring_setup",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "vhangup",
    # Memory that no process's size counts (the grader's memory poll reads processes): System V segments,
    # which live on detached from any process, and memory files, which live on unmapped in a descriptor.
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
    "semtimedop", "semctl", "memfd_create", "memfd_secret",
    # POSIX message queues: the same, and shared by every process of an IPC namespace (CUDA workers keep
    # the machine's).
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # Sockets: only the connected pairs of socketpair, which reach each other and nothing else. A socket of
    # its own, or an address given to connect or a send, could reach any Unix socket on the host (X11,
    # journald, a user's own services): Landlock does not cover connect() on a pathname socket.
    "socket", "connect", "bind", "listen", "accept", "accept4", "sendmsg", "sendmmsg",
)
DENIED_ERRNO = errno.EPERM
# socketpair: Unix ones only (no network, no netlink); sendto only without an address. clone3 is refused
# as unimplemented so that the C library falls back to clone, whose flags a filter can read (no new
# namespaces).
SOCKET_FAMILY_ALLOWED = 1  # AF_UNIX
SOCKET_ERRNO = errno.EAFNOSUPPORT
# fcntl(F_SETPIPE_SZ): a pipe keeps its default 64 KiB buffer; with the descriptor limit, the bytes pipes
# and socket pairs can hold outside any process stay bounded (tens of MiB).
F_SETPIPE_SZ = 1031
WORKER_DESCRIPTORS = 256  # RLIMIT_NOFILE of a worker
CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
                         0x00000080)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
# prctl options a solution may not use: PR_SET_PDEATHSIG (dying with its parent is how its tree is
# taken down) and PR_SET_PTRACER (opening itself to a tracer).
DENIED_PRCTL = (1, 0x59616D61)

# -- the environment --------------------------------------------------------------------------------

KEPT_ENVIRONMENT = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH")
KEPT_ENVIRONMENT_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "TRITON_", "TORCH_", "PYTORCH_", "OMP_", "MKL_",
                             "OPENBLAS_", "KMP_")


def worker_environment(environ: dict[str, str], private: Path) -> dict[str, str]:
    """The environment a worker runs with: what Python, torch and CUDA need, its private folder as
    home and temporary folder, and nothing else of the grader's."""
    kept = {k: v for k, v in environ.items()
            if k in KEPT_ENVIRONMENT or k.startswith(KEPT_ENVIRONMENT_PREFIXES)}
    home = str(private)
    kept.update(HOME=home, TMPDIR=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
                TRITON_CACHE_DIR=os.path.join(home, "triton"), TRITON_HOME=home)
    return kept


# CUDA workers stay in the machine's PID and IPC namespaces: legacy CUDA IPC (torch's, by which the benchmark's
# trusted worker opens the solution's last output on the device) cannot open a handle made in another PID
# namespace. What the PID namespace gives a CPU worker, other layers give them (docs/SECURITY.md, CUDA workers).
# With this variable set to 1, the zygote confines every worker so: the route, tested where there is no GPU.
CONFINE_AS_CUDA = "INFRAKATA_CONFINE_AS_CUDA"

# Where a zygote's started with the grader's environment, what it may keep: the worker's share plus
# what the trusted side uses (the grader's caches and home, for the reference's compiled kernels).
ZYGOTE_ENVIRONMENT = KEPT_ENVIRONMENT + ("HOME", "USER", "LOGNAME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "TMPDIR",
                                         "PYTHONPATH", "VIRTUAL_ENV", CONFINE_AS_CUDA)


def zygote_environment(environ: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items()
            if k in ZYGOTE_ENVIRONMENT or k.startswith(KEPT_ENVIRONMENT_PREFIXES)}
