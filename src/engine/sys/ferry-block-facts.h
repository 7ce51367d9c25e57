/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* What the block device beneath a mounted filesystem says of it: read by
 * libblkid where the device can be read (root, the "disk" group), else
 * what udev's own probe recorded. */
typedef struct
{
  char *type;          /* "vfat", "exfat", "ntfs", "ext4", ...; NULL when unknown */
  char *uuid;          /* NULL when the filesystem has none, or it is unknown */
  char *label;         /* NULL when it has none, or it is unknown */
  guint64 fat_cluster; /* FAT only, from its boot sector; 0 when not read */
  guint fat_root_entries; /* FAT12 and FAT16: how many entries the top folder holds (from the
                           * boot sector, else 512 where udev says FAT16); 0 for FAT32 or
                           * when not known */
} FerryBlockFacts;

gboolean ferry_block_facts_read (FerryBlockFacts *facts, dev_t dev, const char *source);
gboolean ferry_block_is_write_protected (dev_t dev, const char *source);
gboolean ferry_block_ext4_kept_clusters (dev_t dev, guint64 *clusters);
void ferry_block_facts_clear (FerryBlockFacts *facts);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryBlockFacts, ferry_block_facts_clear)

G_END_DECLS
