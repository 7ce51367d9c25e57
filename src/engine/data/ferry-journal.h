/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-fs-id.h"

G_BEGIN_DECLS

#define FERRY_TYPE_JOURNAL (ferry_journal_get_type ())
#define FERRY_JOURNAL_ERROR (ferry_journal_error_quark ())

/* Why a journal there is cannot be read back: only a disk fault or a
 * person damages one, for it is written whole and renamed. */
typedef enum
{
  FERRY_JOURNAL_ERROR_EMPTY,      /* no byte in it */
  FERRY_JOURNAL_ERROR_GARBLED,    /* no text a Ferry wrote */
  FERRY_JOURNAL_ERROR_INCOMPLETE, /* without what every whole journal says (cut short) */
} FerryJournalError;

GQuark ferry_journal_error_quark (void);

G_DECLARE_FINAL_TYPE (FerryJournal, ferry_journal, FERRY, JOURNAL, GObject)

/* What a source file was when it was copied: a copy is trusted again
 * only while its source still is that. */
typedef struct
{
  guint64 size;
  gint64 mtime_sec;
  gint64 mtime_nsec;
} FerryJournalStamp;

/* A file whose data was on its way: its hidden temporary name in its
 * folder and how much of it a durability point covered. */
typedef struct
{
  char *temp_name;
  guint64 durable;
  FerryJournalStamp stamp;
} FerryJournalInFlight;

/* Files at least this large that go to a slow device get a temporary
 * name the journal knows, to continue from where the device has them. */
#define FERRY_JOURNAL_RESUMABLE_MIN (8 * 1024 * 1024)

char *ferry_journal_dir (void);
char *ferry_journal_id_for (const char *const *sources, const char *destination);
gboolean ferry_journal_records_temp (const char *id, const char *temp_name);
GStrv ferry_journal_list_ids (void);

FerryJournal *ferry_journal_new (const char *id);
FerryJournal *ferry_journal_load (const char *id, GError **error);
FerryJournal *ferry_journal_load_file (const char *path, const char *id, GError **error);
const char *ferry_journal_get_id (FerryJournal *self);
void ferry_journal_set_choices (FerryJournal *self, GHashTable *choices);
const char *ferry_journal_get_choice (FerryJournal *self, const char *option);

void ferry_journal_set_transfer (FerryJournal *self,
                                 const char *const *sources,
                                 const char *destination,
                                 const FerryFsId *filesystem);
void ferry_journal_set_names_copy (FerryJournal *self, gboolean names_copy);
gboolean ferry_journal_get_names_copy (FerryJournal *self);
const char *const *ferry_journal_get_sources (FerryJournal *self);
const char *ferry_journal_get_destination (FerryJournal *self);
const FerryFsId *ferry_journal_get_filesystem (FerryJournal *self);
char *ferry_journal_find_destination (FerryJournal *self);
gboolean ferry_journal_is_of_place (FerryJournal *self,
                                    const char *destination,
                                    const FerryFsId *filesystem,
                                    const char *mount_point);
guint64 ferry_journal_get_bytes_total (FerryJournal *self);
guint64 ferry_journal_get_bytes_durable (FerryJournal *self);

gboolean ferry_journal_find_complete (FerryJournal *self,
                                      const char *relpath,
                                      FerryJournalStamp *stamp);
gboolean ferry_journal_find_in_flight (FerryJournal *self,
                                       const char *relpath,
                                       FerryJournalInFlight *in_flight);
GStrv ferry_journal_dup_temp_paths (FerryJournal *self);
guint64 ferry_journal_get_bytes_complete (FerryJournal *self);
guint ferry_journal_get_files_complete (FerryJournal *self);
void ferry_journal_in_flight_clear (FerryJournalInFlight *in_flight);

void ferry_journal_begin_file (FerryJournal *self,
                               const char *relpath,
                               const char *temp_name,
                               const FerryJournalStamp *stamp,
                               guint64 durable);
void ferry_journal_wrote (FerryJournal *self, const char *relpath, guint64 end);
void ferry_journal_drop_file (FerryJournal *self, const char *relpath);
void ferry_journal_complete (FerryJournal *self,
                             const char *relpath,
                             const FerryJournalStamp *stamp);

void ferry_journal_hold_complete (FerryJournal *self,
                                  gconstpointer folder,
                                  const char *relpath,
                                  const FerryJournalStamp *stamp);
void ferry_journal_release_held (FerryJournal *self, gconstpointer folder, gboolean named);

void ferry_journal_point_started (FerryJournal *self);
void ferry_journal_point_done (FerryJournal *self, guint64 bytes_placed, guint64 bytes_total);
void ferry_journal_wait_saved (FerryJournal *self);
void ferry_journal_save_at_stop (FerryJournal *self, guint64 bytes_total);
gboolean ferry_journal_hold_transfer (const char *id,
                                      const char *destination,
                                      int *lock_fd,
                                      GError **error);
void ferry_journal_let_go_transfer (const char *id, int lock_fd);
GError *ferry_journal_dup_save_error (FerryJournal *self);
gboolean ferry_journal_save (FerryJournal *self, GError **error);
void ferry_journal_remove (FerryJournal *self);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryJournalInFlight, ferry_journal_in_flight_clear)

G_END_DECLS
