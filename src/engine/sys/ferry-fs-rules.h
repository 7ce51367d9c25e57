/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The rules a destination filesystem imposes on what it stores: which
 * names it accepts and how it compares them, how big a file may be, how
 * much room a file takes, how precisely it keeps times, and which kinds of
 * entries and metadata survive on it. Sticks are mostly FAT, exFAT or
 * NTFS, made for Windows, so their names follow Windows' rules too.
 */
#pragma once

#include <glib.h>
#include <time.h>

G_BEGIN_DECLS

typedef enum {
  FERRY_FS_KIND_OTHER,  /* anything without these rules: ext4, xfs, btrfs, tmpfs, ... */
  FERRY_FS_KIND_FAT,    /* FAT12/16/32 (vfat, msdos, or a FUSE mount of a vfat block device) */
  FERRY_FS_KIND_EXFAT,
  FERRY_FS_KIND_NTFS,   /* ntfs3, ntfs-3g (fuseblk), ntfs */
} FerryFsKind;

typedef enum {
  FERRY_NAME_OK,
  FERRY_NAME_FORBIDDEN_CHARACTERS, /* " * / : < > ? \ | or control characters 0x01-0x1f */
  FERRY_NAME_TRAILING_DOT_OR_SPACE,
  FERRY_NAME_RESERVED,             /* CON PRN AUX NUL COM1-9 LPT1-9, with or without extension, any case */
  FERRY_NAME_TOO_LONG,             /* more than 255 UTF-16 code units, or than max_name_bytes */
  FERRY_NAME_NOT_UTF8,
} FerryNameProblem;

typedef struct {
  FerryFsKind kind;
  const char *label;          /* "FAT32", "exFAT", "NTFS" ("ext4", "XFS"... from ferry_fs_rules_for_fd()): shown to people */
  guint64 cluster_size;       /* allocation unit in bytes (st_blksize-like; 4096 when unknown) */
  guint64 max_file_size;      /* G_MAXUINT64 when the filesystem has no practical limit; FAT: 4 GiB - 1 */
  gboolean folds_case;        /* names compare case-insensitively (FAT, exFAT) */
  gboolean windows_names;     /* forbidden characters, trailing dot/space, reserved names apply (FAT, exFAT, NTFS) */
  gboolean utf16_names;       /* names must be UTF-8 and at most 255 UTF-16 units (FAT, exFAT, NTFS) */
  guint max_name_bytes;       /* OTHER: the bytes a name takes at most (statfs' f_namelen: 255); 0 where unknown */
  gboolean keeps_symlinks;
  gboolean keeps_hardlinks;
  gboolean keeps_special_files; /* FIFOs, sockets, device nodes */
  gboolean keeps_owners;      /* owners, modes beyond read-only, xattrs, ACLs */
  gint64 time_granularity_ns; /* modification time: FAT 2 s, exFAT 10 ms, NTFS 100 ns, else 1 */
  gint64 time_min_sec;        /* the first and last times it stores (FAT, exFAT: 1980 to 2107); */
  gint64 time_max_sec;        /* both 0 where any time a file has is stored */
  guint top_folder_entries;   /* FAT12 and FAT16: how many entries the top folder holds; 0 where it grows or is unknown */
  guint folder_entries;       /* FAT: how many entries any folder holds (65,536); 0 where that never binds */
} FerryFsRules;

void ferry_fs_rules_for_kind (FerryFsKind kind, guint64 cluster_size, FerryFsRules *rules);
void ferry_fs_rules_for_fd (int dir_fd, FerryFsRules *rules);   /* never fails: OTHER when unsure */
guint ferry_fs_rules_longest_name_at (int fd); /* the bytes a name may take on @fd's filesystem; 0 when unknown */
FerryNameProblem ferry_fs_rules_check_name (const FerryFsRules *rules, const char *name);
char *ferry_fs_rules_adapt_name (const FerryFsRules *rules, const char *name); /* a name the drive can store; may equal @name when it is fine */
char *ferry_fs_rules_fold_name (const FerryFsRules *rules, const char *name);  /* key to compare names the drive's way; a plain copy when !folds_case */
guint64 ferry_fs_rules_space_for (const FerryFsRules *rules, guint64 size);   /* size rounded up to whole clusters (0 stays 0) */
guint64 ferry_fs_rules_entry_space (const FerryFsRules *rules, guint64 name_units);
guint64 ferry_fs_rules_file_space (const FerryFsRules *rules, guint64 size, guint64 name_units);
guint ferry_fs_rules_fat_entries (const char *name);
void ferry_fs_rules_clamp_time (const FerryFsRules *rules, struct timespec *time); /* into the range the drive stores */
gboolean ferry_fs_rules_same_time (const FerryFsRules *rules, const struct timespec *a, const struct timespec *b); /* equal at the filesystem's granularity (FAT: 2 s, rounding as FAT stores it) */

G_END_DECLS
