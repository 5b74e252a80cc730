"""What a solution's worker may touch, as data: the one place to read (and review) the sandbox's policy.

The layers that enforce it (core/sandbox/confine.py) read everything from here: Landlock's grants (what
a worker may read, write and, on CUDA, execute; `carve` grants a folder entry by entry around what must
stay unreadable), the system calls seccomp refuses and the errno each gets, and the environment a
worker keeps. docs/SECURITY.md (The layers) describes each.
"""

from __future__ import annotations

import errno
import functools
import glob
import importlib.util
import os
import shutil
import site
import struct
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from infrakata.core.paths import BUNDLED, EXAMPLES

# -- files ------------------------------------------------------------------------------------------

# Access classes, mapped to Landlock's rights in landlock.py. LIST: a folder's names only, for a folder
# carved around answers (the import system lists a folder before it loads anything from it). LINK: a symbolic
# link on the way to a granted file (/usr/bin/gcc -> gcc-12 -> x86_64-linux-gnu-gcc-12, /sbin -> usr/sbin),
# made again in the view and granting nothing itself: the file it leads to has its own grant.
READ, LIST, WRITE, EXECUTE, DEVICE, LINK = "read", "list", "write", "execute", "device", "link"

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
# A CUDA worker: the driver's device files, and what Triton's compilers read (the headers and libraries gcc
# includes and links, Python's headers for the launcher) and run.
CUDA_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps/*")
CUDA_READABLE = ("/usr/include", "/usr/local/include", "/usr/local/cuda", "/etc/alternatives", "/proc/driver/nvidia",
                 "/usr/lib/gcc", "/usr/libexec")
# What a CUDA worker may run, each a file (never a folder of the system's): Triton's own ptxas (its package's
# backends/*/bin), the C compiler Triton builds its launcher with (CC, else gcc, else clang: Triton's choice) and
# the programs that compiler runs (COMPILER_PROGRAMS, found by asking it), and ldconfig (Triton's CUDA driver asks
# it where libcuda is). Each dynamically linked one also needs its ELF interpreter: the kernel opens the loader
# for execution (Landlock checks EXECUTE on it), so it is granted by the path the program names (PT_INTERP).
COMPILER_PROGRAMS = ("cc1", "as", "collect2", "ld")
LIBRARY_CACHE_PROGRAM = "/sbin/ldconfig"
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


PT_INTERP = 3


def elf_interpreter(program: Path) -> Path | None:
    """The ELF interpreter (the loader, /lib64/ld-linux-x86-64.so.2) a program names, or None: a static one, a
    script, or not an ELF file at all."""
    try:
        with open(program, "rb") as file:
            header = file.read(64)
            if header[:4] != b"\x7fELF" or header[4] not in (1, 2) or header[5] not in (1, 2):
                return None
            wide, order = header[4] == 2, "<" if header[5] == 1 else ">"
            table, entry_size, entries = (struct.unpack_from(order + "Q", header, 32)[0], *struct.unpack_from(
                order + "HH", header, 54)) if wide else (struct.unpack_from(order + "I", header, 28)[0],
                                                        *struct.unpack_from(order + "HH", header, 42))
            for index in range(min(entries, 256)):
                file.seek(table + index * entry_size)
                entry = file.read(entry_size)
                kind = struct.unpack_from(order + "I", entry, 0)[0]
                if kind != PT_INTERP:
                    continue
                offset, size = struct.unpack_from(order + ("Q16xQ" if wide else "I8xI"), entry,
                                                  8 if wide else 4)
                file.seek(offset)
                return Path(file.read(min(size, 4096)).rstrip(b"\0").decode())
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def c_compiler() -> Path | None:
    """The C compiler Triton builds its CUDA launcher with (triton/runtime/build.py): CC, else gcc, else clang."""
    chosen = os.environ.get("CC") or shutil.which("gcc") or shutil.which("clang")
    found = shutil.which(chosen) if chosen else None
    return Path(found) if found else None


@functools.lru_cache(maxsize=4)
def _compiler_programs(compiler: Path) -> tuple[Path, ...]:
    """The programs `compiler` runs to compile and link (COMPILER_PROGRAMS), as it finds them."""
    found = []
    for name in COMPILER_PROGRAMS:
        try:
            answer = subprocess.run([str(compiler), f"-print-prog-name={name}"], capture_output=True, text=True,
                                    timeout=10, check=False).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            continue
        located = answer if os.path.isabs(answer) else shutil.which(answer or name)
        if located and os.path.isfile(located):
            found.append(Path(located))
    return tuple(found)


def links_on_the_way(path: Path) -> list[Path]:
    """The symbolic links resolving `path` goes through (its folders' and its own, each link's target's in turn),
    in the order met: what a view must hold for `path` to lead where it does."""
    met: list[Path] = []
    pending, seen = [Path(os.path.abspath(path))], 0
    while pending and seen < 40:  # as the kernel's own bound on links in one lookup
        current, walked = pending.pop(), Path("/")
        for part in current.parts[1:]:
            walked = walked / part
            if os.path.islink(walked):
                seen += 1
                met.append(walked)
                rest = current.relative_to(walked)
                pending.append(Path(os.path.normpath(walked.parent / os.readlink(walked) / rest)))
                break
    return met


def cuda_executables() -> list[Path]:
    """Every file a CUDA worker may run (see COMPILER_PROGRAMS): each program by the file it resolves to, and the
    ELF interpreter each names, resolved (the links on the way are LINK grants: cuda_grants)."""
    triton = _package_folder("triton")
    programs = [p for p in sorted(triton.glob("backends/*/bin/*")) if p.is_file()] if triton is not None else []
    if os.environ.get("TRITON_PTXAS_PATH"):
        programs.append(Path(os.environ["TRITON_PTXAS_PATH"]))
    compiler = c_compiler()
    if compiler is not None:
        programs += [compiler, *_compiler_programs(compiler)]
    programs.append(Path(LIBRARY_CACHE_PROGRAM))
    files: list[Path] = []
    for program in programs:
        if not program.is_file():
            continue
        interpreter = elf_interpreter(program)
        files += [program, *([interpreter] if interpreter else [])]
    return list(dict.fromkeys(file for file in files if file.exists()))


def _executable_grants(denied: list[Path]) -> list[Grant]:
    """EXECUTE on each file a CUDA worker may run, and LINK on each link leading to one (the view needs them)."""
    found: list[Grant] = []
    for program in cuda_executables():
        real = program.resolve()
        if not any(real == a or a in real.parents for a in denied):
            found += [*(Grant(str(link), LINK) for link in links_on_the_way(program)), Grant(str(real), EXECUTE)]
    return list(dict.fromkeys(found))


def _python_headers() -> list[str]:
    """Python's C headers, where Triton's build looks for them (its launcher is a Python extension)."""
    scheme = sysconfig.get_default_scheme()
    paths = [sysconfig.get_paths(scheme="posix_prefix" if scheme == "posix_local" else scheme)[key]
             for key in ("include", "platinclude")]
    return [p for p in dict.fromkeys(paths) if os.path.isdir(p)]


def grants(private: Path, cuda: bool, denied: list[Path] | None = None) -> list[Grant]:
    """Everything a worker may open, and how. `private` is its own folder (its HOME, TMPDIR, caches).
    Every folder granted is carved around the answers (`denied`, by default `answers()`), wherever the
    install put them: in a virtual environment, or in a system folder (/usr/local/lib, /usr/lib)."""
    denied = answers() if denied is None else denied
    cuda_readable = (*CUDA_READABLE, *_python_headers()) if cuda else ()
    readable = [*python_folders(), *(Path(p) for p in (*SYSTEM_READABLE, *cuda_readable) if os.path.exists(p))]
    found = _without_nested(g for folder in readable for g in carve(folder, denied))
    found += [Grant(p, DEVICE) for p in DEVICES_READ_WRITE if os.path.exists(p)]
    if cuda:
        found += _executable_grants(denied)
        found += [Grant(p, DEVICE) for pattern in CUDA_DEVICES for p in sorted(glob.glob(pattern))]
        found += [Grant(p, WRITE) for p in CUDA_WRITABLE if os.path.isdir(p)]
    found.append(Grant(str(private), WRITE))
    return found


def proc_grants(pid: int) -> list[Grant]:
    """Of the machine's /proc, what a worker without a PID namespace may read: its own entry (not its
    children's), and PROC_SYSTEM_READABLE."""
    return [Grant(p, READ) for p in (f"/proc/{pid}", *PROC_SYSTEM_READABLE) if os.path.exists(p)]


def readable_by_workers(path: Path, granted: Iterable[Grant]) -> bool:
    """Whether a worker could read `path` under these grants (kata doctor checks the answers are not)."""
    path = path.resolve()
    return any(path == Path(g.path) or Path(g.path) in path.parents for g in granted if g.access not in (LIST, LINK))


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
