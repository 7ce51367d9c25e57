/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_APPLICATION (ferry_fake_application_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeApplication,
                      ferry_fake_application,
                      FERRY,
                      FAKE_APPLICATION,
                      GObject)

FerryFakeApplication *ferry_fake_application_new (const char *bus_address);
void ferry_fake_application_hold_replies (FerryFakeApplication *self);
void ferry_fake_application_release_replies (FerryFakeApplication *self);
guint ferry_fake_application_get_n_calls (FerryFakeApplication *self);
guint ferry_fake_application_get_n_replied (FerryFakeApplication *self);
GVariant *ferry_fake_application_dup_call (FerryFakeApplication *self, guint index, char **method);

G_END_DECLS
