"""The layers that confine a solution's worker, applied before the solution loads, inherited by all it starts.

A Confinement is made once in the zygote (the policy's grants, the compiled seccomp program, what the
kernel offers) and applied by every spare: `isolate` (the namespaces), then, after CUDA's warm-up,
`restrict` (the view, privileges, process tree, Landlock, seccomp). Each layer is probed where it is
made and reported (`kata doctor`). What each holds: docs/SECURITY.md (The layers).
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import shutil
import signal
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from infrakata.core.sandbox import landlock, policy, seccomp
from infrakata.core.sandbox.libc import PR_SET_KEEPCAPS, c_library
from infrakata.core.sandbox.lifeline import die_with_parent
from infrakata.core.sandbox.protocol import Layer

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (
    0x00020000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE, MS_SLAVE, MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 0x4000, 1 << 18, 1 << 19, 1024, 2048, 1 << 21
MNT_DETACH = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
CAP_DAC_READ_SEARCH = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
# A uid of its own per worker when the grader runs as root: far above any login's, unique across the
# graders of a machine (a block per zygote, by its PID), recycled within the block (a worker's uid has
# nothing left running once its run ends).
WORKER_UID_BASE, WORKER_UID_BLOCK = 2_000_000_000, 256
NPROC_CPU, NPROC_CUDA = 64, 512  # tasks (processes and threads) of one worker; CUDA starts its own threads
PRIVATE_BYTES_CPU, PRIVATE_BYTES_CUDA = 64 << 20, 1 << 30  # the private tmpfs (a CUDA worker's compiled kernels)
LAYERS = ("namespaces", "view", "privileges", "process tree", "landlock", "seccomp")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _fail(what: str) -> OSError:
    error = ctypes.get_errno()
    return OSError(error, f"{what}: {os.strerror(error)}")


def _set_capabilities(effective: int) -> None:
    """This process's capabilities: `effective` (a mask of the first 32) and nothing more."""
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)(_CapData(effective, effective, 0), _CapData(0, 0, 0))
    if c_library().capset(ctypes.byref(header), data) != 0:
        raise _fail("capset")


def _a_file_in(path: Path) -> Path | None:
    """`path` itself if a file, else the first file below it (what the probe tries to read)."""
    if path.is_file():
        return path
    for folder, _, files in os.walk(path):
        if files:
            return Path(folder) / sorted(files)[0]
    return None


def _enterable_by_others(path: Path) -> bool:
    """Whether a user with no relation to the owner can reach `path` (search on every folder above it)."""
    for folder in [path, *path.parents]:
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return False
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return True


@dataclass
class Spare:
    """What one worker is confined with: its private folder, the folder its own root is built in (the
    view) or, as root, the view's template it pivots into, and as root its uid."""

    private: Path
    uid: int | None
    view_root: Path
    pid_namespace: bool = True  # a PID namespace of its own (CUDA workers have none: policy.CONFINE_AS_CUDA)
    proc_hidden: bool = False  # without one: a /proc of its own showing only its uid's processes (hidepid)
    template: ViewTemplate | None = None  # view_root is the template's: its private folder exists only there

    def folders(self) -> tuple[Path, ...]:
        """What is left of it on the machine once it exited."""
        return () if self.template else (self.private, self.view_root)

    def mount_point(self, path: str) -> bytes:
        """Where a mount at `path` of its view is made before the view is its root."""
        return (str(self.view_root) + path if self.template else path).encode()


@dataclass
class ViewTemplate:
    """A kind of worker's view, built once by the zygote as root, in a mount namespace of the zygote's
    own: a worker's mount namespace starts as a copy of the zygote's, so each worker mounts only its /proc
    and its private folder in the copy and pivots into it (about 50 mount calls fewer per worker)."""

    root: Path
    places: int


@dataclass
class Confinement:
    """What the zygote prepares once for every worker it forks (the policy's grants, Landlock's ABI, the
    seccomp program, the answers to keep out of reach), and what the workers' probe found held."""

    root: bool = field(default_factory=lambda: os.geteuid() == 0)
    landlock_abi: int = 0
    seccomp_program: bytes | None = None
    seccomp_error: str = ""
    grants: dict[bool, list[policy.Grant]] = field(default_factory=dict)  # by CUDA, without the private folder
    read_bypass: bool = False  # keep CAP_DAC_READ_SEARCH after the uid drop (docs/SECURITY.md, The layers: Privileges)
    runtime: Path = Path()
    answers: list[Path] = field(default_factory=list)  # what must stay out of a worker's reach
    answer_samples: list[Path] = field(default_factory=list)  # a file of each, which the probe may not read
    home_pid_namespace: int | None = None  # root: the zygote's own PID namespace, to return to after a fork
    answers_readable: list[str] = field(default_factory=list)
    count: int = 0
    templates: dict[bool, ViewTemplate] = field(default_factory=dict)  # by CUDA, as root
    # Every worker confined as a CUDA worker is, where there may be no GPU (policy.CONFINE_AS_CUDA): the machine's
    # PID namespace, the CUDA grants (what it may read, write and execute), its view and its limits.
    as_cuda: bool = field(default_factory=lambda: os.environ.get(policy.CONFINE_AS_CUDA) == "1")

    def route(self, cuda: bool) -> bool:
        """Whether a worker (a CUDA one, or not) is confined by the CUDA route."""
        return cuda or self.as_cuda

    @classmethod
    def prepare(cls, runtime: Path) -> Confinement:
        """In the zygote, once: the policy, the kernel's Landlock, the seccomp program."""
        made = cls(runtime=runtime, landlock_abi=landlock.abi_version())
        if made.root:
            made.home_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        try:
            made.seccomp_program = seccomp.build()
        except seccomp.SeccompUnavailable as error:
            made.seccomp_error = str(error)
        placeholder = runtime / "worker"
        for cuda in (False, True):
            made.grants[cuda] = [g for g in policy.grants(placeholder, cuda) if g.path != str(placeholder)]
        if made.root:
            made.read_bypass = not all(_enterable_by_others(Path(g.path)) for g in made.grants[False]
                                       if g.access == policy.READ and g.path.startswith(("/root", "/home")))
        made.answers = policy.answers()
        made.answer_samples = [sample for sample in map(_a_file_in, made.answers) if sample is not None]
        made.answers_readable = [str(a) for a in made.answers if policy.readable_by_workers(a, made.grants[True])]
        if made.root:
            made._make_view_templates()
        return made

    def _make_view_templates(self) -> None:
        """The views, built once (ViewTemplate), in a mount namespace of this process's own that sees the
        machine's mounts and whose own mounts never reach the machine. Where a step fails, workers build
        their views themselves."""
        libc = c_library()
        if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(b"none", b"/", None, MS_REC | MS_SLAVE, None) != 0:
            return
        private = str(self.runtime / "worker")  # each worker's, in every worker's view: made a mount point
        for cuda in (False, True):
            root = self.runtime / ("view-cuda" if cuda else "view")
            root.mkdir(mode=0o700)
            try:
                places = _build_view(libc, root, [*self.grants[cuda], policy.Grant(private, policy.WRITE)],
                                     mount_points=(private,))
            except OSError:
                libc.umount2(str(root).encode(), MNT_DETACH)
                continue
            self.templates[cuda] = ViewTemplate(root, places)

    def remove_runtime(self) -> None:
        """This zygote's runtime folder, with all in it, once its views' templates are detached: the
        removal must not follow a template into the machine's folders bound there (/dev/shm, writable)."""
        for template in self.templates.values():
            if c_library().umount2(str(template.root).encode(), MNT_DETACH) != 0:
                return
        shutil.rmtree(self.runtime, ignore_errors=True)

    # -- in the zygote ----------------------------------------------------------------------------

    def new_spare(self, cuda: bool) -> Spare:
        self.count += 1
        uid = WORKER_UID_BASE + os.getpid() * WORKER_UID_BLOCK + self.count % WORKER_UID_BLOCK if self.root else None
        pid_namespace = not self.route(cuda)
        template = self.templates.get(self.route(cuda))
        if template is not None:
            return Spare(self.runtime / "worker", uid, template.root, pid_namespace, template=template)
        private, view_root = self.runtime / f"w{self.count}", self.runtime / f"r{self.count}"
        private.mkdir(mode=0o700)
        view_root.mkdir(mode=0o700)
        if uid is not None:
            os.chown(private, uid, uid)
        return Spare(private, uid, view_root, pid_namespace)

    # -- in the spare -----------------------------------------------------------------------------

    def fork(self, spare: Spare) -> int:
        """os.fork() for a confined worker: as root, the child is born the first process of a PID
        namespace of its own (one fork, where otherwise the spare must fork again inside its namespace)."""
        libc = c_library()
        if not spare.pid_namespace or self.home_pid_namespace is None or libc.unshare(CLONE_NEWPID) != 0:
            return os.fork()
        pid = os.fork()
        if pid == 0:
            os.close(self.home_pid_namespace)
            return 0
        # Back to the zygote's own namespace for its next child (only the child may be in the new one).
        if libc.setns(self.home_pid_namespace, CLONE_NEWPID) != 0:
            raise _fail("setns back to the zygote's PID namespace")
        return pid

    def isolate(self, spare: Spare, cuda: bool, lifeline: int,
                close_in_waiter: tuple[int, ...] = ()) -> tuple[list[Layer], int]:
        """New namespaces. A process not born in a PID namespace of its own (see fork) makes one and
        forks the worker proper (its first process), then stays behind to wait for it: only the worker
        returns from here. A worker without one (`spare.pid_namespace`) keeps the machine's PID and IPC
        namespaces. -> the layer, and the worker's lifeline to its parent from now on."""
        born_first = os.getpid() == 1 or not spare.pid_namespace
        flags = CLONE_NEWNET | CLONE_NEWNS
        if spare.pid_namespace:
            flags |= CLONE_NEWIPC | (0 if born_first else CLONE_NEWPID)
        uid, gid = os.getuid(), os.getgid()
        libc = c_library()
        if libc.unshare(flags if self.root else flags | CLONE_NEWUSER) != 0:
            error = ctypes.get_errno()
            hint = "" if self.root else (" (unprivileged user namespaces are disabled here: sysctl "
                                         "kernel.unprivileged_userns_clone or AppArmor's userns restriction)")
            return [Layer("namespaces", False, f"unshare: {os.strerror(error)}{hint}")], lifeline
        if not self.root:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as mapping:
                    mapping.write(text)
        if not born_first:
            ours, held = os.pipe()  # the worker's lifeline: its waiter holds the other end
            worker = os.fork()
            if worker != 0:
                os.close(ours)
                _wait_for(worker, close_in_waiter)
            os.close(held)
            lifeline = ours
            die_with_parent(lifeline)  # its parent is outside the namespace: getppid() would say 0
        if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            raise _fail("mount --make-rprivate /")
        proc_mount = spare.mount_point("/proc")
        if spare.pid_namespace:
            if libc.mount(b"proc", proc_mount, b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
                raise _fail("mount /proc")
        else:
            spare.proc_hidden = self._mount_hidden_proc(libc, proc_mount)
        size = PRIVATE_BYTES_CUDA if self.route(cuda) else PRIVATE_BYTES_CPU
        owner = spare.uid if spare.uid is not None else uid
        options = f"size={size},mode=0700,uid={owner},gid={owner}".encode()
        if libc.mount(b"tmpfs", spare.mount_point(str(spare.private)), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
            raise _fail(f"mount tmpfs on {spare.private}")
        if spare.pid_namespace:
            kinds = "PID, network, mount, IPC" + ("" if self.root else ", user")
            return [Layer("namespaces", True, f"{kinds}; a private /proc and a {size >> 20} MiB private tmpfs")], \
                lifeline
        kinds = "network, mount" + ("" if self.root else ", user")
        proc = ("a /proc of its own that shows its own processes only (hidepid)" if spare.proc_hidden else
                "of the machine's /proc, Landlock grants its own entry only")
        return [Layer("namespaces", True, f"{kinds}, and the machine's PID and IPC namespaces (CUDA IPC needs them): "
                                          f"{proc}; a {size >> 20} MiB private tmpfs")], lifeline

    @staticmethod
    def _mount_hidden_proc(libc: ctypes.CDLL, proc: bytes) -> bool:
        """A procfs in the worker's mount namespace that lists only its own uid's processes: as root, where
        each worker has a uid of its own. In a user namespace procfs cannot be mounted without a PID
        namespace of its own (Landlock restricts the machine's /proc instead). -> whether it was."""
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        for hidden in (b"hidepid=invisible", b"hidepid=2"):  # the name since Linux 5.8, the number before
            if libc.mount(b"proc", proc, b"proc", flags, hidden) == 0:
                return True
        return False

    def restrict(self, spare: Spare, cuda: bool, namespaced: bool, lifeline: int) -> list[Layer]:
        """Everything but the namespaces, in the order each needs: the view (while it may still mount),
        the environment and the folder it runs in, the privileges, the process limit, Landlock, seccomp."""
        route = self.route(cuda)
        view = self._view(spare, route) if namespaced else Layer(
            "view", False, "needs a mount namespace of its own (see namespaces): without it, a worker sees this "
                           "machine's files, and only Landlock and file modes keep it from reading them")
        environment = policy.worker_environment(dict(os.environ), spare.private)
        os.environ.clear()
        os.environ.update(environment)
        tempfile.tempdir = None  # found again from TMPDIR (the private folder), not the zygote's /tmp
        os.chdir(spare.private)
        return [view, self._drop_privileges(spare, namespaced, lifeline, view.active),
                self._limit_processes(spare, route, namespaced), self._landlock(spare, route, namespaced, cuda),
                self._seccomp()]

    def _view(self, spare: Spare, cuda: bool) -> Layer:
        """A root of the worker's own (a tmpfs) holding only what the policy grants, bound read-only (its
        private folder and the devices writable), pivoted into: the answers, the workspace, the grader's
        files, /tmp and /run (and the sockets there) and every other user's files are not there at all.
        The same grants as Landlock's, enforced without it."""
        libc = c_library()
        root = spare.view_root
        try:
            if spare.template is None:
                places = _build_view(libc, root, [*self.grants[cuda], policy.Grant(str(spare.private), policy.WRITE)])
            else:
                places = spare.template.places
            os.chdir(root)
            if libc.syscall(SYS_PIVOT_ROOT[os.uname().machine], b".", b".") != 0:
                raise _fail("pivot_root")
            if libc.umount2(b".", MNT_DETACH) != 0:
                raise _fail("umount the old root")
            os.chdir("/")
        except OSError as error:
            return Layer("view", False, f"could not be built ({error}): a worker sees this machine's files, and only "
                                        f"Landlock and file modes keep it from reading them")
        return Layer("view", True, f"a root of its own with only the policy's {places} places, read-only but its "
                                   f"private folder: no answers, workspace, /tmp, /run or other users' files")

    def _drop_privileges(self, spare: Spare, namespaced: bool, lifeline: int, viewed: bool) -> Layer:
        libc = c_library()
        if spare.uid is None:
            if namespaced:  # the user namespace gave this process every capability in it: none is kept
                _set_capabilities(0)
                return Layer("privileges", True, f"not root: runs as your user (uid {os.getuid()}), "
                                                 f"no capabilities")
            return Layer("privileges", True, f"not root: runs as your user (uid {os.getuid()})")
        uid = spare.uid
        libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        # In its own view every folder above a granted one is the view's, and open to all: nothing to bypass.
        keep = self.read_bypass and self.landlock_abi > 0 and not viewed
        _set_capabilities(1 << CAP_DAC_READ_SEARCH if keep else 0)
        libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
        # A change of credentials clears the parent-death signal: set again (seccomp forbids it later).
        die_with_parent(lifeline)
        detail = f"uid and gid {uid}, no capabilities"
        if keep:
            detail = (f"uid and gid {uid}; keeps CAP_DAC_READ_SEARCH only, confined by Landlock, because the "
                      f"interpreter lives where other users cannot enter ({sys.base_prefix})")
        return Layer("privileges", True, detail)

    def _limit_processes(self, spare: Spare, cuda: bool, namespaced: bool) -> Layer:
        nproc = NPROC_CUDA if cuda else NPROC_CPU
        counted = spare.uid is not None or namespaced and not self.root
        if counted:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_NOFILE, (policy.WORKER_DESCRIPTORS, policy.WORKER_DESCRIPTORS))
        if namespaced and spare.pid_namespace:
            ending = "everything dies with the worker (PID namespace)"
        elif spare.uid is not None:
            ending = "its uid is swept after the run"
        elif namespaced:
            ending = "its processes cannot leave its process group (seccomp), which is killed after the run"
        else:
            return Layer("process tree", False, "no PID namespace and not root: processes that leave the worker's "
                                                "tree are swept when the zygote sees them orphaned, and no process "
                                                "count can be set for your own user")
        return Layer("process tree", True, f"at most {nproc} tasks and {policy.WORKER_DESCRIPTORS} descriptors; "
                                           f"memory polled over the tree; {ending}")

    def _landlock(self, spare: Spare, route: bool, namespaced: bool, cuda: bool) -> Layer:
        if self.landlock_abi <= 0:
            return Layer("landlock", False, "the kernel has no Landlock (Linux 5.13+, with landlock in its LSM list)")
        granted = [*self.grants[route], policy.Grant(str(spare.private), policy.WRITE)]
        machines_proc = not namespaced or not spare.pid_namespace and not spare.proc_hidden
        if machines_proc:  # of the machine's /proc, only this worker's own entry and what torch reads
            granted = [g for g in granted if g.path != "/proc"] + policy.proc_grants(os.getpid())
        enforced = landlock.restrict(granted, self.landlock_abi)
        detail = f"ABI {self.landlock_abi}: " + ", ".join(enforced)
        if machines_proc:
            detail += "; of /proc, its own entry only"
        if cuda:
            detail += " (the CUDA driver's threads started before it are not restricted; seccomp covers them)"
        if self.landlock_abi < 6:
            return Layer("landlock", False, detail + "; signals are not scoped before ABI 6 (Linux 6.12)")
        return Layer("landlock", True, detail)

    def _seccomp(self) -> Layer:
        if self.seccomp_program is None:
            return Layer("seccomp", False, self.seccomp_error)
        seccomp.load(self.seccomp_program)
        return Layer("seccomp", True, f"{len(policy.DENIED_SYSCALLS)} system calls refused; no socket but "
                                      f"connected Unix pairs; no System V IPC, message queues or memory files; "
                                      f"no new namespaces")


def _build_view(libc: ctypes.CDLL, root: Path, grants: list[policy.Grant], mount_points: tuple[str, ...] = ()) -> int:
    """A view at `root`: a tmpfs holding only the grants, each at its own path, and empty folders at
    `mount_points` (for mounts made later), read-only. -> the count of places: those bound whole, and the
    mount points."""
    bound: list[str] = []  # what is there whole (with a trailing /): a grant inside one is there already
    _mount(libc, b"tmpfs", root, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=4m,mode=0755")
    umask = os.umask(0o022)  # the folders made for mount points: every worker's uid may enter them
    try:
        for grant in sorted(grants, key=lambda g: len(Path(g.path).parts)):
            real = os.path.join(os.path.realpath(grant.path), "")
            if not real.startswith(tuple(bound)) and _place(libc, root, grant):
                bound.append(real)
        for path in mount_points:
            (root / path.lstrip("/")).mkdir(parents=True, exist_ok=True)
    finally:
        os.umask(umask)
    _mount(libc, None, root, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return len(bound) + len(mount_points)


def _mount(libc: ctypes.CDLL, source: bytes | None, target: Path | bytes, kind: bytes | None, flags: int,
           options: bytes | None = None) -> None:
    where = target if isinstance(target, bytes) else str(target).encode()
    if libc.mount(source, where, kind, flags, options) != 0:
        raise _fail(f"mount {where.decode(errors='replace')}")


# statvfs's flags of a mount -> mount(2)'s: a bind mount's remount must keep those its source has (in a user
# namespace they are locked).
_KEPT_FLAGS = ((os.ST_RDONLY, MS_RDONLY), (os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV),
               (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
               (os.ST_RELATIME, MS_RELATIME))


def _place(libc: ctypes.CDLL, root: Path, grant: policy.Grant) -> bool:
    """One grant in the view being built at `root`, at the same path: a link made again, a folder listed
    around answers made empty (its entries are placed one by one), anything else bound from the machine,
    read-only but devices and writable folders. -> whether it was bound whole."""
    path = grant.path
    if os.path.islink(path):  # /lib -> usr/lib: the link, where its folder really is
        link = root / os.path.realpath(os.path.dirname(path)).lstrip("/") / os.path.basename(path)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            os.symlink(os.readlink(path), link)
        return False
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return False
    target = root / real.lstrip("/")
    if grant.access == policy.LIST:
        target.mkdir(parents=True, exist_ok=True)
        return False
    if os.path.isdir(real):
        target.mkdir(parents=True, exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    try:
        _mount(libc, real.encode(), target, None, MS_BIND)
    except OSError as error:
        # In a user namespace the mounts below a folder (/sys's cgroups) are locked to it: it binds only
        # with them. They keep their own flags; Landlock and their owners' modes keep them from writes.
        if error.errno != errno.EINVAL:
            raise
        _mount(libc, real.encode(), target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID
    if grant.access not in (policy.WRITE, policy.DEVICE):
        flags |= MS_RDONLY
    mode = os.stat(real).st_mode
    if not (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)):
        flags |= MS_NODEV
    kept = os.statvfs(real).f_flag
    flags |= sum(ours for theirs, ours in _KEPT_FLAGS if kept & theirs)
    _mount(libc, None, target, None, flags)
    return True


def _wait_for(worker: int, close: tuple[int, ...]) -> NoReturn:
    """The spare's part once it has forked the worker: wait, then end as the worker ended (its signal
    or its code), so the grader reads the worker's fate in this process's."""
    for fd in close:
        try:
            os.close(fd)
        except OSError:
            pass
    while True:
        try:
            _, status = os.waitpid(worker, 0)
            break
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), -code)
    os._exit(code if code >= 0 else 1)


def sweep_uid(uid: int) -> None:
    """Kill every process of a worker's uid (as root, where there is no PID namespace): a process of
    that uid signals all the others."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        except OSError as error:
            os._exit(0 if error.errno == errno.ESRCH else 1)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
