/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-job.h"

G_BEGIN_DECLS

#define FERRY_TYPE_UNFINISHED (ferry_unfinished_get_type ())

/**
 * FerryChoices:
 * The options of a job that a person chose for its transfer (on a
 * command line) rather than left to what the moment gives: a run that
 * continues the transfer chooses the same. A policy that asks is no
 * choice a later run could make for the person, and is not kept.
 */
typedef enum
{
  FERRY_CHOICE_NONE = 0,
  FERRY_CHOICE_CONFLICT = 1 << 0,    /* FerryJob:conflict-policy */
  FERRY_CHOICE_UNSUPPORTED = 1 << 1, /* FerryJob:unsupported-policy */
  FERRY_CHOICE_PRESERVE = 1 << 2,    /* FerryJob:preserve */
  FERRY_CHOICE_VERIFY = 1 << 3,      /* FerryJob:verify */
} FerryChoices;

/**
 * FerryUnfinished:
 * A transfer cut short (killed, or its drive pulled out) that can be
 * continued where the data on its drive ends: what it copies where,
 * how much of it is on the drive, and whether that drive (the same
 * filesystem, not merely one with the same label) is plugged in now.
 * One whose journal is damaged says only its ID and what is wrong with
 * it (ferry_unfinished_get_damage()), and can only be discarded.
 */
G_DECLARE_FINAL_TYPE (FerryUnfinished, ferry_unfinished, FERRY, UNFINISHED, GObject)

GPtrArray *ferry_unfinished_list (void);
GPtrArray *ferry_unfinished_list_damaged (void);
FerryUnfinished *ferry_unfinished_lookup (const char *id, GError **error);

const char *ferry_unfinished_get_id (FerryUnfinished *self);
const char *ferry_unfinished_get_damage (FerryUnfinished *self);
const char *const *ferry_unfinished_get_sources (FerryUnfinished *self);
const char *ferry_unfinished_get_destination (FerryUnfinished *self);
const char *ferry_unfinished_get_label (FerryUnfinished *self);
guint64 ferry_unfinished_get_bytes_durable (FerryUnfinished *self);
guint64 ferry_unfinished_get_bytes_total (FerryUnfinished *self);
gboolean ferry_unfinished_is_present (FerryUnfinished *self);

gboolean ferry_unfinished_is_of_job (FerryUnfinished *self, FerryJob *job);
FerryJob *ferry_unfinished_new_job (FerryUnfinished *self);
void ferry_unfinished_continue_choices (FerryUnfinished *self, FerryJob *job, FerryChoices given);
void ferry_unfinished_keep_choices (FerryJob *job, FerryChoices chosen);
void ferry_unfinished_discard (FerryUnfinished *self);

G_END_DECLS
