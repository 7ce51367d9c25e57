/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ferry-copy as people and scripts meet it: exit statuses, messages, the
 * JSON progress stream, conflicts on a terminal, interruptions, and
 * memory. Every test runs the built binary (FERRY_COPY) in a child
 * process and looks only at what a user could see: the exit status,
 * standard output and error, and the files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-glib/json-glib.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ferry-format.h"
#include "ferry-test-util.h"

#define EXIT_FAILED      1
#define EXIT_USAGE       2
#define EXIT_INTERRUPTED 130
#define NOBODY           65534
#define BIG_FILE_SIZE    (512 * 1024 * 1024)
#define MAX_RSS_KIB      (64 * 1024)

/* A NULL-terminated argument list, for the arguments after "ferry-copy". */
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

typedef FerryTestFixture Fixture;

/* ------------------------------------------------------------------ */
/* Running ferry-copy                                                  */

typedef struct
{
  const char *cwd;    /* NULL: the test's own */
  gboolean as_nobody; /* drop root before exec, so permissions apply */
  gboolean nohup;     /* SIGHUP ignored, as nohup starts a command */
  int umask;          /* -1: inherit the test's */
  rlim_t max_fds;     /* a limit on open descriptors, soft and hard; 0: inherit */
} SpawnOptions;

typedef struct
{
  int status; /* exit status, or -1 when ended by a signal */
  char *out;
  char *err;
} CopyResult;

static void
copy_result_clear (CopyResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CopyResult, copy_result_clear)

static const char *
ferry_copy_path (void)
{
  const char *path = g_getenv ("FERRY_COPY");

  g_assert_nonnull (path);
  return path;
}

/* Runs in the child between fork and exec: only async-signal-safe calls. */
static void
child_setup (gpointer data)
{
  const SpawnOptions *options = data;

  if (options->umask >= 0)
    umask ((mode_t) options->umask);
  if (options->max_fds > 0
      && setrlimit (RLIMIT_NOFILE, &(struct rlimit){ options->max_fds, options->max_fds }) != 0)
    _exit (127);
  if (options->as_nobody
      && (setgroups (0, NULL) != 0 || setgid (NOBODY) != 0 || setuid (NOBODY) != 0))
    _exit (127);
  if (options->nohup && sigaction (SIGHUP, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL) != 0)
    _exit (127);
}

static GPtrArray *
build_argv (const char *const *args)
{
  GPtrArray *argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) ferry_copy_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  return argv;
}

static GSubprocess *
spawn_copy_with (GSubprocessLauncher *launcher,
                 const SpawnOptions *options,
                 const char *const *args)
{
  g_autoptr (GPtrArray) argv = build_argv (args);
  g_autoptr (GError) error = NULL;
  GSubprocess *process;

  if (options != NULL)
    {
      if (options->cwd != NULL)
        g_subprocess_launcher_set_cwd (launcher, options->cwd);
      g_subprocess_launcher_set_child_setup (launcher, child_setup, (gpointer) options, NULL);
    }
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/* Standard input is a pipe (so never a terminal), output is captured. */
static GSubprocess *
spawn_copy (const SpawnOptions *options, const char *const *args)
{
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                   | G_SUBPROCESS_FLAGS_STDERR_PIPE);

  return spawn_copy_with (launcher, options, args);
}

static int
exit_status_of (GSubprocess *process)
{
  return g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
}

static char *
bytes_to_string (GBytes *bytes)
{
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  return g_strndup (data != NULL ? data : "", len);
}

static void
run_copy_full (CopyResult *r, const SpawnOptions *options, const char *const *args)
{
  g_autoptr (GSubprocess) process = spawn_copy (options, args);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  g_autoptr (GBytes) no_input = g_bytes_new (NULL, 0);
  g_autoptr (GError) error = NULL;

  /* No input: standard input is closed at once, as under a script. */
  g_subprocess_communicate (process, no_input, NULL, &out, &err, &error);
  g_assert_no_error (error);
  r->status = exit_status_of (process);
  r->out = bytes_to_string (out);
  r->err = bytes_to_string (err);
}

static void
run_copy (CopyResult *r, const char *const *args)
{
  run_copy_full (r, NULL, args);
}

static void
assert_status (const CopyResult *r, int expected)
{
  if (r->status != expected)
    g_error ("ferry-copy exited with %d, expected %d\nstdout:\n%s\nstderr:\n%s", r->status,
             expected, r->out, r->err);
}

/* The line of @text that mentions @needle, or NULL. */
static char *
find_line (const char *text, const char *needle)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return g_strdup (lines[i]);
  return NULL;
}

static guint
count_occurrences (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static char *
read_text (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&text);
}

static void
assert_text (const char *path, const char *expected)
{
  g_autofree char *text = read_text (path);

  g_assert_cmpstr (text, ==, expected);
}

static void
write_text_at_time (const char *path, const char *text, gint64 mtime)
{
  ferry_test_write_text (path, text);
  ferry_test_set_times (path, mtime, 0);
}

/* Compares two files a chunk at a time: the big ones are 512 MiB. */
static gboolean
same_content (const char *a, const char *b)
{
  const gsize chunk = 1024 * 1024;
  g_autofree char *buf_a = g_malloc (chunk);
  g_autofree char *buf_b = g_malloc (chunk);
  int fd_a = open (a, O_RDONLY | O_CLOEXEC);
  int fd_b = open (b, O_RDONLY | O_CLOEXEC);
  gboolean same = TRUE;

  g_assert_cmpint (fd_a, >=, 0);
  g_assert_cmpint (fd_b, >=, 0);
  for (;;)
    {
      gssize na = read (fd_a, buf_a, chunk);
      gssize nb = 0;

      g_assert_cmpint (na, >=, 0);
      /* Regular files give full reads until the end; keep b in step. */
      while (nb < na)
        {
          gssize n = read (fd_b, buf_b + nb, na - nb);
          g_assert_cmpint (n, >=, 0);
          if (n == 0)
            break;
          nb += n;
        }
      if (na != nb || memcmp (buf_a, buf_b, na) != 0)
        {
          same = FALSE;
          break;
        }
      if (na == 0)
        break;
    }
  if (same)
    same = read (fd_b, buf_b, 1) == 0;
  close (fd_a);
  close (fd_b);
  return same;
}

/* Every regular file below @copy_dir must be whole: same size and bytes
 * as its counterpart below @source_dir. A missing @copy_dir is fine (the
 * copy was stopped before it was made). */
static void
assert_copies_complete (const char *source_dir, const char *copy_dir)
{
  g_autoptr (GDir) dir = g_dir_open (copy_dir, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *src = g_build_filename (source_dir, name, NULL);
      g_autofree char *copy = g_build_filename (copy_dir, name, NULL);
      struct stat st;

      g_assert_cmpint (lstat (copy, &st), ==, 0);
      if (S_ISDIR (st.st_mode))
        assert_copies_complete (src, copy);
      else if (S_ISREG (st.st_mode))
        {
          if (!g_file_test (src, G_FILE_TEST_EXISTS))
            g_error ("“%s” is in the copy but not in the source", copy);
          if (!same_content (src, copy))
            g_error ("“%s” is under its final name but incomplete or wrong", copy);
        }
    }
}

/* 1 KiB files in folders of 500 below @dir, numbered from @first. */
static void
add_small_files (const char *dir, guint first, guint count)
{
  for (guint i = first; i < first + count; i++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/d%03u", dir, i / 500);
      g_autofree char *path = g_strdup_printf ("%s/f%05u", folder, i);

      if (i == first || i % 500 == 0)
        ferry_test_make_dirs (folder);
      ferry_test_write_random (path, 1024, i);
    }
}

/* ------------------------------------------------------------------ */
/* The JSON progress stream                                            */

typedef struct
{
  double time;
  char *phase;
  gint64 files_total;
  gint64 files_done;
  gint64 bytes_total;
  gint64 bytes_written;
  gint64 bytes_durable;
  char *current; /* NULL when null */
} ProgressLine;

static void
progress_line_clear (ProgressLine *p)
{
  g_clear_pointer (&p->phase, g_free);
  g_clear_pointer (&p->current, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ProgressLine, progress_line_clear)

static JsonNode *
member_value (JsonObject *object, const char *name, const char *line)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    g_error ("no “%s” in %s", name, line);
  return node;
}

static gint64
get_count (JsonObject *object, const char *name, const char *line)
{
  JsonNode *node = member_value (object, name, line);

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    g_error ("“%s” is not a whole number in %s", name, line);
  if (json_node_get_int (node) < 0)
    g_error ("“%s” is negative in %s", name, line);
  return json_node_get_int (node);
}

static double
get_seconds (JsonObject *object, const char *name, const char *line)
{
  JsonNode *node = member_value (object, name, line);

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return json_node_get_double (node);
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    return (double) json_node_get_int (node);
  g_error ("“%s” is not a number in %s", name, line);
}

static char *
get_string_or_null (JsonObject *object, const char *name, gboolean nullable, const char *line)
{
  JsonNode *node = member_value (object, name, line);

  if (nullable && JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    g_error ("“%s” is not a string%s in %s", name, nullable ? " or null" : "", line);
  return g_strdup (json_node_get_string (node));
}

/* One stdout line must be one JSON object with the promised fields. */
static void
progress_line_parse (ProgressLine *p, const char *line)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *object;

  if (!g_utf8_validate (line, -1, NULL))
    g_error ("progress line is not UTF-8: %s", line);
  root = json_from_string (line, &error);
  if (root == NULL)
    g_error ("progress line is not JSON (%s): %s", error ? error->message : "empty", line);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    g_error ("progress line is not an object: %s", line);
  object = json_node_get_object (root);

  p->time = get_seconds (object, "time", line);
  p->phase = get_string_or_null (object, "phase", FALSE, line);
  p->files_total = get_count (object, "files_total", line);
  p->files_done = get_count (object, "files_done", line);
  p->bytes_total = get_count (object, "bytes_total", line);
  p->bytes_written = get_count (object, "bytes_written", line);
  p->bytes_durable = get_count (object, "bytes_durable", line);
  p->current = get_string_or_null (object, "current", TRUE, line);
}

static GArray *
parse_progress_output (const char *out)
{
  GArray *lines = g_array_new (FALSE, TRUE, sizeof (ProgressLine));
  g_auto (GStrv) texts = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (texts);

  g_array_set_clear_func (lines, (GDestroyNotify) progress_line_clear);
  /* Every line ends with a newline, so the last piece is empty. */
  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpstr (texts[n - 1], ==, "");
  for (guint i = 0; i + 1 < n; i++)
    {
      ProgressLine p = { 0 };
      progress_line_parse (&p, texts[i]);
      g_array_append_val (lines, p);
    }
  return lines;
}

/* What a consumer may rely on for a copy that succeeds. */
static void
assert_progress_stream_sane (GArray *lines)
{
  ProgressLine *last = &g_array_index (lines, ProgressLine, lines->len - 1);

  for (guint i = 0; i < lines->len; i++)
    {
      ProgressLine *p = &g_array_index (lines, ProgressLine, i);

      g_assert_cmpint (p->bytes_durable, <=, p->bytes_written);
      if (i == 0)
        continue;
      g_assert_cmpfloat (p->time, >=, p[-1].time);
      g_assert_cmpint (p->bytes_written, >=, p[-1].bytes_written);
    }
  g_assert_cmpstr (last->phase, ==, "done");
  g_assert_cmpint (last->bytes_durable, ==, last->bytes_total);
  g_assert_cmpint (last->files_done, ==, last->files_total);
  /* Ten lines a second at most, plus the final one (and one for the
   * rounding of the final time). */
  g_assert_cmpfloat (lines->len, <=, 10 * last->time + 2);
}

/* Reads JSON lines as they come until one shows data moving, so the
 * copy is caught in the middle. */
static void
wait_for_bytes_written (GDataInputStream *stream)
{
  for (;;)
    {
      g_auto (ProgressLine) p = { 0 };
      g_autoptr (GError) error = NULL;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, NULL, NULL, &error);

      g_assert_no_error (error);
      if (line == NULL)
        g_error ("ferry-copy ended before any progress line showed bytes written");
      progress_line_parse (&p, line);
      if (g_strcmp0 (p.phase, "done") == 0)
        g_error ("the copy finished before it could be interrupted");
      if (p.bytes_written > 0)
        return;
    }
}

static char *
read_rest (GInputStream *stream)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GError) error = NULL;

  g_output_stream_splice (out, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  return g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                    g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
}

/* ------------------------------------------------------------------ */
/* Usage                                                               */

static void
test_usage (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "file", NULL);
  g_autofree char *other = g_build_filename (f->src, "other", NULL);
  g_autofree char *missing = g_build_filename (f->dst, "missing", NULL);
  struct
  {
    const char *const *args;
    const char *says; /* the message must name what was wrong */
  } cases[] = {
    { (const char *const[]){ NULL }, "missing" },
    { ARGS (file), "missing" },
    { ARGS ("--bogus", file, f->dst), "--bogus" },
    { ARGS ("--conflict=bogus", file, f->dst), "--conflict" },
    { ARGS ("--progress=bogus", file, f->dst), "--progress" },
    /* 0 workers is no number of them (it was taken for the default). */
    { ARGS ("-j", "0", file, f->dst), "--jobs takes a number from 1 to 256" },
    { ARGS ("-j", "257", file, f->dst), "--jobs takes a number from 1 to 256" },
    { ARGS ("--resume", "-j", "0"), "--jobs takes a number from 1 to 256" },
    /* The number attached, as make takes it (it took the next argument). */
    { ARGS ("-j0", file, f->dst), "--jobs takes a number from 1 to 256" },
    /* Each would act: continue, or forget and delete, where a plan only was asked. */
    { ARGS ("--dry-run", "--resume", "all"), "--dry-run goes with neither --resume nor --discard" },
    { ARGS ("--dry-run", "--discard", "all"), "--dry-run goes with neither --resume nor --discard" },
    /* Several sources need an existing folder, as with cp. */
    { ARGS ("--progress=none", file, other, missing), "folder" },
  };

  ferry_test_write_text (file, "file\n");
  ferry_test_write_text (other, "other\n");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (CopyResult) r = { 0 };

      run_copy (&r, cases[i].args);
      assert_status (&r, EXIT_USAGE);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_true (g_str_has_prefix (r.err, "ferry-copy: "));
      g_assert_nonnull (strstr (r.err, cases[i].says));
    }
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
  {
    g_auto (CopyResult) r = { 0 };

    run_copy (&r, ARGS ("-j2", "--dry-run", file, f->dst));
    assert_status (&r, EXIT_SUCCESS);
    g_assert_cmpstr (r.out, ==, "1 item (5 bytes) would be copied\n");
  }
  {
    /* An empty destination (a variable not set) is no folder: a folder's
     * contents had been merged into the current one, exit 0. */
    SpawnOptions in_dst = { .cwd = f->dst, .umask = -1 };
    g_auto (CopyResult) r = { 0 };

    run_copy_full (&r, &in_dst, ARGS ("--progress=none", f->src, ""));
    assert_status (&r, EXIT_USAGE);
    g_assert_cmpstr (r.err, ==,
                     "ferry-copy: The destination is empty: name the folder to copy into\n");
    g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
  }
}

/* ------------------------------------------------------------------ */
/* Copies that succeed                                                 */

static void
test_plain_copy (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_autofree char *copy = g_build_filename (f->dst, "everything", NULL);
  g_auto (CopyResult) r = { 0 };

  run_copy (&r, ARGS ("--progress=none", tree, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_ALL);
}

/* Counts of items, as the bar and ferry-copy write them: grouped as the
 * locale says ("60,000 items" in English, "60.000" in Spanish, "1,23,456"
 * in India), not at all in the C locale the tests run in. */
static void
test_counts_grouped (void)
{
  const struct
  {
    guint64 count;
    const char *separator;
    const char *grouping;
    const char *expected;
  } cases[] = {
    { 0, ",", "\3", "0" },
    { 999, ",", "\3", "999" },
    { 1000, ",", "\3", "1,000" },
    { 60000, ",", "\3", "60,000" },
    { 1234567, ".", "\3", "1.234.567" },
    { 1234567, "\u202f", "\3", "1\u202f234\u202f567" },
    { G_MAXUINT64, ",", "\3", "18,446,744,073,709,551,615" },
    /* the last size repeats: lakhs and crores */
    { 123456789, ",", "\3\2", "12,34,56,789" },
    /* CHAR_MAX: no more groups after the first */
    { 123456789, ",", "\3\177", "123456,789" },
    /* what the C locale gives: no groups */
    { 1234567, "", "", "1234567" },
    { 1234567, ",", "", "1234567" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text
          = ferry_format_count_grouped (cases[i].count, cases[i].separator, cases[i].grouping);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }
  /* The locale the tests run in (C.UTF-8) groups nothing. */
  {
    g_autofree char *text = ferry_format_count (60000);

    g_assert_cmpstr (text, ==, "60000");
  }
}

/* With the bar, the copy ends with what it did and how long it took, in
 * seconds under a minute: a short copy said "in 0:00", as if it had taken
 * no time at all. */
static void
test_summary (Fixture *f, gconstpointer data)
{
  g_auto (CopyResult) r = { 0 };
  g_autofree char *tree = g_build_filename (f->src, "notes", NULL);
  const char *last_line;

  ferry_test_make_dirs (tree);
  ferry_test_write_text (ferry_test_path (tree, "a.txt", NULL), "alpha\n");
  ferry_test_write_text (ferry_test_path (tree, "b.txt", NULL), "beta\n");
  run_copy (&r, ARGS ("--progress=bar", tree, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  last_line = strrchr (r.err, '\r') != NULL ? strrchr (r.err, '\r') + 1 : r.err;
  if (!g_regex_match_simple ("^Copied 3 items \\(11 bytes\\) in (0\\.[0-9][0-9]|[0-9]\\.[0-9]) s; "
                             "all of it is on the disk\n$",
                             last_line, 0, 0))
    g_error ("the copy ended with “%s”", r.err);
}

/* Copies the sources made at @paths into the destination with no more
 * than @max_fds descriptors open; ferry-copy must end well. */
static void
copy_sources_within (Fixture *f, GPtrArray *paths, rlim_t max_fds)
{
  const SpawnOptions options = { .umask = -1, .max_fds = max_fds };
  g_auto (CopyResult) r = { 0 };

  g_ptr_array_add (paths, g_strdup (f->dst));
  g_ptr_array_add (paths, NULL);
  run_copy_full (&r, &options, (const char *const *) paths->pdata);
  g_test_message ("%s", r.err);
  assert_status (&r, 0);
  g_assert_null (strstr (r.err, "unplugged"));
}

/* A thousand photos given one by one (`ferry-copy ~/Pictures/IMG_*.jpg
 * /media/STICK/`, a selection sent from a file manager), with 128
 * descriptors allowed: sources in one folder share its descriptor. With
 * one or more for each, 300 sources with 1,024 allowed failed, and what
 * failed was said to be on a drive unplugged (the mount table could not
 * be read to tell). */
static void
test_many_sources (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < 1000; i++)
    {
      char *path = g_strdup_printf ("%s/IMG_%04u.jpg", f->src, i);

      ferry_test_write_random (path, 512, i);
      g_ptr_array_add (paths, path);
    }
  copy_sources_within (f, paths, 128);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 1000);
  ferry_test_assert_trees_equal (f->src, f->dst, FERRY_TEST_COMPARE_CONTENT);
}

/* Sources from as many folders (each day's folder's photos) where 256
 * descriptors may be open: each folder's is held once. The scan and the
 * copy each made their own copy of every one, and with 1,024 descriptors
 * 600 sources from 600 folders failed, "Bad file descriptor" for each. */
static void
test_sources_from_many_folders (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/day-%03u", f->src, i);
      char *path = g_strdup_printf ("%s/IMG_%04u.jpg", folder, i);

      ferry_test_make_dirs (folder);
      ferry_test_write_random (path, 512, i);
      g_ptr_array_add (paths, path);
    }
  copy_sources_within (f, paths, 256);
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 150);
}

static void
test_verify (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_autofree char *copy = g_build_filename (f->dst, "everything", NULL);
  g_auto (CopyResult) r = { 0 };

  run_copy (&r, ARGS ("--verify", "--progress=none", "-j", "2", tree, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_ALL);
}

static void
test_no_preserve (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "tool", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "tool", NULL);
  SpawnOptions options = { .umask = 027 };
  g_auto (CopyResult) r = { 0 };
  gint64 before = g_get_real_time () / G_USEC_PER_SEC;
  struct stat st;

  ferry_test_write_text (file, "#!/bin/sh\n");
  if (ferry_test_is_root ())
    g_assert_cmpint (chown (file, 4321, 8765), ==, 0);
  g_assert_cmpint (chmod (file, 04777), ==, 0);
  ferry_test_set_times (file, 1000, 0);

  run_copy_full (&r, &options, ARGS ("--no-preserve", "--progress=none", file, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_cmpint (stat (copy, &st), ==, 0);
  /* 0777 through the umask 027, and no setuid bit on a fresh file. */
  g_assert_cmpint (st.st_mode & 07777, ==, 0750);
  g_assert_cmpint (st.st_mtim.tv_sec, >=, before - 1);
  g_assert_cmpuint (st.st_uid, ==, getuid ());
  ferry_test_assert_files_equal (file, copy);
}

/* "-r", "-R" and "-a", typed from habit with cp, copy as Ferry always
 * does (whole folders, everything kept) and are not offered in --help. */
static void
test_cp_habits (Fixture *f, gconstpointer data)
{
  const char *habits[] = { "-r", "-R", "-a", "-rRa", "--recursive", "--archive" };
  g_autofree char *tree = ferry_test_make_everything_tree (f->src);
  g_auto (CopyResult) help = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (habits); i++)
    {
      g_autofree char *name = g_strdup_printf ("copy%u", i);
      g_autofree char *copy = g_build_filename (f->dst, name, NULL);
      g_auto (CopyResult) r = { 0 };

      run_copy (&r, ARGS (habits[i], "--progress=none", tree, copy));
      assert_status (&r, EXIT_SUCCESS);
      g_assert_cmpstr (r.err, ==, "");
      ferry_test_assert_trees_equal (tree, copy, FERRY_TEST_COMPARE_ALL);
    }
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);

  run_copy (&help, ARGS ("--help"));
  assert_status (&help, EXIT_SUCCESS);
  g_assert_nonnull (strstr (help.out, "--no-preserve"));
  g_assert_null (strstr (help.out, "recursive"));
  g_assert_null (strstr (help.out, "archive"));
}

/* What --help says of the defaults and the ways to call ferry-copy is
 * what it does: asking only where standard input and standard error are
 * terminals, a bar only where standard error is one, a dry run stopping
 * at the first file already there, the IDs --resume and --discard take,
 * the exit statuses. (It said "on a terminal", gave --progress no
 * default, and --resume and --discard no IDs.) */
static void
test_help (Fixture *f, gconstpointer data)
{
  const char *says[] = {
    "  ferry-copy [OPTION…] SOURCE… DESTINATION",
    "  ferry-copy [OPTION…] --resume [ID…|all]\n",
    "  ferry-copy --discard ID…|all\n",
    "(default: ask when standard input and standard error are terminals, else stop at the first "
    "one)",
    "(default: ask when standard input and standard error are terminals, else stop before "
    "writing anything)",
    "(default: bar when standard error is a terminal, else none)",
    "without --conflict and with no terminal to ask on, stop at the first of them (exit 1)",
    "Exit status: 0 only when everything was copied and is durable; 1 when some files failed, or "
    "--resume left a transfer for later; 2 on bad usage; 130 when interrupted.",
  };
  g_auto (CopyResult) help = { 0 };

  run_copy (&help, ARGS ("--help"));
  assert_status (&help, EXIT_SUCCESS);
  for (guint i = 0; i < G_N_ELEMENTS (says); i++)
    if (strstr (help.out, says[i]) == NULL)
      g_error ("--help does not say “%s”:\n%s", says[i], help.out);
  g_assert_null (strstr (help.out, "on a terminal"));
}

/* `ferry --help` says what Ferry does and what a script gets back. */
static void
test_app_help (void)
{
  g_autofree char *cli_dir = g_path_get_dirname (ferry_copy_path ());
  g_autofree char *ferry = g_build_filename (cli_dir, "..", "app", "ferry", NULL);
  const char *argv[] = { ferry, "--help", NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (!g_file_test (ferry, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("the window was not built (-Dapp=disabled)");
      return;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "Copy files and folders onto USB sticks and other drives."));
  g_assert_nonnull (strstr (out, "Exit status: 0 when the files are queued"));
  g_assert_nonnull (strstr (out, "; 2 on bad usage (no FILE, or an empty FOLDER)."));
}

/* After "--", names that look like options are names. */
static void
test_leading_dash (Fixture *f, gconstpointer data)
{
  const char *names[] = { "-n", "--conflict=skip", "-j" };
  g_autofree char *out = g_build_filename (f->src, "-out", NULL);
  SpawnOptions options = { .cwd = f->src, .umask = -1 };
  g_auto (CopyResult) r = { 0 };

  ferry_test_make_dirs (out);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (f->src, names[i], NULL);
      ferry_test_write_text (path, names[i]);
    }

  run_copy_full (&r, &options,
                 ARGS ("--progress=none", "--", names[0], names[1], names[2], "-out"));
  assert_status (&r, EXIT_SUCCESS);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *copy = g_build_filename (out, names[i], NULL);
      assert_text (copy, names[i]);
    }
  g_assert_cmpuint (ferry_test_count_entries (out), ==, G_N_ELEMENTS (names));
}

static void
test_dry_run (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_autofree char *sub = g_build_filename (tree, "sub", NULL);
  g_autofree char *file_a = g_build_filename (tree, "a", NULL);
  g_autofree char *file_b = g_build_filename (sub, "b", NULL);
  g_autofree char *new_dst = g_build_filename (f->dst, "new", NULL);
  g_autofree char *size = g_format_size (3000);
  g_autofree char *expected = NULL;
  g_auto (CopyResult) into = { 0 };
  g_auto (CopyResult) as_new = { 0 };

  /* Two folders and two files: four items, 3000 bytes. */
  ferry_test_make_dirs (sub);
  ferry_test_write_random (file_a, 1000, 1);
  ferry_test_write_random (file_b, 2000, 2);
  expected = g_strdup_printf ("4 items (%s)", size);

  run_copy (&into, ARGS ("--dry-run", tree, f->dst));
  assert_status (&into, EXIT_SUCCESS);
  g_assert_nonnull (strstr (into.out, expected));
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);

  run_copy (&as_new, ARGS ("--dry-run", "--progress=none", tree, new_dst));
  assert_status (&as_new, EXIT_SUCCESS);
  g_assert_nonnull (strstr (as_new.out, expected));
  g_assert_false (g_file_test (new_dst, G_FILE_TEST_EXISTS));
}

/* A dry run of a copy made once already, one file added since and one
 * made newer: what each --conflict= would do with the files there, in
 * the counts and in words; without one (and no terminal to ask on), the
 * dry run stops where the copy would, and says how to choose. Before,
 * every policy said all 6 items would be copied, and exit 0. */
static void
test_dry_run_files_there (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "set", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "set", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  const struct
  {
    const char *policy, *out;
  } cases[] = {
    { "--conflict=skip", "2 items (3 bytes) would be copied\n4 files already there would be skipped\n" },
    { "--conflict=newer", "3 items (1.0\u00a0kB) would be copied\n"
                          "1 file already there would be replaced, and 3 skipped\n" },
    { "--conflict=overwrite", "6 items (4.0\u00a0kB) would be copied\n"
                              "4 files already there would be replaced\n" },
    { "--conflict=keep-both", "6 items (4.0\u00a0kB) would be copied\n"
                              "4 files already there would be kept, their copies named “name (2)”\n" },
  };
  g_auto (CopyResult) first = { 0 };
  g_auto (CopyResult) stopped = { 0 };

  ferry_test_make_dirs (tree);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("v%u", i);
      ferry_test_write_random (ferry_test_path (tree, name, NULL), 1000, i);
    }
  run_copy (&first, ARGS ("--progress=none", tree, f->dst));
  assert_status (&first, EXIT_SUCCESS);
  ferry_test_write_text (ferry_test_path (tree, "v5", NULL), "v5\n");
  g_assert_no_errno (utimensat (AT_FDCWD, ferry_test_path (tree, "v1", NULL),
                                (struct timespec[]){ { 1900000000, 0 }, { 1900000000, 0 } }, 0));
  before = ferry_test_describe_tree (f->dst);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (CopyResult) r = { 0 };

      run_copy (&r, ARGS ("--dry-run", cases[i].policy, tree, f->dst));
      assert_status (&r, EXIT_SUCCESS);
      g_assert_cmpstr (r.out, ==, cases[i].out);
    }
  run_copy (&stopped, ARGS ("--dry-run", tree, f->dst));
  assert_status (&stopped, EXIT_FAILED);
  g_assert_nonnull (strstr (stopped.err, "set/v1” already exists\n"));
  g_assert_nonnull (strstr (stopped.err, "Add --conflict=skip, overwrite, newer or keep-both"));
  after = ferry_test_describe_tree (f->dst);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (g_file_test (ferry_test_path (copy, "v5", NULL), G_FILE_TEST_EXISTS));
}

/* ------------------------------------------------------------------ */
/* --progress=json                                                     */

/* Copies a few thousand small files with --verify, growing the set until
 * one copy lasts over a second, so the rate limit is really exercised.
 * They sit below a folder whose name is not UTF-8 and has a newline. */
static void
test_json_progress (Fixture *f, gconstpointer data)
{
  g_autofree char *odd = g_build_filename (f->src, "odd\xff\nname", NULL);
  double longest = 0;
  guint n_files = 0;
  gboolean odd_name_seen = FALSE;

  for (guint attempt = 0; attempt < 3 && longest <= 1.0; attempt++)
    {
      g_autofree char *label = g_strdup_printf ("attempt-%u", attempt);
      g_autofree char *dest = g_build_filename (f->dst, label, NULL);
      g_autofree char *copy = g_build_filename (dest, "odd\xff\nname", NULL);
      g_autoptr (GArray) lines = NULL;
      g_auto (CopyResult) r = { 0 };
      guint more = attempt == 0 ? 6000 : n_files;
      ProgressLine *last;

      add_small_files (odd, n_files, more);
      n_files += more;
      ferry_test_make_dirs (dest);

      run_copy (&r, ARGS ("--progress=json", "--verify", odd, dest));
      assert_status (&r, EXIT_SUCCESS);
      lines = parse_progress_output (r.out);
      assert_progress_stream_sane (lines);
      last = &g_array_index (lines, ProgressLine, lines->len - 1);
      g_assert_cmpint (last->files_total, ==, n_files + n_files / 500 + (n_files % 500 != 0) + 1);
      g_assert_cmpint (last->bytes_total, ==, (gint64) n_files * 1024);
      longest = MAX (longest, last->time);
      g_test_message ("%u files: %u lines in %.3f s", n_files, lines->len, last->time);

      for (guint i = 0; i < lines->len; i++)
        {
          const char *current = g_array_index (lines, ProgressLine, i).current;
          if (current != NULL && strstr (current, "odd") != NULL
              && strstr (current, "name") != NULL)
            odd_name_seen = TRUE;
        }
      ferry_test_assert_trees_equal (odd, copy, FERRY_TEST_COMPARE_ALL);
      ferry_test_remove_tree (dest);
    }
  g_assert_cmpfloat (longest, >, 1.0);
  /* The odd name did reach the stream, and the lines still parsed. */
  g_assert_true (odd_name_seen);
}

/* ------------------------------------------------------------------ */
/* Failures                                                            */

/* Files only root could read: each one is named with its reason, the
 * rest is copied. */
static void
test_unreadable_files (Fixture *f, gconstpointer data)
{
  const char *locked[] = { "locked-one", "locked-two" };
  const char *readable[] = { "readable-one", "readable-two" };
  SpawnOptions options = { .as_nobody = TRUE, .umask = -1 };
  g_auto (CopyResult) r = { 0 };

  if (!ferry_test_is_root ())
    {
      g_test_skip ("running ferry-copy as another user needs root (CI runs as root)");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (locked); i++)
    {
      g_autofree char *path = g_build_filename (f->src, locked[i], NULL);
      ferry_test_write_text (path, "secret\n");
      g_assert_cmpint (chmod (path, 0000), ==, 0);
    }
  for (guint i = 0; i < G_N_ELEMENTS (readable); i++)
    {
      g_autofree char *path = g_build_filename (f->src, readable[i], NULL);
      ferry_test_write_text (path, readable[i]);
    }
  g_assert_cmpint (chmod (f->dst, 0777), ==, 0);

  run_copy_full (&r, &options, ARGS ("--progress=none", f->src, f->dst));
  assert_status (&r, EXIT_FAILED);
  for (guint i = 0; i < G_N_ELEMENTS (locked); i++)
    {
      g_autofree char *line = find_line (r.err, locked[i]);
      g_autofree char *copy = g_build_filename (f->dst, "src", locked[i], NULL);

      if (line == NULL)
        g_error ("stderr does not name %s:\n%s", locked[i], r.err);
      g_assert_nonnull (strstr (line, g_strerror (EACCES)));
      g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
    }
  for (guint i = 0; i < G_N_ELEMENTS (readable); i++)
    {
      g_autofree char *copy = g_build_filename (f->dst, "src", readable[i], NULL);
      g_assert_null (strstr (r.err, readable[i]));
      assert_text (copy, readable[i]);
    }
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

static mode_t
mode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

/* A user who copies another's setuid or setgid program owns the copy:
 * the bits go, as cp -a drops them, or anyone could run it as the one
 * who copied it. A folder with a default ACL for someone else gives it
 * to what is made in it: the copy of a file only its owner may read
 * gets no ACL the source does not have. Both were kept before. */
static void
test_copied_as_user (Fixture *f, gconstpointer data)
{
  SpawnOptions options = { .as_nobody = TRUE, .umask = -1 };
  g_autofree char *tool = g_build_filename (f->src, "tool", NULL);
  g_autofree char *group_tool = g_build_filename (f->src, "group-tool", NULL);
  g_autofree char *secret = g_build_filename (f->src, "secret.txt", NULL);
  g_auto (CopyResult) r = { 0 };

  if (!ferry_test_is_root ())
    {
      g_test_skip ("running ferry-copy as another user needs root (CI runs as root)");
      return;
    }
  ferry_test_write_text (tool, "#!/bin/sh\n");
  ferry_test_write_text (group_tool, "#!/bin/sh\n");
  ferry_test_write_text (secret, "only mine\n");
  g_assert_cmpint (chmod (tool, 04755), ==, 0);
  g_assert_cmpint (chmod (group_tool, 02755), ==, 0);
  g_assert_cmpint (chmod (secret, 0644), ==, 0); /* readable by nobody, who copies it */
  g_assert_cmpint (chmod (f->src, 0755), ==, 0);
  g_assert_cmpint (chown (f->dst, NOBODY, NOBODY), ==, 0);
  if (setxattr (f->dst, "system.posix_acl_default", "\x02\0\0\0\x01\0\x07\0\xff\xff\xff\xff"
                "\x02\0\x07\0\0\0\0\0\x04\0\x07\0\xff\xff\xff\xff"
                "\x10\0\x07\0\xff\xff\xff\xff\x20\0\0\0\xff\xff\xff\xff",
                44, 0) != 0)
    {
      g_test_skip ("the test's filesystem takes no ACLs");
      return;
    }

  run_copy_full (&r, &options, ARGS ("--progress=none", f->src, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_cmpint (mode_of (ferry_test_path (f->dst, "src", "tool", NULL)), ==, 0755);
  g_assert_cmpint (mode_of (ferry_test_path (f->dst, "src", "group-tool", NULL)), ==, 0755);
  g_assert_cmpint (mode_of (ferry_test_path (f->dst, "src", "secret.txt", NULL)), ==, 0644);
  g_assert_cmpint (getxattr (ferry_test_path (f->dst, "src", "secret.txt", NULL),
                             "system.posix_acl_access", NULL, 0),
                   ==, -1);
  g_assert_cmpint (errno, ==, ENODATA);
  g_assert_cmpint (getxattr (ferry_test_path (f->dst, "src", NULL), "system.posix_acl_default",
                             NULL, 0),
                   ==, -1);
}

/* Without a terminal nobody can be asked: the first conflict fails the
 * copy, named on stderr, and the existing file stays as it was. */
static void
test_conflict_without_terminal (Fixture *f, gconstpointer data)
{
  g_autofree char *file = g_build_filename (f->src, "taken.txt", NULL);
  g_autofree char *existing = g_build_filename (f->dst, "taken.txt", NULL);
  g_autofree char *line = NULL;
  g_auto (CopyResult) r = { 0 };

  ferry_test_write_text (file, "incoming\n");
  ferry_test_write_text (existing, "existing\n");

  run_copy (&r, ARGS (file, f->dst));
  assert_status (&r, EXIT_FAILED);
  line = find_line (r.err, existing);
  if (line == NULL)
    g_error ("stderr does not name %s:\n%s", existing, r.err);
  g_assert_nonnull (strstr (line, "exists"));
  assert_text (existing, "existing\n");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 1);
}

/* Two workers meet two existing files at once: each is listed, and the
 * one that stopped the job is not listed a second time at the end
 * (before, one run in two printed it twice); then how to choose. */
static void
test_conflicts_listed_once (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "many", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "many", NULL);

  ferry_test_make_dirs (tree);
  ferry_test_make_dirs (copy);
  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);
      g_autofree char *file = g_build_filename (tree, name, NULL);
      g_autofree char *existing = g_build_filename (copy, name, NULL);

      ferry_test_write_text (file, "incoming\n");
      ferry_test_write_text (existing, "existing\n");
    }

  for (guint round = 0; round < 10; round++)
    {
      g_auto (CopyResult) r = { 0 };
      g_auto (GStrv) lines = NULL;
      g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      guint n;

      run_copy (&r, ARGS ("--progress=none", "-j", "2", tree, f->dst));
      assert_status (&r, EXIT_FAILED);
      lines = g_strsplit (r.err, "\n", -1);
      n = g_strv_length (lines);

      /* The last line says how to choose what to do with files there. */
      g_assert_cmpuint (n, >=, 3);
      g_assert_true (g_str_has_prefix (lines[n - 2], "Add --conflict=skip"));
      for (guint i = 0; i < n - 2; i++)
        {
          g_assert_nonnull (strstr (lines[i], "already exists"));
          if (!g_hash_table_add (seen, lines[i]))
            g_error ("listed twice: %s\n%s", lines[i], r.err);
        }
      g_assert_cmpuint (g_hash_table_size (seen), >=, 1);
    }
  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);
      g_autofree char *existing = g_build_filename (copy, name, NULL);

      assert_text (existing, "existing\n");
    }
}

/* ------------------------------------------------------------------ */
/* Conflict policies                                                   */

/* a.txt: the source is newer; b.txt: the source is older; c.txt: new.
 * Returns the three sources. */
static GStrv
make_conflicts (Fixture *f)
{
  const char *names[] = { "a.txt", "b.txt", "c.txt" };
  const gint64 t = 1000000000;
  GStrv sources = g_new0 (char *, G_N_ELEMENTS (names) + 1);
  g_autofree char *existing_a = g_build_filename (f->dst, "a.txt", NULL);
  g_autofree char *existing_b = g_build_filename (f->dst, "b.txt", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    sources[i] = g_build_filename (f->src, names[i], NULL);
  write_text_at_time (sources[0], "incoming a\n", t + 1000);
  write_text_at_time (sources[1], "incoming b\n", t);
  write_text_at_time (sources[2], "incoming c\n", t);
  write_text_at_time (existing_a, "existing a\n", t);
  write_text_at_time (existing_b, "existing b\n", t + 1000);
  return sources;
}

static void
assert_dst_file (Fixture *f, const char *name, const char *expected)
{
  g_autofree char *path = g_build_filename (f->dst, name, NULL);

  assert_text (path, expected);
}

static void
assert_kept_both (Fixture *f)
{
  assert_dst_file (f, "a.txt", "existing a\n");
  assert_dst_file (f, "a (2).txt", "incoming a\n");
  assert_dst_file (f, "b.txt", "existing b\n");
  assert_dst_file (f, "b (2).txt", "incoming b\n");
  assert_dst_file (f, "c.txt", "incoming c\n");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 5);
}

static void
test_conflict_policy (Fixture *f, gconstpointer data)
{
  const char *policy = data;
  g_auto (GStrv) sources = make_conflicts (f);
  g_autofree char *option = g_strdup_printf ("--conflict=%s", policy);
  g_auto (CopyResult) r = { 0 };

  run_copy (&r, ARGS (option, "--progress=none", sources[0], sources[1], sources[2], f->dst));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  assert_dst_file (f, "c.txt", "incoming c\n");

  if (g_str_equal (policy, "keep-both"))
    {
      assert_kept_both (f);
      return;
    }
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 3);
  if (g_str_equal (policy, "skip"))
    {
      assert_dst_file (f, "a.txt", "existing a\n");
      assert_dst_file (f, "b.txt", "existing b\n");
    }
  else if (g_str_equal (policy, "overwrite"))
    {
      assert_dst_file (f, "a.txt", "incoming a\n");
      assert_dst_file (f, "b.txt", "incoming b\n");
    }
  else if (g_str_equal (policy, "newer"))
    {
      assert_dst_file (f, "a.txt", "incoming a\n");
      assert_dst_file (f, "b.txt", "existing b\n");
    }
  else
    g_assert_not_reached ();
}

/* Runs ferry-copy with a pseudo-terminal as its standard input, output
 * and error, answers @answer to the first question, and returns all it
 * wrote there. */
static char *
run_copy_on_terminal (const char *const *args, const char *answer, int *status)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  GString *screen = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  gboolean answered = FALSE;
  int master, slave;

  g_assert_cmpint (openpty (&master, &slave, NULL, NULL, NULL), ==, 0);
  g_subprocess_launcher_take_stdin_fd (launcher, dup (slave));
  g_subprocess_launcher_take_stdout_fd (launcher, dup (slave));
  g_subprocess_launcher_take_stderr_fd (launcher, slave);
  process = spawn_copy_with (launcher, NULL, args);
  /* Only the child may hold the terminal now, so reading it ends (EIO)
   * when the child exits. */
  g_clear_object (&launcher);

  for (;;)
    {
      struct pollfd pfd = { .fd = master, .events = POLLIN };
      char buf[4096];
      gssize n;

      if (g_get_monotonic_time () > deadline)
        {
          g_subprocess_force_exit (process);
          g_error ("ferry-copy did not finish on the terminal; it showed:\n%s", screen->str);
        }
      if (poll (&pfd, 1, 100) <= 0)
        continue;
      n = read (master, buf, sizeof buf);
      if (n <= 0)
        break;
      g_string_append_len (screen, buf, n);
      if (!answered && strstr (screen->str, "apply to all") != NULL)
        {
          g_assert_cmpint (write (master, answer, strlen (answer)), ==, (gssize) strlen (answer));
          answered = TRUE;
        }
    }
  close (master);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  *status = exit_status_of (process);
  return g_string_free (screen, FALSE);
}

/* "k!" keeps both for this conflict and every later one: one question. */
static void
test_conflict_ask (Fixture *f, gconstpointer data)
{
  gboolean explicit = GPOINTER_TO_INT (data);
  g_auto (GStrv) sources = make_conflicts (f);
  g_autofree char *screen = NULL;
  int status;

  if (explicit)
    screen = run_copy_on_terminal (
        ARGS ("--conflict=ask", "--progress=none", sources[0], sources[1], sources[2], f->dst),
        "k!\n", &status);
  else
    /* On a terminal asking is the default, with the progress bar. */
    screen
        = run_copy_on_terminal (ARGS (sources[0], sources[1], sources[2], f->dst), "k!\n", &status);
  if (status != EXIT_SUCCESS)
    g_error ("ferry-copy exited with %d; the terminal showed:\n%s", status, screen);
  g_assert_cmpuint (count_occurrences (screen, "apply to all"), ==, 1);
  assert_kept_both (f);
}

/* ------------------------------------------------------------------ */
/* Interruptions                                                       */

static GSubprocess *
start_json_copy (const char *const *args, GDataInputStream **stream)
{
  GSubprocess *process = spawn_copy (NULL, args);

  *stream = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  wait_for_bytes_written (*stream);
  return process;
}

/* With --progress=json, a dry run's standard output is JSON only. */
static void
test_dry_run_json (Fixture *f, gconstpointer data)
{
  g_autofree char *tree = g_build_filename (f->src, "tree", NULL);
  g_auto (CopyResult) r = { 0 };
  g_auto (GStrv) lines = NULL;

  ferry_test_make_dirs (tree);
  ferry_test_write_random (ferry_test_path (tree, "a", NULL), 1000, 1);
  run_copy (&r, ARGS ("--dry-run", "--progress=json", tree, f->dst));
  assert_status (&r, EXIT_SUCCESS);
  lines = g_strsplit (r.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      {
        g_auto (ProgressLine) line = { 0 };
        progress_line_parse (&line, lines[i]);
      }
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

/* `ferry-copy --progress=json … | head -n 1`: the reader goes away after
 * one line; the copy still ends whole, with the copy's own exit status. */
static void
test_json_reader_gone (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autoptr (GDataInputStream) stream = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;

  ferry_test_write_random (big, BIG_FILE_SIZE, 8);
  process = start_json_copy (ARGS ("--progress=json", "--verify", big, f->dst), &stream);
  g_input_stream_close (G_INPUT_STREAM (stream), NULL, NULL);
  g_input_stream_close (g_subprocess_get_stdout_pipe (process), NULL, NULL);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (exit_status_of (process), ==, EXIT_SUCCESS);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  assert_copies_complete (f->src, f->dst);
}

/* Started with SIGHUP ignored (nohup), ferry-copy outlives its
 * terminal: the copy goes on to its end. */
static void
test_hangup_ignored (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autoptr (GDataInputStream) stream = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *rest = NULL;
  const SpawnOptions nohup = { .umask = -1, .nohup = TRUE };

  ferry_test_write_random (big, BIG_FILE_SIZE, 9);
  process = spawn_copy (&nohup, ARGS ("--progress=json", "--verify", big, f->dst));
  stream = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  wait_for_bytes_written (stream);
  g_subprocess_send_signal (process, SIGHUP);
  rest = read_rest (G_INPUT_STREAM (stream));
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (exit_status_of (process), ==, EXIT_SUCCESS);
  assert_copies_complete (f->src, f->dst);
  g_assert_true (g_file_test (ferry_test_path (f->dst, "big.bin", NULL), G_FILE_TEST_EXISTS));
}

/* The journals of transfers cut short, in $XDG_STATE_HOME/ferry. */
static guint
count_journals (void)
{
  g_autofree char *dir_path = g_build_filename (g_get_user_state_dir (), "ferry", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    n += g_str_has_suffix (name, ".journal");
  return n;
}

/* Ctrl+C (and SIGTERM, and SIGHUP from a closed terminal): exit 130, no
 * temporary file left, and the file is either absent or whole under its
 * final name. */
static void
test_interrupted (Fixture *f, gconstpointer data)
{
  int signal_number = GPOINTER_TO_INT (data);
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autoptr (GDataInputStream) stream = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *rest = NULL;
  g_autofree char *err = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (ProgressLine) last = { 0 };
  guint n;

  ferry_test_write_random (big, BIG_FILE_SIZE, 7);
  /* Verifying reads the whole copy back after syncing it, which keeps
   * the file in flight long after its data was handed to the kernel: the
   * signal lands mid-file however fast the disk is. */
  process = start_json_copy (ARGS ("--progress=json", "--verify", big, f->dst), &stream);
  g_subprocess_send_signal (process, signal_number);
  rest = read_rest (G_INPUT_STREAM (stream));
  err = read_rest (g_subprocess_get_stderr_pipe (process));
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);

  if (exit_status_of (process) != EXIT_INTERRUPTED)
    g_error ("ferry-copy exited with %d after %s, expected 130\n%s", exit_status_of (process),
             g_strsignal (signal_number), err);
  /* The stream still ends with a valid final line, and not "done". */
  lines = g_strsplit (rest, "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 2);
  progress_line_parse (&last, lines[n - 2]);
  g_assert_cmpstr (last.phase, !=, "done");

  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  assert_copies_complete (f->src, f->dst);
  /* The same command goes on only where a journal was kept (a drive
   * Ferry measures; none on a disk fast by its class), and only then is
   * it offered. */
  g_assert_cmpint (strstr (err, "Run the same command again") != NULL, ==, count_journals () > 0);
}

static void
test_sigkill (Fixture *f, gconstpointer data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "src", NULL);
  g_autoptr (GDataInputStream) stream = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) error = NULL;

  ferry_test_write_random (big, BIG_FILE_SIZE, 8);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("small-%u", i);
      g_autofree char *path = g_build_filename (f->src, name, NULL);
      ferry_test_write_random (path, 10000 + i, i);
    }

  process
      = start_json_copy (ARGS ("--progress=json", "--verify", "-j", "2", f->src, f->dst), &stream);
  g_subprocess_force_exit (process);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGKILL);

  /* The folder "src" was new to the destination: it is built under a
   * hidden name and renamed into place once complete, so a kill leaves
   * either that hidden folder (nothing else of Ferry's) or the copy. */
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, ferry_test_count_hidden_folders (f->dst));
  g_assert_cmpuint (ferry_test_count_hidden_folders (f->dst), <=, 1);
  assert_copies_complete (f->src, copy);
  g_test_message ("killed leaving %u entries, %u of them hidden folders",
                  ferry_test_count_entries (f->dst), ferry_test_count_hidden_folders (f->dst));
}

/* ------------------------------------------------------------------ */
/* Paths as typed                                                      */

/* In the source folder: base/lnk is a symlink to a folder elsewhere, and
 * a file named "file" stands both beside the link and beside its target:
 *   base/file       "beside the link\n"
 *   base/lnk     -> ../elsewhere/target
 *   elsewhere/file  "beside the target\n"
 *   elsewhere/target/inner "inner\n"
 *   elsewhere/into/ an empty folder */
static void
make_link_tree (Fixture *f)
{
  ferry_test_make_dirs (ferry_test_path (f->src, "base", NULL));
  ferry_test_make_dirs (ferry_test_path (f->src, "elsewhere", "target", NULL));
  ferry_test_make_dirs (ferry_test_path (f->src, "elsewhere", "into", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "base", "file", NULL), "beside the link\n");
  ferry_test_write_text (ferry_test_path (f->src, "elsewhere", "file", NULL),
                         "beside the target\n");
  ferry_test_write_text (ferry_test_path (f->src, "elsewhere", "target", "inner", NULL),
                         "inner\n");
  g_assert_cmpint (symlink ("../elsewhere/target", ferry_test_path (f->src, "base", "lnk", NULL)),
                   ==, 0);
}

/* Makes that tree and copies @source to @dest, both typed as a person in
 * the source folder would; the copy must succeed. */
static void
copy_in_link_tree (Fixture *f, const char *source, const char *dest)
{
  const SpawnOptions in_src = { .cwd = f->src, .umask = -1 };
  g_auto (CopyResult) r = { 0 };

  make_link_tree (f);
  run_copy_full (&r, &in_src, ARGS ("--progress=none", source, dest));
  assert_status (&r, EXIT_SUCCESS);
}

/* The kernel reads "base/lnk/../file" as the file beside the link's
 * target, as cp does; collapsed as text it was base/file. */
static void
test_dotdot_after_link_source (Fixture *f, gconstpointer data)
{
  copy_in_link_tree (f, "base/lnk/../file", f->dst);
  assert_text (ferry_test_path (f->dst, "file", NULL), "beside the target\n");
}

/* The same for the destination: "base/lnk/../into/" is elsewhere/into;
 * as text it was base/into, which did not exist, so the file was
 * written there under that name. */
static void
test_dotdot_after_link_destination (Fixture *f, gconstpointer data)
{
  copy_in_link_tree (f, "base/file", "base/lnk/../into/");
  assert_text (ferry_test_path (f->src, "elsewhere", "into", "file", NULL), "beside the link\n");
  g_assert_false (g_file_test (ferry_test_path (f->src, "base", "into", NULL), G_FILE_TEST_EXISTS));
}

/* "lnk/" names the folder lnk leads to, copied under the link's name
 * (cp -r: DEST/lnk, a folder); it was copied as the link itself, then
 * under the target's name. */
static void
test_link_with_slash (Fixture *f, gconstpointer data)
{
  struct stat st;

  copy_in_link_tree (f, "base/lnk/", f->dst);
  g_assert_cmpint (lstat (ferry_test_path (f->dst, "lnk", NULL), &st), ==, 0);
  g_assert_true (S_ISDIR (st.st_mode));
  assert_text (ferry_test_path (f->dst, "lnk", "inner", NULL), "inner\n");
}

/* "lnk/." is the entries of the folder lnk leads to, into DEST itself
 * (cp -r: DEST/inner); it was copied as the link itself. */
static void
test_link_with_slash_dot (Fixture *f, gconstpointer data)
{
  copy_in_link_tree (f, "base/lnk/.", f->dst);
  assert_text (ferry_test_path (f->dst, "inner", NULL), "inner\n");
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 1);
}

/* "file/" names a folder that is not there, as with cp: the copy fails
 * as for a missing source (exit 1, not the usage status) and writes
 * nothing. As the destination, it is not a folder either (it said
 * "Could not read “…/file/”: Not a directory"). */
static void
test_file_with_slash (Fixture *f, gconstpointer data)
{
  const SpawnOptions in_src = { .cwd = f->src, .umask = -1 };
  g_auto (CopyResult) r = { 0 };
  g_auto (CopyResult) onto = { 0 };
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  make_link_tree (f);
  run_copy_full (&r, &in_src, ARGS ("--progress=none", "base/file/", f->dst));
  assert_status (&r, EXIT_FAILED);
  g_assert_nonnull (strstr (r.err, "base/file/” is not a folder"));
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);

  ferry_test_write_text (ferry_test_path (f->src, "new.txt", NULL), "new\n");
  before = ferry_test_describe_tree (f->src);
  run_copy_full (&onto, &in_src, ARGS ("--progress=none", "new.txt", "base/file/"));
  assert_status (&onto, EXIT_FAILED);
  g_assert_nonnull (strstr (onto.err, "base/file/” is not a folder\n"));
  after = ferry_test_describe_tree (f->src);
  g_assert_cmpstr (after, ==, before);
}

/* "ferry-copy . DEST/" copies the current folder's entries into DEST, as
 * cp -r does, merging with what DEST holds; it made DEST/<folder name>.
 * DEST, the folder the person chose, keeps its own owner and mode: a
 * shared folder (sticky, open to all) stays shared. */
static void
test_dot_into_folder (Fixture *f, gconstpointer data)
{
  g_autofree char *project = g_build_filename (f->src, "project", NULL);
  g_autofree char *dst_slash = g_strconcat (f->dst, "/", NULL);
  const SpawnOptions in_project = { .cwd = project, .umask = -1 };
  g_auto (CopyResult) r = { 0 };
  struct stat st;

  ferry_test_make_dirs (ferry_test_path (project, "sub", NULL));
  ferry_test_write_text (ferry_test_path (project, "a.txt", NULL), "a\n");
  ferry_test_write_text (ferry_test_path (project, "sub", "b.txt", NULL), "b\n");
  ferry_test_write_text (ferry_test_path (f->dst, "there-before.txt", NULL), "kept\n");
  g_assert_no_errno (chmod (f->dst, 01777));

  run_copy_full (&r, &in_project, ARGS ("--progress=none", ".", dst_slash));
  assert_status (&r, EXIT_SUCCESS);
  g_assert_no_errno (stat (f->dst, &st));
  g_assert_cmpint (st.st_mode & 07777, ==, 01777);
  assert_text (ferry_test_path (f->dst, "a.txt", NULL), "a\n");
  assert_text (ferry_test_path (f->dst, "sub", "b.txt", NULL), "b\n");
  assert_text (ferry_test_path (f->dst, "there-before.txt", NULL), "kept\n");
  g_assert_false (g_file_test (ferry_test_path (f->dst, "project", NULL), G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */

static void
make_empty_files (const char *root, guint n_folders, guint per_folder)
{
  for (guint d = 0; d < n_folders; d++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/folder-%03u", root, d);
      int dir_fd;

      ferry_test_make_dirs (folder);
      dir_fd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      g_assert_cmpint (dir_fd, >=, 0);
      for (guint i = 0; i < per_folder; i++)
        {
          char name[32];
          int fd;

          g_snprintf (name, sizeof name, "empty-%05u", i);
          fd = openat (dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
          g_assert_cmpint (fd, >=, 0);
          close (fd);
        }
      close (dir_fd);
    }
}

/* Runs ferry-copy without letting GLib reap it, so wait4() can report
 * its peak resident size. Returns the exit status; *maxrss_kib is set. */
static int
run_copy_measured (const char *const *args, glong *maxrss_kib, char **err)
{
  g_autoptr (GPtrArray) argv = build_argv (args);
  g_autoptr (GError) error = NULL;
  GString *text = g_string_new (NULL);
  struct rusage usage = { 0 };
  int err_fd, wstatus;
  GPid pid;
  char buf[4096];
  gssize n;

  g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                            &pid, NULL, NULL, &err_fd, &error);
  g_assert_no_error (error);
  while ((n = read (err_fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      g_string_append_len (text, buf, n);
  close (err_fd);
  g_assert_cmpint (wait4 (pid, &wstatus, 0, &usage), ==, pid);
  g_spawn_close_pid (pid);

  *maxrss_kib = usage.ru_maxrss;
  *err = g_string_free (text, FALSE);
  return WIFEXITED (wstatus) ? WEXITSTATUS (wstatus) : -1;
}

/* 100,000 files must not cost memory per file: the peak stays small. */
static void
test_memory (Fixture *f, gconstpointer data)
{
  g_autofree char *many = g_build_filename (f->src, "many", NULL);
  g_autofree char *copy = g_build_filename (f->dst, "many", NULL);
  g_autofree char *err = NULL;
  glong maxrss_kib;
  int status;

#ifdef __SANITIZE_ADDRESS__
  g_test_skip ("peak RSS means nothing under AddressSanitizer; the plain build measures it");
  return;
#endif
  make_empty_files (many, 100, 1000);
  status = run_copy_measured (ARGS ("--progress=none", many, f->dst), &maxrss_kib, &err);
  if (status != EXIT_SUCCESS)
    g_error ("ferry-copy exited with %d\n%s", status, err);
  g_assert_cmpuint (ferry_test_count_entries (copy), ==, 100 * 1000 + 100);
  g_assert_cmpuint (ferry_test_count_temp_files (f->dst), ==, 0);
  g_test_message ("ferry-copy peak RSS for 100,000 files: %ld KiB", maxrss_kib);
  g_assert_cmpint (maxrss_kib, <, MAX_RSS_KIB);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data)                                                                      \
  g_test_add (path, Fixture, data, ferry_test_fixture_set_up, func, ferry_test_fixture_tear_down)
  ADD ("/cli/usage", test_usage, NULL);
  ADD ("/cli/plain-copy", test_plain_copy, NULL);
  ADD ("/cli/many-sources", test_many_sources, NULL);
  ADD ("/cli/sources-from-many-folders", test_sources_from_many_folders, NULL);
  ADD ("/cli/summary", test_summary, NULL);
  g_test_add_func ("/cli/counts-grouped", test_counts_grouped);
  ADD ("/cli/verify", test_verify, NULL);
  ADD ("/cli/no-preserve", test_no_preserve, NULL);
  ADD ("/cli/leading-dash", test_leading_dash, NULL);
  ADD ("/cli/cp-habits", test_cp_habits, NULL);
  ADD ("/cli/help", test_help, NULL);
  g_test_add_func ("/cli/app-help", test_app_help);
  ADD ("/cli/dry-run", test_dry_run, NULL);
  ADD ("/cli/dry-run/files-already-there", test_dry_run_files_there, NULL);
  ADD ("/cli/dry-run-json", test_dry_run_json, NULL);
  ADD ("/cli/json-reader-gone", test_json_reader_gone, NULL);
  ADD ("/cli/json-progress", test_json_progress, NULL);
  ADD ("/cli/failures/unreadable", test_unreadable_files, NULL);
  ADD ("/cli/copied-as-user", test_copied_as_user, NULL);
  ADD ("/cli/failures/conflict-without-terminal", test_conflict_without_terminal, NULL);
  ADD ("/cli/failures/conflicts-listed-once", test_conflicts_listed_once, NULL);
  ADD ("/cli/conflict/skip", test_conflict_policy, "skip");
  ADD ("/cli/conflict/overwrite", test_conflict_policy, "overwrite");
  ADD ("/cli/conflict/newer", test_conflict_policy, "newer");
  ADD ("/cli/conflict/keep-both", test_conflict_policy, "keep-both");
  ADD ("/cli/conflict/ask", test_conflict_ask, GINT_TO_POINTER (TRUE));
  ADD ("/cli/conflict/ask-by-default-on-terminal", test_conflict_ask, GINT_TO_POINTER (FALSE));
  ADD ("/cli/interrupt/sigint", test_interrupted, GINT_TO_POINTER (SIGINT));
  ADD ("/cli/interrupt/sigterm", test_interrupted, GINT_TO_POINTER (SIGTERM));
  ADD ("/cli/interrupt/sighup", test_interrupted, GINT_TO_POINTER (SIGHUP));
  ADD ("/cli/interrupt/sighup-ignored", test_hangup_ignored, NULL);
  ADD ("/cli/interrupt/sigkill", test_sigkill, NULL);
  ADD ("/cli/memory", test_memory, NULL);
  ADD ("/cli/paths/dotdot-after-link-source", test_dotdot_after_link_source, NULL);
  ADD ("/cli/paths/dotdot-after-link-destination", test_dotdot_after_link_destination, NULL);
  ADD ("/cli/paths/link-with-slash", test_link_with_slash, NULL);
  ADD ("/cli/paths/link-with-slash-dot", test_link_with_slash_dot, NULL);
  ADD ("/cli/paths/dot-into-folder", test_dot_into_folder, NULL);
  ADD ("/cli/paths/file-with-slash", test_file_with_slash, NULL);
#undef ADD

  return g_test_run ();
}
