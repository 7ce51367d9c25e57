/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a copy must get right: every kind of entry, its metadata, any
 * name, any depth, and the cp-like placement of sources. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-test-util.h"

typedef FerryTestFixture Fixture;

/* @job ended with everything copied, counted and durable, and no
 * temporary file left in @dest. */
static void
assert_done (FerryJob *job, const char *dest)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (job, &progress);
  g_assert_cmpint (progress.phase, ==, FERRY_PHASE_DONE);
  g_assert_cmpuint (progress.files_done, ==, progress.files_total);
  g_assert_cmpuint (progress.bytes_written, ==, progress.bytes_total);
  g_assert_cmpuint (progress.bytes_durable, ==, progress.bytes_written);
  g_assert_cmpuint (progress.files_failed, ==, 0);
  g_assert_cmpuint (ferry_test_count_temp_files (dest), ==, 0);
}

static void
run_ok (FerryJob *job, const char *dest)
{
  g_autoptr (GError) error = NULL;

  if (!ferry_test_run_job (job, &error))
    {
      g_autofree char *failures = ferry_test_describe_failures (job);
      g_error ("copy failed: %s\n%s", error->message, failures);
    }
  assert_done (job, dest);
}

static void
copy_ok (const char *const *sources, const char *dest, guint n_workers)
{
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, dest);

  ferry_job_set_n_workers (job, n_workers);
  run_ok (job, dest);
}

static void
test_everything (Fixture *f, gconstpointer data)
{
  guint n_workers = GPOINTER_TO_UINT (data);
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_autofree char *copy = g_build_filename (f->dst, "everything", NULL);
  const char *sources[] = { tree, NULL };

  copy_ok (sources, f->dst, n_workers);
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_ALL);
}

static void
test_sizes (Fixture *f, gconstpointer data)
{
  const gsize sizes[] = {
    0, 1, 511, 4095, 4096, 4097, 65536, 1024 * 1024 - 1, 1024 * 1024 + 3, 9 * 1024 * 1024 + 11
  };
  g_autofree char *copy = g_build_filename (f->dst, "src", NULL);
  const char *sources[] = { f->src, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *name = g_strdup_printf ("file-%" G_GSIZE_FORMAT, sizes[i]);
      g_autofree char *path = g_build_filename (f->src, name, NULL);
      ferry_test_write_random (path, sizes[i], 100 + i);
    }
  copy_ok (sources, f->dst, 2);
  ferry_test_assert_trees_equal (f->src, copy, FERRY_TEST_COMPARE_ALL);
}

/* A very large file is copied by several threads, a range each; the
 * ranges must meet exactly, whatever the size. */
static void
test_large_file_in_pieces (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->src, "large.bin", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "large.bin", NULL);
  const char *sources[] = { path, NULL };

  ferry_test_write_random (path, 300 * 1024 * 1024 + 12345, 77);
  copy_ok (sources, f->dst, 3);
  ferry_test_assert_trees_equal (path, copy, FERRY_TEST_COMPARE_ALL);
}

static void
test_sparse (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->src, "disk.img", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "disk.img", NULL);
  const char *sources[] = { path, NULL };
  struct stat a, b;

  ferry_test_make_sparse (path, 512 * 1024 * 1024, 300 * 1024 * 1024, 64 * 1024);
  copy_ok (sources, f->dst, 1);
  g_assert_cmpint (stat (path, &a), ==, 0);
  g_assert_cmpint (stat (copy, &b), ==, 0);
  g_assert_cmpint (b.st_size, ==, a.st_size);
  /* 64 KiB of data: the copy must not allocate the 512 MiB of holes. */
  g_assert_cmpint (b.st_blocks * 512, <=, 1024 * 1024);
  ferry_test_assert_files_equal (path, copy);
}

static void
test_symlinks_not_followed (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->scratch, "outside", NULL);
  g_autofree char *link = g_build_filename (f->src, "to-outside", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "src", "to-outside", NULL);
  const char *sources[] = { f->src, NULL };
  struct stat st;
  char buf[PATH_MAX];
  ssize_t len;

  ferry_test_make_dirs (target);
  g_autofree char *inside = g_build_filename (target, "big", NULL);

  ferry_test_write_random (inside, 1024, 5);
  g_assert_cmpint (symlink (target, link), ==, 0);

  copy_ok (sources, f->dst, 1);
  g_assert_cmpint (lstat (copy, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  len = readlink (copy, buf, sizeof buf);
  g_assert_cmpmem (buf, len, target, strlen (target));
}

/* A file with several names inside the set is copied once; a name of the
 * same file outside the set does not make the copy a link to it. */
static void
test_hard_links (Fixture *f, gconstpointer data)
{
  g_autofree char *first = g_build_filename (f->src, "one", "data", NULL);
  g_autofree char *outside = g_build_filename (f->scratch, "outside-name", NULL);
  g_autofree char *copy_first = g_build_filename (f->dst, "src", "one", "data", NULL);
  g_autofree char *copy_second = g_build_filename (f->dst, "src", "two", "same", NULL);
  g_autofree char *copy_third = g_build_filename (f->dst, "src", "three", NULL);
  const char *sources[] = { f->src, NULL };
  struct stat a, b, c;

  g_autofree char *one = g_build_filename (f->src, "one", NULL);
  g_autofree char *two = g_build_filename (f->src, "two", NULL);

  ferry_test_make_dirs (one);
  ferry_test_make_dirs (two);
  ferry_test_write_random (first, 200000, 9);
  g_assert_cmpint (link (first, ferry_test_path (f->src, "two", "same", NULL)), ==, 0);
  g_assert_cmpint (link (first, ferry_test_path (f->src, "three", NULL)), ==, 0);
  g_assert_cmpint (link (first, outside), ==, 0);

  copy_ok (sources, f->dst, 2);
  g_assert_cmpint (stat (copy_first, &a), ==, 0);
  g_assert_cmpint (stat (copy_second, &b), ==, 0);
  g_assert_cmpint (stat (copy_third, &c), ==, 0);
  g_assert_cmpuint (a.st_ino, ==, b.st_ino);
  g_assert_cmpuint (a.st_ino, ==, c.st_ino);
  g_assert_cmpuint (a.st_nlink, ==, 3);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

static void
test_metadata (Fixture *f, gconstpointer data)
{
  g_autofree char *tool = g_build_filename (f->src, "tool", NULL);
  g_autofree char *shared = g_build_filename (f->src, "shared", NULL);
  g_autofree char *readonly = g_build_filename (f->src, "readonly", NULL);
  g_autofree char *inner = g_build_filename (readonly, "inner.txt", NULL);
  const char *sources[] = { f->src, NULL };

  ferry_test_write_text (tool, "#!/bin/sh\n");
  g_assert_cmpint (setxattr (tool, "user.ferry.note", "keep me", 7, 0), ==, 0);
  ferry_test_make_dirs (shared);
  ferry_test_make_dirs (readonly);
  ferry_test_write_text (inner, "inside a read-only folder\n");
  ferry_test_set_times (inner, 1500000000, 1);

  if (ferry_test_is_root ())
    {
      /* The owner is set before the mode: changing the owner would clear
       * setuid and setgid. */
      g_assert_cmpint (chown (tool, 4321, 8765), ==, 0);
      g_assert_cmpint (chown (shared, 1234, 5678), ==, 0);
      g_assert_cmpint (setxattr (tool, "trusted.ferry", "root only", 9, 0), ==, 0);
    }
  g_assert_cmpint (chmod (tool, 06755), ==, 0);
  g_assert_cmpint (chmod (shared, 03775), ==, 0);
  ferry_test_set_times (tool, 946684800, 999999999);
  ferry_test_set_times (shared, 1234567890, 123456789);
  g_assert_cmpint (chmod (readonly, 0555), ==, 0);
  ferry_test_set_times (readonly, 1111111111, 111111111);
  ferry_test_set_times (f->src, 1600000000, 42);

  copy_ok (sources, f->dst, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

static void
test_no_preserve (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "file", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "file", NULL);
  const char *sources[] = { file, NULL };
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->dst);
  g_autoptr (GError) error = NULL;
  struct stat st;
  mode_t old_umask = umask (027);

  ferry_test_write_text (file, "plain\n");
  g_assert_cmpint (chmod (file, 04777), ==, 0);
  g_assert_cmpint (setxattr (file, "user.ferry.note", "x", 1, 0), ==, 0);
  ferry_test_set_times (file, 1000, 0);
  ferry_job_set_preserve (job, FALSE);
  g_assert_true (ferry_test_run_job (job, &error));
  umask (old_umask);

  g_assert_cmpint (stat (copy, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0750);
  g_assert_cmpint (st.st_mtim.tv_sec, >, 1000);
  g_assert_cmpint (getxattr (copy, "user.ferry.note", NULL, 0), <, 0);
  ferry_test_assert_files_equal (file, copy);
}

static void
test_odd_names (Fixture *f, gconstpointer data)
{
  const char *names[] = {
    "caf\xc3\xa9",    /* UTF-8 */
    "latin1-caf\xe9", /* not UTF-8 */
    "line\nbreak",    "-leading-dash",         "--also-an-option", " spaces  ",
    "tab\there",      "quote\"and\\backslash", "\x01\x7f control",
  };
  g_autofree char *long_name = g_strnfill (NAME_MAX, 'n');
  const char *sources[] = { f->src, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (f->src, names[i], NULL);
      ferry_test_write_random (path, 1000 + i, i);
    }
  g_autofree char *longest = g_build_filename (f->src, long_name, NULL);
  g_autofree char *odd_dir = g_build_filename (f->src, "dir\xff\nname", "inside\xfe", NULL);

  ferry_test_write_text (longest, "longest name\n");
  ferry_test_make_dirs (odd_dir);

  copy_ok (sources, f->dst, 2);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

/* Deeper than PATH_MAX: only directory descriptors can reach it. */
static void
test_deeper_than_path_max (Fixture *f, gconstpointer data)
{
  g_autofree char *segment = g_strnfill (200, 'd');
  int fd = open (f->src, O_RDONLY | O_DIRECTORY);
  const char *sources[] = { f->src, NULL };
  guint levels = PATH_MAX / 200 + 10;

  for (guint i = 0; i < levels; i++)
    {
      int next;
      g_assert_cmpint (mkdirat (fd, segment, 0755), ==, 0);
      next = openat (fd, segment, O_RDONLY | O_DIRECTORY);
      g_assert_cmpint (next, >=, 0);
      close (fd);
      fd = next;
    }
  g_assert_cmpint (mkdirat (fd, "leaf", 0755), ==, 0);
  {
    int file = openat (fd, "leaf/bottom.txt", O_WRONLY | O_CREAT, 0600);
    g_assert_cmpint (write (file, "bottom\n", 7), ==, 7);
    close (file);
  }
  close (fd);

  copy_ok (sources, f->dst, 2);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

static void
test_fifo_and_sockets (Fixture *f, gconstpointer data)
{
  g_autofree char *fifo = g_build_filename (f->src, "pipe", NULL);
  g_autofree char *sock_path = g_build_filename (f->src, "socket", NULL);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int sock = socket (AF_UNIX, SOCK_STREAM, 0);
  const char *sources[] = { f->src, NULL };

  g_assert_cmpint (mkfifo (fifo, 0620), ==, 0);
  if (strlen (sock_path) >= sizeof addr.sun_path)
    {
      g_test_skip ("scratch path too long for a socket");
      return;
    }
  strcpy (addr.sun_path, sock_path);
  g_assert_cmpint (bind (sock, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  close (sock);

  copy_ok (sources, f->dst, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

static void
test_device_nodes (Fixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };

  if (!ferry_test_is_root ())
    {
      g_test_skip ("creating device nodes needs root (CI runs this as root)");
      return;
    }
  g_assert_cmpint (
      mknod (ferry_test_path (f->src, "null-like", NULL), S_IFCHR | 0666, makedev (1, 3)), ==, 0);
  g_assert_cmpint (
      mknod (ferry_test_path (f->src, "loop-like", NULL), S_IFBLK | 0660, makedev (7, 200)), ==, 0);
  copy_ok (sources, f->dst, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

/* A scratch folder the parent makes and its unprivileged child finds by
 * the parent's pid: a fixture would run again in the child, as nobody,
 * and could not remove what it made. */
static char *
shared_scratch_for (pid_t parent)
{
  const char *base = g_getenv ("FERRY_TEST_TMPDIR");
  g_autofree char *name = g_strdup_printf ("ferry-unprivileged-%d", (int) parent);

  return g_build_filename (base ? base : g_get_tmp_dir (), name, NULL);
}

static void
copy_device_nodes_as_nobody (const char *scratch)
{
  g_autofree char *src = g_build_filename (scratch, "src", NULL);
  g_autofree char *dst = g_build_filename (scratch, "dst", NULL);
  const char *sources[] = { src, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autofree char *failures = NULL;

  g_assert_cmpint (setgid (65534), ==, 0);
  g_assert_cmpint (setuid (65534), ==, 0);
  job = ferry_test_job_new (sources, dst);
  g_assert_false (ferry_test_run_job (job, &error));
  g_assert_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL);
  failures = ferry_test_describe_failures (job);
  g_assert_nonnull (strstr (failures, "null-like"));
  g_assert_nonnull (strstr (failures, "device node"));
  ferry_test_assert_files_equal (ferry_test_path (src, "plain", NULL),
                                 ferry_test_path (dst, "src", "plain", NULL));
  g_assert_false (
      g_file_test (ferry_test_path (dst, "src", "null-like", NULL), G_FILE_TEST_EXISTS));
}

/* Without root a device node cannot be made: it is skipped and reported,
 * and everything else is still copied. */
static void
test_device_nodes_unprivileged (void)
{
  g_autofree char *scratch = NULL;
  g_autofree char *src = NULL;

  if (!ferry_test_is_root ())
    {
      g_test_skip ("needs root to create the device node to copy (CI runs as root)");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autofree char *shared = shared_scratch_for (getppid ());
      copy_device_nodes_as_nobody (shared);
      return;
    }

  scratch = shared_scratch_for (getpid ());
  src = g_build_filename (scratch, "src", NULL);
  ferry_test_remove_tree (scratch);
  ferry_test_make_dirs (src);
  ferry_test_make_dirs (ferry_test_path (scratch, "dst", NULL));
  g_assert_cmpint (mknod (ferry_test_path (src, "null-like", NULL), S_IFCHR | 0666, makedev (1, 3)),
                   ==, 0);
  ferry_test_write_text (ferry_test_path (src, "plain", NULL), "plain\n");
  g_assert_cmpint (chmod (scratch, 0777), ==, 0);
  g_assert_cmpint (chmod (ferry_test_path (scratch, "dst", NULL), 0777), ==, 0);

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  ferry_test_remove_tree (scratch);
  g_test_trap_assert_passed ();
}

/* A setgid destination folder gives new files its group, and passes the
 * setgid bit to the folders made in it; the copies still keep the groups
 * of their sources, at every depth. */
static void
test_into_setgid_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *inner = g_build_filename (f->src, "inner", NULL);
  g_autofree char *file = g_build_filename (inner, "mine", NULL);
  const char *sources[] = { f->src, NULL };

  if (!ferry_test_is_root ())
    {
      g_test_skip ("giving the folder another group needs root (CI runs as root)");
      return;
    }
  ferry_test_make_dirs (inner);
  ferry_test_write_text (file, "group\n");
  ferry_test_write_text (ferry_test_path (f->src, "top", NULL), "top\n");
  g_assert_cmpint (chown (f->dst, 0, 4242), ==, 0);
  g_assert_cmpint (chmod (f->dst, 02775), ==, 0);
  copy_ok (sources, f->dst, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL);
}

/* A default ACL replaces the umask for what is made in the folder: the
 * copies still get exactly their sources' modes. */
static void
test_into_folder_with_default_acl (Fixture *f, gconstpointer data)
{
  g_autofree char *argv0 = g_find_program_in_path ("setfacl");
  g_autofree char *err = NULL;
  const char *sources[] = { f->src, NULL };
  int status = -1;

  if (argv0 == NULL)
    {
      g_test_skip ("setfacl is not installed (package acl)");
      return;
    }
  ferry_test_make_dirs (ferry_test_path (f->src, "inner", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "inner", "shared", NULL), "acl\n");
  ferry_test_write_text (ferry_test_path (f->src, "private", NULL), "acl\n");
  g_assert_cmpint (chmod (ferry_test_path (f->src, "private", NULL), 0600), ==, 0);
  g_assert_cmpint (chmod (ferry_test_path (f->src, "inner", "shared", NULL), 0664), ==, 0);
  {
    const char *argv[] = { argv0, "-d", "-m", "u::rwx,g::rwx,o::rwx", f->dst, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                 NULL, &err, &status, NULL));
    g_assert_cmpint (status, ==, 0);
  }
  copy_ok (sources, f->dst, 1);
  ferry_test_assert_trees_equal (f->src, ferry_test_path (f->dst, "src", NULL),
                                 FERRY_TEST_COMPARE_ALL & ~FERRY_TEST_COMPARE_XATTRS);
}

/* cp's rules: into an existing folder under the source's name; as the
 * new name when the destination does not exist. */
static void
test_placement (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *other = g_build_filename (f->src, "b.txt", NULL);
  g_autofree char *renamed = g_build_filename (f->dst, "renamed.txt", NULL);
  g_autofree char *new_dir = g_build_filename (f->dst, "new-folder", NULL);
  const char *one[] = { file, NULL };
  const char *two[] = { file, other, NULL };
  const char *tree[] = { f->src, NULL };

  ferry_test_write_text (file, "A\n");
  ferry_test_write_text (other, "B\n");

  copy_ok (one, renamed, 1);
  ferry_test_assert_files_equal (file, renamed);

  copy_ok (two, f->dst, 1);
  ferry_test_assert_files_equal (file, ferry_test_path (f->dst, "a.txt", NULL));
  ferry_test_assert_files_equal (other, ferry_test_path (f->dst, "b.txt", NULL));

  copy_ok (tree, new_dir, 1);
  ferry_test_assert_trees_equal (f->src, new_dir, FERRY_TEST_COMPARE_ALL);
}

static void
test_source_untouched (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_autofree char *snapshot = g_build_filename (f->scratch, "snapshot", NULL);
  const char *sources[] = { tree, NULL };

  /* A first copy is the reference; the source must match it afterwards,
   * access times included. */
  copy_ok (sources, snapshot, 1);
  copy_ok (sources, f->dst, 2);
  ferry_test_assert_trees_equal (snapshot, tree,
                                 FERRY_TEST_COMPARE_ALL & ~FERRY_TEST_COMPARE_LINKS);
}

typedef gboolean (*ProcMatch) (const char *path, gconstpointer data);

/* How many entries of @dir (a folder of /proc/self) @matches takes. */
static guint
count_proc_entries (const char *dir, ProcMatch matches, gconstpointer data)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (matches (path, data))
        n++;
    }
  return n;
}

static gboolean
thread_copies (const char *task_path, gconstpointer data)
{
  g_autofree char *comm_path = g_build_filename (task_path, "comm", NULL);
  g_autofree char *comm = NULL;

  return g_file_get_contents (comm_path, &comm, NULL, NULL) && g_str_equal (comm, "ferry-copy\n");
}

/* How many threads of this process copy files now (they are named
 * "ferry-copy"; the job's own thread is the first worker). Counted once
 * per look: MAX() would count twice, and a second count made as the
 * workers end lowered the most seen to 0 (the cause of this test's
 * failures in CI). */
static gboolean
count_copy_threads (gpointer user_data)
{
  guint *most = user_data;
  guint now = count_proc_entries ("/proc/self/task", thread_copies, NULL);

  *most = MAX (*most, now);
  return G_SOURCE_CONTINUE;
}

/* @dir holding @n files of @size random bytes, named @prefix and a
 * number (000, 001, ...). */
static void
make_numbered_files (const char *dir, const char *prefix, guint n, gsize size)
{
  ferry_test_make_dirs (dir);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s%03u", prefix, i);
      ferry_test_write_random (ferry_test_path (dir, name, NULL), size, i);
    }
}

/* Runs @job as run_ok() does, paused before it starts: it plans, starts
 * its workers and holds them for 300 ms before its first folder is
 * listed, so a count of its threads sees them however late the test's
 * thread gets to look, and every worker waits for work by then.
 * @sampler, the count's timeout, stops as the job ends. */
static void
run_held (FerryJob *job, const char *dest, guint sampler)
{
  g_auto (FerryTestJobRun) run = { 0 };

  ferry_job_pause (job);
  ferry_test_job_start (job, &run);
  ferry_test_wait_for_phase (job, FERRY_PHASE_COPYING);
  ferry_test_spin (300);
  ferry_job_resume (job);
  ferry_test_job_wait (&run, 60 * 1000);
  g_source_remove (sampler);
  g_assert_no_error (run.error);
  g_assert_true (run.ok);
  assert_done (job, dest);
}

/* The most threads copying at once while @n_workers copy small files a
 * slow way, in four folders (each a task a worker takes on its own),
 * the job held before it starts. */
static guint
most_copy_threads_slow (Fixture *f, guint n_workers)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);
  g_autofree char *dest = g_build_filename (f->dst, "j", NULL);
  const char *sources[] = { tree, NULL };
  g_autoptr (FerryJob) job = NULL;
  guint most = 0;

  ferry_test_remove_tree (tree);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/%u", tree, i);
      make_numbered_files (folder, "", 75, 4096);
    }
  ferry_test_remove_tree (dest);
  ferry_test_make_dirs (dest);
  job = ferry_test_job_new (sources, dest);
  ferry_job_set_device_mode (job, FERRY_DEVICE_MODE_SLOW);
  ferry_job_set_n_workers (job, n_workers);
  run_held (job, dest, g_timeout_add (1, count_copy_threads, &most));
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (dest, "many", "3", NULL)), ==, 75);
  return most;
}

/* -j 1 means one file at a time, also once the destination is (here:
 * is said to be) slow: no worker besides the job's own thread, neither
 * while it holds nor while it copies. -j 3 gives it two. */
static void
test_workers_on_slow_destination (Fixture *f, gconstpointer data)
{
  g_assert_cmpuint (most_copy_threads_slow (f, 1), ==, 0);
  g_assert_cmpuint (most_copy_threads_slow (f, 3), ==, 2);
}

#define CARD_FILE_SIZE (256 * 1024)

/* Bytes the thread has written so far (a count that only grows). */
static guint64
thread_written (const char *task_path)
{
  g_autofree char *io_path = g_build_filename (task_path, "io", NULL);
  g_autofree char *io = NULL;
  const char *wchar;

  if (!g_file_get_contents (io_path, &io, NULL, NULL) || (wchar = strstr (io, "wchar: ")) == NULL)
    return 0;
  return g_ascii_strtoull (wchar + strlen ("wchar: "), NULL, 10);
}

/* Notes what each thread alive now has written (threads of the pool
 * live on from one job to the next). */
static gboolean
note_written (const char *task_path, gconstpointer data)
{
  GHashTable *before = (GHashTable *) data;
  guint64 *written = g_new (guint64, 1);

  *written = thread_written (task_path);
  g_hash_table_insert (before, g_strdup (task_path), written);
  return FALSE;
}

typedef struct
{
  GHashTable *before; /* task path -> guint64 written when the job began */
  guint64 least;      /* what a thread must have written to count */
  guint64 at_most;    /* and what it must not have written yet */
  guint most;
} WritingThreads;

/* Whether the thread has written at least threads->least bytes, and at
 * most threads->at_most, since its count was noted (the test's own
 * thread writes none meanwhile). */
static gboolean
thread_wrote_files (const char *task_path, gconstpointer data)
{
  const WritingThreads *threads = data;
  const guint64 *before = g_hash_table_lookup (threads->before, task_path);
  guint64 written = thread_written (task_path) - (before != NULL ? *before : 0);

  return written >= threads->least && written <= threads->at_most;
}

/* How many threads have copied files so far; keeps the most seen. */
static gboolean
count_writing_threads (gpointer user_data)
{
  WritingThreads *threads = user_data;
  guint now = count_proc_entries ("/proc/self/task", thread_wrote_files, threads);

  threads->most = MAX (threads->most, now);
  return G_SOURCE_CONTINUE;
}

/* The most of this process's threads seen at once each having written
 * between @least and @at_most bytes, while two workers copied @folder
 * (from the source) to the destination, said to be fast, the job held
 * before it starts (run_held()). */
static guint
most_writing_threads (Fixture *f, const char *folder, guint64 least, guint64 at_most)
{
  const char *sources[] = { folder, NULL };
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->dst);
  g_autoptr (GHashTable) before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  WritingThreads threads = { before, least, at_most, 0 };

  ferry_job_set_device_mode (job, FERRY_DEVICE_MODE_FAST);
  ferry_job_set_n_workers (job, 2);
  count_proc_entries ("/proc/self/task", note_written, before);
  run_held (job, f->dst, g_timeout_add (1, count_writing_threads, &threads));
  return threads.most;
}

/* A folder of many files (a camera card's) on a fast destination is
 * copied by every worker, not only by the one that lists it: with two,
 * both write two of its files or more. */
static void
test_workers_share_a_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *card = g_build_filename (f->src, "card", NULL);
  guint most;

  make_numbered_files (card, "IMG_", 200, CARD_FILE_SIZE);
  most = most_writing_threads (f, card, 2 * CARD_FILE_SIZE, G_MAXUINT64);
  ferry_test_assert_trees_equal (card, ferry_test_path (f->dst, "card", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  g_assert_cmpuint (most, ==, 2);
}

#define PAIR_FILE_SIZE (64 * 1024 * 1024)
#define COPY_CHUNK     (1024 * 1024)

/* A folder of two large files on a fast destination is copied a file a
 * worker, side by side: two threads are seen at once each partway
 * through a file (a worker that copied one whole file and then
 * waited, alive, while another copied the second would not count).
 * Given both, one worker copied them one after the other while the
 * other, waiting for work as the folder was listed, had nothing to do;
 * and a worker that came to wait as the first file began got no share. */
static void
test_workers_share_two_files (Fixture *f, gconstpointer data)
{
  g_autofree char *pair = g_build_filename (f->src, "pair", NULL);
  guint most;

  make_numbered_files (pair, "disk-", 2, PAIR_FILE_SIZE);
  most = most_writing_threads (f, pair, COPY_CHUNK, PAIR_FILE_SIZE - COPY_CHUNK);
  ferry_test_assert_trees_equal (pair, ferry_test_path (f->dst, "pair", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  g_assert_cmpuint (most, ==, 2);
}

/* Files of /proc and /sys say size 0 or 4096 whatever they hold; they
 * were copied empty (procfs), or failed as changed while copied (sysfs).
 * Each must be copied with what a read gives, its bytes in the total. */
static void
test_pseudo_files (Fixture *f, gconstpointer data)
{
  const char *thp = "/sys/kernel/mm/transparent_hugepage/enabled";
  gboolean slow = GPOINTER_TO_INT (data);
  const char *sources[] = { "/proc/self/status", "/proc/cpuinfo", "/sys/devices/system/cpu/online",
                            g_file_test (thp, G_FILE_TEST_EXISTS) ? thp : NULL, NULL };
  g_autoptr (FerryJob) job = ferry_test_job_new (sources, f->dst);
  g_autofree char *status = NULL;
  g_autofree char *cpuinfo = NULL;

  if (sources[3] == NULL)
    g_test_message ("%s is not on this kernel; the other /sys file stands for it", thp);
  /* The slow strategy writes with sendfile, and --verify reads again. */
  ferry_job_set_device_mode (job, slow ? FERRY_DEVICE_MODE_SLOW : FERRY_DEVICE_MODE_FAST);
  ferry_job_set_verify (job, slow);
  ferry_job_set_n_workers (job, 2);
  run_ok (job, f->dst);

  /* The status of this very process, read while it copied. */
  g_assert_true (g_file_get_contents (ferry_test_path (f->dst, "status", NULL), &status, NULL, NULL));
  g_assert_true (g_str_has_prefix (status, "Name:\t"));
  g_assert_nonnull (strstr (status, "\nPid:\t"));
  g_assert_true (g_str_has_suffix (status, "\n"));
  g_assert_true (g_file_get_contents (ferry_test_path (f->dst, "cpuinfo", NULL), &cpuinfo, NULL, NULL));
  g_assert_true (g_str_has_prefix (cpuinfo, "processor\t: 0\n"));
  ferry_test_assert_files_equal ("/sys/devices/system/cpu/online",
                                 ferry_test_path (f->dst, "online", NULL));
  if (sources[3] != NULL)
    ferry_test_assert_files_equal (thp, ferry_test_path (f->dst, "enabled", NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ferry_engine_init ();

#define ADD(path, func, data)                                                                      \
  g_test_add (path, Fixture, data, ferry_test_fixture_set_up, func, ferry_test_fixture_tear_down)
  ADD ("/copy/everything/one-worker", test_everything, GUINT_TO_POINTER (1));
  ADD ("/copy/everything/four-workers", test_everything, GUINT_TO_POINTER (4));
  ADD ("/copy/sizes", test_sizes, NULL);
  ADD ("/copy/sparse", test_sparse, NULL);
  ADD ("/copy/large-file-in-pieces", test_large_file_in_pieces, NULL);
  ADD ("/copy/symlinks-not-followed", test_symlinks_not_followed, NULL);
  ADD ("/copy/hard-links", test_hard_links, NULL);
  ADD ("/copy/metadata", test_metadata, NULL);
  ADD ("/copy/no-preserve", test_no_preserve, NULL);
  ADD ("/copy/odd-names", test_odd_names, NULL);
  ADD ("/copy/deeper-than-path-max", test_deeper_than_path_max, NULL);
  ADD ("/copy/fifo-and-sockets", test_fifo_and_sockets, NULL);
  ADD ("/copy/device-nodes", test_device_nodes, NULL);
  ADD ("/copy/placement", test_placement, NULL);
  ADD ("/copy/into-setgid-folder", test_into_setgid_folder, NULL);
  ADD ("/copy/into-folder-with-default-acl", test_into_folder_with_default_acl, NULL);
  ADD ("/copy/source-untouched", test_source_untouched, NULL);
  ADD ("/copy/workers-on-slow-destination", test_workers_on_slow_destination, NULL);
  ADD ("/copy/workers-share-a-folder", test_workers_share_a_folder, NULL);
  ADD ("/copy/workers-share-two-files", test_workers_share_two_files, NULL);
  ADD ("/copy/pseudo-files", test_pseudo_files, GINT_TO_POINTER (FALSE));
  ADD ("/copy/pseudo-files/slow-verified", test_pseudo_files, GINT_TO_POINTER (TRUE));
#undef ADD
  g_test_add_func ("/copy/device-nodes-unprivileged", test_device_nodes_unprivileged);

  return g_test_run ();
}
