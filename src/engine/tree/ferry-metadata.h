/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "ferry-fs-rules.h"


G_BEGIN_DECLS

/* Where metadata is read from and written to: an open file, or a name
 * inside an open folder for files that cannot be opened (symlinks, FIFOs,
 * device nodes).
 *
 * The rule for the destination: every call acts on the entry Ferry made,
 * never on a name. Someone who can write to the folder can swap a new
 * entry for a symlink between two calls, and a by-name call that follows
 * it would change the link's target (as root, any file on the system);
 * even a call that does not follow it changes whatever they put there
 * (as root, a file of their choosing). So destination entries are
 * reached through a descriptor only (a file, a folder, or an O_PATH
 * descriptor of a symlink, FIFO, socket or device node, @pinned); a name
 * inside a folder is for reading the source. */
typedef struct
{
  int fd;     /* an open file, or -1 */
  int dir_fd; /* with @name when fd is -1: a source only */
  const char *name;
  /* Made by this process in a folder that does not shape new entries:
   * owned by our uid and gid, with the mode it was created with. */
  gboolean made_plain;
  mode_t made_mode;
  /* @fd is an O_PATH descriptor of the entry itself: calls reach it with
   * AT_EMPTY_PATH or as /proc/self/fd/N, which leads to that inode and
   * nowhere else (for a symlink, to the link, not to what it points to). */
  gboolean pinned;
} FerryMetaTarget;

/* Source filesystems known to keep no extended attributes, learnt once
 * per filesystem as the copy goes (a copy reads one or two). */
#define FERRY_META_XATTRLESS_MAX 4

/* Whether metadata is kept, and who is keeping it. */
typedef struct
{
  gboolean preserve;
  gboolean is_root;
  uid_t euid;
  gid_t egid;
  mode_t umask;
  /* st_dev + 1 of each (0: a free slot); written by the first worker that
   * learns it, read by all without a lock. */
  atomic_uint_fast64_t xattrless_devs[FERRY_META_XATTRLESS_MAX];
  /* The destination's rules: times it cannot store are set to the
   * nearest it can (ferry_fs_rules_clamp_time()). */
  const FerryFsRules *rules;
} FerryMetaPolicy;

void ferry_meta_policy_init (FerryMetaPolicy *policy, gboolean preserve, const FerryFsRules *rules);

gboolean ferry_metadata_apply_times (const FerryMetaPolicy *policy,
                                     FerryMetaTarget dst,
                                     const struct stat *st,
                                     int *errsv);
gboolean ferry_metadata_apply (const FerryMetaPolicy *policy,
                               FerryMetaTarget src,
                               FerryMetaTarget dst,
                               const struct stat *st,
                               int *errsv);

gboolean ferry_metadata_apply_owner (const FerryMetaPolicy *policy,
                                     FerryMetaTarget dst,
                                     const struct stat *st,
                                     int *errsv);
gboolean ferry_metadata_owner_differs (const FerryMetaPolicy *policy, const struct stat *st);
mode_t ferry_metadata_first_folder_mode (const FerryMetaPolicy *policy,
                                         const struct stat *st,
                                         gboolean group_final);

G_END_DECLS
