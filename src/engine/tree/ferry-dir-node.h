/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>
#include <sys/stat.h>

G_BEGIN_DECLS

typedef struct _FerryDirNode FerryDirNode;

/**
 * FerryDirNode:
 * One folder of the tree being copied, alive from the moment it is found
 * until everything inside it is copied; then its own metadata is applied
 * (so copying its children cannot disturb its times) and it lets go of
 * its parent. A root node stands for the folders that hold a source and
 * its copy: it is never created or changed, only named.
 *
 * Nodes keep only names; paths are rebuilt from the chain when a message
 * needs one, so memory does not grow with the depth of the tree.
 */
struct _FerryDirNode
{
  FerryDirNode *parent;
  char *src_name; /* in the parent's source folder */
  char *dst_name; /* in the parent's destination folder */
  int src_fd;
  int dst_fd;
  struct stat src_st;
  gboolean created; /* Ferry made the destination folder */
  gboolean takes_metadata; /* made, or merged into one the job may change: gets the source's */
  gboolean fresh;   /* it was empty when made: nothing inside can conflict */
  gint pending;     /* its own listing plus unfinished child folders */
  gboolean failed;  /* reported as failed, which counted it as handled */
  gboolean dst_shapes_new; /* setgid or a default ACL: what is made inside gets its group or mode */
  mode_t made_mode; /* made so by this process, its own, nothing shaping it; or 0 */
  char *hidden_name; /* made under this hidden name, until all inside is durable; or NULL */
  FerryDirNode *hidden_top; /* the hidden folder it is (or is inside), or NULL */
  gboolean hidden_in_parts; /* hidden while it holds only files, named once a bounded part is in */
  guint64 hidden_charge; /* what its files cost a run that must copy them again */
  gint hidden_done; /* entries inside counted copied, which its loss takes back */
  atomic_uint_fast64_t hidden_bytes; /* in files named inside: in place once it has its name */
  guint64 hidden_ticket; /* its files all in: the sync its name waits for */
  gint removed_by_copy; /* the copy removed it (a hidden folder that could not get its name) */

  /* roots only */
  char *src_base;
  char *dst_base;
};

FerryDirNode *ferry_dir_node_new_root (int src_parent_fd,
                                       const char *src_parent_path,
                                       int dst_fd,
                                       const char *dst_path);
FerryDirNode *ferry_dir_node_new_child (FerryDirNode *parent,
                                        const char *src_name,
                                        const char *dst_name);
void ferry_dir_node_free (FerryDirNode *node);

gboolean ferry_dir_node_is_root (const FerryDirNode *node);
FerryDirNode *ferry_dir_node_get_root (FerryDirNode *node);
char *ferry_dir_node_src_path (const FerryDirNode *node, const char *name);
char *ferry_dir_node_dst_path (const FerryDirNode *node, const char *name);
const char *ferry_dir_node_dst_name_now (const FerryDirNode *node);
char *ferry_dir_node_dst_relpath (const FerryDirNode *node, const char *name);
char *ferry_dir_node_dst_final_relpath (const FerryDirNode *node, const char *name);
char *ferry_dir_node_path (const FerryDirNode *node, const char *name, gboolean source);

G_END_DECLS
