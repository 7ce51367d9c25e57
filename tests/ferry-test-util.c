/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-test-util.h"

gboolean
ferry_test_is_root (void)
{
  return geteuid () == 0;
}

/* Scratch folders live under FERRY_TEST_TMPDIR (the build folder when run
 * by meson), or the system's temporary folder. */
char *
ferry_test_scratch_new (const char *label)
{
  const char *base = g_getenv ("FERRY_TEST_TMPDIR");
  g_autofree char *template = g_strdup_printf ("ferry-%s-XXXXXX", label);
  g_autofree char *path = NULL;

  if (base == NULL)
    base = g_get_tmp_dir ();
  g_mkdir_with_parents (base, 0755);
  path = g_build_filename (base, template, NULL);
  g_assert_nonnull (g_mkdtemp (path));
  chmod (path, 0755);
  return g_steal_pointer (&path);
}

/* A path built like g_build_filename(), freed when the test ends: for
 * paths used once, inline. */
const char *
ferry_test_path (const char *first_element, ...)
{
  va_list args;
  char *path;

  va_start (args, first_element);
  path = g_build_filename_valist (first_element, &args);
  va_end (args);
  g_test_queue_free (path);
  return path;
}

/* rm -rf that also gets through folders without write permission and
 * paths longer than PATH_MAX. */
static void
remove_at (int dir_fd, const char *name)
{
  int fd;
  DIR *dir;
  struct dirent *entry;

  if (unlinkat (dir_fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
    return;
  fchmodat (dir_fd, name, 0700, 0);
  fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    if (strcmp (entry->d_name, ".") != 0 && strcmp (entry->d_name, "..") != 0)
      remove_at (dirfd (dir), entry->d_name);
  closedir (dir);
  unlinkat (dir_fd, name, AT_REMOVEDIR);
}

void
ferry_test_remove_tree (const char *path)
{
  if (path != NULL)
    remove_at (AT_FDCWD, path);
}

void
ferry_test_write_random (const char *path, gsize size, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autofree guint32 *buf = g_new (guint32, 64 * 1024 / 4);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  g_assert_cmpint (fd, >=, 0);
  while (size > 0)
    {
      gsize n = MIN (size, 64 * 1024);
      for (gsize i = 0; i < (n + 3) / 4; i++)
        buf[i] = g_rand_int (rand);
      g_assert_cmpint (write (fd, buf, n), ==, (gssize) n);
      size -= n;
    }
  g_assert_cmpint (close (fd), ==, 0);
}

/* Allocates @size bytes to @fd; 0 or an errno. FUSE filesystems
 * (ntfs-3g, exfat-fuse) have no fallocate(), where glibc's
 * posix_fallocate() writes a byte every 4 KiB, each a call through FUSE
 * (24 s for 200 MB on ntfs-3g): zeros a MiB at a time take a second. */
static int
allocate (int fd, guint64 size)
{
  g_autofree char *zeros = NULL;

  if (fallocate (fd, 0, 0, (off_t) size) == 0)
    return 0;
  if (errno != EOPNOTSUPP)
    return errno;
  zeros = g_malloc0 (1024 * 1024);
  for (guint64 at = 0; at < size;)
    {
      ssize_t n = pwrite (fd, zeros, MIN (size - at, 1024 * 1024), (off_t) at);

      if (n <= 0)
        return n < 0 ? errno : ENOSPC;
      at += (guint64) n;
    }
  return 0;
}

/* Takes all free space on @dir's filesystem but about @keep bytes, in
 * one allocated file, "filler.bin", whose path is returned: as another
 * program filling the drive would. A copy writing there at the same
 * time may take space between the look and the allocation: then a
 * little more is left, a MiB at a time. */
char *
ferry_test_fill_leaving (const char *dir, guint64 keep)
{
  char *path = g_build_filename (dir, "filler.bin", NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  int err = ENOSPC;

  g_assert_cmpint (fd, >=, 0);
  for (guint64 more = 0; err == ENOSPC && more < 64 * 1024 * 1024; more += 1024 * 1024)
    {
      struct statvfs vfs;
      guint64 free_now;

      /* A failed allocation may keep part of what it took. */
      g_assert_cmpint (ftruncate (fd, 0), ==, 0);
      g_assert_cmpint (fstatvfs (fd, &vfs), ==, 0);
      free_now = (guint64) vfs.f_bfree * vfs.f_frsize;
      g_assert_cmpuint (free_now, >, keep + more);
      err = allocate (fd, free_now - keep - more);
    }
  g_assert_cmpint (err, ==, 0);
  g_assert_cmpint (close (fd), ==, 0);
  return path;
}

void
ferry_test_write_text (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  gssize len = strlen (text);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, len), ==, len);
  g_assert_cmpint (close (fd), ==, 0);
}

void
ferry_test_make_dirs (const char *path)
{
  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
}

void
ferry_test_set_times (const char *path, gint64 sec, long nsec)
{
  struct timespec times[2] = { { sec - 1000, nsec / 2 }, { sec, nsec } };
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

void
ferry_test_make_sparse (const char *path, goffset size, goffset data_at, gsize data_len)
{
  g_autofree char *data = g_malloc (data_len);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  memset (data, 'S', data_len);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  g_assert_cmpint (pwrite (fd, data, data_len, data_at), ==, (gssize) data_len);
  g_assert_cmpint (close (fd), ==, 0);
}

/* A tree with one of everything a copy must get right, under
 * @parent/everything; returns its path. */
char *
ferry_test_make_everything_tree (const char *parent)
{
  char *root = g_build_filename (parent, "everything", NULL);
  g_autofree char *docs = g_build_filename (root, "docs", NULL);
  g_autofree char *deep = g_build_filename (root, "a", "b", "c", NULL);
  g_autofree char *empty_dir = g_build_filename (root, "empty-folder", NULL);
  g_autofree char *p = NULL;

  ferry_test_make_dirs (docs);
  ferry_test_make_dirs (deep);
  ferry_test_make_dirs (empty_dir);

#define AT(...) (g_free (p), p = g_build_filename (root, __VA_ARGS__, NULL))
  ferry_test_write_text (AT ("docs", "readme.txt"), "Ferry carries files.\n");
  ferry_test_write_random (AT ("docs", "random.bin"), 3 * 1024 * 1024 + 7, 1);
  ferry_test_write_random (AT ("a", "b", "c", "page.bin"), 4096, 2);
  ferry_test_write_text (AT ("empty"), "");
  g_assert_cmpint (symlink ("docs/readme.txt", AT ("relative-link")), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/target", AT ("dangling-link")), ==, 0);
  g_assert_cmpint (symlink ("a", AT ("folder-link")), ==, 0);
  {
    g_autofree char *first = g_build_filename (root, "docs", "readme.txt", NULL);
    g_assert_cmpint (link (first, AT ("a", "hardlink-to-readme")), ==, 0);
  }
  g_assert_cmpint (mkfifo (AT ("fifo"), 0640), ==, 0);
  ferry_test_make_sparse (AT ("sparse.img"), 64 * 1024 * 1024, 32 * 1024 * 1024, 8192);
  ferry_test_write_text (AT ("setuid-tool"), "#!/bin/sh\n");
  g_assert_cmpint (chmod (p, 04755), ==, 0);
  ferry_test_write_text (AT ("xattr-file"), "attributes\n");
  g_assert_cmpint (setxattr (p, "user.ferry.colour", "blue", 4, 0), ==, 0);
  g_assert_cmpint (setxattr (p, "user.ferry.empty", "", 0, 0), ==, 0);
  ferry_test_set_times (AT ("docs", "readme.txt"), 1000000000, 123456789);
  g_assert_cmpint (chmod (AT ("a", "b"), 02750), ==, 0);
  ferry_test_set_times (AT ("a", "b"), 1200000000, 987654321);
  g_assert_cmpint (chmod (AT ("empty-folder"), 01777), ==, 0);
#undef AT
  return root;
}

FerryJob *
ferry_test_job_new (const char *const *sources, const char *destination)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GFile) dest = g_file_new_for_path (destination);

  for (guint i = 0; sources[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_path (sources[i]));
  return ferry_job_new ((GFile *const *) files->pdata, files->len, dest);
}

void
ferry_test_job_run_clear (FerryTestJobRun *run)
{
  g_clear_error (&run->error);
}

static void
on_job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FerryTestJobRun *run = user_data;

  run->ok = ferry_job_run_finish (FERRY_JOB (source), result, &run->error);
  run->done = TRUE;
}

void
ferry_test_job_start (FerryJob *job, FerryTestJobRun *run)
{
  ferry_job_run_async (job, NULL, on_job_done, run);
}

static gboolean
on_deadline (gpointer user_data)
{
  gboolean *passed = user_data;

  *passed = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the default main context (so signals reach the test's
 * handlers) until the job ends; a job that hangs fails the test instead
 * of the whole suite timing out. */
void
ferry_test_job_wait (FerryTestJobRun *run, guint timeout_ms)
{
  gboolean passed = FALSE;
  guint deadline = g_timeout_add (timeout_ms, on_deadline, &passed);

  while (!run->done && !passed)
    g_main_context_iteration (NULL, TRUE);
  if (!run->done)
    g_error ("the job did not end within %u ms", timeout_ms);
  g_source_remove (deadline);
}

/* Waits until the job is in @phase; fails the test if it ends first, or
 * after 30 s. */
void
ferry_test_wait_for_phase (FerryJob *job, FerryPhase phase)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (ferry_job_get_phase (job) != phase)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_assert_cmpint (ferry_job_get_phase (job), <, FERRY_PHASE_DONE);
      ferry_test_spin (1);
    }
}

/* Runs @job to its end (within ten minutes, the longest any test's job
 * may take under the sanitizers). */
gboolean
ferry_test_run_job (FerryJob *job, GError **error)
{
  g_auto (FerryTestJobRun) run = { 0 };

  ferry_test_job_start (job, &run);
  ferry_test_job_wait (&run, 600 * 1000);
  if (run.error != NULL)
    g_propagate_error (error, g_steal_pointer (&run.error));
  return run.ok;
}

void
ferry_test_spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
}

/* Waits (iterating the main context) until the job has handed at least
 * @at_least bytes to the kernel; fails the test after 30 s. */
void
ferry_test_wait_for_bytes (FerryJob *job, guint64 at_least)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  for (;;)
    {
      g_auto (FerryProgress) progress = { 0 };

      ferry_job_get_progress (job, &progress);
      if (progress.bytes_written >= at_least)
        return;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_assert_cmpint (progress.phase, <, FERRY_PHASE_DONE);
      ferry_test_spin (1);
    }
}

/* ------------------------------------------------------------------ */
/* Fixture and snapshots                                               */

void
ferry_test_fixture_set_up (FerryTestFixture *f, gconstpointer data)
{
  const char *program = g_get_prgname ();

  f->scratch = ferry_test_scratch_new (program && g_str_has_prefix (program, "test-") ? program + 5
                                                                                      : "test");
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->dst = g_build_filename (f->scratch, "dst", NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_make_dirs (f->dst);
}

void
ferry_test_fixture_tear_down (FerryTestFixture *f, gconstpointer data)
{
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->dst);
}

static int
compare_name_pointers (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Type, mode, inode, size, modification time, content hash and link
 * target of everything at and below a path, one line each. */
static void
describe_into (GString *out, const char *path, const char *rel)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    {
      g_string_append_printf (out, "%s: missing\n", rel);
      return;
    }
  g_string_append_printf (out,
                          "%s: mode 0%o ino %" G_GUINT64_FORMAT " size %" G_GINT64_FORMAT
                          " mtime %" G_GINT64_FORMAT ".%09ld",
                          rel, (guint) st.st_mode, (guint64) st.st_ino, (gint64) st.st_size,
                          (gint64) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  if (S_ISREG (st.st_mode))
    {
      g_autofree char *data = NULL;
      g_autofree char *sum = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
      g_string_append_printf (out, " sha256 %s", sum);
    }
  else if (S_ISLNK (st.st_mode))
    {
      g_autofree char *target = g_file_read_link (path, NULL);
      g_string_append_printf (out, " -> %s", target);
    }
  g_string_append_c (out, '\n');

  if (S_ISDIR (st.st_mode))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      g_assert_nonnull (dir);
      while ((name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_name_pointers);
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *child = g_build_filename (path, names->pdata[i], NULL);
          g_autofree char *child_rel = g_build_filename (rel, names->pdata[i], NULL);
          describe_into (out, child, child_rel);
        }
    }
}

/**
 * ferry_test_describe_tree:
 * A snapshot of @path and everything below it: equal snapshots taken
 * before and after a job mean the job left it untouched.
 */
char *
ferry_test_describe_tree (const char *path)
{
  GString *out = g_string_new (NULL);

  describe_into (out, path, ".");
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ */
/* Comparing trees                                                     */

typedef struct
{
  FerryTestCompare what;
  GHashTable *links; /* source inode -> copy inode */
  GHashTable *seen;  /* copy inodes already matched to a source inode */
} Compare;

static char *
read_all_at (int dir_fd, const char *name, gsize *len)
{
  /* Reading must not move the access time that is being compared. */
  int fd = openat (dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOATIME);
  GByteArray *bytes = g_byte_array_new ();
  guint8 buf[65536];
  gssize n;

  g_assert_cmpint (fd, >=, 0);
  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_byte_array_append (bytes, buf, n);
  g_assert_cmpint (n, ==, 0);
  close (fd);
  *len = bytes->len;
  return (char *) g_byte_array_free (bytes, FALSE);
}

static GHashTable *
read_xattrs (int dir_fd, const char *name)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fd/%d/%s", dir_fd, name);
  GHashTable *attrs
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_bytes_unref);
  char names[65536];
  ssize_t len = llistxattr (path, names, sizeof names);

  for (ssize_t off = 0; len > 0 && off < len; off += strlen (names + off) + 1)
    {
      const char *attr = names + off;
      char value[65536];
      ssize_t size;

      if (!g_str_has_prefix (attr, "user.")
          && !(ferry_test_is_root () && g_str_has_prefix (attr, "trusted.")))
        continue;
      size = lgetxattr (path, attr, value, sizeof value);
      g_assert_cmpint (size, >=, 0);
      g_hash_table_insert (attrs, g_strdup (attr), g_bytes_new (value, size));
    }
  return attrs;
}

static void
compare_xattrs (int src_dir, int dst_dir, const char *name, const char *where)
{
  g_autoptr (GHashTable) a = read_xattrs (src_dir, name);
  g_autoptr (GHashTable) b = read_xattrs (dst_dir, name);
  GHashTableIter iter;
  gpointer key, value;

  if (g_hash_table_size (a) != g_hash_table_size (b))
    g_error ("%s: %u extended attributes in the source, %u in the copy", where,
             g_hash_table_size (a), g_hash_table_size (b));
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GBytes *other = g_hash_table_lookup (b, key);
      if (other == NULL || !g_bytes_equal (value, other))
        g_error ("%s: extended attribute %s differs", where, (char *) key);
    }
}

static void compare_dirs (Compare *c, int src_fd, int dst_fd, const char *where);

static void
compare_link_group (Compare *c, const struct stat *a, const struct stat *b, const char *where)
{
  guint64 src_key = (guint64) a->st_ino;
  gpointer copy_ino;

  if (!(c->what & FERRY_TEST_COMPARE_LINKS) || S_ISDIR (a->st_mode))
    return;
  if (g_hash_table_lookup_extended (c->links, &src_key, NULL, &copy_ino))
    {
      if (*(guint64 *) copy_ino != (guint64) b->st_ino)
        g_error ("%s: hard link group broken: the source shares an inode the copy does not", where);
      return;
    }
  if (g_hash_table_contains (c->seen, &(guint64){ b->st_ino }))
    g_error ("%s: the copy is hard-linked to a file the source is not linked to", where);
  g_hash_table_insert (c->links, g_memdup2 (&src_key, sizeof src_key),
                       g_memdup2 (&b->st_ino, sizeof (guint64)));
  g_hash_table_add (c->seen, g_memdup2 (&b->st_ino, sizeof (guint64)));
}

static void
compare_entry (Compare *c, int src_dir, int dst_dir, const char *name, const char *where)
{
  struct stat a, b;

  if (fstatat (src_dir, name, &a, AT_SYMLINK_NOFOLLOW) != 0)
    g_error ("%s: cannot stat the source: %s", where, g_strerror (errno));
  if (fstatat (dst_dir, name, &b, AT_SYMLINK_NOFOLLOW) != 0)
    g_error ("%s: missing in the copy (%s)", where, g_strerror (errno));

  if ((a.st_mode & S_IFMT) != (b.st_mode & S_IFMT))
    g_error ("%s: type differs (0%o vs 0%o)", where, a.st_mode & S_IFMT, b.st_mode & S_IFMT);
  if ((c->what & FERRY_TEST_COMPARE_MODE) && !S_ISLNK (a.st_mode)
      && (a.st_mode & 07777) != (b.st_mode & 07777))
    g_error ("%s: mode differs (0%o vs 0%o)", where, a.st_mode & 07777, b.st_mode & 07777);
  if ((c->what & FERRY_TEST_COMPARE_OWNER) && (a.st_uid != b.st_uid || a.st_gid != b.st_gid))
    g_error ("%s: owner differs (%u:%u vs %u:%u)", where, a.st_uid, a.st_gid, b.st_uid, b.st_gid);
  if ((c->what & FERRY_TEST_COMPARE_TIMES)
      && (a.st_mtim.tv_sec != b.st_mtim.tv_sec || a.st_mtim.tv_nsec != b.st_mtim.tv_nsec))
    g_error ("%s: mtime differs (%ld.%09ld vs %ld.%09ld)", where, (long) a.st_mtim.tv_sec,
             a.st_mtim.tv_nsec, (long) b.st_mtim.tv_sec, b.st_mtim.tv_nsec);
  if ((c->what & FERRY_TEST_COMPARE_TIMES) && !S_ISDIR (a.st_mode) && !S_ISLNK (a.st_mode)
      && (a.st_atim.tv_sec != b.st_atim.tv_sec || a.st_atim.tv_nsec != b.st_atim.tv_nsec))
    g_error ("%s: atime differs (%ld.%09ld vs %ld.%09ld)", where, (long) a.st_atim.tv_sec,
             a.st_atim.tv_nsec, (long) b.st_atim.tv_sec, b.st_atim.tv_nsec);
  if (S_ISCHR (a.st_mode) || S_ISBLK (a.st_mode))
    g_assert_cmpuint (a.st_rdev, ==, b.st_rdev);
  if (c->what & FERRY_TEST_COMPARE_XATTRS && !S_ISLNK (a.st_mode))
    compare_xattrs (src_dir, dst_dir, name, where);
  compare_link_group (c, &a, &b, where);

  if (S_ISLNK (a.st_mode))
    {
      char ta[8192], tb[8192];
      ssize_t la = readlinkat (src_dir, name, ta, sizeof ta);
      ssize_t lb = readlinkat (dst_dir, name, tb, sizeof tb);
      if (la != lb || memcmp (ta, tb, la) != 0)
        g_error ("%s: symlink target differs", where);
    }
  else if (S_ISREG (a.st_mode))
    {
      gsize la, lb;
      g_autofree char *da = NULL, *db = NULL;

      if (a.st_size != b.st_size)
        g_error ("%s: size differs (%ld vs %ld)", where, (long) a.st_size, (long) b.st_size);
      if ((c->what & FERRY_TEST_COMPARE_SPARSE) && a.st_blocks * 512 < a.st_size / 2
          && b.st_blocks > a.st_blocks * 2 + 128)
        g_error ("%s: sparse file filled in: %ld blocks vs %ld in the source", where,
                 (long) b.st_blocks, (long) a.st_blocks);
      if (c->what & FERRY_TEST_COMPARE_CONTENT)
        {
          da = read_all_at (src_dir, name, &la);
          db = read_all_at (dst_dir, name, &lb);
          if (la != lb || (la > 0 && memcmp (da, db, la) != 0))
            g_error ("%s: content differs", where);
        }
    }
  else if (S_ISDIR (a.st_mode))
    {
      int sfd = openat (src_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int dfd = openat (dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      g_assert_cmpint (sfd, >=, 0);
      g_assert_cmpint (dfd, >=, 0);
      compare_dirs (c, sfd, dfd, where);
      close (sfd);
      close (dfd);
    }
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names in the folder at @path, sorted as strcmp() sorts them. */
GPtrArray *
ferry_test_list_sorted (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return names;
}

static GPtrArray *
list_names (int dir_fd)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  int fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fdopendir (fd);
  struct dirent *entry;

  g_assert_nonnull (dir);
  while ((entry = readdir (dir)) != NULL)
    if (strcmp (entry->d_name, ".") != 0 && strcmp (entry->d_name, "..") != 0)
      g_ptr_array_add (names, g_strdup (entry->d_name));
  closedir (dir);
  return names;
}

static void
compare_dirs (Compare *c, int src_fd, int dst_fd, const char *where)
{
  g_autoptr (GPtrArray) a = list_names (src_fd);
  g_autoptr (GPtrArray) b = list_names (dst_fd);

  g_ptr_array_sort (a, compare_name_pointers);
  g_ptr_array_sort (b, compare_name_pointers);
  if (a->len != b->len)
    g_error ("%s: %u entries in the source, %u in the copy", where, a->len, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      g_autofree char *child = NULL;
      if (strcmp (g_ptr_array_index (a, i), g_ptr_array_index (b, i)) != 0)
        g_error ("%s: names differ", where);
      child = g_strconcat (strlen (where) > 200 ? "…" : where, "/",
                           (char *) g_ptr_array_index (a, i), NULL);
      compare_entry (c, src_fd, dst_fd, g_ptr_array_index (a, i), child);
    }
}

/**
 * ferry_test_assert_trees_equal:
 * Compares @source and @copy entry by entry (they may be files or
 * folders): type, content, mode, owner, times to the nanosecond, user
 * (and, as root, trusted) extended attributes, symlink targets, hard-link
 * groups, and that sparse files stayed sparse. Aborts the test on the
 * first difference, naming the entry.
 */
void
ferry_test_assert_trees_equal (const char *source, const char *copy, FerryTestCompare what)
{
  g_autofree char *src_parent = g_path_get_dirname (source);
  g_autofree char *dst_parent = g_path_get_dirname (copy);
  g_autofree char *src_name = g_path_get_basename (source);
  g_autofree char *dst_name = g_path_get_basename (copy);
  Compare c = { what };
  int src_fd = open (src_parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int dst_fd = open (dst_parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (src_fd, >=, 0);
  g_assert_cmpint (dst_fd, >=, 0);
  c.links = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  c.seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  if (strcmp (src_name, dst_name) != 0)
    {
      /* Compare under the copy's name: link a temporary view is not
       * possible for folders, so compare the entries directly. */
      struct stat a;
      g_assert_cmpint (fstatat (src_fd, src_name, &a, AT_SYMLINK_NOFOLLOW), ==, 0);
      if (S_ISDIR (a.st_mode))
        {
          int sfd = openat (src_fd, src_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          int dfd = openat (dst_fd, dst_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          g_assert_cmpint (dfd, >=, 0);
          compare_dirs (&c, sfd, dfd, copy);
          close (sfd);
          close (dfd);
        }
      else
        ferry_test_assert_files_equal (source, copy);
    }
  else
    compare_entry (&c, src_fd, dst_fd, src_name, copy);

  g_hash_table_unref (c.links);
  g_hash_table_unref (c.seen);
  close (src_fd);
  close (dst_fd);
}

void
ferry_test_assert_files_equal (const char *a, const char *b)
{
  g_autofree char *da = NULL, *db = NULL;
  gsize la = 0, lb = 0;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (a, &da, &la, &error);
  g_assert_no_error (error);
  g_file_get_contents (b, &db, &lb, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (da, la, db, lb);
}

static guint
count_at (int dir_fd, gboolean temp_only)
{
  int fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fdopendir (fd);
  struct dirent *entry;
  guint n = 0;

  if (dir == NULL)
    return 0;
  while ((entry = readdir (dir)) != NULL)
    {
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (!temp_only
          || (g_str_has_prefix (entry->d_name, ".ferry-")
              && g_str_has_suffix (entry->d_name, ".part")))
        n++;
      if (entry->d_type == DT_DIR)
        {
          int sub = openat (dirfd (dir), entry->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub >= 0)
            {
              n += count_at (sub, temp_only);
              close (sub);
            }
        }
    }
  closedir (dir);
  return n;
}

/* Ferry's temporary files (".ferry-*.part") anywhere below @dir. */
guint
ferry_test_count_temp_files (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint n;

  if (fd < 0)
    return 0;
  n = count_at (fd, TRUE);
  close (fd);
  return n;
}

/* Folders directly in @dir named as Ferry names the folders it builds
 * hidden (".ferry-*-d.part"), before they get their names. */
guint
ferry_test_count_hidden_folders (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    n += g_str_has_prefix (name, ".ferry-") && g_str_has_suffix (name, "-d.part")
         && g_file_test (ferry_test_path (dir, name, NULL), G_FILE_TEST_IS_DIR);
  return n;
}

/* @prefix (a tracer and its arguments, or NULL), ferry-copy ($FERRY_COPY),
 * @args: an argument vector. */
char **
ferry_test_copy_argv (const char *const *prefix, const char *const *args)
{
  GPtrArray *argv = g_ptr_array_new ();

  for (guint i = 0; prefix != NULL && prefix[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (prefix[i]));
  g_assert_nonnull (g_getenv ("FERRY_COPY"));
  g_ptr_array_add (argv, g_strdup (g_getenv ("FERRY_COPY")));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* ferry-copy (under @prefix, or NULL) started with @args: its output
 * silenced, its standard error piped. */
GSubprocess *
ferry_test_spawn_copy (const char *const *prefix, const char *const *args)
{
  g_auto (GStrv) argv = ferry_test_copy_argv (prefix, args);
  g_autoptr (GError) error = NULL;
  GSubprocess *process = g_subprocess_newv ((const char *const *) argv,
                                            G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                            &error);

  g_assert_no_error (error);
  return process;
}

/* "ASAN_OPTIONS=…detect_leaks=0", for strace's -E: LeakSanitizer cannot
 * run under ptrace (the sanitized build). */
char *
ferry_test_no_leak_check_env (void)
{
  const char *asan = g_getenv ("ASAN_OPTIONS");

  return g_strdup_printf ("ASAN_OPTIONS=%s%sdetect_leaks=0", asan ? asan : "", asan ? ":" : "");
}

char *
ferry_test_strace_path (void)
{
  return g_find_program_in_path ("strace");
}

/* strace must be installed and allowed to trace (ptrace may be refused
 * in a container): else the test is skipped, saying why. */
gboolean
ferry_test_skip_without_strace (void)
{
  g_autofree char *strace = ferry_test_strace_path ();
  const char *argv[] = { strace, "-qq", "-o", "/dev/null", "true", NULL };
  int status = -1;

  if (strace == NULL)
    {
      g_test_skip ("strace is not installed (the test traces or kills ferry-copy in chosen calls)");
      return TRUE;
    }
  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("strace cannot trace here (ptrace refused)");
      return TRUE;
    }
  return FALSE;
}

static void
umask_022 (gpointer data)
{
  umask (022);
}

/**
 * ferry_test_count_traced_calls:
 * How many calls of @call ferry-copy made with @args, all threads
 * followed, run to its end (umask 022, no input); @traced: strace's set
 * of calls to trace, @call among them. Fails the test when ferry-copy
 * fails.
 */
guint
ferry_test_count_traced_calls (const char *traced, const char *call, const char *const *args)
{
  g_autofree char *strace = ferry_test_strace_path ();
  g_autofree char *log = g_build_filename (g_get_tmp_dir (), "ferry-strace-XXXXXX", NULL);
  g_autofree char *trace = g_strdup_printf ("trace=%s", traced);
  g_autofree char *no_leak_check = ferry_test_no_leak_check_env ();
  const char *prefix[] = { strace, "-f", "-qq", "-o", log, "-E", no_leak_check, "-e", trace, NULL };
  g_auto (GStrv) argv = NULL;
  g_autofree char *err = NULL;
  g_autofree char *text = NULL;
  g_autofree char *opening = g_strconcat (call, "(", NULL);
  g_autoptr (GError) error = NULL;
  int status;
  guint n = 0;

  close (g_mkstemp (log));
  argv = ferry_test_copy_argv (prefix, args);
  g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDIN_FROM_DEV_NULL,
                umask_022, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("ferry-copy failed (wait status %d):\n%s", status, err);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  for (const char *at = text; (at = strstr (at, opening)) != NULL; at += strlen (opening))
    n++;
  unlink (log);
  return n;
}

/* The inode of @path itself (a link's, not its target's). */
ino_t
ferry_test_inode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st.st_ino;
}

guint
ferry_test_count_entries (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint n;

  if (fd < 0)
    return 0;
  n = count_at (fd, FALSE);
  close (fd);
  return n;
}

char *
ferry_test_describe_failures (FerryJob *job)
{
  g_autoptr (GPtrArray) failures = ferry_job_dup_failures (job);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < failures->len; i++)
    {
      FerryFailure *f = g_ptr_array_index (failures, i);
      g_string_append_printf (out, "%s\n", f->error->message);
    }
  return g_string_free (out, FALSE);
}

/* Descriptors of this process open on @path or below it, counted once per
 * thread that sees them (zero is what matters): every thread's table, as
 * a thread may have one of its own (Ferry's sync thread has). Each is
 * named in the test's log. */
guint
ferry_test_count_open_below (const char *path)
{
  g_autofree char *real = realpath (path, NULL);
  g_autofree char *prefix = NULL;
  g_autoptr (GDir) tasks = g_dir_open ("/proc/self/task", 0, NULL);
  const char *task;
  guint n = 0;

  g_assert_nonnull (real);
  g_assert_nonnull (tasks);
  prefix = g_strconcat (real, "/", NULL);
  while ((task = g_dir_read_name (tasks)) != NULL)
    {
      g_autofree char *fd_dir = g_build_filename ("/proc/self/task", task, "fd", NULL);
      g_autoptr (GDir) fds = g_dir_open (fd_dir, 0, NULL);
      const char *name;

      while (fds != NULL && (name = g_dir_read_name (fds)) != NULL)
        {
          g_autofree char *link = g_build_filename (fd_dir, name, NULL);
          g_autofree char *target = g_file_read_link (link, NULL);

          if (target == NULL || (!g_str_equal (target, real) && !g_str_has_prefix (target, prefix)))
            continue;
          g_test_message ("still open: %s", target);
          n++;
        }
    }
  return n;
}
