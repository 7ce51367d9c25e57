/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

typedef enum
{
  FERRY_TEST_COMPARE_CONTENT = 1 << 0,
  FERRY_TEST_COMPARE_MODE = 1 << 1,
  FERRY_TEST_COMPARE_OWNER = 1 << 2,
  FERRY_TEST_COMPARE_TIMES = 1 << 3,
  FERRY_TEST_COMPARE_XATTRS = 1 << 4,
  FERRY_TEST_COMPARE_LINKS = 1 << 5,  /* hard-link groups */
  FERRY_TEST_COMPARE_SPARSE = 1 << 6, /* sparse sources stay sparse */
  FERRY_TEST_COMPARE_ALL = 0x7f,
} FerryTestCompare;

/* A scratch folder with empty src/ and dst/ folders in it. */
typedef struct
{
  char *scratch;
  char *src;
  char *dst;
} FerryTestFixture;

void ferry_test_fixture_set_up (FerryTestFixture *f, gconstpointer data);
void ferry_test_fixture_tear_down (FerryTestFixture *f, gconstpointer data);

gboolean ferry_test_is_root (void);
char *ferry_test_scratch_new (const char *label);
const char *ferry_test_path (const char *first_element, ...) G_GNUC_NULL_TERMINATED;
void ferry_test_remove_tree (const char *path);

void ferry_test_write_random (const char *path, gsize size, guint32 seed);
void ferry_test_write_text (const char *path, const char *text);
char *ferry_test_fill_leaving (const char *dir, guint64 keep);
void ferry_test_make_dirs (const char *path);
void ferry_test_set_times (const char *path, gint64 sec, long nsec);
void ferry_test_make_sparse (const char *path, goffset size, goffset data_at, gsize data_len);
char *ferry_test_make_everything_tree (const char *parent);

FerryJob *ferry_test_job_new (const char *const *sources, const char *destination);

/* A job started by ferry_test_job_start(): whether it has ended, and how. */
typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
} FerryTestJobRun;

void ferry_test_job_run_clear (FerryTestJobRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryTestJobRun, ferry_test_job_run_clear)

void ferry_test_job_start (FerryJob *job, FerryTestJobRun *run);
void ferry_test_job_wait (FerryTestJobRun *run, guint timeout_ms);
void ferry_test_wait_for_phase (FerryJob *job, FerryPhase phase);
gboolean ferry_test_run_job (FerryJob *job, GError **error);
void ferry_test_wait_for_bytes (FerryJob *job, guint64 at_least);

void ferry_test_assert_trees_equal (const char *source, const char *copy, FerryTestCompare what);
void ferry_test_assert_files_equal (const char *a, const char *b);
guint ferry_test_count_temp_files (const char *dir);
GPtrArray *ferry_test_list_sorted (const char *path);
guint ferry_test_count_hidden_folders (const char *dir);
char **ferry_test_copy_argv (const char *const *prefix, const char *const *args);
GSubprocess *ferry_test_spawn_copy (const char *const *prefix, const char *const *args);
char *ferry_test_strace_path (void);
gboolean ferry_test_skip_without_strace (void);
guint ferry_test_count_traced_calls (const char *traced, const char *call, const char *const *args);
char *ferry_test_no_leak_check_env (void);
guint ferry_test_count_entries (const char *dir);
ino_t ferry_test_inode_of (const char *path);
guint ferry_test_count_open_below (const char *path);
char *ferry_test_describe_failures (FerryJob *job);
char *ferry_test_describe_tree (const char *path);
void ferry_test_spin (guint ms);

G_END_DECLS
