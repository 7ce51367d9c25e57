/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-test-stick.h"

#include "ferry-stick-fs.h"
#include "ferry-stick-sys.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FERRY_SLOW_DISK_PATH
#error "FERRY_SLOW_DISK_PATH must name the ferry-slow-disk binary"
#endif

/* Overrides FERRY_SLOW_DISK_PATH, for running the tests from elsewhere. */
#define SLOW_DISK_ENV "FERRY_SLOW_DISK"

#define BACKING_NAME               "ferry-stick.img"
#define FUSE_DIR_NAME              "ferry-stick-fuse"
#define MOUNT_DIR_NAME             "ferry-stick-mnt"
#define PID_FILE_NAME              "ferry-slow-disk.pid"
#define LOG_FILE_NAME              "ferry-slow-disk.log"
#define DISK_NAME                  "disk"
#define CONTROL_NAME               "control"
#define SECTOR_SIZE                512
#define STAT_FIELD_SECTORS_WRITTEN 6 /* 0-based */

#define DAEMON_READY_TIMEOUT_MS 10000
#define DAEMON_EXIT_TIMEOUT_US  (20 * G_USEC_PER_SEC)
#define DAEMON_KILL_TIMEOUT_US  (5 * G_USEC_PER_SEC)
/* A previous run's daemon may still be tearing its stick down. */
#define STALE_DAEMON_TIMEOUT_US (15 * G_USEC_PER_SEC)
#define POLL_INTERVAL_US        (20 * 1000)
#define BUSY_RETRIES            50
/* A FUSE filesystem's daemon holds the device a moment after its unmount,
 * and its next mount fails until it lets go. */
#define FUSE_MOUNT_RETRIES     100
#define FUSE_MOUNT_INTERVAL_US (50 * 1000)
/* Stacked mounts on one path: unmounting stops after this many. */
#define MAX_STACKED_MOUNTS 8

struct _FerryTestStick
{
  char *workdir;
  char *backing_file;
  char *fuse_mountpoint;
  char *disk_path;
  char *control_path;
  char *pid_file;
  char *log_file;
  char *mountpoint;
  char *label;
  FerryTestStickFs fs;
  gboolean created_mountpoint;
  char *loop_device;
  char *block_name;
  gboolean mounted;
  GPid daemon_pid; /* 0 once it is gone */
  gboolean daemon_ready;
  int guard_fd; /* write end of the daemon's guard pipe, or -1 */
};

/* External tools ------------------------------------------------------------ */

static gboolean
run_toolv (const char *const *args, char **stdout_out, GError **error)
{
  g_autofree char *tool_path = ferry_stick_sys_find_tool (args[0]);
  g_autofree char *command = g_strjoinv (" ", (char **) args);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) local_error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int wait_status;

  if (tool_path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "Cannot run “%s”: %s not found",
                   command, args[0]);
      return FALSE;
    }

  g_ptr_array_add (argv, tool_path);
  for (guint i = 1; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL,
                     &out, &err, &wait_status, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot run “%s”: %s", command,
                   local_error->message);
      return FALSE;
    }

  if (!g_spawn_check_wait_status (wait_status, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "“%s” failed (%s): %s", command,
                   local_error->message, g_strstrip (err));
      return FALSE;
    }

  if (stdout_out != NULL)
    *stdout_out = g_steal_pointer (&out);
  return TRUE;
}

static gboolean run_tool (char **stdout_out, GError **error, const char *tool, ...)
    G_GNUC_NULL_TERMINATED;

static gboolean
run_tool (char **stdout_out, GError **error, const char *tool, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  g_ptr_array_add (args, (gpointer) tool);
  va_start (ap, tool);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  return run_toolv ((const char *const *) args->pdata, stdout_out, error);
}

/* Mount helpers ------------------------------------------------------------- */

/* Unmounts everything stacked on @path. A mount still busy (a process has
 * a file open there) is detached lazily so the stack below can go. */
static gboolean
unmount_all_at (const char *path, GError **error)
{
  for (int i = 0; i < MAX_STACKED_MOUNTS && ferry_stick_sys_is_mounted (path); i++)
    {
      g_autoptr (GError) local_error = NULL;

      if (!run_tool (NULL, &local_error, "umount", path, NULL)
          && !run_tool (NULL, NULL, "umount", "--lazy", path, NULL))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
detach_loop (const char *block_name, GError **error)
{
  g_autofree char *device = g_build_filename ("/dev", block_name, NULL);
  g_autoptr (GPtrArray) mount_points = ferry_stick_sys_list_mounts_of_block (block_name);

  for (guint i = 0; i < mount_points->len; i++)
    if (!unmount_all_at (g_ptr_array_index (mount_points, i), error))
      return FALSE;

  if (!run_tool (NULL, error, "losetup", "--detach", device, NULL))
    return FALSE;

  /* The kernel finishes detaching when the last opener closes the device,
   * which may be just after losetup returns. */
  for (int i = 0; i < BUSY_RETRIES && ferry_stick_sys_loop_is_attached (block_name); i++)
    g_usleep (POLL_INTERVAL_US);
  return TRUE;
}

/* A FUSE mount stays busy while a loop device still holds its file, which
 * is released a moment after the detach. */
static gboolean
unmount_fuse (const char *path, GError **error)
{
  g_autoptr (GError) local_error = NULL;

  for (int i = 0; i < BUSY_RETRIES && ferry_stick_sys_is_mounted (path); i++)
    {
      g_clear_error (&local_error);
      if (run_tool (NULL, &local_error, "fusermount3", "-u", path, NULL))
        return TRUE;
      g_usleep (POLL_INTERVAL_US);
    }

  if (!ferry_stick_sys_is_mounted (path))
    return TRUE;
  if (run_tool (NULL, NULL, "fusermount3", "-u", "-z", path, NULL))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* Processes ----------------------------------------------------------------- */

/* True for a process that is gone or a zombie: it holds no mounts. */
static gboolean
process_is_gone (pid_t pid)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *contents = NULL;
  const char *after_name;

  if (!g_file_get_contents (stat_path, &contents, NULL, NULL))
    return TRUE;

  /* "pid (comm) S ...": comm may hold anything, so look after its last ')'. */
  after_name = strrchr (contents, ')');
  return after_name == NULL || after_name[1] == '\0' || after_name[2] == 'Z';
}

static gboolean
process_has_argument (pid_t pid, const char *argument)
{
  g_autofree char *cmdline_path = g_strdup_printf ("/proc/%d/cmdline", (int) pid);
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (cmdline_path, &contents, &length, NULL))
    return FALSE;

  for (gsize offset = 0; offset < length; offset += strlen (contents + offset) + 1)
    if (g_str_equal (contents + offset, argument))
      return TRUE;
  return FALSE;
}

static gboolean
wait_for_process_end (pid_t pid, gboolean is_child, gint64 timeout_us)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;

  for (;;)
    {
      if (is_child)
        {
          int status;
          pid_t result = waitpid (pid, &status, WNOHANG);

          if (result == pid)
            return TRUE;
          /* Someone else reaps children (SIGCHLD ignored): fall back. */
          if (result < 0 && errno == ECHILD)
            is_child = FALSE;
        }
      if (!is_child && process_is_gone (pid))
        return TRUE;
      if (g_get_monotonic_time () >= deadline)
        return FALSE;
      g_usleep (POLL_INTERVAL_US);
    }
}

/* SIGTERM asks a guarded daemon to tear its stick down; SIGKILL is for one
 * that is stuck. */
static void
end_process (pid_t pid, gboolean is_child, gint64 timeout_us)
{
  if (wait_for_process_end (pid, is_child, timeout_us))
    return;

  g_message ("ferry-slow-disk (pid %d) did not exit, terminating it", (int) pid);
  kill (pid, SIGTERM);
  if (wait_for_process_end (pid, is_child, DAEMON_KILL_TIMEOUT_US))
    return;

  kill (pid, SIGKILL);
  wait_for_process_end (pid, is_child, DAEMON_KILL_TIMEOUT_US);
}

/* Leftovers of a crashed run ------------------------------------------------ */

/* The daemon of a run whose test died is tearing that stick down on its
 * own; racing it would leave half of each teardown undone. */
static void
end_stale_daemon (FerryTestStick *self)
{
  g_autofree char *contents = NULL;
  guint64 pid;

  if (!g_file_get_contents (self->pid_file, &contents, NULL, NULL))
    return;
  if (!g_ascii_string_to_unsigned (g_strstrip (contents), 10, 1, G_MAXINT, &pid, NULL))
    return;
  /* The pid may have been reused by an unrelated process since. */
  if (process_is_gone (pid) || !process_has_argument (pid, self->fuse_mountpoint))
    return;

  end_process (pid, FALSE, STALE_DAEMON_TIMEOUT_US);
}

static void
detach_stale_loops_of (const char *backing_path)
{
  g_autoptr (GPtrArray) loops = ferry_stick_sys_list_loops_backed_by (backing_path);

  for (guint i = 0; i < loops->len; i++)
    {
      g_autoptr (GError) error = NULL;

      if (!detach_loop (g_ptr_array_index (loops, i), &error))
        g_message ("Cannot detach a stale loop device: %s", error->message);
    }
}

static void
clean_leftovers (FerryTestStick *self)
{
  g_autoptr (GError) error = NULL;

  end_stale_daemon (self);

  if (!unmount_all_at (self->mountpoint, &error))
    g_message ("Cannot unmount a stale stick: %s", error->message);
  g_clear_error (&error);

  detach_stale_loops_of (self->disk_path);
  detach_stale_loops_of (self->backing_file);

  if (!unmount_fuse (self->fuse_mountpoint, &error))
    g_message ("Cannot unmount a stale slow disk: %s", error->message);

  g_unlink (self->backing_file);
  g_unlink (self->pid_file);
}

/* Setup --------------------------------------------------------------------- */

static const char *
slow_disk_program (void)
{
  const char *path = g_getenv (SLOW_DISK_ENV);

  return path != NULL && *path != '\0' ? path : FERRY_SLOW_DISK_PATH;
}

static gboolean
set_error_from_errno (GError **error, const char *what, const char *path)
{
  int saved_errno = errno;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "%s %s: %s", what, path,
               g_strerror (saved_errno));
  return FALSE;
}

static char *
make_canonical_dir (const char *path, gboolean *created, GError **error)
{
  char *canonical;

  if (created != NULL)
    *created = !g_file_test (path, G_FILE_TEST_EXISTS);

  if (g_mkdir_with_parents (path, 0755) < 0)
    {
      set_error_from_errno (error, "Cannot create directory", path);
      return NULL;
    }

  canonical = realpath (path, NULL);
  if (canonical == NULL)
    {
      set_error_from_errno (error, "Cannot resolve", path);
      return NULL;
    }

  return canonical;
}

static gboolean
set_paths (FerryTestStick *self, const char *workdir, const char *mountpoint, GError **error)
{
  g_autofree char *real_workdir = make_canonical_dir (workdir, NULL, error);
  g_autofree char *default_mountpoint = NULL;

  if (real_workdir == NULL)
    return FALSE;

  self->workdir = g_strdup (real_workdir);
  self->backing_file = g_build_filename (self->workdir, BACKING_NAME, NULL);
  self->fuse_mountpoint = g_build_filename (self->workdir, FUSE_DIR_NAME, NULL);
  self->disk_path = g_build_filename (self->fuse_mountpoint, DISK_NAME, NULL);
  self->control_path = g_build_filename (self->fuse_mountpoint, CONTROL_NAME, NULL);
  self->pid_file = g_build_filename (self->workdir, PID_FILE_NAME, NULL);
  self->log_file = g_build_filename (self->workdir, LOG_FILE_NAME, NULL);

  if (mountpoint == NULL)
    mountpoint = default_mountpoint = g_build_filename (self->workdir, MOUNT_DIR_NAME, NULL);
  self->mountpoint = make_canonical_dir (mountpoint, &self->created_mountpoint, error);
  /* The default one is ours even when a crashed run created it. */
  if (default_mountpoint != NULL)
    self->created_mountpoint = TRUE;
  return self->mountpoint != NULL;
}

static gboolean
create_backing_file (FerryTestStick *self, guint64 size, GError **error)
{
  int fd = open (self->backing_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  if (fd < 0)
    return set_error_from_errno (error, "Cannot create", self->backing_file);

  /* Sparse: only what the filesystem writes takes host disk space. */
  if (ftruncate (fd, size) < 0)
    {
      set_error_from_errno (error, "Cannot size", self->backing_file);
      close (fd);
      return FALSE;
    }

  close (fd);
  return TRUE;
}

/* Formatting the plain file, before any FUSE or loop device exists, is the
 * fastest it gets, and none of it is charged to the emulated device. */
static gboolean
format_backing_file (FerryTestStick *self, GError **error)
{
  g_autoptr (GPtrArray) argv
      = ferry_stick_fs_format_argv (self->fs, self->label, self->backing_file);

  if (argv == NULL)
    return TRUE;
  return run_toolv ((const char *const *) argv->pdata, NULL, error);
}

static char *
read_file_or_empty (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return g_strstrip (contents);
}

/* Its log holds the reason, as the daemon reports to stderr. */
static void
set_daemon_start_error (FerryTestStick *self, gboolean timed_out, GError **error)
{
  g_autofree char *log = read_file_or_empty (self->log_file);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s %s %s: %s", slow_disk_program (),
               timed_out ? "did not mount in time" : "exited without mounting",
               self->fuse_mountpoint, *log != '\0' ? log : "(no message)");
}

/* The daemon prints "ready" once its mount is up, or exits. */
static gboolean
wait_for_daemon_ready (FerryTestStick *self, int stdout_fd, GError **error)
{
  struct pollfd pfd = { .fd = stdout_fd, .events = POLLIN };
  char line[16] = { 0 };
  ssize_t n = 0;
  int ready;

  do
    ready = poll (&pfd, 1, DAEMON_READY_TIMEOUT_MS);
  while (ready < 0 && errno == EINTR);

  if (ready > 0)
    {
      do
        n = read (stdout_fd, line, sizeof line - 1);
      while (n < 0 && errno == EINTR);
    }

  if (n > 0 && g_str_has_prefix (line, "ready"))
    return TRUE;

  set_daemon_start_error (self, ready == 0, error);
  return FALSE;
}

/* The guard pipe becomes the daemon's stdin, which needs no fd juggling. */
static gboolean
spawn_daemon (FerryTestStick *self, int guard_read_fd, int *stdout_fd, GError **error)
{
  const char *argv[] = {
    slow_disk_program (),  "--rate=0", "--guard-fd=0", self->backing_file,
    self->fuse_mountpoint, NULL,
  };
  int log_fd = open (self->log_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  gboolean spawned;

  if (log_fd < 0)
    return set_error_from_errno (error, "Cannot create", self->log_file);

  /* Its stderr goes to a file, not to ours: a test harness waits for the
   * end of the test's output, and the daemon may outlive the test. */
  spawned = g_spawn_async_with_pipes_and_fds (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                              NULL, guard_read_fd, -1, log_fd, NULL, NULL, 0,
                                              &self->daemon_pid, NULL, stdout_fd, NULL, error);
  close (log_fd);
  return spawned;
}

/* The daemon gets the read end of a pipe whose write end only this
 * process holds (close-on-exec, so no tool spawned here inherits it).
 * However this process ends, the kernel closes it, and the daemon tears
 * the stick down. */
static gboolean
start_daemon (FerryTestStick *self, GError **error)
{
  g_autofree char *pid_text = NULL;
  int guard[2];
  int stdout_fd = -1;

  if (g_mkdir_with_parents (self->fuse_mountpoint, 0755) < 0)
    return set_error_from_errno (error, "Cannot create directory", self->fuse_mountpoint);
  if (!g_unix_open_pipe (guard, FD_CLOEXEC, error))
    return FALSE;

  if (!spawn_daemon (self, guard[0], &stdout_fd, error))
    {
      close (guard[0]);
      close (guard[1]);
      return FALSE;
    }
  close (guard[0]);
  self->guard_fd = guard[1];

  pid_text = g_strdup_printf ("%d\n", (int) self->daemon_pid);
  g_file_set_contents (self->pid_file, pid_text, -1, NULL);

  self->daemon_ready = wait_for_daemon_ready (self, stdout_fd, error);
  close (stdout_fd);
  return self->daemon_ready;
}

static gboolean
attach_loop (FerryTestStick *self, GError **error)
{
  g_autofree char *out = NULL;

  /* Direct I/O: the loop device then keeps a queue of asynchronous
   * requests on the FUSE file (about 13 were waiting in the daemon), so
   * the throttle is never idle. Buffered, it sends one synchronous write
   * at a time, the gaps between them are lost bandwidth, and a 40 MB/s
   * stick measured 35.9-39.5 MB/s instead of 39.2-39.6. Either way the
   * FUSE file's direct_io keeps the loop's writes out of any cache. */
  if (!run_tool (&out, error, "losetup", "--find", "--show", "--direct-io=on", self->disk_path,
                 NULL))
    return FALSE;

  self->loop_device = g_strdup (g_strstrip (out));
  self->block_name = g_path_get_basename (self->loop_device);
  return TRUE;
}

static gboolean
mount_filesystem (FerryTestStick *self, GError **error)
{
  g_autoptr (GPtrArray) argv
      = ferry_stick_fs_mount_argv (self->fs, self->loop_device, self->mountpoint);
  g_autoptr (GError) local_error = NULL;
  int tries = ferry_stick_fs_is_fuse (self->fs) ? FUSE_MOUNT_RETRIES : 1;

  if (argv == NULL)
    return TRUE;

  for (int i = 0; i < tries; i++)
    {
      g_clear_error (&local_error);
      if (run_toolv ((const char *const *) argv->pdata, NULL, &local_error))
        {
          self->mounted = TRUE;
          return TRUE;
        }
      g_usleep (FUSE_MOUNT_INTERVAL_US);
    }

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

static gboolean
send_command (FerryTestStick *self, const char *command, GError **error)
{
  size_t length = strlen (command);
  int fd = open (self->control_path, O_WRONLY | O_CLOEXEC);
  ssize_t written;

  if (fd < 0)
    return set_error_from_errno (error, "Cannot open", self->control_path);

  do
    written = write (fd, command, length);
  while (written < 0 && errno == EINTR);

  if (written < 0 || (size_t) written != length)
    {
      g_autofree char *what = g_strdup_printf ("Cannot send “%.*s” to", (int) length - 1, command);

      if (written >= 0)
        errno = EIO;
      set_error_from_errno (error, what, self->control_path);
      close (fd);
      return FALSE;
    }

  close (fd);
  return TRUE;
}

FerryTestStick *
ferry_test_stick_new_full (const FerryTestStickOptions *options, GError **error)
{
  g_autoptr (FerryTestStick) self = NULL;

  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (options->workdir != NULL, NULL);
  g_return_val_if_fail (options->label != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_new0 (FerryTestStick, 1);
  self->guard_fd = -1;
  self->label = g_strdup (options->label);
  self->fs = options->fs;

  if (!set_paths (self, options->workdir, options->mountpoint, error))
    return NULL;

  clean_leftovers (self);

  if (!create_backing_file (self, options->size_bytes, error)
      || !format_backing_file (self, error) || !start_daemon (self, error)
      || !attach_loop (self, error) || !mount_filesystem (self, error)
      || !ferry_test_stick_set_rate (self, options->rate_bytes_per_sec, error)
      || !ferry_test_stick_set_costs (self, options->scatter_cost_us, options->flush_cost_us,
                                      error))
    return NULL;

  return g_steal_pointer (&self);
}

/* What the functions from before filesystems and costs could be chosen
 * make: ext4, charging for bytes only. */
static FerryTestStickOptions
ext4_options (const char *workdir,
              const char *mountpoint,
              const char *label,
              guint64 size_bytes,
              guint64 rate_bytes_per_sec)
{
  return (FerryTestStickOptions) {
    .workdir = workdir,
    .mountpoint = mountpoint,
    .label = label,
    .size_bytes = size_bytes,
    .rate_bytes_per_sec = rate_bytes_per_sec,
    .fs = FERRY_TEST_STICK_FS_EXT4,
  };
}

FerryTestStick *
ferry_test_stick_new (const char *workdir,
                      const char *mountpoint,
                      const char *label,
                      guint64 size_bytes,
                      guint64 rate_bytes_per_sec,
                      GError **error)
{
  const FerryTestStickOptions options
      = ext4_options (workdir, mountpoint, label, size_bytes, rate_bytes_per_sec);

  return ferry_test_stick_new_full (&options, error);
}

/* Accessors and controls ---------------------------------------------------- */

const char *
ferry_test_stick_get_mountpoint (FerryTestStick *self)
{
  return self->mountpoint;
}

const char *
ferry_test_stick_get_loop_device (FerryTestStick *self)
{
  return self->loop_device;
}

const char *
ferry_test_stick_get_block_name (FerryTestStick *self)
{
  return self->block_name;
}

const char *
ferry_test_stick_get_fuse_mountpoint (FerryTestStick *self)
{
  return self->fuse_mountpoint;
}

const char *
ferry_test_stick_get_backing_file (FerryTestStick *self)
{
  return self->backing_file;
}

const char *
ferry_test_stick_get_control_file (FerryTestStick *self)
{
  return self->control_path;
}

FerryTestStickFs
ferry_test_stick_get_fs (FerryTestStick *self)
{
  return self->fs;
}

/* The value of the 'name value' line @name of the control file. A fresh
 * open each time: the daemon takes its stats when the file is opened. */
static guint64
read_stat (FerryTestStick *self, const char *name)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 value = 0;

  if (!g_file_get_contents (self->control_path, &contents, NULL, NULL))
    return 0;

  lines = g_strsplit (contents, "\n", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) words = g_strsplit (lines[i], " ", 2);

      if (g_strv_length (words) == 2 && g_str_equal (words[0], name))
        {
          g_ascii_string_to_unsigned (words[1], 10, 0, G_MAXUINT64, &value, NULL);
          break;
        }
    }

  return value;
}

guint64
ferry_test_stick_get_writes (FerryTestStick *self)
{
  return read_stat (self, "write-requests");
}

guint64
ferry_test_stick_get_bytes_read (FerryTestStick *self)
{
  return read_stat (self, "read");
}

guint64
ferry_test_stick_get_scattered_writes (FerryTestStick *self)
{
  return read_stat (self, "scattered-writes");
}

guint64
ferry_test_stick_get_flushes (FerryTestStick *self)
{
  return read_stat (self, "flushes");
}

guint64
ferry_test_stick_get_sectors_written (FerryTestStick *self)
{
  g_autofree char *stat = ferry_stick_sys_read_block_attribute (self->block_name, "stat");
  g_auto (GStrv) fields = NULL;
  guint64 sectors = 0;
  guint n_fields = 0;

  if (stat == NULL)
    return 0;

  /* Fields are padded with a varying number of blanks. */
  fields = g_strsplit_set (g_strstrip (stat), " \t", 0);
  for (guint i = 0; fields[i] != NULL; i++)
    {
      if (*fields[i] == '\0')
        continue;
      if (n_fields++ == STAT_FIELD_SECTORS_WRITTEN)
        {
          g_ascii_string_to_unsigned (fields[i], 10, 0, G_MAXUINT64, &sectors, NULL);
          break;
        }
    }

  return sectors;
}

gboolean
ferry_test_stick_set_rate (FerryTestStick *self, guint64 rate_bytes_per_sec, GError **error)
{
  g_autofree char *command = g_strdup_printf ("rate %" G_GUINT64_FORMAT "\n", rate_bytes_per_sec);

  return send_command (self, command, error);
}

gboolean
ferry_test_stick_set_costs (FerryTestStick *self,
                            guint64 scatter_cost_us,
                            guint64 flush_cost_us,
                            GError **error)
{
  g_autofree char *command = g_strdup_printf ("scatter-cost %" G_GUINT64_FORMAT "\n"
                                              "flush-cost %" G_GUINT64_FORMAT "\n",
                                              scatter_cost_us, flush_cost_us);

  return send_command (self, command, error);
}

gboolean
ferry_test_stick_set_fail_writes (FerryTestStick *self, gboolean fail, GError **error)
{
  return send_command (self, fail ? "fail-writes on\n" : "fail-writes off\n", error);
}

gboolean
ferry_test_stick_set_fail_reads (FerryTestStick *self, gboolean fail, GError **error)
{
  return send_command (self, fail ? "fail-reads on\n" : "fail-reads off\n", error);
}

/* A FUSE daemon writes through the loop device's page cache, which would
 * still answer reads after its remount: emptying it makes them reach the
 * emulator, as after replugging a stick. */
static gboolean
drop_device_cache (FerryTestStick *self, GError **error)
{
  int fd = open (self->loop_device, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return set_error_from_errno (error, "Cannot open", self->loop_device);
  if (ioctl (fd, BLKFLSBUF, 0) < 0)
    {
      set_error_from_errno (error, "Cannot drop the cache of", self->loop_device);
      close (fd);
      return FALSE;
    }
  close (fd);
  return TRUE;
}

gboolean
ferry_test_stick_remount (FerryTestStick *self, GError **error)
{
  if (!self->mounted)
    return TRUE;
  if (!run_tool (NULL, error, "umount", self->mountpoint, NULL))
    return FALSE;
  self->mounted = FALSE;
  return drop_device_cache (self, error) && mount_filesystem (self, error);
}

gboolean
ferry_test_stick_repair (FerryTestStick *self, GError **error)
{
  g_autoptr (GPtrArray) argv = ferry_stick_fs_repair_argv (self->fs, self->loop_device);

  g_return_val_if_fail (!self->mounted, FALSE);
  if (argv != NULL && !run_toolv ((const char *const *) argv->pdata, NULL, error))
    return FALSE;
  return drop_device_cache (self, error) && mount_filesystem (self, error);
}

gboolean
ferry_test_stick_unmount_lazily (FerryTestStick *self, GError **error)
{
  if (!self->mounted)
    return TRUE;
  if (!run_tool (NULL, error, "umount", "--lazy", self->mountpoint, NULL))
    return FALSE;
  self->mounted = FALSE;
  return TRUE;
}

gboolean
ferry_test_stick_mount_again (FerryTestStick *self, GError **error)
{
  if (self->mounted)
    return TRUE;
  return drop_device_cache (self, error) && mount_filesystem (self, error);
}

/* As a desktop mounts a stick plugged in again at /media/ana/STICK1 while
 * /media/ana/STICK is still held: unmounted, and mounted at @name in its
 * work folder, which it then removes with the rest. */
gboolean
ferry_test_stick_mount_elsewhere (FerryTestStick *self, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (self->workdir, name, NULL);

  if (self->mounted && !run_tool (NULL, error, "umount", self->mountpoint, NULL))
    return FALSE;
  self->mounted = FALSE;
  if (g_mkdir_with_parents (path, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "Cannot make %s", path);
      return FALSE;
    }
  if (self->created_mountpoint)
    g_rmdir (self->mountpoint);
  g_free (self->mountpoint);
  self->mountpoint = g_steal_pointer (&path);
  self->created_mountpoint = TRUE;
  return drop_device_cache (self, error) && mount_filesystem (self, error);
}

/* Teardown ------------------------------------------------------------------ */

static void
report_teardown_problem (GError *error)
{
  if (error != NULL)
    g_message ("Tearing down a test stick: %s", error->message);
}

/* Whatever a test left dirty or switched on must not slow down or break
 * the unmount. */
static void
lift_limits (FerryTestStick *self)
{
  g_autoptr (GError) error = NULL;

  if (!ferry_test_stick_set_fail_writes (self, FALSE, &error)
      || !ferry_test_stick_set_fail_reads (self, FALSE, &error)
      || !ferry_test_stick_set_costs (self, 0, 0, &error)
      || !ferry_test_stick_set_rate (self, 0, &error))
    report_teardown_problem (error);
}

static void
close_guard (FerryTestStick *self)
{
  if (self->guard_fd >= 0)
    close (self->guard_fd);
  self->guard_fd = -1;
}

static void
stop_daemon (FerryTestStick *self)
{
  g_autoptr (GError) error = NULL;

  if (!unmount_fuse (self->fuse_mountpoint, &error))
    report_teardown_problem (error);

  /* Only now: closing the guard earlier would start the daemon's own
   * teardown in parallel with this one. */
  close_guard (self);
  end_process (self->daemon_pid, TRUE, DAEMON_EXIT_TIMEOUT_US);
  self->daemon_pid = 0;
}

/**
 * ferry_test_stick_remove_workdir:
 * What a stick made in @workdir leaves when its process died without
 * taking it down (its daemon's guard unmounts and detaches, but cannot
 * remove the daemon's pid file and log, nor the stick's own folders):
 * those, and then @workdir, when nothing else is in it. TRUE when
 * @workdir is gone.
 */
gboolean
ferry_test_stick_remove_workdir (const char *workdir)
{
  const char *files[] = { BACKING_NAME, PID_FILE_NAME, LOG_FILE_NAME };
  const char *folders[] = { FUSE_DIR_NAME, MOUNT_DIR_NAME };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (workdir, files[i], NULL);
      g_unlink (path);
    }
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autofree char *path = g_build_filename (workdir, folders[i], NULL);
      g_rmdir (path);
    }
  return g_rmdir (workdir) == 0;
}

static void
remove_files (FerryTestStick *self)
{
  if (self->created_mountpoint && self->mountpoint != NULL)
    g_rmdir (self->mountpoint);
  /* The folder goes too when nothing else is in it: the next stick
   * makes it again. */
  ferry_test_stick_remove_workdir (self->workdir);
}

void
ferry_test_stick_free (FerryTestStick *self)
{
  g_autoptr (GError) error = NULL;

  if (self == NULL)
    return;

  if (self->daemon_ready)
    lift_limits (self);
  if (self->mounted && !unmount_all_at (self->mountpoint, &error))
    report_teardown_problem (error);
  g_clear_error (&error);
  if (self->block_name != NULL && !detach_loop (self->block_name, &error))
    report_teardown_problem (error);
  if (self->daemon_pid != 0)
    stop_daemon (self);
  close_guard (self);

  if (self->backing_file != NULL)
    remove_files (self);

  g_free (self->workdir);
  g_free (self->backing_file);
  g_free (self->fuse_mountpoint);
  g_free (self->disk_path);
  g_free (self->control_path);
  g_free (self->pid_file);
  g_free (self->log_file);
  g_free (self->mountpoint);
  g_free (self->label);
  g_free (self->loop_device);
  g_free (self->block_name);
  g_free (self);
}

/* Support ------------------------------------------------------------------- */

static void
check_device (GPtrArray *missing, const char *path)
{
  int fd = open (path, O_RDWR | O_CLOEXEC);

  if (fd < 0)
    g_ptr_array_add (missing, g_strdup_printf ("cannot open %s: %s", path, g_strerror (errno)));
  else
    close (fd);
}

gboolean
ferry_test_stick_is_supported (char **reason)
{
  return ferry_test_stick_is_supported_fs (FERRY_TEST_STICK_FS_EXT4, reason);
}

gboolean
ferry_test_stick_is_supported_fs (FerryTestStickFs fs, char **reason)
{
  static const char *const tools[] = { "losetup", "mount", "umount", "fusermount3" };
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);

  if (geteuid () != 0)
    g_ptr_array_add (missing, g_strdup ("not running as root"));
  check_device (missing, "/dev/fuse");
  check_device (missing, "/dev/loop-control");

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autofree char *path = ferry_stick_sys_find_tool (tools[i]);

      if (path == NULL)
        g_ptr_array_add (missing, g_strdup_printf ("%s not found", tools[i]));
    }
  ferry_stick_fs_check_tools (fs, missing);

  if (!g_file_test (slow_disk_program (), G_FILE_TEST_IS_EXECUTABLE))
    g_ptr_array_add (missing, g_strdup_printf ("%s not built", slow_disk_program ()));

  if (missing->len == 0)
    return TRUE;

  if (reason != NULL)
    {
      g_ptr_array_add (missing, NULL);
      *reason = g_strjoinv ("; ", (char **) missing->pdata);
    }
  return FALSE;
}

FerryTestStick *
ferry_test_stick_new_or_skip_full (const FerryTestStickOptions *options)
{
  g_autofree char *reason = NULL;
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  FerryTestStick *stick;

  if (!ferry_test_stick_is_supported_fs (options->fs, &reason))
    {
      /* CI runs as root with every package, so there these tests run. */
      message = g_strdup_printf ("the emulated %s stick cannot be made here (%s)",
                                 ferry_test_stick_fs_to_string (options->fs), reason);
      g_test_skip (message);
      return NULL;
    }
  stick = ferry_test_stick_new_full (options, &error);
  g_assert_no_error (error);
  return stick;
}

FerryTestStick *
ferry_test_stick_new_or_skip (const char *workdir,
                              const char *mountpoint,
                              const char *label,
                              guint64 size_bytes,
                              guint64 rate_bytes_per_sec)
{
  const FerryTestStickOptions options
      = ext4_options (workdir, mountpoint, label, size_bytes, rate_bytes_per_sec);

  return ferry_test_stick_new_or_skip_full (&options);
}
