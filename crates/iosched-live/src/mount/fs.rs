//! The passthrough file system: every operation on the mount is done on the directory underneath, reached only
//! through descriptors, so no path can lead out of it.
//!
//! The source directory is opened before the mount covers it; every file and directory the kernel looks up is
//! opened O_PATH|O_NOFOLLOW relative to its parent's descriptor, by a single name component (never `..`, never a
//! slash), and is later reopened through /proc/self/fd. Symbolic links are never followed by the daemon: their
//! target is handed to the kernel, which resolves it for the caller as it would without the mount. Metadata
//! operations (lookup, create, rename, ...) are done at once on this thread; reads, writes and fsyncs of regular
//! files become engine requests (see [`super::pending`]) answered when the policy has had them done.
//!
//! A FUSE flush (a close of a descriptor) is passed through at once, in order: it carries no data, and since the
//! kernel keeps no dirty pages for the mount (no writeback cache), every write of the file has been answered
//! before it. fsync, which does carry a durability promise, is a barrier in the engine.

use super::caller::Callers;
use super::doorbell::Doorbell;
use super::pending::{Answer, Incoming, PendingIo, Work};
use super::placement::Placement;
use crate::buffer::{AlignedBuf, BufferPool};
use fuser::consts::{FOPEN_DIRECT_IO, FOPEN_KEEP_CACHE};
use fuser::{
    FileAttr, FileType, Filesystem, KernelConfig, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, FUSE_ROOT_ID,
};
use iosched_sim::source::Issue;
use std::collections::HashMap;
use std::ffi::{CString, OsStr, OsString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long the kernel may keep names and attributes (the daemon is the only writer it knows of).
const TTL: Duration = Duration::from_secs(1);

/// How the kernel's page cache is used for the mount's files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// The page cache serves reads, dropped at each open (as other passthrough file systems do). A program's
    /// O_DIRECT bypasses the mount's page cache; the files underneath are read through theirs, as bindfs does.
    #[default]
    Auto,
    /// Bypass the page cache, the mount's and the one underneath (every file is opened O_DIRECT below, where the
    /// file system allows it): every read and write reaches the scheduler and the disk at its own size (for
    /// experiments).
    Direct,
    /// Keep cached data across opens (normal use, when nothing else changes the files underneath).
    Kernel,
}

struct Node {
    /// O_PATH descriptor of the file underneath.
    fd: OwnedFd,
    kind: FileType,
    dev: u64,
    ino: u64,
    lookups: u64,
}

struct Handle {
    fd: Arc<OwnedFd>,
    /// The file's region in the placed address space.
    region_bytes: u64,
}

pub struct PassthroughFs {
    nodes: HashMap<u64, Node>,
    by_file: HashMap<(u64, u64), u64>,
    next_node: u64,
    handles: HashMap<u64, Handle>,
    dirs: HashMap<u64, Vec<(u64, FileType, OsString)>>,
    next_handle: u64,
    callers: Callers,
    placement: Placement,
    cache: CacheMode,
    to_engine: Sender<Incoming>,
    doorbell: Arc<Doorbell>,
    /// Where write buffers come from (shared with the device, which takes read buffers from it).
    buffers: BufferPool,
    /// Files open through the mount right now (for `destroy` to report).
    open_files: Arc<AtomicU64>,
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn cstring(bytes: &[u8]) -> Result<CString, i32> {
    CString::new(bytes).map_err(|_| libc::EINVAL)
}

/// A single name component: no slash, not `.` or `..`.
fn component(name: &OsStr) -> Result<CString, i32> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
        return Err(libc::EINVAL);
    }
    cstring(bytes)
}

/// The flags a program's open becomes underneath: O_DIRECT only in [`CacheMode::Direct`], always there; no
/// creation flags (a create adds its own: [`create_flags`]).
fn flags_underneath(cache: CacheMode, flags: i32) -> i32 {
    let flags = flags & !(libc::O_CREAT | libc::O_EXCL | libc::O_NOCTTY);
    match cache {
        CacheMode::Direct => flags | libc::O_DIRECT,
        CacheMode::Auto | CacheMode::Kernel => flags & !libc::O_DIRECT,
    }
}

/// A program's create(2) underneath: its open flags, and O_EXCL when it asked for it (the kernel's lookup before a
/// create can race another creator; only the create underneath can tell).
fn create_flags(cache: CacheMode, flags: i32) -> i32 {
    flags_underneath(cache, flags) | (flags & libc::O_EXCL)
}

/// Create (or, without O_EXCL in `flags`, open) `name` under `parent_fd`, never through a symbolic link; where
/// O_DIRECT is refused, buffered.
fn create_underneath(parent_fd: RawFd, name: &std::ffi::CStr, flags: i32, mode: u32) -> Result<OwnedFd, i32> {
    let open = |flags: i32| {
        // SAFETY: a valid C string relative to a descriptor the caller owns.
        unsafe {
            libc::openat(
                parent_fd,
                name.as_ptr(),
                flags | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                mode as libc::c_uint,
            )
        }
    };
    let mut fd = open(flags);
    if fd < 0 && errno() == libc::EINVAL && flags & libc::O_DIRECT != 0 {
        fd = open(flags & !libc::O_DIRECT);
    }
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: a new descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn proc_path(fd: RawFd) -> CString {
    CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL in a number")
}

fn stat_of(fd: RawFd) -> Result<libc::stat, i32> {
    // SAFETY: an all-zero stat is valid; fstatat fills it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: "" with AT_EMPTY_PATH stats the descriptor itself.
    let r = unsafe { libc::fstatat(fd, c"".as_ptr(), &mut st, libc::AT_EMPTY_PATH | libc::AT_SYMLINK_NOFOLLOW) };
    if r < 0 {
        return Err(errno());
    }
    Ok(st)
}

fn kind_of(mode: u32) -> FileType {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => FileType::Directory,
        libc::S_IFLNK => FileType::Symlink,
        libc::S_IFIFO => FileType::NamedPipe,
        libc::S_IFCHR => FileType::CharDevice,
        libc::S_IFBLK => FileType::BlockDevice,
        libc::S_IFSOCK => FileType::Socket,
        _ => FileType::RegularFile,
    }
}

/// A directory entry's type, as [`kind_of`] reads a mode.
fn kind_of_entry(t: std::fs::FileType) -> FileType {
    use std::os::unix::fs::FileTypeExt;
    let kinds = [
        (t.is_dir(), FileType::Directory),
        (t.is_symlink(), FileType::Symlink),
        (t.is_fifo(), FileType::NamedPipe),
        (t.is_socket(), FileType::Socket),
        (t.is_char_device(), FileType::CharDevice),
        (t.is_block_device(), FileType::BlockDevice),
    ];
    kinds.into_iter().find_map(|(is, kind)| is.then_some(kind)).unwrap_or(FileType::RegularFile)
}

fn time(sec: i64, nsec: i64) -> SystemTime {
    if sec >= 0 {
        UNIX_EPOCH + Duration::new(sec as u64, nsec as u32)
    } else {
        UNIX_EPOCH - Duration::from_secs(sec.unsigned_abs())
    }
}

fn attr(node: u64, st: &libc::stat) -> FileAttr {
    FileAttr {
        ino: node,
        size: st.st_size as u64,
        blocks: st.st_blocks as u64,
        atime: time(st.st_atime, st.st_atime_nsec),
        mtime: time(st.st_mtime, st.st_mtime_nsec),
        ctime: time(st.st_ctime, st.st_ctime_nsec),
        crtime: UNIX_EPOCH,
        kind: kind_of(st.st_mode),
        perm: (st.st_mode & 0o7777) as u16,
        nlink: st.st_nlink as u32,
        uid: st.st_uid,
        gid: st.st_gid,
        rdev: st.st_rdev as u32,
        blksize: st.st_blksize as u32,
        flags: 0,
    }
}

/// Open `proc` (a /proc/self/fd path) with `flags`, falling back to buffered I/O where O_DIRECT is refused.
fn reopen(fd: RawFd, flags: i32, mode: u32) -> Result<OwnedFd, i32> {
    let path = proc_path(fd);
    // SAFETY: a valid C string; open returns a new descriptor or -1.
    let mut r = unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC, mode) };
    if r < 0 && errno() == libc::EINVAL && flags & libc::O_DIRECT != 0 {
        // SAFETY: as above.
        r = unsafe { libc::open(path.as_ptr(), (flags & !libc::O_DIRECT) | libc::O_CLOEXEC, mode) };
    }
    if r < 0 {
        return Err(errno());
    }
    // SAFETY: r is a new descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(r) })
}

impl PassthroughFs {
    /// Serve the directory open as `root` (an O_PATH or directory descriptor taken before the mount covers it).
    pub fn new(
        root: OwnedFd,
        to_engine: Sender<Incoming>,
        doorbell: Arc<Doorbell>,
        buffers: BufferPool,
        capacity_bytes: u64,
        cache: CacheMode,
        open_files: Arc<AtomicU64>,
    ) -> Result<PassthroughFs, i32> {
        let st = stat_of(root.as_raw_fd())?;
        let mut nodes = HashMap::new();
        let mut by_file = HashMap::new();
        by_file.insert((st.st_dev, st.st_ino), FUSE_ROOT_ID);
        nodes.insert(
            FUSE_ROOT_ID,
            Node { fd: root, kind: FileType::Directory, dev: st.st_dev, ino: st.st_ino, lookups: 1 },
        );
        Ok(PassthroughFs {
            nodes,
            by_file,
            next_node: FUSE_ROOT_ID + 1,
            handles: HashMap::new(),
            dirs: HashMap::new(),
            next_handle: 1,
            callers: Callers::default(),
            placement: Placement::new(capacity_bytes),
            cache,
            to_engine,
            doorbell,
            buffers,
            open_files,
        })
    }

    fn node_fd(&self, node: u64) -> Result<RawFd, i32> {
        self.nodes.get(&node).map(|n| n.fd.as_raw_fd()).ok_or(libc::ESTALE)
    }

    /// Look `name` up in `parent`: the node (counted as one more kernel reference) and its attributes.
    fn look(&mut self, parent: u64, name: &OsStr) -> Result<FileAttr, i32> {
        let name = component(name)?;
        let parent_fd = self.node_fd(parent)?;
        // SAFETY: a valid C string relative to a descriptor we own.
        let fd = unsafe { libc::openat(parent_fd, name.as_ptr(), libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(errno());
        }
        // SAFETY: a new descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let st = stat_of(fd.as_raw_fd())?;
        let node = match self.by_file.get(&(st.st_dev, st.st_ino)) {
            Some(node) => *node,
            None => {
                let node = self.next_node;
                self.next_node += 1;
                self.by_file.insert((st.st_dev, st.st_ino), node);
                let kind = kind_of(st.st_mode);
                self.nodes.insert(node, Node { fd, kind, dev: st.st_dev, ino: st.st_ino, lookups: 0 });
                node
            }
        };
        self.nodes.get_mut(&node).expect("just found or made").lookups += 1;
        Ok(attr(node, &st))
    }

    fn reply_entry(&mut self, parent: u64, name: &OsStr, reply: ReplyEntry) {
        match self.look(parent, name) {
            Ok(a) => reply.entry(&TTL, &a, 0),
            Err(e) => reply.error(e),
        }
    }

    fn open_flags(&self) -> u32 {
        match self.cache {
            CacheMode::Auto => 0,
            CacheMode::Direct => FOPEN_DIRECT_IO,
            CacheMode::Kernel => FOPEN_KEEP_CACHE,
        }
    }

    fn flags_underneath(&self, flags: i32) -> i32 {
        flags_underneath(self.cache, flags)
    }

    /// Keep `fd` as an open handle of the regular file `node`.
    fn add_handle(&mut self, node: u64, fd: OwnedFd) -> Result<u64, i32> {
        let st = stat_of(fd.as_raw_fd())?;
        let (dev, ino) = self.nodes.get(&node).map(|n| (n.dev, n.ino)).ok_or(libc::ESTALE)?;
        let region_bytes = self.placement.region(dev, ino, st.st_size as u64);
        let fh = self.next_handle;
        self.next_handle += 1;
        self.handles.insert(fh, Handle { fd: Arc::new(fd), region_bytes });
        self.open_files.fetch_add(1, Ordering::Relaxed);
        Ok(fh)
    }

    /// Queue a read, write (with its data in `buf`) or fsync for the engine.
    #[allow(clippy::too_many_arguments)]
    fn schedule(
        &mut self,
        req: &Request<'_>,
        fh: u64,
        offset_bytes: u64,
        len_bytes: usize,
        work: Work,
        buf: Option<AlignedBuf>,
        answer: Answer,
    ) {
        let Some(handle) = self.handles.get(&fh) else {
            return answer.error(libc::EBADF);
        };
        let (caller, new_flow) = self.callers.resolve(req.pid());
        let issue = Issue {
            op: work.op(),
            offset_bytes: self.placement.offset(handle.region_bytes, offset_bytes, len_bytes as u64),
            len_bytes: len_bytes as u64,
            flow: caller.flow,
            class: caller.class,
            level: caller.level,
            sync: true, // the program waits for every request it sends through the mount
            verify: false,
            fua: false,
            trim_ranges: false,
        };
        let io = PendingIo {
            fd: handle.fd.clone(),
            file_offset_bytes: offset_bytes,
            len_bytes,
            work,
            buf,
            answer,
            result: 0,
        };
        match self.to_engine.send(Incoming { issue, io, new_flow }) {
            Ok(()) => self.doorbell.ring(),
            Err(returned) => returned.0.io.answer.error(libc::EIO), // the engine has ended
        }
    }
}

fn ok_or_errno(r: libc::c_int) -> Result<(), i32> {
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

fn reply_empty(reply: ReplyEmpty, r: Result<(), i32>) {
    match r {
        Ok(()) => reply.ok(),
        Err(e) => reply.error(e),
    }
}

fn timespec(t: Option<TimeOrNow>) -> libc::timespec {
    match t {
        None => libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_OMIT },
        Some(TimeOrNow::Now) => libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_NOW },
        Some(TimeOrNow::SpecificTime(t)) => {
            let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
            libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long }
        }
    }
}

impl Filesystem for PassthroughFs {
    fn init(&mut self, _req: &Request<'_>, config: &mut KernelConfig) -> Result<(), libc::c_int> {
        // Several direct reads or writes of one program in flight at once (its iodepth), and a kernel that asks
        // for up to 1 MiB at a time; either may be missing on an old kernel.
        let _ = config.add_capabilities(fuser::consts::FUSE_ASYNC_DIO);
        let _ = config.set_max_write(1 << 20);
        let _ = config.set_max_readahead(1 << 20);
        let _ = config.set_max_background(64);
        Ok(())
    }

    fn lookup(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        self.reply_entry(parent, name, reply);
    }

    fn forget(&mut self, _req: &Request<'_>, ino: u64, nlookup: u64) {
        if ino == FUSE_ROOT_ID {
            return;
        }
        if let Some(node) = self.nodes.get_mut(&ino) {
            node.lookups = node.lookups.saturating_sub(nlookup);
            if node.lookups == 0 {
                let node = self.nodes.remove(&ino).expect("just found");
                self.by_file.remove(&(node.dev, node.ino));
            }
        }
    }

    fn getattr(&mut self, _req: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match self.node_fd(ino).and_then(stat_of) {
            Ok(st) => reply.attr(&TTL, &attr(ino, &st)),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &mut self,
        _req: &Request<'_>,
        ino: u64,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<u64>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<u32>,
        reply: ReplyAttr,
    ) {
        let result = (|| -> Result<libc::stat, i32> {
            let fd = self.node_fd(ino)?;
            let path = proc_path(fd);
            if let Some(mode) = mode {
                // SAFETY: a valid C string.
                ok_or_errno(unsafe { libc::chmod(path.as_ptr(), mode & 0o7777) })?;
            }
            if uid.is_some() || gid.is_some() {
                let (u, g) = (uid.unwrap_or(u32::MAX), gid.unwrap_or(u32::MAX));
                // SAFETY: "" with AT_EMPTY_PATH changes the descriptor's file itself; -1 leaves an id unchanged.
                ok_or_errno(unsafe {
                    libc::fchownat(fd, c"".as_ptr(), u, g, libc::AT_EMPTY_PATH | libc::AT_SYMLINK_NOFOLLOW)
                })?;
            }
            if let Some(size) = size {
                match fh.and_then(|fh| self.handles.get(&fh)) {
                    // SAFETY: a descriptor we own.
                    Some(h) => ok_or_errno(unsafe { libc::ftruncate(h.fd.as_raw_fd(), size as libc::off_t) })?,
                    // SAFETY: a valid C string.
                    None => ok_or_errno(unsafe { libc::truncate(path.as_ptr(), size as libc::off_t) })?,
                }
            }
            if atime.is_some() || mtime.is_some() {
                let times = [timespec(atime), timespec(mtime)];
                // SAFETY: a valid C string and two timespecs.
                ok_or_errno(unsafe { libc::utimensat(libc::AT_FDCWD, path.as_ptr(), times.as_ptr(), 0) })?;
            }
            stat_of(fd)
        })();
        match result {
            Ok(st) => reply.attr(&TTL, &attr(ino, &st)),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&mut self, _req: &Request<'_>, ino: u64, reply: ReplyData) {
        let fd = match self.node_fd(ino) {
            Ok(fd) => fd,
            Err(e) => return reply.error(e),
        };
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: "" reads the link the descriptor is; buf has room for len bytes.
        let n = unsafe { libc::readlinkat(fd, c"".as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return reply.error(errno());
        }
        reply.data(&buf[..n as usize]);
    }

    fn mknod(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        let r = (|| {
            let c = component(name)?;
            // SAFETY: a valid C string relative to a descriptor we own.
            ok_or_errno(unsafe { libc::mknodat(self.node_fd(parent)?, c.as_ptr(), mode & !umask, rdev.into()) })
        })();
        match r {
            Ok(()) => self.reply_entry(parent, name, reply),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, mode: u32, umask: u32, reply: ReplyEntry) {
        let r = (|| {
            let c = component(name)?;
            // SAFETY: a valid C string relative to a descriptor we own.
            ok_or_errno(unsafe { libc::mkdirat(self.node_fd(parent)?, c.as_ptr(), mode & !umask) })
        })();
        match r {
            Ok(()) => self.reply_entry(parent, name, reply),
            Err(e) => reply.error(e),
        }
    }

    fn unlink(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEmpty) {
        let r = (|| {
            let c = component(name)?;
            // SAFETY: a valid C string relative to a descriptor we own.
            ok_or_errno(unsafe { libc::unlinkat(self.node_fd(parent)?, c.as_ptr(), 0) })
        })();
        reply_empty(reply, r);
    }

    fn rmdir(&mut self, _req: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEmpty) {
        let r = (|| {
            let c = component(name)?;
            // SAFETY: a valid C string relative to a descriptor we own.
            ok_or_errno(unsafe { libc::unlinkat(self.node_fd(parent)?, c.as_ptr(), libc::AT_REMOVEDIR) })
        })();
        reply_empty(reply, r);
    }

    fn symlink(&mut self, _req: &Request<'_>, parent: u64, link_name: &OsStr, target: &Path, reply: ReplyEntry) {
        let r = (|| {
            let c = component(link_name)?;
            let t = cstring(target.as_os_str().as_bytes())?;
            // SAFETY: valid C strings relative to a descriptor we own.
            ok_or_errno(unsafe { libc::symlinkat(t.as_ptr(), self.node_fd(parent)?, c.as_ptr()) })
        })();
        match r {
            Ok(()) => self.reply_entry(parent, link_name, reply),
            Err(e) => reply.error(e),
        }
    }

    fn rename(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        newparent: u64,
        newname: &OsStr,
        flags: u32,
        reply: ReplyEmpty,
    ) {
        let r = (|| {
            let (a, b) = (component(name)?, component(newname)?);
            let (from, to) = (self.node_fd(parent)?, self.node_fd(newparent)?);
            // SAFETY: valid C strings relative to descriptors we own.
            ok_or_errno(unsafe {
                libc::syscall(libc::SYS_renameat2, from, a.as_ptr(), to, b.as_ptr(), flags as libc::c_uint) as i32
            })
        })();
        reply_empty(reply, r);
    }

    fn link(&mut self, _req: &Request<'_>, ino: u64, newparent: u64, newname: &OsStr, reply: ReplyEntry) {
        let r = (|| {
            let c = component(newname)?;
            let path = proc_path(self.node_fd(ino)?);
            // SAFETY: valid C strings; the /proc link names the file itself.
            ok_or_errno(unsafe {
                libc::linkat(
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    self.node_fd(newparent)?,
                    c.as_ptr(),
                    libc::AT_SYMLINK_FOLLOW,
                )
            })
        })();
        match r {
            Ok(()) => self.reply_entry(newparent, newname, reply),
            Err(e) => reply.error(e),
        }
    }

    fn open(&mut self, _req: &Request<'_>, ino: u64, flags: i32, reply: ReplyOpen) {
        let r = (|| {
            let node = self.nodes.get(&ino).ok_or(libc::ESTALE)?;
            if node.kind != FileType::RegularFile {
                return Err(if node.kind == FileType::Directory { libc::EISDIR } else { libc::ELOOP });
            }
            let fd = reopen(node.fd.as_raw_fd(), self.flags_underneath(flags), 0)?;
            self.add_handle(ino, fd)
        })();
        match r {
            Ok(fh) => reply.opened(fh, self.open_flags()),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &mut self,
        _req: &Request<'_>,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let r = (|| {
            let c = component(name)?;
            let parent_fd = self.node_fd(parent)?;
            let fd = create_underneath(parent_fd, &c, create_flags(self.cache, flags), mode & !umask)?;
            let a = self.look(parent, name)?;
            let fh = self.add_handle(a.ino, fd)?;
            Ok((a, fh))
        })();
        match r {
            Ok((a, fh)) => reply.created(&TTL, &a, 0, fh, self.open_flags()),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &mut self,
        req: &Request<'_>,
        _ino: u64,
        fh: u64,
        offset: i64,
        size: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyData,
    ) {
        self.schedule(req, fh, offset as u64, size as usize, Work::Read, None, Answer::Data(reply));
    }

    fn write(
        &mut self,
        req: &Request<'_>,
        _ino: u64,
        fh: u64,
        offset: i64,
        data: &[u8],
        _write_flags: u32,
        _flags: i32,
        _lock_owner: Option<u64>,
        reply: ReplyWrite,
    ) {
        let mut buf = self.buffers.take(data.len());
        buf.fill_from(data);
        let len = data.len();
        self.schedule(req, fh, offset as u64, len, Work::Write, Some(buf), Answer::Written(reply));
    }

    fn flush(&mut self, _req: &Request<'_>, _ino: u64, fh: u64, _lock_owner: u64, reply: ReplyEmpty) {
        let Some(handle) = self.handles.get(&fh) else {
            return reply.error(libc::EBADF);
        };
        // What close() does underneath (some file systems report errors then); the handle stays open.
        // SAFETY: dup of a descriptor we own, then close of the copy.
        let r = unsafe {
            let copy = libc::dup(handle.fd.as_raw_fd());
            if copy < 0 {
                -1
            } else {
                libc::close(copy)
            }
        };
        reply_empty(reply, ok_or_errno(r));
    }

    fn release(
        &mut self,
        _req: &Request<'_>,
        _ino: u64,
        fh: u64,
        _flags: i32,
        _lock_owner: Option<u64>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        if self.handles.remove(&fh).is_some() {
            self.open_files.fetch_sub(1, Ordering::Relaxed);
        }
        reply.ok();
    }

    fn fsync(&mut self, req: &Request<'_>, _ino: u64, fh: u64, datasync: bool, reply: ReplyEmpty) {
        self.schedule(req, fh, 0, 0, Work::Fsync { datasync }, None, Answer::Empty(reply));
    }

    fn opendir(&mut self, _req: &Request<'_>, ino: u64, _flags: i32, reply: ReplyOpen) {
        // The whole listing is read at opendir (a snapshot, as readdir on a changing directory may give anyway).
        let r = (|| {
            let node = self.nodes.get(&ino).ok_or(libc::ESTALE)?;
            let mut entries =
                vec![(ino, FileType::Directory, OsString::from(".")), (ino, FileType::Directory, "..".into())];
            let dir = std::fs::read_dir(Path::new(OsStr::from_bytes(proc_path(node.fd.as_raw_fd()).as_bytes())))
                .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
            for entry in dir {
                let entry = entry.map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))?;
                let kind = entry.file_type().map_or(FileType::RegularFile, kind_of_entry);
                use std::os::unix::fs::DirEntryExt;
                entries.push((entry.ino(), kind, OsString::from_vec(entry.file_name().into_vec())));
            }
            let fh = self.next_handle;
            self.next_handle += 1;
            self.dirs.insert(fh, entries);
            Ok(fh)
        })();
        match r {
            Ok(fh) => reply.opened(fh, 0),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(&mut self, _req: &Request<'_>, _ino: u64, fh: u64, offset: i64, mut reply: ReplyDirectory) {
        let Some(entries) = self.dirs.get(&fh) else {
            return reply.error(libc::EBADF);
        };
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset.max(0) as usize) {
            // The kernel's own inode numbers come from lookup; these are only informational.
            if reply.add((*ino).max(1), (i + 1) as i64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(&mut self, _req: &Request<'_>, _ino: u64, fh: u64, _flags: i32, reply: ReplyEmpty) {
        self.dirs.remove(&fh);
        reply.ok();
    }

    fn statfs(&mut self, _req: &Request<'_>, _ino: u64, reply: ReplyStatfs) {
        // SAFETY: an all-zero statvfs is valid; fstatvfs fills it from a descriptor we own.
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        let root = self.node_fd(FUSE_ROOT_ID).expect("the root is never forgotten");
        // SAFETY: as above.
        if unsafe { libc::fstatvfs(root, &mut s) } < 0 {
            return reply.error(errno());
        }
        reply.statfs(
            s.f_blocks,
            s.f_bfree,
            s.f_bavail,
            s.f_files,
            s.f_ffree,
            s.f_bsize as u32,
            s.f_namemax as u32,
            s.f_frsize as u32,
        );
    }

    fn access(&mut self, _req: &Request<'_>, ino: u64, mask: i32, reply: ReplyEmpty) {
        let r = self.node_fd(ino).and_then(|fd| {
            let path = proc_path(fd);
            // SAFETY: a valid C string.
            ok_or_errno(unsafe { libc::access(path.as_ptr(), mask) })
        });
        reply_empty(reply, r);
    }

    fn fallocate(
        &mut self,
        _req: &Request<'_>,
        _ino: u64,
        fh: u64,
        offset: i64,
        length: i64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        let Some(handle) = self.handles.get(&fh) else {
            return reply.error(libc::EBADF);
        };
        // SAFETY: a descriptor we own.
        let r = unsafe { libc::fallocate(handle.fd.as_raw_fd(), mode, offset, length) };
        reply_empty(reply, ok_or_errno(r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exclusive_create_of_a_name_that_exists_fails_underneath() {
        let dir = iosched_test_data::scratch("fs-excl");
        std::fs::write(dir.join("there"), b"someone else's").unwrap();
        let parent = std::fs::File::open(&dir).unwrap();
        let there = CString::new("there").unwrap();
        for cache in [CacheMode::Auto, CacheMode::Direct, CacheMode::Kernel] {
            let exclusive = create_flags(cache, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL);
            let r = create_underneath(parent.as_raw_fd(), &there, exclusive, 0o644);
            assert_eq!(r.err(), Some(libc::EEXIST), "{cache:?}: O_EXCL on an existing name");
            // Without O_EXCL the existing file is opened, as open(2) does.
            let plain = create_flags(cache, libc::O_WRONLY | libc::O_CREAT);
            assert!(create_underneath(parent.as_raw_fd(), &there, plain, 0o644).is_ok(), "{cache:?}");
            let new = CString::new(format!("new-{cache:?}")).unwrap();
            assert!(create_underneath(parent.as_raw_fd(), &new, exclusive, 0o644).is_ok(), "{cache:?}");
        }
        assert_eq!(std::fs::read(dir.join("there")).unwrap(), b"someone else's", "nothing truncated it");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
