/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FERRY_ADAPT_RENAME, /* the copy gets another name */
  FERRY_ADAPT_FOLLOW, /* a symlink: copy the file it points to */
  FERRY_ADAPT_SKIP,   /* not copied */
} FerryAdaptKind;

typedef struct
{
  FerryAdaptKind kind;
  char *dst_name; /* RENAME and FOLLOW: the copy's name */
} FerryAdaptation;

typedef struct _FerryAdaptations FerryAdaptations;

FerryAdaptations *ferry_adaptations_new (void);
void ferry_adaptations_free (FerryAdaptations *self);
void ferry_adaptations_add (FerryAdaptations *self,
                            const char *src_path,
                            FerryAdaptKind kind,
                            const char *dst_name);
const FerryAdaptation *ferry_adaptations_lookup (FerryAdaptations *self, const char *src_path);
guint ferry_adaptations_size (FerryAdaptations *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryAdaptations, ferry_adaptations_free)

G_END_DECLS
