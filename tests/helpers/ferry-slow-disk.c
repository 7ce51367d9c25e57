/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ferry-slow-disk: an emulated slow USB stick for tests and benchmarks.
 *
 * Serves one backing file as MOUNTPOINT/disk and makes writes to it wait
 * on a token bucket. A loop device on that file, and a filesystem on the
 * loop device, then drain their writeback at the speed of a real stick, so
 * the kernel builds up the same dirty-page queue in front of it.
 *
 * Cheap flash also charges for where and how often it is written: a write
 * that does not continue the previous one makes the controller rewrite
 * part of an erase block, and a cache flush drains its queue. Both costs
 * are settable, and counted, so a test can assert on counts where times
 * on a shared machine are not stable.
 */
#define FUSE_USE_VERSION 31

#include "ferry-stick-sys.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <glib.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <linux/falloc.h>
#include <linux/fuse.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM_NAME  "ferry-slow-disk"
#define DISK_NAME     "disk"
#define CONTROL_NAME  "control"
#define DEFAULT_BURST (128 * 1024)
/* Reported as the size of "control" so readers that trust st_size (like
 * g_file_get_contents()) read it all; direct_io makes the real length
 * whatever a read returns. */
#define CONTROL_REPORTED_SIZE 4096
/* Teardown retries: a loop device stays bound until its last opener goes. */
#define TEARDOWN_ROUNDS   10
#define TEARDOWN_PAUSE_US (200 * 1000)

static const char usage_text[]
    = "Usage: " PROGRAM_NAME " [OPTION...] BACKING_FILE MOUNTPOINT [FUSE_OPTION...]\n"
      "\n"
      "Serves BACKING_FILE as MOUNTPOINT/" DISK_NAME ", with writes throttled to a device rate.\n"
      "Prints 'ready' on standard output once mounted, then closes it.\n"
      "\n"
      "  --rate=BYTES_PER_SEC  write rate of " DISK_NAME " (default 0: unthrottled)\n"
      "  --burst=BYTES         token bucket depth (default 131072)\n"
      "  --scatter-cost=USEC   busy time of a scattered write: one that does not\n"
      "                        start where the previous write ended (default 0)\n"
      "  --flush-cost=USEC     busy time of a flush (an fsync of " DISK_NAME ", which is\n"
      "                        what the loop driver sends for a cache flush; default 0)\n"
      "  --guard-fd=FD         when FD reaches end of file, or on SIGINT, SIGTERM or\n"
      "                        SIGHUP: unmount the filesystems on loop devices of\n"
      "                        MOUNTPOINT/" DISK_NAME ", detach those loop devices, unmount\n"
      "                        MOUNTPOINT, delete BACKING_FILE and exit\n"
      "  -s                    serve requests on a single thread\n"
      "  -d, -o OPTIONS        passed to FUSE\n"
      "\n"
      "Commands, one per line, written to MOUNTPOINT/" CONTROL_NAME ":\n"
      "  rate BYTES_PER_SEC    0 means unthrottled\n"
      "  burst BYTES\n"
      "  scatter-cost USEC\n"
      "  flush-cost USEC\n"
      "  fail-writes on|off    writes to " DISK_NAME " fail with EIO\n"
      "  fail-reads on|off     reads of " DISK_NAME " fail with EIO\n"
      "Reading MOUNTPOINT/" CONTROL_NAME " gives 'name value' lines: written, read, rate,\n"
      "burst, fail-writes, fail-reads, write-requests, largest-write, scatter-cost,\n"
      "flush-cost, scattered-writes, flushes. The counts go to standard error on exit.\n"
      "With FERRY_SLOW_DISK_TRACE=FILE set, FILE gets a line per write ('TIME w OFFSET\n"
      "SIZE', ' s' when scattered) and per flush ('TIME f'), in the device's order.\n";

typedef struct
{
  guint64 rate;
  guint64 burst;
  guint64 scatter_cost_us;
  guint64 flush_cost_us;
  int guard_fd;
  gboolean single_thread;
  char *backing_path;
  char *mountpoint;
  GPtrArray *fuse_args;
} Options;

typedef struct
{
  int backing_fd;
  char *backing_path;
  char *mountpoint;
  char *disk_path;
  guint64 size;
  struct timespec started; /* every timestamp, so tools see a sane date */

  /* The device does one write or flush at a time, whatever the number of
   * FUSE worker threads: it is held from the costs and throttle wait to
   * the end of pwrite(), and through a flush. See note_arrival(). */
  GMutex queue_lock; /* the three below */
  GCond queue_changed;
  gboolean device_busy;
  GQueue in_order; /* of Request, as the kernel sent them */
  /* Where the last write ended; G_MAXUINT64 before the first, which is
   * then scattered like any write to a closed erase block. Written while
   * the device is held, read under queue_lock. */
  guint64 next_write_offset;
  /* $FERRY_SLOW_DISK_TRACE: one line per write and flush, in device
   * order, to see where a copy's scattered writes come from. Written
   * while the device is held. */
  FILE *trace;

  GMutex lock; /* everything below */
  GCond changed;
  guint64 rate;
  guint64 burst;
  double tokens;
  gint64 refilled_at_us;
  gboolean fail_writes;
  gboolean fail_reads;
  guint64 bytes_written;
  guint64 bytes_read;
  guint64 write_requests;
  guint64 largest_write;
  guint64 scatter_cost_us;
  guint64 flush_cost_us;
  guint64 scattered_writes;
  guint64 flushes;
} SlowDisk;

typedef enum
{
  NODE_NONE,
  NODE_ROOT,
  NODE_DISK,
  NODE_CONTROL,
} Node;

static Node
node_from_path (const char *path)
{
  if (g_str_equal (path, "/"))
    return NODE_ROOT;
  if (g_str_equal (path, "/" DISK_NAME))
    return NODE_DISK;
  if (g_str_equal (path, "/" CONTROL_NAME))
    return NODE_CONTROL;
  return NODE_NONE;
}

static SlowDisk *
current_disk (void)
{
  return fuse_get_context ()->private_data;
}

/* Token bucket ------------------------------------------------------------ */

/* Called with disk->lock held. Unthrottled, the bucket stays full, so
 * turning a rate on starts with one burst of credit. */
static void
refill_tokens (SlowDisk *disk, gint64 now_us)
{
  if (disk->rate == 0)
    disk->tokens = disk->burst;
  else
    disk->tokens = MIN (
        (double) disk->burst,
        disk->tokens + (double) (now_us - disk->refilled_at_us) * disk->rate / G_USEC_PER_SEC);
  disk->refilled_at_us = now_us;
}

/* Takes @size bytes of credit, then sleeps until the debt is paid: a write
 * returns when a device at this rate would have finished it, so the
 * kernel sees completions, and queues, at that rate. */
static void
throttle (SlowDisk *disk, size_t size)
{
  g_mutex_lock (&disk->lock);
  refill_tokens (disk, g_get_monotonic_time ());
  disk->tokens -= size;

  while (disk->rate > 0 && disk->tokens < 0)
    {
      gint64 wait_us = (gint64) (-disk->tokens * G_USEC_PER_SEC / disk->rate) + 1;

      /* A rate change wakes this up early, so "rate 0" unblocks at once. */
      g_cond_wait_until (&disk->changed, &disk->lock, g_get_monotonic_time () + wait_us);
      refill_tokens (disk, g_get_monotonic_time ());
    }

  g_mutex_unlock (&disk->lock);
}

static void
set_rate (SlowDisk *disk, guint64 rate, guint64 burst)
{
  g_mutex_lock (&disk->lock);
  /* Settle the credit earned at the old rate before switching. */
  refill_tokens (disk, g_get_monotonic_time ());
  disk->rate = rate;
  disk->burst = burst;
  disk->tokens = MIN (disk->tokens, (double) burst);
  g_cond_broadcast (&disk->changed);
  g_mutex_unlock (&disk->lock);
}

/* The device queue ------------------------------------------------------------ */

/* One request read from /dev/fuse, on its way to a worker thread. */
typedef struct
{
  struct fuse_buf buf;
  /* A write or fsync, waiting in SlowDisk.in_order to reach the device
   * in the order the kernel sent it. */
  gboolean ordered;
} Request;

/* The request the calling worker thread is processing. */
static GPrivate current_request;

/* The kernel sends the loop device's requests in the order the block
 * layer dispatched them, but worker threads reach the device in whatever
 * order the scheduler runs them (44 of 240 requests of a sequential
 * stream were out of order): the device takes writes and flushes in
 * the order they were read from /dev/fuse, so a scattered write is one
 * the block layer really sent. Called by the reader thread only. */
static void
note_arrival (SlowDisk *disk, Request *request, int size)
{
  const struct fuse_in_header *header = request->buf.mem;

  if ((request->buf.flags & FUSE_BUF_IS_FD) || size < (int) sizeof *header)
    return;
  if (header->opcode != FUSE_WRITE && header->opcode != FUSE_FSYNC)
    return;

  g_mutex_lock (&disk->queue_lock);
  request->ordered = TRUE;
  g_queue_push_tail (&disk->in_order, request);
  g_mutex_unlock (&disk->queue_lock);
}

/* A request of the control file, or one that failed before reaching the
 * device, stops holding back the ones behind it. */
static void
retire_request (SlowDisk *disk, Request *request)
{
  g_mutex_lock (&disk->queue_lock);
  if (request->ordered)
    {
      g_queue_remove (&disk->in_order, request);
      request->ordered = FALSE;
      g_cond_broadcast (&disk->queue_changed);
    }
  g_mutex_unlock (&disk->queue_lock);
}

static void
device_acquire (SlowDisk *disk)
{
  Request *request = g_private_get (&current_request);

  g_mutex_lock (&disk->queue_lock);
  while (disk->device_busy
         || (request != NULL && request->ordered
             && g_queue_peek_head (&disk->in_order) != request))
    g_cond_wait (&disk->queue_changed, &disk->queue_lock);

  if (request != NULL && request->ordered)
    {
      g_queue_remove (&disk->in_order, request);
      request->ordered = FALSE;
    }
  disk->device_busy = TRUE;
  g_mutex_unlock (&disk->queue_lock);
}

/* @next_write_offset: where the write just done ended, or G_MAXUINT64 to
 * leave it as it was. */
static void
device_release (SlowDisk *disk, guint64 next_write_offset)
{
  g_mutex_lock (&disk->queue_lock);
  if (next_write_offset != G_MAXUINT64)
    disk->next_write_offset = next_write_offset;
  disk->device_busy = FALSE;
  g_cond_broadcast (&disk->queue_changed);
  g_mutex_unlock (&disk->queue_lock);
}

/* Busy time of the device that moves no bytes: the controller rewriting
 * an erase block, or draining its cache. It must not earn token bucket
 * credit, or a cost shorter than a burst would vanish into the next
 * write's throttle wait. Called with the device held; re-reads @cost_us
 * on every wake-up, so a cost lowered to 0 (teardown) ends the wait. */
static void
charge_busy_time (SlowDisk *disk, const guint64 *cost_us)
{
  gint64 start_us;

  g_mutex_lock (&disk->lock);
  if (*cost_us > 0)
    {
      start_us = g_get_monotonic_time ();
      refill_tokens (disk, start_us);
      while (g_get_monotonic_time () < start_us + (gint64) *cost_us)
        g_cond_wait_until (&disk->changed, &disk->lock, start_us + (gint64) *cost_us);
      disk->refilled_at_us = g_get_monotonic_time ();
    }
  g_mutex_unlock (&disk->lock);
}

static void
set_cost (SlowDisk *disk, guint64 *cost_us, guint64 value)
{
  g_mutex_lock (&disk->lock);
  *cost_us = value;
  g_cond_broadcast (&disk->changed);
  g_mutex_unlock (&disk->lock);
}

/* Disk I/O ------------------------------------------------------------------ */

static gboolean
writes_fail (SlowDisk *disk)
{
  gboolean fail;

  g_mutex_lock (&disk->lock);
  fail = disk->fail_writes;
  g_mutex_unlock (&disk->lock);
  return fail;
}

static gboolean
reads_fail (SlowDisk *disk)
{
  gboolean fail;

  g_mutex_lock (&disk->lock);
  fail = disk->fail_reads;
  g_mutex_unlock (&disk->lock);
  return fail;
}

static int
read_disk (SlowDisk *disk, char *buf, size_t size, off_t offset)
{
  size_t done = 0;

  if (reads_fail (disk))
    return -EIO;

  while (done < size)
    {
      ssize_t n = pread (disk->backing_fd, buf + done, size - done, offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      if (n == 0)
        break;
      done += n;
    }

  g_mutex_lock (&disk->lock);
  disk->bytes_read += done;
  g_mutex_unlock (&disk->lock);
  return done;
}

static int
write_backing_file (SlowDisk *disk, const char *buf, size_t size, off_t offset)
{
  size_t done = 0;

  while (done < size)
    {
      ssize_t n = pwrite (disk->backing_fd, buf + done, size - done, offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      done += n;
    }

  return done;
}

static int
write_disk (SlowDisk *disk, const char *buf, size_t size, off_t offset)
{
  gboolean scattered;
  int result;

  if (writes_fail (disk))
    return -EIO;
  /* The disk has a fixed size, like a device: no growing past its end. */
  if (offset < 0 || (guint64) offset >= disk->size)
    return -ENOSPC;
  size = MIN (size, disk->size - offset);

  device_acquire (disk);
  /* Only the holder of the device changes it. */
  scattered = (guint64) offset != disk->next_write_offset;
  if (scattered)
    charge_busy_time (disk, &disk->scatter_cost_us);
  throttle (disk, size);
  result = write_backing_file (disk, buf, size, offset);
  if (disk->trace != NULL)
    fprintf (disk->trace, "%.6f w %" G_GUINT64_FORMAT " %zu%s\n", g_get_monotonic_time () / 1e6,
             (guint64) offset, size, scattered ? " s" : "");
  device_release (disk, result > 0 ? (guint64) offset + result : G_MAXUINT64);

  if (result > 0)
    {
      g_mutex_lock (&disk->lock);
      disk->bytes_written += result;
      disk->write_requests++;
      disk->scattered_writes += scattered ? 1 : 0;
      disk->largest_write = MAX (disk->largest_write, (guint64) result);
      g_mutex_unlock (&disk->lock);
    }

  return result;
}

/* The loop driver turns a cache flush (REQ_OP_FLUSH, and the flush the
 * block layer makes of a FUA write) into vfs_fsync() of its file, which
 * FUSE sends here as fsync; close() sends FUSE flush, which is no device
 * flush and is not counted. The backing file stands for the stick's
 * flash: making it durable on the host would only add the host disk's
 * latency to every flush. */
static int
flush_disk (SlowDisk *disk)
{
  device_acquire (disk);
  charge_busy_time (disk, &disk->flush_cost_us);
  if (disk->trace != NULL)
    fprintf (disk->trace, "%.6f f\n", g_get_monotonic_time () / 1e6);
  device_release (disk, G_MAXUINT64);

  g_mutex_lock (&disk->lock);
  disk->flushes++;
  g_mutex_unlock (&disk->lock);
  return 0;
}

/* Control file -------------------------------------------------------------- */

static char *
format_stats (SlowDisk *disk)
{
  char *stats;

  g_mutex_lock (&disk->lock);
  stats = g_strdup_printf ("written %" G_GUINT64_FORMAT "\n"
                           "read %" G_GUINT64_FORMAT "\n"
                           "rate %" G_GUINT64_FORMAT "\n"
                           "burst %" G_GUINT64_FORMAT "\n"
                           "fail-writes %s\n"
                           "fail-reads %s\n"
                           "write-requests %" G_GUINT64_FORMAT "\n"
                           "largest-write %" G_GUINT64_FORMAT "\n"
                           "scatter-cost %" G_GUINT64_FORMAT "\n"
                           "flush-cost %" G_GUINT64_FORMAT "\n"
                           "scattered-writes %" G_GUINT64_FORMAT "\n"
                           "flushes %" G_GUINT64_FORMAT "\n",
                           disk->bytes_written, disk->bytes_read, disk->rate, disk->burst,
                           disk->fail_writes ? "on" : "off", disk->fail_reads ? "on" : "off",
                           disk->write_requests, disk->largest_write, disk->scatter_cost_us,
                           disk->flush_cost_us, disk->scattered_writes, disk->flushes);
  g_mutex_unlock (&disk->lock);
  return stats;
}

static gboolean
parse_switch (const char *word, gboolean *value)
{
  if (g_str_equal (word, "on"))
    *value = TRUE;
  else if (g_str_equal (word, "off"))
    *value = FALSE;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_bytes (const char *word, guint64 *value)
{
  return g_ascii_string_to_unsigned (word, 10, 0, G_MAXUINT64, value, NULL);
}

static void
set_failure (SlowDisk *disk, gboolean *flag, gboolean fail)
{
  g_mutex_lock (&disk->lock);
  *flag = fail;
  g_mutex_unlock (&disk->lock);
}

static gboolean
run_command (SlowDisk *disk, const char *line)
{
  g_auto (GStrv) words = g_strsplit_set (line, " \t", 0);
  guint64 number;
  gboolean flag;

  if (g_strv_length (words) != 2)
    return FALSE;

  if (g_str_equal (words[0], "rate") && parse_bytes (words[1], &number))
    set_rate (disk, number, disk->burst);
  else if (g_str_equal (words[0], "burst") && parse_bytes (words[1], &number) && number > 0)
    set_rate (disk, disk->rate, number);
  else if (g_str_equal (words[0], "scatter-cost") && parse_bytes (words[1], &number))
    set_cost (disk, &disk->scatter_cost_us, number);
  else if (g_str_equal (words[0], "flush-cost") && parse_bytes (words[1], &number))
    set_cost (disk, &disk->flush_cost_us, number);
  else if (g_str_equal (words[0], "fail-writes") && parse_switch (words[1], &flag))
    set_failure (disk, &disk->fail_writes, flag);
  else if (g_str_equal (words[0], "fail-reads") && parse_switch (words[1], &flag))
    set_failure (disk, &disk->fail_reads, flag);
  else
    return FALSE;

  return TRUE;
}

/* Each write holds whole lines: the commands are short enough for one
 * write(2), and a half-line is an error rather than a command to guess. */
static int
write_control (SlowDisk *disk, const char *buf, size_t size)
{
  g_autofree char *text = g_strndup (buf, size);
  g_auto (GStrv) lines = g_strsplit (text, "\n", 0);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);

      if (*line != '\0' && !run_command (disk, line))
        {
          g_printerr ("%s: unknown control command '%s'\n", PROGRAM_NAME, line);
          return -EINVAL;
        }
    }

  return size;
}

static int
read_control (const char *stats, char *buf, size_t size, off_t offset)
{
  size_t length = strlen (stats);

  if (offset < 0 || (size_t) offset >= length)
    return 0;

  size = MIN (size, length - offset);
  memcpy (buf, stats + offset, size);
  return size;
}

/* FUSE operations ----------------------------------------------------------- */

static int
slow_disk_getattr (const char *path, struct stat *st, struct fuse_file_info *fi)
{
  SlowDisk *disk = current_disk ();

  memset (st, 0, sizeof *st);
  st->st_uid = getuid ();
  st->st_gid = getgid ();
  st->st_atim = st->st_mtim = st->st_ctim = disk->started;

  switch (node_from_path (path))
    {
      case NODE_ROOT:
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
      case NODE_DISK:
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_size = disk->size;
        st->st_blocks = disk->size / 512;
        return 0;
      case NODE_CONTROL:
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_size = CONTROL_REPORTED_SIZE;
        return 0;
      case NODE_NONE:
      default:
        return -ENOENT;
    }
}

static int
slow_disk_readdir (const char *path,
                   void *buf,
                   fuse_fill_dir_t filler,
                   off_t offset,
                   struct fuse_file_info *fi,
                   enum fuse_readdir_flags flags)
{
  if (node_from_path (path) != NODE_ROOT)
    return -ENOTDIR;

  filler (buf, ".", NULL, 0, 0);
  filler (buf, "..", NULL, 0, 0);
  filler (buf, DISK_NAME, NULL, 0, 0);
  filler (buf, CONTROL_NAME, NULL, 0, 0);
  return 0;
}

static int
slow_disk_open (const char *path, struct fuse_file_info *fi)
{
  Node node = node_from_path (path);

  if (node != NODE_DISK && node != NODE_CONTROL)
    return node == NODE_ROOT ? -EISDIR : -ENOENT;

  /* No FUSE page cache: every write reaches the throttle when the loop
   * device issues it, instead of being absorbed by a second cache. */
  fi->direct_io = 1;

  /* Stats are taken once per open so a reader sees one consistent text
   * across several read() calls. */
  if (node == NODE_CONTROL && (fi->flags & O_ACCMODE) != O_WRONLY)
    fi->fh = (uint64_t) (uintptr_t) format_stats (current_disk ());

  return 0;
}

static int
slow_disk_release (const char *path, struct fuse_file_info *fi)
{
  if (node_from_path (path) == NODE_CONTROL)
    g_free ((char *) (uintptr_t) fi->fh);
  return 0;
}

static int
slow_disk_read (const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi)
{
  switch (node_from_path (path))
    {
      case NODE_DISK:
        return read_disk (current_disk (), buf, size, offset);
      case NODE_CONTROL:
        if (fi->fh == 0)
          return -EBADF;
        return read_control ((const char *) (uintptr_t) fi->fh, buf, size, offset);
      case NODE_ROOT:
        return -EISDIR;
      case NODE_NONE:
      default:
        return -ENOENT;
    }
}

static int
slow_disk_write (const char *path,
                 const char *buf,
                 size_t size,
                 off_t offset,
                 struct fuse_file_info *fi)
{
  switch (node_from_path (path))
    {
      case NODE_DISK:
        return write_disk (current_disk (), buf, size, offset);
      case NODE_CONTROL:
        return write_control (current_disk (), buf, size);
      case NODE_ROOT:
        return -EISDIR;
      case NODE_NONE:
      default:
        return -ENOENT;
    }
}

/* "echo rate 0 > control" truncates first; the disk keeps its size. */
static int
slow_disk_truncate (const char *path, off_t size, struct fuse_file_info *fi)
{
  switch (node_from_path (path))
    {
      case NODE_CONTROL:
        return 0;
      case NODE_DISK:
        return (guint64) size == current_disk ()->size ? 0 : -EPERM;
      case NODE_ROOT:
        return -EISDIR;
      case NODE_NONE:
      default:
        return -ENOENT;
    }
}

static int
slow_disk_fsync (const char *path, int datasync, struct fuse_file_info *fi)
{
  if (node_from_path (path) != NODE_DISK)
    return 0;
  return flush_disk (current_disk ());
}

/* Discards from the loop device (fstrim, mkfs) punch holes in the backing
 * file, unthrottled like the TRIM of a real stick. */
static int
slow_disk_fallocate (const char *path,
                     int mode,
                     off_t offset,
                     off_t length,
                     struct fuse_file_info *fi)
{
  SlowDisk *disk = current_disk ();

  if (node_from_path (path) != NODE_DISK)
    return -EOPNOTSUPP;
  if (writes_fail (disk))
    return -EIO;
  if (!(mode & FALLOC_FL_PUNCH_HOLE))
    return -EOPNOTSUPP;

  return fallocate (disk->backing_fd, mode, offset, length) == 0 ? 0 : -errno;
}

static void *
slow_disk_init (struct fuse_conn_info *conn, struct fuse_config *config)
{
  config->direct_io = 1;
  /* A spliced request stays in a pipe of the thread that read it, and
   * serve() hands requests to other threads. */
  conn->want &= ~FUSE_CAP_SPLICE_READ;
  return current_disk ();
}

static const struct fuse_operations slow_disk_operations = {
  .getattr = slow_disk_getattr,
  .readdir = slow_disk_readdir,
  .open = slow_disk_open,
  .release = slow_disk_release,
  .read = slow_disk_read,
  .write = slow_disk_write,
  .truncate = slow_disk_truncate,
  .fsync = slow_disk_fsync,
  .fallocate = slow_disk_fallocate,
  .init = slow_disk_init,
};

/* Guardian ------------------------------------------------------------------ */

/* The guardian takes down what a test stacked on the disk when the test
 * process dies without doing it itself (a failed assertion aborts): the
 * test holds the write end of the guard pipe, and the kernel closes it
 * however the test ends. */

static int signal_pipe[2] = { -1, -1 };

static void
on_termination_signal (int signum)
{
  int saved_errno = errno;
  char byte = 0;

  if (write (signal_pipe[1], &byte, 1) < 0)
    {
      /* Nothing to do in a signal handler: the pipe is already full. */
    }
  errno = saved_errno;
}

static gboolean
install_termination_handlers (GError **error)
{
  struct sigaction action = { 0 };

  if (!g_unix_open_pipe (signal_pipe, FD_CLOEXEC, error))
    return FALSE;
  g_unix_set_fd_nonblocking (signal_pipe[1], TRUE, NULL);

  action.sa_handler = on_termination_signal;
  sigemptyset (&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGTERM, &action, NULL);
  sigaction (SIGHUP, &action, NULL);
  return TRUE;
}

/* Blocks until the guard fd reaches end of file or fails, or a
 * termination signal arrives. */
static void
wait_for_guarded_process_end (int guard_fd)
{
  struct pollfd fds[2] = {
    { .fd = guard_fd, .events = POLLIN },
    { .fd = signal_pipe[0], .events = POLLIN },
  };

  for (;;)
    {
      char buf[64];
      ssize_t n;

      if (poll (fds, G_N_ELEMENTS (fds), -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return;
        }
      if (fds[1].revents != 0)
        return;
      if (fds[0].revents == 0)
        continue;

      n = read (guard_fd, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
        return;
    }
}

static void
lift_limits (SlowDisk *disk)
{
  set_failure (disk, &disk->fail_writes, FALSE);
  set_failure (disk, &disk->fail_reads, FALSE);
  set_cost (disk, &disk->scatter_cost_us, 0);
  set_cost (disk, &disk->flush_cost_us, 0);
  set_rate (disk, 0, disk->burst);
}

/* A busy filesystem (someone still has a file open on it) is detached
 * lazily: it disappears from the namespace now and releases the loop
 * device when its last user goes. */
static void
unmount_path (const char *mount_point)
{
  if (umount2 (mount_point, 0) == 0)
    return;
  if (errno == EBUSY && umount2 (mount_point, MNT_DETACH) == 0)
    return;
  g_printerr ("%s: cannot unmount %s: %s\n", PROGRAM_NAME, mount_point, g_strerror (errno));
}

/* Unmounting a fuseblk filesystem (ntfs-3g, exfat-fuse as root) waits
 * for its daemon to write its own metadata, which goes through this
 * daemon's FUSE loop, still serving on its other threads. */
static void
unmount_filesystems_on (const char *block_name)
{
  g_autoptr (GPtrArray) mount_points = ferry_stick_sys_list_mounts_of_block (block_name);

  for (guint i = 0; i < mount_points->len; i++)
    unmount_path (g_ptr_array_index (mount_points, i));
}

/* LOOP_CLR_FD on a device still open elsewhere marks it to detach itself
 * on last close, which is as good as it gets. */
static void
detach_loop (const char *block_name)
{
  g_autofree char *device = g_build_filename ("/dev", block_name, NULL);
  int fd = open (device, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    {
      g_printerr ("%s: cannot open %s: %s\n", PROGRAM_NAME, device, g_strerror (errno));
      return;
    }
  if (ioctl (fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO)
    g_printerr ("%s: cannot detach %s: %s\n", PROGRAM_NAME, device, g_strerror (errno));
  close (fd);
}

static gboolean
detach_loops_of_disk (SlowDisk *disk)
{
  g_autoptr (GPtrArray) loops = ferry_stick_sys_list_loops_backed_by (disk->disk_path);

  for (guint i = 0; i < loops->len; i++)
    {
      unmount_filesystems_on (g_ptr_array_index (loops, i));
      detach_loop (g_ptr_array_index (loops, i));
    }

  return loops->len > 0;
}

/* Runs while the FUSE loop keeps serving: unmounting the filesystems on
 * the loop devices writes their dirty data through this daemon. */
static void
tear_down_stack (SlowDisk *disk)
{
  lift_limits (disk);

  for (int round = 0; round < TEARDOWN_ROUNDS && detach_loops_of_disk (disk); round++)
    g_usleep (TEARDOWN_PAUSE_US);

  /* Ends the FUSE loop in main(): the kernel hangs up /dev/fuse. */
  unmount_path (disk->mountpoint);
}

typedef struct
{
  SlowDisk *disk;
  int guard_fd;
  int stopping; /* atomic: the FUSE loop ended for another reason */
} Guardian;

static gpointer
guardian_thread (gpointer data)
{
  Guardian *guardian = data;

  wait_for_guarded_process_end (guardian->guard_fd);
  if (g_atomic_int_get (&guardian->stopping))
    return NULL;

  g_printerr ("%s: guarded process gone, tearing down %s\n", PROGRAM_NAME,
              guardian->disk->mountpoint);
  tear_down_stack (guardian->disk);
  return NULL;
}

/* Lets a guardian that is still waiting return without tearing down, or
 * waits for the teardown it is doing to finish. */
static void
stop_guardian (Guardian *guardian, GThread *thread)
{
  char byte = 0;

  g_atomic_int_set (&guardian->stopping, TRUE);
  if (write (signal_pipe[1], &byte, 1) < 0)
    g_printerr ("%s: cannot wake the guardian: %s\n", PROGRAM_NAME, g_strerror (errno));
  g_thread_join (thread);
}

/* Command line -------------------------------------------------------------- */

static void
options_clear (Options *options)
{
  g_clear_pointer (&options->backing_path, g_free);
  g_clear_pointer (&options->mountpoint, g_free);
  g_clear_pointer (&options->fuse_args, g_ptr_array_unref);
}

static gboolean
parse_number_option (const char *arg, const char *name, guint64 *value, GError **error)
{
  g_autoptr (GError) local_error = NULL;

  if (!g_ascii_string_to_unsigned (arg + strlen (name), 10, 0, G_MAXUINT64, value, &local_error))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s%s", name,
                   local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
add_positional (Options *options, const char *arg, GError **error)
{
  if (options->backing_path == NULL)
    options->backing_path = g_strdup (arg);
  else if (options->mountpoint == NULL)
    options->mountpoint = g_strdup (arg);
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "unexpected argument '%s'", arg);
      return FALSE;
    }
  return TRUE;
}

/* The "--name=NUMBER" options that are plain numbers. FALSE with @error
 * for a bad number; *@matched says whether @arg was one of them. */
static gboolean
parse_number_options (Options *options, const char *arg, gboolean *matched, GError **error)
{
  const struct
  {
    const char *name;
    guint64 *value;
  } numbers[] = {
    { "--rate=", &options->rate },
    { "--burst=", &options->burst },
    { "--scatter-cost=", &options->scatter_cost_us },
    { "--flush-cost=", &options->flush_cost_us },
  };

  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    if (g_str_has_prefix (arg, numbers[i].name))
      {
        *matched = TRUE;
        return parse_number_option (arg, numbers[i].name, numbers[i].value, error);
      }

  *matched = FALSE;
  return TRUE;
}

static gboolean
check_options (const Options *options, GError **error)
{
  if (options->mountpoint == NULL)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "BACKING_FILE and MOUNTPOINT are required");
      return FALSE;
    }
  if (options->burst == 0)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--burst must be positive");
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_options (int argc, char **argv, Options *options, GError **error)
{
  guint64 guard_fd = 0;
  gboolean matched;

  options->burst = DEFAULT_BURST;
  options->guard_fd = -1;
  options->fuse_args = g_ptr_array_new_with_free_func (g_free);

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (!parse_number_options (options, arg, &matched, error))
        return FALSE;
      if (matched)
        continue;

      if (g_str_has_prefix (arg, "--guard-fd="))
        {
          if (!parse_number_option (arg, "--guard-fd=", &guard_fd, error))
            return FALSE;
          options->guard_fd = (int) MIN (guard_fd, (guint64) G_MAXINT);
        }
      else if (g_str_equal (arg, "-s"))
        options->single_thread = TRUE;
      else if (g_str_equal (arg, "-f"))
        continue; /* always in the foreground */
      else if (g_str_equal (arg, "-d"))
        g_ptr_array_add (options->fuse_args, g_strdup (arg));
      else if (g_str_equal (arg, "-o") && i + 1 < argc)
        {
          g_ptr_array_add (options->fuse_args, g_strdup (arg));
          g_ptr_array_add (options->fuse_args, g_strdup (argv[++i]));
        }
      else if (g_str_has_prefix (arg, "-o"))
        g_ptr_array_add (options->fuse_args, g_strdup (arg));
      else if (arg[0] == '-')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unknown option '%s'",
                       arg);
          return FALSE;
        }
      else if (!add_positional (options, arg, error))
        return FALSE;
    }

  return check_options (options, error);
}

static gboolean
wants_help (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "-h") || g_str_equal (argv[i], "--help"))
      return TRUE;
  return FALSE;
}

/* Setup --------------------------------------------------------------------- */

static gboolean
slow_disk_init_from_options (SlowDisk *disk, const Options *options, GError **error)
{
  struct stat st;
  char *real_mountpoint;

  disk->backing_fd = open (options->backing_path, O_RDWR | O_CLOEXEC);
  if (disk->backing_fd < 0 || fstat (disk->backing_fd, &st) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "%s: %s",
                   options->backing_path, g_strerror (saved_errno));
      return FALSE;
    }

  /* Canonical, because the guardian finds the loop devices of the disk by
   * the path the kernel reports for their backing file. */
  real_mountpoint = realpath (options->mountpoint, NULL);
  if (real_mountpoint == NULL)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "%s: %s",
                   options->mountpoint, g_strerror (saved_errno));
      return FALSE;
    }

  disk->backing_path = g_strdup (options->backing_path);
  disk->mountpoint = g_strdup (real_mountpoint);
  free (real_mountpoint);
  disk->disk_path = g_build_filename (disk->mountpoint, DISK_NAME, NULL);
  disk->size = st.st_size;
  disk->burst = options->burst;
  disk->rate = options->rate;
  disk->tokens = options->burst;
  disk->scatter_cost_us = options->scatter_cost_us;
  disk->flush_cost_us = options->flush_cost_us;
  disk->next_write_offset = G_MAXUINT64;
  if (g_getenv ("FERRY_SLOW_DISK_TRACE") != NULL)
    disk->trace = fopen (g_getenv ("FERRY_SLOW_DISK_TRACE"), "we");
  disk->refilled_at_us = g_get_monotonic_time ();
  clock_gettime (CLOCK_REALTIME, &disk->started);
  g_mutex_init (&disk->queue_lock);
  g_cond_init (&disk->queue_changed);
  g_queue_init (&disk->in_order);
  g_mutex_init (&disk->lock);
  g_cond_init (&disk->changed);
  return TRUE;
}

static void
slow_disk_clear (SlowDisk *disk)
{
  if (disk->backing_fd >= 0)
    close (disk->backing_fd);
  g_clear_pointer (&disk->trace, fclose);
  g_clear_pointer (&disk->backing_path, g_free);
  g_clear_pointer (&disk->mountpoint, g_free);
  g_clear_pointer (&disk->disk_path, g_free);
  g_mutex_clear (&disk->queue_lock);
  g_cond_clear (&disk->queue_changed);
  g_mutex_clear (&disk->lock);
  g_cond_clear (&disk->changed);
}

/* What a benchmark or a test log wants to know of a finished run. */
static void
print_counts (SlowDisk *disk)
{
  g_mutex_lock (&disk->lock);
  g_printerr ("%s: writes %" G_GUINT64_FORMAT ", scattered-writes %" G_GUINT64_FORMAT
              ", flushes %" G_GUINT64_FORMAT ", written %" G_GUINT64_FORMAT " bytes\n",
              PROGRAM_NAME, disk->write_requests, disk->scattered_writes, disk->flushes,
              disk->bytes_written);
  g_mutex_unlock (&disk->lock);
}

/* Whoever started the daemon learns it is mounted by reading this line;
 * stdout then goes to /dev/null so that reader is not held open. */
static void
announce_ready (void)
{
  static const char ready[] = "ready\n";
  int null_fd;

  if (write (STDOUT_FILENO, ready, strlen (ready)) < 0)
    g_printerr ("%s: cannot write to standard output: %s\n", PROGRAM_NAME, g_strerror (errno));

  null_fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd >= 0)
    {
      dup2 (null_fd, STDOUT_FILENO);
      close (null_fd);
    }
}

static struct fuse *
mount_disk (SlowDisk *disk, const Options *options, struct fuse_args *args, GError **error)
{
  struct fuse *fuse;

  fuse_opt_add_arg (args, PROGRAM_NAME);
  fuse_opt_add_arg (args, "-o");
  fuse_opt_add_arg (args, "fsname=" PROGRAM_NAME ",subtype=" PROGRAM_NAME);
  for (guint i = 0; i < options->fuse_args->len; i++)
    fuse_opt_add_arg (args, g_ptr_array_index (options->fuse_args, i));

  fuse = fuse_new (args, &slow_disk_operations, sizeof slow_disk_operations, disk);
  if (fuse == NULL)
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "invalid FUSE options");
      return NULL;
    }

  if (fuse_mount (fuse, disk->mountpoint) != 0)
    {
      fuse_destroy (fuse);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot mount FUSE on %s",
                   disk->mountpoint);
      return NULL;
    }

  return fuse;
}

typedef struct
{
  SlowDisk *disk;
  struct fuse_session *session;
} Server;

static void
process_request (gpointer data, gpointer user_data)
{
  Request *request = data;
  Server *server = user_data;

  g_private_set (&current_request, request);
  fuse_session_process_buf (server->session, &request->buf);
  g_private_set (&current_request, NULL);

  retire_request (server->disk, request);
  free (request->buf.mem);
  g_free (request);
}

/* fuse_loop_mt(), but with one thread reading the requests, in the
 * kernel's order (see note_arrival()), and as many workers as requests
 * in flight: a throttled write must never keep a control command (rate
 * 0, fail-writes) waiting. -s processes them on the reading thread. */
static int
serve_in_order (SlowDisk *disk, struct fuse_session *session, gboolean single_thread)
{
  Server server = { disk, session };
  GThreadPool *workers = NULL;
  int result = 0;

  if (!single_thread)
    workers = g_thread_pool_new (process_request, &server, -1, FALSE, NULL);

  while (!fuse_session_exited (session))
    {
      Request *request = g_new0 (Request, 1);

      result = fuse_session_receive_buf (session, &request->buf);
      if (result <= 0)
        {
          free (request->buf.mem);
          g_free (request);
          if (result == -EINTR)
            continue;
          break; /* 0: unmounted */
        }

      note_arrival (disk, request, result);
      if (workers != NULL)
        g_thread_pool_push (workers, request, NULL);
      else
        process_request (request, &server);
    }

  if (workers != NULL)
    g_thread_pool_free (workers, FALSE, TRUE);
  fuse_session_reset (session);
  return result < 0 ? -1 : 0;
}

static int
serve (SlowDisk *disk, const Options *options)
{
  struct fuse_args args = FUSE_ARGS_INIT (0, NULL);
  g_autoptr (GError) error = NULL;
  GThread *guardian = NULL;
  Guardian guardian_data = { disk, options->guard_fd, FALSE };
  struct fuse *fuse;
  int result;

  fuse = mount_disk (disk, options, &args, &error);
  if (fuse == NULL)
    {
      g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
      fuse_opt_free_args (&args);
      return 1;
    }

  if (options->guard_fd >= 0)
    guardian = g_thread_new ("guardian", guardian_thread, &guardian_data);
  else
    fuse_set_signal_handlers (fuse_get_session (fuse));

  announce_ready ();
  result = serve_in_order (disk, fuse_get_session (fuse), options->single_thread);

  if (guardian != NULL)
    stop_guardian (&guardian_data, guardian);
  else
    fuse_remove_signal_handlers (fuse_get_session (fuse));
  fuse_unmount (fuse);
  fuse_destroy (fuse);
  fuse_opt_free_args (&args);
  return result < 0 ? 1 : 0;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  Options options = { 0 };
  SlowDisk disk = { .backing_fd = -1 };
  int status;

  if (wants_help (argc, argv))
    {
      fputs (usage_text, stdout);
      return 0;
    }

  if (!parse_options (argc, argv, &options, &error))
    {
      g_printerr ("%s: %s\n\n%s", PROGRAM_NAME, error->message, usage_text);
      options_clear (&options);
      return 2;
    }

  /* A reader of "ready" may be gone by the time it is written. */
  signal (SIGPIPE, SIG_IGN);

  if (options.guard_fd >= 0)
    {
      /* Out of the test's process group and session, so the signal that
       * kills a timed-out test (or ^C in its terminal) leaves the guardian
       * alive to clean up. */
      setsid ();
      if (!install_termination_handlers (&error))
        {
          g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
          options_clear (&options);
          return 1;
        }
    }

  if (!slow_disk_init_from_options (&disk, &options, &error))
    {
      g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
      options_clear (&options);
      return 1;
    }

  status = serve (&disk, &options);
  print_counts (&disk);

  /* A guarded daemon lives as long as one stick, and the backing file is
   * that stick's: it goes too, even when its test died first. */
  if (options.guard_fd >= 0 && g_unlink (disk.backing_path) < 0 && errno != ENOENT)
    g_printerr ("%s: cannot delete %s: %s\n", PROGRAM_NAME, disk.backing_path, g_strerror (errno));

  slow_disk_clear (&disk);
  options_clear (&options);
  return status;
}
