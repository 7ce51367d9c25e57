/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdatomic.h>

#include "ferry-copy-target.h"

G_BEGIN_DECLS

/* What a job learnt about sharing extents on its destination. */
typedef struct
{
  atomic_bool unsupported; /* the filesystem (pair) cannot: stop trying */
  atomic_bool used;        /* at least one file shared its extents */
} FerryReflink;

gboolean ferry_reflink_copy (FerryReflink *self,
                             FerryCopyTarget *target,
                             FerryFileCopy *fc,
                             gboolean *done,
                             GError **error);

G_END_DECLS
