/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "ferry-dir-node.h"
#include "ferry-fs.h"

/* A root lends its descriptors: whoever made them keeps them open until
 * the node is freed, and closes them. */
FerryDirNode *
ferry_dir_node_new_root (int src_parent_fd,
                         const char *src_parent_path,
                         int dst_fd,
                         const char *dst_path)
{
  FerryDirNode *node = g_new0 (FerryDirNode, 1);

  node->src_fd = src_parent_fd;
  node->dst_fd = dst_fd;
  node->src_base = g_strdup (src_parent_path);
  node->dst_base = g_strdup (dst_path);
  node->pending = 1;
  return node;
}

FerryDirNode *
ferry_dir_node_new_child (FerryDirNode *parent, const char *src_name, const char *dst_name)
{
  FerryDirNode *node = g_new0 (FerryDirNode, 1);

  node->parent = parent;
  node->src_name = g_strdup (src_name);
  node->dst_name = g_strdup (dst_name);
  node->src_fd = -1;
  node->dst_fd = -1;
  node->pending = 1;
  return node;
}

void
ferry_dir_node_free (FerryDirNode *node)
{
  /* A root's are the plan's, lent (ferry_dir_node_new_root()). */
  if (!ferry_dir_node_is_root (node))
    {
      ferry_fd_closep (&node->src_fd);
      ferry_fd_closep (&node->dst_fd);
    }
  g_free (node->src_name);
  g_free (node->dst_name);
  g_free (node->src_base);
  g_free (node->dst_base);
  g_free (node->hidden_name);
  g_free (node);
}

gboolean
ferry_dir_node_is_root (const FerryDirNode *node)
{
  return node->parent == NULL;
}

FerryDirNode *
ferry_dir_node_get_root (FerryDirNode *node)
{
  while (node->parent != NULL)
    node = node->parent;
  return node;
}

static void
append_name (GString *path, const char *name)
{
  /* "." is a source folder opened as itself, or the destination folder
   * itself: it adds nothing to a path. */
  if (strcmp (name, ".") == 0)
    return;
  if (path->len > 0 && path->str[path->len - 1] != '/')
    g_string_append_c (path, '/');
  g_string_append (path, name);
}

/* The name the folder has in its parent's destination folder now: its
 * hidden one while it is being built whole. */
const char *
ferry_dir_node_dst_name_now (const FerryDirNode *node)
{
  return node->hidden_name != NULL ? node->hidden_name : node->dst_name;
}

typedef enum
{
  PATH_SOURCE,       /* from the source's base */
  PATH_DESTINATION,  /* from the destination's base, final names: for a person */
  PATH_BELOW_NOW,    /* below the destination folder, names as they are now */
  PATH_BELOW_FINAL,  /* below the destination folder, final names */
} PathKind;

static const char *
name_in_path (const FerryDirNode *node, PathKind kind)
{
  if (kind == PATH_SOURCE)
    return node->src_name;
  return kind == PATH_BELOW_NOW ? ferry_dir_node_dst_name_now (node) : node->dst_name;
}

/* Joins the names from the root down to @node, then @name. */
static char *
build_path (const FerryDirNode *node, const char *name, PathKind kind)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  GString *path = g_string_new (NULL);

  for (const FerryDirNode *n = node; n->parent != NULL; n = n->parent)
    g_ptr_array_add (parts, (char *) name_in_path (n, kind));

  if (kind == PATH_SOURCE || kind == PATH_DESTINATION)
    {
      const FerryDirNode *root = node;
      while (root->parent != NULL)
        root = root->parent;
      g_string_append (path, kind == PATH_SOURCE ? root->src_base : root->dst_base);
    }

  for (guint i = parts->len; i > 0; i--)
    append_name (path, g_ptr_array_index (parts, i - 1));
  if (name != NULL)
    append_name (path, name);
  return g_string_free (path, FALSE);
}

char *
ferry_dir_node_src_path (const FerryDirNode *node, const char *name)
{
  return build_path (node, name, PATH_SOURCE);
}

char *
ferry_dir_node_dst_path (const FerryDirNode *node, const char *name)
{
  return build_path (node, name, PATH_DESTINATION);
}

char *
ferry_dir_node_path (const FerryDirNode *node, const char *name, gboolean source)
{
  return build_path (node, name, source ? PATH_SOURCE : PATH_DESTINATION);
}

/* The path of @name below the root's destination folder, as linkat()
 * needs it to make a second hard link to a file already copied. */
char *
ferry_dir_node_dst_relpath (const FerryDirNode *node, const char *name)
{
  return build_path (node, name, PATH_BELOW_NOW);
}

/* The same path once every hidden folder on it has its own name. */
char *
ferry_dir_node_dst_final_relpath (const FerryDirNode *node, const char *name)
{
  return build_path (node, name, PATH_BELOW_FINAL);
}
