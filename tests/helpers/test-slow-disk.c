/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Self-test of the emulated slow stick: the rate is real, failures are
 * real, scattered writes and flushes are counted exactly, and teardown
 * leaves nothing behind, even when the test dies, for ext4 and for the
 * FUSE-mounted exFAT and NTFS. */
#include "ferry-stick-sys.h"
#include "ferry-test-stick.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB              1000000
#define STICK_SIZE      (128 * 1024 * 1024)
/* exFAT labels hold 11 characters. */
#define LABEL           "FERRYSELF"
#define SECTOR_SIZE     512
#define CHUNK_SIZE      (1024 * 1024)
#define CRASH_INFO_NAME "crash-info"
/* The daemon of a dead test flushes and unmounts unthrottled; this is a
 * generous bound for that. */
#define CRASH_TEARDOWN_TIMEOUT_US (30 * G_USEC_PER_SEC)

static char *
workdir_path (const char *name)
{
  return g_build_filename (g_get_tmp_dir (), name, NULL);
}

/* NULL after g_test_skip() when sticks of @fs cannot be made here. */
static FerryTestStick *
new_stick_of_fs_or_skip (const char *workdir_name,
                         FerryTestStickFs fs,
                         guint64 rate,
                         guint64 scatter_cost_us,
                         guint64 flush_cost_us)
{
  g_autofree char *workdir = workdir_path (workdir_name);
  const FerryTestStickOptions options = {
    .workdir = workdir,
    .label = LABEL,
    .size_bytes = STICK_SIZE,
    .rate_bytes_per_sec = rate,
    .fs = fs,
    .scatter_cost_us = scatter_cost_us,
    .flush_cost_us = flush_cost_us,
  };

  return ferry_test_stick_new_or_skip_full (&options);
}

static FerryTestStick *
new_stick_or_skip (const char *workdir_name, guint64 rate)
{
  return new_stick_of_fs_or_skip (workdir_name, FERRY_TEST_STICK_FS_EXT4, rate, 0, 0);
}

static char *
path_on_stick (FerryTestStick *stick, const char *name)
{
  return g_build_filename (ferry_test_stick_get_mountpoint (stick), name, NULL);
}

/* Returns 0, or the errno of the first step that failed. With delayed
 * allocation the writes land in the page cache; the device is only
 * reached, and its errors only seen, by fdatasync(). */
static int
write_file (const char *path, gsize size, gboolean sync)
{
  g_autofree char *chunk = g_malloc (CHUNK_SIZE);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int saved_errno = 0;

  if (fd < 0)
    return errno;

  /* Not all zeros, in case anything below ever skips zero blocks. */
  memset (chunk, 0x5a, CHUNK_SIZE);
  for (gsize done = 0; done < size && saved_errno == 0;)
    {
      ssize_t n = write (fd, chunk, MIN (CHUNK_SIZE, size - done));

      if (n < 0)
        saved_errno = errno;
      else
        done += n;
    }

  if (saved_errno == 0 && sync && fdatasync (fd) < 0)
    saved_errno = errno;
  close (fd);
  return saved_errno;
}

static int
read_file (const char *path)
{
  g_autofree char *chunk = g_malloc (CHUNK_SIZE);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return errno;

  do
    n = read (fd, chunk, CHUNK_SIZE);
  while (n > 0);

  close (fd);
  return n < 0 ? errno : 0;
}

/* (a) A write queue in front of the stick drains at the set rate, and the
 * loop device's own counters see the bytes arrive. */
static void
test_rate (void)
{
  const guint64 rate = 10 * MB;
  const gsize size = 20 * MB;
  g_autoptr (FerryTestStick) stick = new_stick_or_skip ("ferry-slow-disk-test", rate);
  g_autofree char *path = NULL;
  guint64 sectors_before;
  guint64 bytes_arrived;
  gint64 start_us;
  double seconds;

  if (stick == NULL)
    return;

  path = path_on_stick (stick, "twenty-megabytes");
  sectors_before = ferry_test_stick_get_sectors_written (stick);
  start_us = g_get_monotonic_time ();

  g_assert_cmpint (write_file (path, size, TRUE), ==, 0);

  seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
  bytes_arrived = (ferry_test_stick_get_sectors_written (stick) - sectors_before) * SECTOR_SIZE;
  g_test_message ("%zu bytes at %" G_GUINT64_FORMAT " B/s: %.2f s, %.2f MB/s; %" G_GUINT64_FORMAT
                  " bytes reached %s",
                  size, rate, seconds, size / seconds / MB, bytes_arrived,
                  ferry_test_stick_get_loop_device (stick));

  g_assert_cmpfloat (seconds, >=, 1.6);
  g_assert_cmpfloat (seconds, <=, 3.0);
  g_assert_cmpuint (bytes_arrived, >=, size);
}

/* (b) A failing device makes fdatasync() report EIO. */
static void
test_fail_writes (void)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip ("ferry-slow-disk-test", 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  if (stick == NULL)
    return;

  path = path_on_stick (stick, "doomed");
  ferry_test_stick_set_fail_writes (stick, TRUE, &error);
  g_assert_no_error (error);

  g_assert_cmpint (write_file (path, 4 * MB, TRUE), ==, EIO);

  ferry_test_stick_set_fail_writes (stick, FALSE, &error);
  g_assert_no_error (error);
}

/* A device that fails reads makes reading a file that is not cached
 * fail with EIO. */
static void
test_fail_reads (void)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip ("ferry-slow-disk-test", 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  if (stick == NULL)
    return;

  path = path_on_stick (stick, "unreadable");
  g_assert_cmpint (write_file (path, 4 * MB, TRUE), ==, 0);
  g_assert_cmpint (read_file (path), ==, 0);

  ferry_test_stick_remount (stick, &error);
  g_assert_no_error (error);
  ferry_test_stick_set_fail_reads (stick, TRUE, &error);
  g_assert_no_error (error);

  g_assert_cmpint (read_file (path), ==, EIO);

  ferry_test_stick_set_fail_reads (stick, FALSE, &error);
  g_assert_no_error (error);
}

/* Counts of the emulator, to take differences of. */
typedef struct
{
  guint64 writes;
  guint64 scattered;
  guint64 flushes;
} Counts;

static Counts
read_counts (FerryTestStick *stick)
{
  return (Counts) {
    .writes = ferry_test_stick_get_writes (stick),
    .scattered = ferry_test_stick_get_scattered_writes (stick),
    .flushes = ferry_test_stick_get_flushes (stick),
  };
}

static Counts
counts_since (FerryTestStick *stick, const Counts *before)
{
  Counts now = read_counts (stick);

  return (Counts) {
    .writes = now.writes - before->writes,
    .scattered = now.scattered - before->scattered,
    .flushes = now.flushes - before->flushes,
  };
}

static void
pwrite_block (int fd, guint64 offset)
{
  char block[4096];

  memset (block, 0x5a, sizeof block);
  g_assert_cmpint (pwrite (fd, block, sizeof block, offset), ==, sizeof block);
}

/* (e) Writes straight to the emulator's disk file, one 4 KiB FUSE request
 * each, at offsets chosen so the number of scattered ones is known; an
 * fsync of the file is one flush. */
static void
test_scattered_writes (void)
{
  const guint64 scatter_cost_us = 5000;
  /* After a first write at 0: is each write scattered? */
  static const struct
  {
    guint64 offset;
    gboolean scattered;
  } writes[] = {
    { 4096, FALSE },          { 8192, FALSE }, { 1 << 20, TRUE },  { (1 << 20) + 4096, FALSE },
    { 8 << 20, TRUE },        { 0, TRUE },     { 4096, FALSE },    { 4096, TRUE },
    { (8 << 20) + 4096, TRUE }, { (8 << 20) + 8192, FALSE },
  };
  g_autoptr (FerryTestStick) stick = new_stick_of_fs_or_skip (
      "ferry-slow-disk-test", FERRY_TEST_STICK_FS_NONE, 0, scatter_cost_us, 0);
  g_autofree char *disk = NULL;
  guint64 expected = 0;
  gint64 start_us;
  Counts before, delta;
  int fd;

  if (stick == NULL)
    return;

  disk = g_build_filename (ferry_test_stick_get_fuse_mountpoint (stick), "disk", NULL);
  fd = open (disk, O_WRONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  pwrite_block (fd, 0);

  before = read_counts (stick);
  start_us = g_get_monotonic_time ();
  for (guint i = 0; i < G_N_ELEMENTS (writes); i++)
    {
      pwrite_block (fd, writes[i].offset);
      expected += writes[i].scattered ? 1 : 0;
    }
  g_assert_cmpint (fsync (fd), ==, 0);
  g_assert_cmpint (fdatasync (fd), ==, 0);
  delta = counts_since (stick, &before);

  g_assert_cmpuint (delta.writes, ==, G_N_ELEMENTS (writes));
  g_assert_cmpuint (delta.scattered, ==, expected);
  g_assert_cmpuint (delta.flushes, ==, 2);
  /* Each scattered write waited its cost. */
  g_assert_cmpint (g_get_monotonic_time () - start_us, >=, (gint64) (expected * scatter_cost_us));

  /* 4 MiB in one call arrive as several requests, of which only the first
   * does not continue the previous write. */
  before = read_counts (stick);
  {
    g_autofree char *chunk = g_malloc0 (4 << 20);
    g_assert_cmpint (pwrite (fd, chunk, 4 << 20, 16 << 20), ==, 4 << 20);
  }
  delta = counts_since (stick, &before);
  g_assert_cmpuint (delta.writes, >=, 1);
  g_assert_cmpuint (delta.scattered, ==, 1);
  close (fd);
}

/* (f) What a filesystem sends: `sync` after writing a file on ext4 with
 * flash costs reaches the device as at least one flush, and a sequential
 * file costs few scattered writes (journal, inode, bitmaps). */
static void
test_flushes_on_sync (void)
{
  g_autoptr (FerryTestStick) stick = new_stick_of_fs_or_skip (
      "ferry-slow-disk-test", FERRY_TEST_STICK_FS_EXT4, 40 * MB,
      FERRY_TEST_STICK_FLASH_SCATTER_COST_US, FERRY_TEST_STICK_FLASH_FLUSH_COST_US);
  g_autofree char *path = NULL;
  Counts before, delta;

  if (stick == NULL)
    return;

  path = path_on_stick (stick, "four-mebibytes");
  sync ();
  before = read_counts (stick);
  g_assert_cmpint (write_file (path, 4 * 1024 * 1024, FALSE), ==, 0);
  sync ();
  delta = counts_since (stick, &before);
  g_test_message ("4 MiB then sync on ext4: %" G_GUINT64_FORMAT " writes, %" G_GUINT64_FORMAT
                  " scattered, %" G_GUINT64_FORMAT " flushes",
                  delta.writes, delta.scattered, delta.flushes);

  g_assert_cmpuint (delta.flushes, >=, 1);
  g_assert_cmpuint (delta.scattered, <=, 16);
  g_assert_cmpuint (delta.writes, >=, 4 * 1024 * 1024 / (1024 * 1024));
}

/* What a stick leaves on the machine; all FALSE once it is gone. */
typedef struct
{
  char *mountpoint;
  char *fuse_mountpoint;
  char *block_name;
  char *backing_file;
} StickTraces;

static void
stick_traces_clear (StickTraces *traces)
{
  g_clear_pointer (&traces->mountpoint, g_free);
  g_clear_pointer (&traces->fuse_mountpoint, g_free);
  g_clear_pointer (&traces->block_name, g_free);
  g_clear_pointer (&traces->backing_file, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (StickTraces, stick_traces_clear)

static void
stick_traces_init (StickTraces *traces, FerryTestStick *stick)
{
  traces->mountpoint = g_strdup (ferry_test_stick_get_mountpoint (stick));
  traces->fuse_mountpoint = g_strdup (ferry_test_stick_get_fuse_mountpoint (stick));
  traces->block_name = g_strdup (ferry_test_stick_get_block_name (stick));
  traces->backing_file = g_strdup (ferry_test_stick_get_backing_file (stick));
}

static gboolean
stick_traces_any_left (const StickTraces *traces)
{
  return ferry_stick_sys_is_mounted (traces->mountpoint)
         || ferry_stick_sys_is_mounted (traces->fuse_mountpoint)
         || ferry_stick_sys_loop_is_attached (traces->block_name)
         || g_file_test (traces->backing_file, G_FILE_TEST_EXISTS);
}

static void
assert_no_traces_left (const StickTraces *traces)
{
  g_assert_false (ferry_stick_sys_is_mounted (traces->mountpoint));
  g_assert_false (ferry_stick_sys_is_mounted (traces->fuse_mountpoint));
  g_assert_false (ferry_stick_sys_loop_is_attached (traces->block_name));
  g_assert_false (g_file_test (traces->backing_file, G_FILE_TEST_EXISTS));
}

/* (c) Freeing a stick takes down everything it set up, also the FUSE
 * daemon of an exFAT or NTFS stick. */
static void
test_free (gconstpointer data)
{
  FerryTestStick *stick = new_stick_of_fs_or_skip ("ferry-slow-disk-test",
                                                   GPOINTER_TO_INT (data), 10 * MB, 0, 0);
  g_auto (StickTraces) traces = { 0 };
  g_autofree char *path = NULL;

  if (stick == NULL)
    return;

  stick_traces_init (&traces, stick);
  g_assert_true (ferry_stick_sys_is_mounted (traces.mountpoint));
  g_assert_true (ferry_stick_sys_is_mounted (traces.fuse_mountpoint));
  g_assert_true (ferry_stick_sys_loop_is_attached (traces.block_name));

  /* Dirty data at 10 MB/s must not make the teardown slow. */
  path = path_on_stick (stick, "dirty");
  g_assert_cmpint (write_file (path, 30 * MB, FALSE), ==, 0);

  ferry_test_stick_free (stick);

  assert_no_traces_left (&traces);
}

static char *
crash_info_path (void)
{
  g_autofree char *workdir = workdir_path ("ferry-slow-disk-crash-test");

  return g_build_filename (workdir, CRASH_INFO_NAME, NULL);
}

/* In the child: a stick with dirty data, its traces written down for the
 * parent, then a crash like that of a failed assertion. */
static void
make_stick_and_crash (FerryTestStickFs fs)
{
  FerryTestStick *stick = new_stick_of_fs_or_skip ("ferry-slow-disk-crash-test", fs, 1 * MB, 0, 0);
  g_autofree char *info_path = crash_info_path ();
  g_autofree char *info = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (stick);
  path = path_on_stick (stick, "dirty");
  g_assert_cmpint (write_file (path, 8 * MB, FALSE), ==, 0);

  info = g_strjoin (
      "\n", ferry_test_stick_get_mountpoint (stick), ferry_test_stick_get_fuse_mountpoint (stick),
      ferry_test_stick_get_block_name (stick), ferry_test_stick_get_backing_file (stick), NULL);
  g_file_set_contents (info_path, info, -1, &error);
  g_assert_no_error (error);

  abort ();
}

static void
read_crash_traces (StickTraces *traces)
{
  g_autofree char *info_path = crash_info_path ();
  g_autofree char *info = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (info_path, &info, NULL, &error);
  g_assert_no_error (error);
  lines = g_strsplit (info, "\n", 0);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);

  traces->mountpoint = g_strdup (lines[0]);
  traces->fuse_mountpoint = g_strdup (lines[1]);
  traces->block_name = g_strdup (lines[2]);
  traces->backing_file = g_strdup (lines[3]);
}

/* (d) A test process that dies with a stick up leaves nothing behind: the
 * daemon's guard unmounts the filesystem on the loop device, a fuseblk
 * mount of exfat-fuse or ntfs-3g too. */
static void
test_crash (gconstpointer data)
{
  FerryTestStickFs fs = GPOINTER_TO_INT (data);
  g_autofree char *reason = NULL;
  g_autofree char *info_path = crash_info_path ();
  g_autofree char *crash_workdir = workdir_path ("ferry-slow-disk-crash-test");
  g_auto (StickTraces) traces = { 0 };
  gint64 deadline;

  if (g_test_subprocess ())
    {
      make_stick_and_crash (fs);
      return;
    }

  if (!ferry_test_stick_is_supported_fs (fs, &reason))
    {
      g_test_skip (reason);
      return;
    }

  g_unlink (info_path);
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();

  read_crash_traces (&traces);
  deadline = g_get_monotonic_time () + CRASH_TEARDOWN_TIMEOUT_US;
  while (stick_traces_any_left (&traces) && g_get_monotonic_time () < deadline)
    g_usleep (50 * 1000);

  assert_no_traces_left (&traces);
  g_unlink (info_path);
  g_assert_true (ferry_test_stick_remove_workdir (crash_workdir));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/slow-disk/rate", test_rate);
  g_test_add_func ("/slow-disk/fail-writes", test_fail_writes);
  g_test_add_func ("/slow-disk/fail-reads", test_fail_reads);
  g_test_add_func ("/slow-disk/scattered-writes", test_scattered_writes);
  g_test_add_func ("/slow-disk/flushes-on-sync", test_flushes_on_sync);
  g_test_add_data_func ("/slow-disk/free", GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXT4), test_free);
  g_test_add_data_func ("/slow-disk/free-exfat", GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT),
                        test_free);
  g_test_add_data_func ("/slow-disk/free-ntfs", GINT_TO_POINTER (FERRY_TEST_STICK_FS_NTFS),
                        test_free);
  g_test_add_data_func ("/slow-disk/crash", GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXT4),
                        test_crash);
  g_test_add_data_func ("/slow-disk/crash-exfat", GINT_TO_POINTER (FERRY_TEST_STICK_FS_EXFAT),
                        test_crash);
  g_test_add_data_func ("/slow-disk/crash-ntfs", GINT_TO_POINTER (FERRY_TEST_STICK_FS_NTFS),
                        test_crash);

  return g_test_run ();
}
