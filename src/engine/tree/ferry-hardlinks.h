/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>

#include "ferry-fs.h"

G_BEGIN_DECLS

typedef struct _FerryHardlinks FerryHardlinks;

FerryHardlinks *ferry_hardlinks_new (void);
void ferry_hardlinks_free (FerryHardlinks *self);

char **ferry_hardlinks_claim (FerryHardlinks *self, const struct stat *st, FerryInodeKey *copy);
void ferry_hardlinks_copied (FerryHardlinks *self,
                             const struct stat *st,
                             const char *const *relpaths,
                             const FerryInodeKey *copy);
void ferry_hardlinks_release (FerryHardlinks *self, const struct stat *st);

G_END_DECLS
